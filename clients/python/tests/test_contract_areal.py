"""Contract tests of minedit_client.areal against AReaL's own rollout path (inclusionAI/AReaL v1.0.4, commit
37d6c6400e; the same code at HEAD 4aef98d8), against the real server (see support.py).

AReaL (torch, SGLang/vLLM, Ray) cannot be installed here. This module installs a stand-in ``areal`` package
in ``sys.modules`` holding what minedit_client.areal imports, each piece paraphrased from its file at that
commit (numpy arrays for torch tensors):

- ``areal.api.RolloutWorkflow`` (areal/api/workflow_api.py) and ``AsyncRewardWrapper``
  (areal/api/reward_api.py: a ProcessPoolExecutor of (cpus / devices) / 2 processes, ``wait_for`` 15 s,
  3 retries, then 0);
- ``areal.workflow.rlvr.RLVRWorkflow`` (areal/workflow/rlvr.py): chat template, one completion per episode,
  ``await self.async_reward_fn(prompt_str, completions_str, input_tokens, output_tokens, **data)``, the
  ``reward`` stat, a tensor dict with batch dimension 1;
- ``areal.utils.stats_tracker``, ``areal.workflow_context`` (``rollout`` / ``eval-rollout`` scopes).

and reproduces what AReaL does around the workflow: ``import_from_string`` (areal/utils/dynamic_import.py),
``RemoteInfEngine._resolve_workflow`` and ``GroupedRolloutWorkflow`` (areal/infra/remote_inf_engine.py: n
episodes by ``asyncio.gather``, ``None`` dropped, all ``None`` -> ``None``), the executor's
``_execute_workflow`` (areal/infra/workflow_executor.py: ``None`` or an exception rejects), many groups at
once on one event loop, ``concat_padded_tensors`` and the group-level ``Normalization``
(areal/utils/data.py) as ``PPOActor._compute_advantages`` applies it to the rewards
(areal/trainer/ppo/actor.py, with examples/math/gsm8k_grpo.yaml's reward_scaling 10, reward_bias -0.5,
reward_norm group/group). The assertions are on AReaL's consequences: which groups reach the batch, row
alignment, the normalized reward and loss mask of a masked sample. Setup: Debian's python3-numpy.
"""

import abc
import ast
import asyncio
import contextvars
import importlib
import inspect
import os
import re
import subprocess
import sys
import time
import types
import unittest
import uuid
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from support import BROKEN_INLINE_TASK, CORRUPTED, GOLD, INFRA_TASK_ID, SLEEPER, TARGET, TASK, TASK_ID, TOKEN, free_port

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "areal", "minedit_grpo.py")
WORKFLOW = "minedit_client.areal.MineditRLVRWorkflow"
FAILURE = -0.2
GROUP = 4
# The marker of a completion whose sandbox breaks (see FaultyScorer).
SANDBOX_FAULT = "\n# the sandbox breaks on this one\n"
UNREACHABLE = "\n# the server is unreachable for this one\n"

# ---- the stand-in areal package -------------------------------------------------------------------------


class Tokenizer:
    """A word-piece stand-in for a Hugging Face tokenizer; id 1 is the EOS ``<|im_end|>``, which
    ``decode`` keeps (RLVRWorkflow decodes without skip_special_tokens)."""

    eos_token_id, pad_token_id = 1, 0

    def __init__(self) -> None:
        self.vocab = ["<pad>", "<|im_end|>"]
        self.ids = {}

    def encode(self, text):
        out = []
        for piece in re.findall(r"\s+|\S+", text):
            if piece not in self.ids:
                self.ids[piece] = len(self.vocab)
                self.vocab.append(piece)
            out.append(self.ids[piece])
        return out

    def decode(self, ids):
        return "".join(self.vocab[i] for i in ids)

    def apply_chat_template(self, messages, tokenize=True, add_generation_prompt=True, enable_thinking=False):
        text = "".join(f"<|im_start|>{m['role']}\n{m['content']}\n" for m in messages)
        text += "<|im_start|>assistant\n" if add_generation_prompt else ""
        return self.encode(text) if tokenize else text


TOKENIZER = Tokenizer()


@dataclass
class GenerationHyperparameters:  # areal/api/cli_args.py
    n_samples: int = 1
    max_new_tokens: int = 1024
    stop_token_ids: list = field(default_factory=list)

    def new(self, **kwargs):
        return replace(self, **kwargs)

    def new_with_stop_and_pad_token_ids(self, tokenizer):
        return self.new(stop_token_ids=[tokenizer.eos_token_id, tokenizer.pad_token_id])


@dataclass
class ModelRequest:  # areal/api/io_struct.py
    rid: str = ""
    input_ids: list = field(default_factory=list)
    gconfig: GenerationHyperparameters = field(default_factory=GenerationHyperparameters)
    tokenizer: object = None


@dataclass
class ModelResponse:  # areal/api/io_struct.py
    input_tokens: list = field(default_factory=list)
    output_tokens: list = field(default_factory=list)
    output_logprobs: list = field(default_factory=list)
    output_versions: list = field(default_factory=list)

    @property
    def input_len(self):
        return len(self.input_tokens)

    @property
    def output_len(self):
        return len(self.output_tokens)


class RolloutWorkflow(abc.ABC):  # areal/api/workflow_api.py
    @abc.abstractmethod
    async def arun_episode(self, engine, data):
        """None rejects the trajectory."""


class AsyncRewardWrapper:
    """areal/api/reward_api.py: the sync reward in a shared process pool, 15 s per try, 0 at the end."""

    executors = {}
    timeouts = 0

    def __init__(self, reward_fn, timeout_seconds=15, max_workers=None, max_retries=3) -> None:
        self.reward_fn, self.timeout_seconds, self.max_retries = reward_fn, timeout_seconds, max_retries
        if max_workers is None:
            # _get_device_count_safely: no /dev/nvidia* here, so its fallback of 8 devices.
            max_workers = max(((os.cpu_count() or 1) // 8) // 2, 1)
        if max_workers not in self.executors:
            self.executors[max_workers] = ProcessPoolExecutor(max_workers=max_workers)
        self.executor = self.executors[max_workers]

    async def __call__(self, *args, **kwargs):
        for attempt in range(self.max_retries + 1):
            loop = asyncio.get_event_loop()
            try:
                future = loop.run_in_executor(self.executor, partial(self.reward_fn, *args, **kwargs))
                return await asyncio.wait_for(future, timeout=self.timeout_seconds)
            except TimeoutError:
                AsyncRewardWrapper.timeouts += 1
                if attempt < self.max_retries:
                    continue
                return 0
            except Exception:
                if attempt < self.max_retries:
                    continue
                raise


STATS = []  # (scope, {key: value}) as stats_tracker received them
_CONTEXT = contextvars.ContextVar("workflow_context")


class _Scope:
    def __init__(self, scope) -> None:
        self.scope = scope

    def scalar(self, **values):
        STATS.append((self.scope, values))


def stat_scope():  # areal/infra/workflow_context.py
    return "eval-rollout" if _CONTEXT.get() else "rollout"


def import_from_string(path):  # areal/utils/dynamic_import.py
    module_name, object_name = path.rsplit(".", 1)
    return getattr(importlib.import_module(module_name), object_name)


class RLVRWorkflow(RolloutWorkflow):
    """areal/workflow/rlvr.py, paraphrased (its trace decorators are pass-through wrappers)."""

    def __init__(self, reward_fn, gconfig, tokenizer, enable_thinking=False,
                 get_input_ids_fn=None, data_extract_prompt_fn=None) -> None:
        self.reward_fn = reward_fn
        self.tokenizer = TOKENIZER if isinstance(tokenizer, str) else tokenizer  # load_hf_tokenizer(path)
        self.gconfig = gconfig.new_with_stop_and_pad_token_ids(self.tokenizer)
        self.enable_thinking = enable_thinking
        if not isinstance(reward_fn, str):
            self.async_reward_fn = AsyncRewardWrapper(reward_fn)
        self.get_input_ids_fn = get_input_ids_fn or (
            lambda data, tok, thinking: tok.apply_chat_template(data, tokenize=True, add_generation_prompt=True,
                                                                enable_thinking=thinking)
        )
        self.data_extract_prompt_fn = data_extract_prompt_fn or (lambda data: data["messages"])
        if isinstance(self.data_extract_prompt_fn, str):
            self.data_extract_prompt_fn = import_from_string(self.data_extract_prompt_fn)

    async def _compute_rewards(self, resp, prompt_str, task_data):
        completions_str = self.tokenizer.decode(resp.output_tokens)
        return await self.async_reward_fn(prompt_str, completions_str, resp.input_tokens, resp.output_tokens,
                                          **task_data)

    async def _collect_samples(self, engine, req, prompt_str, task_data):
        resp = await engine.agenerate(req)
        reward = await self._compute_rewards(resp, prompt_str, task_data)
        _Scope(stat_scope()).scalar(reward=reward)
        return resp, reward

    async def arun_episode(self, engine, data):
        if isinstance(self.reward_fn, str):
            self.reward_fn = import_from_string(self.reward_fn)
            self.async_reward_fn = AsyncRewardWrapper(self.reward_fn)
        input_ids = self.get_input_ids_fn(self.data_extract_prompt_fn(data), self.tokenizer, self.enable_thinking)
        req = ModelRequest(rid=uuid.uuid4().hex, input_ids=input_ids, gconfig=self.gconfig.new(n_samples=1),
                           tokenizer=self.tokenizer)
        prompt_str = self.tokenizer.decode(input_ids)
        resp, reward = await self._collect_samples(engine, req, prompt_str, data)
        seq = resp.input_tokens + resp.output_tokens
        res = {
            "input_ids": np.array(seq, dtype=np.int32),
            "loss_mask": np.array([0] * resp.input_len + [1] * resp.output_len, dtype=np.int32),
            "logprobs": np.array([0.0] * resp.input_len + resp.output_logprobs, dtype=np.float32),
            "versions": np.array([-1] * resp.input_len + resp.output_versions, dtype=np.int32),
            "attention_mask": np.ones(len(seq), dtype=bool),
            "rewards": np.array(reward, dtype=np.float32),
        }
        return {k: v[None] for k, v in res.items()}


def install_areal() -> None:
    def module(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        sys.modules[name] = m
        return m

    stats_tracker = module("areal.utils.stats_tracker", get=_Scope)
    workflow_context = module("areal.infra.workflow_context", stat_scope=stat_scope)
    module("areal", workflow_context=workflow_context, __path__=[])
    module("areal.utils", stats_tracker=stats_tracker, __path__=[])
    module("areal.api", RolloutWorkflow=RolloutWorkflow, AsyncRewardWrapper=AsyncRewardWrapper,
           ModelRequest=ModelRequest, ModelResponse=ModelResponse, __path__=[])
    module("areal.workflow", __path__=[])
    module("areal.workflow.rlvr", RLVRWorkflow=RLVRWorkflow)


def setUpModule() -> None:
    install_areal()


def tearDownModule() -> None:
    for executor in AsyncRewardWrapper.executors.values():
        executor.shutdown(wait=True)
    for name in [n for n in sys.modules if n == "areal" or n.startswith("areal.")]:
        del sys.modules[name]


# ---- AReaL around the workflow ------------------------------------------------------------------------------


def resolve_workflow(workflow, workflow_kwargs, group_size):
    """RemoteInfEngine._resolve_workflow (remote_inf_engine.py:541), string path branch."""
    try:
        imported = import_from_string(workflow)
    except (ValueError, ImportError, AttributeError) as e:
        raise ValueError(f"Failed to import workflow from string {workflow!r}: {e}") from e
    if not (isinstance(imported, type) and issubclass(imported, RolloutWorkflow)):
        raise AssertionError("AReaL would treat it as an agent workflow (needs a proxy)")
    resolved = imported(**workflow_kwargs)
    return GroupedRolloutWorkflow(resolved, group_size) if group_size > 1 else resolved


def concat_padded_tensors(dicts):
    """areal/utils/data.py: right-pad every non-batch dimension with 0, concatenate along dim 0."""
    if len(dicts) == 1:
        return dict(dicts[0])
    out = {}
    for key in dicts[0]:
        values = [d[key] for d in dicts]
        width = max(v.shape[1] for v in values) if values[0].ndim > 1 else None
        if width is not None:
            values = [np.pad(v, ((0, 0), (0, width - v.shape[1]))) for v in values]
        out[key] = np.concatenate(values, axis=0)
    return out


class GroupedRolloutWorkflow(RolloutWorkflow):  # remote_inf_engine.py:70
    def __init__(self, workflow, group_size) -> None:
        self.workflow, self.group_size = workflow, group_size

    async def arun_episode(self, engine, data):
        results = await asyncio.gather(*[self.workflow.arun_episode(engine, data) for _ in range(self.group_size)])
        valid = [r for r in results if r is not None]
        return concat_padded_tensors(valid) if valid else None


async def execute(workflow, engine, data, is_eval, failures):
    """WorkflowExecutor._execute_workflow (workflow_executor.py:1034): None or an exception rejects."""
    _CONTEXT.set(is_eval)
    try:
        return await workflow.arun_episode(engine, data)
    except Exception as exc:  # logged by AReaL ("Workflow execution failed"), the rollout rejected
        failures.append(exc)
        return None


def group_normalize(x, group_size, eps=1e-5):
    """Normalization(mean_level="group", std_level="group", std_unbiased=True) on rewards
    (areal/utils/data.py:1396): fixed slices of group_size rows; rows past the last whole slice keep mean 0
    and std 0."""
    x = np.asarray(x, dtype=np.float64)
    mean, std = np.zeros_like(x), np.zeros_like(x)
    for i in range(x.shape[0] // group_size):
        s = slice(i * group_size, (i + 1) * group_size)
        mean[s] = x[s].mean()
        std[s] = x[s].std(ddof=1)
    return (x - mean) / (std + eps)


def normalized_rewards(batch):
    """PPOActor._compute_advantages' reward part with gsm8k_grpo.yaml: (r - 0.5) * 10, then reward_norm."""
    return group_normalize((batch["rewards"] - 0.5) * 10.0, GROUP)


class Engine:
    """An inference engine that answers each prompt with its planned completions, one per request."""

    def __init__(self, plans) -> None:
        self.plans = {render(messages): iter(completions) for messages, completions in plans}

    async def agenerate(self, req):
        await asyncio.sleep(0)
        out = TOKENIZER.encode(next(self.plans[TOKENIZER.decode(req.input_ids)])) + [TOKENIZER.eos_token_id]
        return ModelResponse(list(req.input_ids), out, [-0.5] * len(out), [0] * len(out))


def render(messages):
    return TOKENIZER.apply_chat_template(messages, tokenize=False)


def row(i, **task):
    messages = [{"role": "system", "content": "Repair it."}, {"role": "user", "content": f"program {i}"}]
    return {"prompt": messages, "problem_id": f"p{i}", **task}


def workflow_kwargs(**extra):
    base = dict(gconfig=GenerationHyperparameters(n_samples=GROUP), tokenizer="Qwen/Qwen2.5-Coder-0.5B-Instruct",
                minedit_target=TARGET, minedit_token=TOKEN)
    return {**base, **extra}


def rollout(rows, completions, is_eval=False, **extra):
    """Every row's group at once on one loop (the executor's runner), as AReaL's prepare_batch does."""
    import minedit_client.areal as minedit_areal

    workflow = resolve_workflow(WORKFLOW, workflow_kwargs(**extra), GROUP)
    engine = Engine([(r["prompt"], c) for r, c in zip(rows, completions)])
    failures = []

    async def run():
        return await asyncio.gather(*[execute(workflow, engine, r, is_eval, failures) for r in rows])

    del STATS[:]
    results = asyncio.run(run())
    accepted = [r for r in results if r is not None]
    assert not minedit_areal._rounds, minedit_areal._rounds  # every round closed: no episode waits forever
    return results, (concat_padded_tensors(accepted) if accepted else None), failures


class FaultyScorer:
    """The real scorer, except that a completion marked SANDBOX_FAULT is scored against the task with
    unusable tests (the server answers INFRA_ERROR, as when the sandbox breaks on one sample of a group),
    and one marked UNREACHABLE fails as a call to an unreachable server does."""

    def __init__(self, scorer) -> None:
        self.scorer = scorer
        self.stats = scorer.stats

    def submit(self, rollout):
        from concurrent.futures import Future

        from minedit_client import MineditError

        if SANDBOX_FAULT in rollout.completion:
            return self.scorer.submit(replace(rollout, task_id=INFRA_TASK_ID))
        if UNREACHABLE in rollout.completion:
            failed = Future()
            failed.set_exception(MineditError(__import__("grpc").StatusCode.UNAVAILABLE, "connection refused"))
            return failed
        return self.scorer.submit(rollout)


def stats_of(key):
    return [values[key] for scope, values in STATS if key in values]


# ---- the tests ---------------------------------------------------------------------------------------------


class LoadingTest(unittest.TestCase):
    def test_the_module_imports_without_areal(self) -> None:
        code = (
            "import minedit_client.areal as m, inspect\n"
            "print(list(inspect.signature(m.reward_fn).parameters))\n"
            "try:\n    m.MineditRLVRWorkflow\nexcept ImportError as e:\n    print('ImportError', e)\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             cwd=os.path.join(HERE, "..")).stdout
        self.assertIn("['prompt', 'completions', 'prompt_ids', 'completion_ids', 'data']", out)
        self.assertIn("ImportError minedit_client.areal.MineditRLVRWorkflow subclasses AReaL's RLVRWorkflow", out)

    def test_the_example_resolves_to_a_grouped_rollout_workflow(self) -> None:
        # The example's trainer.train(workflow=..., workflow_kwargs=dict(...)), read from its source.
        call = next(
            n for n in ast.walk(ast.parse(open(EXAMPLE).read()))
            if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "train"
        )
        given = {k.arg: k.value for k in call.keywords}
        self.assertEqual(ast.literal_eval(given["workflow"]), WORKFLOW)
        kwarg_names = [k.arg for k in given["workflow_kwargs"].keywords]
        self.assertEqual(kwarg_names, ["gconfig", "tokenizer"])
        workflow = resolve_workflow(WORKFLOW, workflow_kwargs(), GROUP)
        self.assertIsInstance(workflow, GroupedRolloutWorkflow)
        inner = workflow.workflow
        self.assertIsInstance(inner, RLVRWorkflow)
        self.assertEqual(type(inner).__module__, "minedit_client.areal")
        # RLVRWorkflow's own keyword arguments are accepted, reward_fn is not (minedit is the reward).
        params = inspect.signature(type(inner)).parameters
        self.assertTrue({"gconfig", "tokenizer", "enable_thinking", "get_input_ids_fn",
                         "data_extract_prompt_fn"} <= set(params))
        with self.assertRaises(TypeError):
            resolve_workflow(WORKFLOW, workflow_kwargs(reward_fn="areal.reward.gsm8k.gsm8k_reward_fn"), GROUP)


class WorkflowTest(unittest.TestCase):
    def test_groups_are_scored_and_normalized(self) -> None:
        rows = [row(i, task_id=TASK_ID) for i in range(3)]
        results, batch, failures = rollout(rows, [[GOLD, CORRUPTED, GOLD, CORRUPTED]] * 3)
        self.assertEqual(failures, [])
        np.testing.assert_allclose(batch["rewards"], [0.1, FAILURE, 0.1, FAILURE] * 3, atol=1e-6)
        normalized = normalized_rewards(batch)
        self.assertTrue(all(normalized[0::2] > 0) and all(normalized[1::2] < 0))
        self.assertEqual(sorted(stats_of("minedit_passed")), [0.0] * 6 + [1.0] * 6)
        self.assertEqual({scope for scope, _ in STATS}, {"rollout"})
        # The reward was awaited, not sent to AReaL's process pool: it never started a process.
        self.assertTrue(all(not e._processes for e in AsyncRewardWrapper.executors.values()))

    def test_a_masked_sample_keeps_its_row_with_its_group_mean_and_no_loss(self) -> None:
        rows = [row(i, task_id=TASK_ID) for i in range(2)]
        plans = [[GOLD, CORRUPTED, GOLD + SANDBOX_FAULT, CORRUPTED], [CORRUPTED, GOLD, CORRUPTED + UNREACHABLE, GOLD]]
        import minedit_client.areal as minedit_areal

        real = minedit_areal.coalescing_scorer
        minedit_areal.coalescing_scorer = lambda *a: FaultyScorer(real(*a))
        try:
            results, batch, failures = rollout(rows, plans)
        finally:
            minedit_areal.coalescing_scorer = real
        self.assertEqual(failures, [])
        self.assertEqual(batch["rewards"].shape[0], 2 * GROUP)  # both groups whole: rows stay aligned
        np.testing.assert_allclose(batch["rewards"], [0.1, FAILURE, -0.1, FAILURE, FAILURE, 0.1, 0.0, 0.1], atol=1e-6)
        # Their tokens are out of the loss; the others' are in.
        loss = batch["loss_mask"].sum(axis=1)
        self.assertEqual([int(loss[i] == 0) for i in range(8)], [0, 0, 1, 0, 0, 0, 1, 0])
        normalized = normalized_rewards(batch)
        self.assertAlmostEqual(normalized[2], 0.0, places=5)
        self.assertAlmostEqual(normalized[6], 0.0, places=5)
        # The group mean is the scored samples' mean: their centred rewards are as without the masked one.
        scored = (np.array([0.1, FAILURE, FAILURE]) - 0.5) * 10
        x = (batch["rewards"][:4].astype(np.float64) - 0.5) * 10
        np.testing.assert_allclose((normalized[[0, 1, 3]] * (x.std(ddof=1) + 1e-5)), scored - scored.mean(),
                                   atol=1e-4)
        self.assertEqual(sorted(stats_of("minedit_infra_error")), [0.0] * 7 + [1.0])
        self.assertEqual(sorted(stats_of("minedit_call_failed")), [0.0] * 7 + [1.0])

    def test_dropping_one_sample_instead_would_misalign_the_groups(self) -> None:
        # Why a masked sample is not returned as None: GroupedRolloutWorkflow would concatenate 3 rows, and
        # the group normalization, which slices fixed groups of 4, would mix the next prompt into this group
        # and leave the last row with std 0 -- a reward multiplied by 1e5.
        short = np.array([0.1, FAILURE, FAILURE, 0.1, 0.1, FAILURE, FAILURE])
        normalized = group_normalize((short - 0.5) * 10, GROUP)
        self.assertGreater(abs(normalized[-1]), 1e5)

    def test_a_group_with_no_scored_sample_is_rejected(self) -> None:
        invalid = {k: TASK[k] for k in ("corrupted", "gold", "tests", "entry_point") if k in TASK}
        invalid["gold"] = TASK["corrupted"]  # the gold fails its own tests: INVALID_TASK
        rows = [row(0, task_id=TASK_ID), row(1, task_id=INFRA_TASK_ID), row(2, task=BROKEN_INLINE_TASK),
                row(3, task=invalid)]
        results, batch, failures = rollout(rows, [[GOLD, CORRUPTED, GOLD, CORRUPTED]] * 4)
        self.assertEqual(failures, [])
        self.assertEqual([r is None for r in results], [False, True, True, True])
        self.assertEqual(batch["rewards"].shape[0], GROUP)  # only the scored group reaches training
        self.assertEqual(sum(stats_of("minedit_infra_error")), GROUP)
        self.assertEqual(sum(stats_of("minedit_invalid_task")), 2 * GROUP)

    def test_an_unreachable_server_rejects_the_group(self) -> None:
        rows = [row(0, task_id=TASK_ID)]
        results, batch, failures = rollout(rows, [[GOLD, CORRUPTED, GOLD, CORRUPTED]],
                                           minedit_target=f"127.0.0.1:{free_port()}", minedit_timeout=2)
        self.assertEqual((results, failures), ([None], []))
        self.assertEqual(stats_of("minedit_call_failed"), [1.0] * GROUP)

    def test_an_unknown_task_id_fails_the_group(self) -> None:
        from minedit_client import MineditError

        results, batch, failures = rollout([row(0, task_id="no/such/task")], [[GOLD, GOLD, GOLD, GOLD]])
        self.assertEqual(results, [None])
        self.assertEqual(len(failures), 1)
        self.assertIsInstance(failures[0], MineditError)
        self.assertEqual(failures[0].code.name, "NOT_FOUND")

    def test_task_ids_from_extra_info_and_eval_scope(self) -> None:
        rows = [row(0, extra_info={"task_id": TASK_ID}), row(1, task_id=TASK_ID, extra_info={"task_id": TASK_ID})]
        results, batch, failures = rollout(rows, [[GOLD] * GROUP] * 2, is_eval=True)
        np.testing.assert_allclose(batch["rewards"], [0.1] * 8, atol=1e-6)
        self.assertEqual({scope for scope, _ in STATS}, {"eval-rollout"})
        results, batch, failures = rollout([row(0, task_id=TASK_ID, extra_info={"task_id": INFRA_TASK_ID})],
                                           [[GOLD] * GROUP])
        self.assertEqual((results, [type(f) for f in failures]), ([None], [ValueError]))

    def test_concurrent_groups_share_score_batch_calls(self) -> None:
        import minedit_client.areal as minedit_areal

        rows = [row(i, task_id=TASK_ID) for i in range(16)]
        results, batch, failures = rollout(rows, [[GOLD, CORRUPTED, GOLD, CORRUPTED]] * 16, coalesce_ms=200)
        self.assertEqual(batch["rewards"].shape[0], 64)
        stats = minedit_areal.coalescing_scorer(TARGET, TOKEN, None, 200, None).stats
        self.assertEqual(stats.rollouts, 64)
        self.assertLessEqual(stats.calls, 4)


class RewardFnTest(unittest.TestCase):
    """The plain reward_fn in the stock RLVRWorkflow: AReaL's process pool and its 15 s. (unittest runs the
    classes in name order, so this one forks its pool before WorkflowTest opens gRPC channels here.)"""

    def rewards(self, rows, completions, timeout=None):
        os.environ.pop("MINEDIT_TIMEOUT", None)
        if timeout is not None:
            os.environ["MINEDIT_TIMEOUT"] = str(timeout)  # read in the pool's (forked) processes
        # As AReaL's GSM8K example passes it, plus the prompt of minedit's hf export (`prompt`, not `messages`).
        kwargs = dict(reward_fn="minedit_client.areal.reward_fn", gconfig=GenerationHyperparameters(n_samples=GROUP),
                      tokenizer="t", data_extract_prompt_fn="minedit_client.areal.prompt_messages")
        workflow = GroupedRolloutWorkflow(RLVRWorkflow(**kwargs), GROUP)
        engine = Engine([(r["prompt"], c) for r, c in zip(rows, completions)])
        failures = []

        async def run():
            return await asyncio.gather(*[execute(workflow, engine, r, False, failures) for r in rows])

        try:
            results = asyncio.run(run())
        finally:
            os.environ.pop("MINEDIT_TIMEOUT", None)
            for executor in AsyncRewardWrapper.executors.values():  # the next test forks with its environment
                executor.shutdown(wait=True)
            AsyncRewardWrapper.executors.clear()
        self.assertEqual(failures, [])
        return [r["rewards"] for r in results]

    def test_rewards_through_the_process_pool(self) -> None:
        rows = [row(0, task_id=TASK_ID), row(1, task_id=INFRA_TASK_ID), row(2, task=BROKEN_INLINE_TASK)]
        rewards = self.rewards(rows, [[GOLD, CORRUPTED, GOLD, CORRUPTED]] * 3)
        np.testing.assert_allclose(rewards[0], [0.1, FAILURE, 0.1, FAILURE], atol=1e-6)
        # No mask exists there: the failure reward, never AReaL's 0.
        np.testing.assert_allclose(np.concatenate(rewards[1:]), [FAILURE] * 2 * GROUP, atol=1e-6)

    def test_a_slow_call_scores_the_failure_before_areal_gives_up(self) -> None:
        import minedit_client.areal as minedit_areal

        os.environ["MINEDIT_TIMEOUT"] = "60"
        self.assertEqual(minedit_areal._reward_fn_deadline(), minedit_areal.REWARD_FN_DEADLINE_S)
        self.assertLess(minedit_areal.REWARD_FN_DEADLINE_S, minedit_areal.AREAL_REWARD_TIMEOUT_S)
        before, started = AsyncRewardWrapper.timeouts, time.monotonic()
        # The sleeper holds the sandbox for its 5 s wall time; the minedit deadline (1 s here) ends first.
        rewards = self.rewards([row(0, task_id=TASK_ID)], [[SLEEPER] * GROUP], timeout=1)
        np.testing.assert_allclose(rewards[0], [FAILURE] * GROUP, atol=1e-6)
        self.assertEqual(AsyncRewardWrapper.timeouts, before)  # AReaL never hit its 15 s (which means 0)
        self.assertLess(time.monotonic() - started, 15)


if __name__ == "__main__":
    unittest.main()
