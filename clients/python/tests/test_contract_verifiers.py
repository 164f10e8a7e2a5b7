"""Contract tests: the minedit-repair environment package (clients/python/environments/minedit_repair) and
minedit_client.verifiers, called the way verifiers and PRIME-RL call an environment, against the real
server.

verifiers and PRIME-RL cannot be installed here, so tests/fake_verifiers/ reproduces the API surface they
use — upstream's names, shapes and calling behaviour, each fake module naming the upstream file and commit
it mirrors — and is put on sys.path by this module only. Upstream commits (PrimeIntellect-ai/verifiers):
v0.1.10 = ccef044 (dict messages), v0.1.11.dev0 = 0f1e334 (pydantic messages since 191c516), v0.1.12 =
1979705 (last stable pure v0), v0.2.0 = 6c64ce6 (the v1 task API), HEAD a60a606 (2026-08-21).
PrimeIntellect-ai/prime-rl: v0.5.0 63331ad, v0.6.0 38494cc, v0.7.0 d334ea5, v0.8.0 60bc295, HEAD 559b447.

A GRPO export of the demo tasks is made once with the real CLI (``minedit export --kind grpo``).

Over ~500 lines: it mirrors both verifiers lines and the v1 config-plugged reward path (TaskConfig.rewards,
V1PluggedRewardTest) of one upstream repository, and the test harness runs one module per framework.
"""

import asyncio
import functools
import importlib
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import tomllib
import unittest
from typing import Any, Dict, Optional

from support import CORRUPTED, GOLD, INFRA_TASK_ID, TARGET, TASK, TASK_ID, TASKS, TOKEN

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = os.path.join(HERE, "..")
ROOT = os.path.join(CLIENT, "..", "..")
FAKE = os.path.join(HERE, "fake_verifiers")
PACKAGE = os.path.join(CLIENT, "environments", "minedit_repair")
EXAMPLES = os.path.join(CLIENT, "examples", "verifiers")
sys.path[:0] = [FAKE, PACKAGE]  # this module only: every test module runs in its own interpreter

import verifiers as vf  # noqa: E402  (the fake)
import verifiers.v1 as v1  # noqa: E402
from verifiers.envs import environment as v0_environment  # noqa: E402
from verifiers.v1.serve import EnvServer  # noqa: E402
from verifiers.v1.utils.decorators import discover_decorated  # noqa: E402

import minedit_repair  # noqa: E402
from minedit_client import RetryPolicy  # noqa: E402
from minedit_client.verifiers import minedit_metric_funcs, minedit_reward_func, shared_scorer  # noqa: E402
from minedit_repair.dataset import DatasetError, read_rows  # noqa: E402

os.environ["MINEDIT_TOKEN"] = TOKEN
UNREACHABLE = "127.0.0.1:1"  # nothing listens on port 1
SCORE_TIMEOUT = 120.0
EXPORTS = {}  # format -> export directory OUT/grpo


def setUpModule() -> None:
    EXPORTS["dir"] = tempfile.mkdtemp(prefix="minedit-contract-")
    tasks = os.path.join(ROOT, "datasets", "seed", "demo-tasks.jsonl")
    for fmt in ("hf", "openrlhf", "verl"):
        out = os.path.join(EXPORTS["dir"], fmt)
        subprocess.run(
            ["node", os.path.join(ROOT, "bin", "minedit.js"), "export", "--kind", "grpo", "--format", fmt,
             "--tasks", tasks, "--out", out],
            check=True, capture_output=True, text=True, timeout=300,
        )
        EXPORTS[fmt] = os.path.join(out, "grpo")


def tearDownModule() -> None:
    shutil.rmtree(EXPORTS["dir"], ignore_errors=True)


def iter_trainable_traces(traces):
    """prime_rl/orchestrator/algo/base.py ``iter_trainable_traces`` @ 559b447 (over one episode's traces):
    errored or untrainable traces, and traces without sampled tokens, never train."""
    for trace in traces:
        if trace.has_error or not trace.agent.trainable:
            continue
        if any(any(node.mask) for node in trace.nodes):
            yield trace


def scripted(*replies):
    """The scripted model of the fake v0 environment: answers the i-th call with replies[i % n]."""
    calls = []

    async def model(prompt):
        calls.append(prompt)
        return replies[(len(calls) - 1) % len(replies)]

    model.calls = calls
    return model


def v0_env(**args):
    settings = {"dataset_path": EXPORTS["hf"], "target": TARGET, "timeout": SCORE_TIMEOUT, **args}
    return vf.load_environment("minedit-repair", **settings)


def row_of(env, task_id):
    return next(row for row in env.dataset if row["answer"] == task_id)


INFRA_ROW = {"prompt": [{"role": "user", "content": "Repair f."}], "answer": INFRA_TASK_ID,
             "info": {"task_id": INFRA_TASK_ID}}


class V0DictMessagesTest(unittest.TestCase):
    """verifiers v0.1.10 (ccef044): completions are dicts ({"role": "assistant", "content"}:
    verifiers/utils/response_utils.py parse_response_messages), scored through the Rubric of
    verifiers/rubrics/rubric.py (the fake at v0.1.12 1979705, same call path) inside run_group."""

    def setUp(self) -> None:
        v0_environment.MESSAGES = "dict"

    def tearDown(self) -> None:
        v0_environment.MESSAGES = "pydantic"

    def test_gold_and_corrupted_score_through_the_rubric(self) -> None:
        env = v0_env()
        model = scripted(GOLD, CORRUPTED)
        outputs = asyncio.run(env.run_group([row_of(env, TASK_ID)] * 2, model))
        self.assertIsInstance(outputs[0]["completion"][0], dict)
        self.assertEqual([o["reward"] for o in outputs], [0.1, -0.2])
        self.assertEqual(
            outputs[0]["metrics"],
            {"minedit_reward": 0.1, "minedit_passed": 1.0, "minedit_excess": 0.0, "minedit_infra_error": 0.0},
        )
        self.assertEqual(outputs[1]["metrics"]["minedit_passed"], 0.0)
        self.assertEqual([o["error"] for o in outputs], [None, None])
        self.assertEqual(outputs[0]["state"]["minedit"]["verdict"], "PASSED")


class V0PydanticMessagesTest(unittest.TestCase):
    """verifiers >= v0.1.11 (191c516, released in v0.1.11.dev0 0f1e334; v0.1.12 1979705):
    completions are pydantic AssistantMessage objects (verifiers/types.py CustomBaseModel: not a Mapping),
    prompts are message objects; Rubric.score_group (verifiers/rubrics/rubric.py) runs each function over
    the group with asyncio.gather; Environment.run_group + maybe_retry (verifiers/envs/environment.py,
    verifiers/utils/async_utils.py) re-run a group whose state holds an InfraError; state_to_output
    carries state["error"] (what PRIME-RL v0.5 reschedules on and the v0.7/v0.8 bridge fails a trace on)."""

    def test_message_objects_are_read_and_a_group_shares_score_batch_calls(self) -> None:
        env = v0_env()
        scorer = shared_scorer(TARGET, timeout=SCORE_TIMEOUT)
        before = (scorer.stats.calls, scorer.stats.rollouts)
        model = scripted(GOLD, CORRUPTED)
        outputs = asyncio.run(env.run_group([row_of(env, TASK_ID)] * 16, model))
        completion = outputs[0]["completion"][0]
        self.assertIsInstance(completion, vf.AssistantMessage)
        self.assertNotIsInstance(completion, dict)
        self.assertIsInstance(outputs[0]["state"]["prompt"][0], vf.SystemMessage)
        self.assertEqual([o["reward"] for o in outputs], [0.1, -0.2] * 8)
        self.assertTrue(all(o["error"] is None for o in outputs))
        calls, rollouts = scorer.stats.calls - before[0], scorer.stats.rollouts - before[1]
        self.assertEqual(rollouts, 16)
        self.assertLessEqual(calls, 2, scorer.stats)
        print(f"v0 score_group: 16 rollouts in {calls} ScoreBatch call(s)")

    def test_infra_error_sets_infra_error_in_state_is_retried_and_never_beats_a_failure(self) -> None:
        env = v0_env()
        model = scripted(GOLD)
        with self.assertLogs("minedit_client.verifiers", "ERROR") as logs:
            outputs = asyncio.run(env.run_group([INFRA_ROW, INFRA_ROW], model, max_retries=2))
        self.assertEqual(len(model.calls), 2 * 3)  # maybe_retry: the first attempt and two retries
        for output in outputs:
            self.assertIsInstance(output["state"]["error"], vf.InfraError)
            self.assertEqual(output["error"]["error"], "InfraError")
            self.assertEqual(output["reward"], -0.2)
            self.assertEqual(output["metrics"]["minedit_infra_error"], 1.0)
            self.assertIsNone(output["state"]["minedit"]["reward"])
        self.assertIn("INFRA_ERROR", logs.output[0])

    def test_infra_error_score_is_configurable(self) -> None:
        env = v0_env(infra_error_score=-1.0)
        [output] = asyncio.run(env.run_group([INFRA_ROW], scripted(GOLD)))
        self.assertEqual((output["reward"], output["error"]["error"]), (-1.0, "InfraError"))
        env = v0_env(reward_override={"failure_reward": -0.5})
        outputs = asyncio.run(env.run_group([INFRA_ROW, row_of(env, TASK_ID)], scripted(GOLD, CORRUPTED)))
        self.assertEqual([o["reward"] for o in outputs], [-0.5, -0.5])  # infra = the overridden failure reward

    def test_transport_failure_is_an_infra_error_not_a_silent_zero(self) -> None:
        env = v0_env(target=UNREACHABLE, timeout=5.0, retry=RetryPolicy(max_attempts=1))
        with self.assertLogs("minedit_client.verifiers", "ERROR") as logs:
            [output] = asyncio.run(env.run_group([row_of(env, TASK_ID)], scripted(GOLD)))
        self.assertIsInstance(output["state"]["error"], vf.InfraError)
        self.assertEqual(output["reward"], -0.2)
        self.assertEqual(output["metrics"]["minedit_infra_error"], 1.0)
        self.assertIn("could not reach the server", logs.output[0])

    def test_unknown_task_is_a_sample_error_and_not_retried(self) -> None:
        env = v0_env()
        bad = {**INFRA_ROW, "answer": "no/such/task", "info": {"task_id": "no/such/task"}}
        model = scripted(GOLD)
        with self.assertLogs("minedit_client.verifiers", "ERROR"):
            [output] = asyncio.run(env.run_group([bad], model, max_retries=2))
        self.assertEqual(len(model.calls), 1)
        error = output["state"]["error"]
        self.assertIsInstance(error, vf.Error)
        self.assertNotIsInstance(error, vf.InfraError)
        self.assertEqual(output["metrics"]["minedit_infra_error"], 0.0)

    def test_rubric_passes_what_the_signature_asks_for_and_keeps_a_first_error(self) -> None:
        reward = minedit_reward_func(TARGET, timeout=SCORE_TIMEOUT)
        rubric = vf.Rubric(funcs=[reward, *minedit_metric_funcs()], weights=[1.0, 0.0, 0.0, 0.0])
        self.assertFalse(any(rubric._is_group_func(f) for f in rubric.funcs))
        env = vf.SingleTurnEnv(dataset=v0_env().dataset, rubric=rubric)
        state = env.init_state(row_of(env, TASK_ID))
        model_error = vf.ModelError("the model call failed first")
        state["error"] = model_error
        state["completion"] = [vf.AssistantMessage(content=[{"type": "text", "text": GOLD}])]  # content parts
        asyncio.run(rubric.score_rollout(state))
        self.assertEqual(state["reward"], 0.1)
        self.assertIs(state["error"], model_error)


class V0LoadEnvironmentTest(unittest.TestCase):
    """verifiers.load_environment (verifiers/utils/env_utils.py @ v0.1.12 1979705): module
    env_id.replace("-", "_").split("/")[-1], its load_environment(**args); and PRIME-RL's v0 TOML
    (v0.5.0 63331ad [[orchestrator.env]], v0.6.0 38494cc / v0.7.0 d334ea5 [[orchestrator.train.env]],
    v0.8.0 60bc295 [orchestrator.train.source.legacy]: id + args forwarded to load_environment)."""

    def test_id_loads_a_single_turn_env_over_the_export(self) -> None:
        for env_id in ("minedit-repair", "PrimeIntellect/minedit-repair"):
            env = vf.load_environment(env_id, dataset_path=EXPORTS["hf"], target=TARGET)
            self.assertIsInstance(env, vf.SingleTurnEnv)
            self.assertEqual(env.env_id, env_id)
            self.assertEqual(env.max_turns, 1)
        self.assertEqual(len(env.dataset), len(TASKS))
        self.assertEqual(env.dataset.column_names, ["prompt", "answer", "info"])
        self.assertEqual(env.dataset["answer"], [t["task_id"] for t in TASKS])
        row = env.dataset[0]
        self.assertEqual(row["info"], {"task_id": row["answer"]})
        self.assertEqual([m["role"] for m in row["prompt"]], ["system", "user"])
        self.assertEqual(
            [m.__name__ for m in env.rubric.funcs],
            ["minedit_reward", "minedit_passed", "minedit_excess", "minedit_infra_error"],
        )
        self.assertEqual(env.rubric.weights, [1.0, 0.0, 0.0, 0.0])

    def test_prime_rl_v0_tomls_load(self) -> None:
        tables = {
            "prime-rl-v0.5.toml": lambda c: c["orchestrator"]["env"][0],
            "prime-rl-v0.6-v0.7.toml": lambda c: c["orchestrator"]["train"]["env"][0],
            "prime-rl-v0.8-legacy.toml": lambda c: c["orchestrator"]["train"]["source"][0]["legacy"],
        }
        for name, table in tables.items():
            with open(os.path.join(EXAMPLES, name), "rb") as f:
                env_config = table(tomllib.load(f))
            args = {**env_config["args"], "dataset_path": EXPORTS["hf"], "target": TARGET}
            env = vf.load_environment(env_config["id"], **args)
            [output] = asyncio.run(env.run_group([row_of(env, TASK_ID)], scripted(GOLD)))
            self.assertEqual(output["reward"], 0.1, name)

    def test_a_missing_dataset_is_a_clear_error(self) -> None:
        with self.assertRaises(RuntimeError) as caught:
            vf.load_environment("minedit-repair")
        self.assertIn("dataset_path is not set", str(caught.exception))

    def test_v0_only_verifiers_get_load_environment_only(self) -> None:
        # verifiers <= 0.1.13 has no verifiers.v1; 0.1.14 / 0.1.15 have an older one without TaskData.
        probes = {
            "no verifiers.v1": "sys.modules['verifiers.v1'] = None",
            "old verifiers.v1": "import types; sys.modules['verifiers.v1'] = types.ModuleType('verifiers.v1'); "
                                "sys.modules['verifiers.v1'].Taskset = type('Taskset', (), {})",
        }
        for what, setup in probes.items():
            code = f"import sys; {setup}; import minedit_repair; print(minedit_repair.__all__)"
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                                  env={**os.environ, "PYTHONPATH": os.pathsep.join([FAKE, PACKAGE, CLIENT])})
            self.assertEqual(done.stdout.strip(), "['load_environment']", f"{what}: {done.stderr}")


class V1LoaderTest(unittest.TestCase):
    """verifiers.v1 taskset loading (verifiers/v1/utils/loaders.py @ a60a606): module from the id (hub
    org and @version stripped, "-" -> "_"), exactly one Taskset subclass in __all__, the config type off
    the generic parameters, validated from PRIME-RL's [orchestrator.train.source.env.taskset] table
    (prime-rl 559b447; extra keys forbidden, pydantic_config BaseConfig); Taskset.load (verifiers/v1/
    taskset.py); the env server rebuilding a task from task_data (verifiers/v1/serve/server.py)."""

    def config(self, **overrides):
        with open(os.path.join(EXAMPLES, "prime-rl-v1.toml"), "rb") as f:
            table = tomllib.load(f)["orchestrator"]["train"]["source"][0]["env"]["taskset"]
        table = {**table, "dataset_path": EXPORTS["hf"], **overrides}
        table["task"] = {**table["task"], "target": TARGET, "timeout": SCORE_TIMEOUT}
        return v1.resolve_taskset_config(table)

    def test_the_id_finds_exactly_one_taskset(self) -> None:
        for taskset_id in ("minedit-repair", "PrimeIntellect/minedit-repair@0.1.0"):
            self.assertIs(v1.import_taskset(taskset_id), minedit_repair)
            self.assertIs(v1.taskset_config_type(taskset_id), minedit_repair.MineditTasksetConfig)
            self.assertIs(v1.task_type(taskset_id), minedit_repair.MineditTask)
        exported = [getattr(minedit_repair, n) for n in minedit_repair.__all__]
        self.assertEqual([c for c in exported if isinstance(c, type) and issubclass(c, v1.Taskset)],
                         [minedit_repair.MineditTaskset])

    def test_toml_table_validates_and_typos_are_refused(self) -> None:
        config = self.config()
        self.assertIsInstance(config.task, minedit_repair.MineditTaskConfig)
        self.assertEqual((config.split, config.task.coalesce_ms), ("train", 20.0))
        with self.assertRaises(ValueError):
            self.config(dataset="typo")
        with self.assertRaises(ValueError):
            v1.resolve_taskset_config({"id": "minedit-repair", "task": {"targt": TARGET}})

    def test_load_reads_every_export_format(self) -> None:
        tasks = list(v1.load_taskset(self.config()).load())
        self.assertEqual([t.data.task_id for t in tasks], [t["task_id"] for t in TASKS])
        self.assertEqual([t.data.idx for t in tasks], list(range(len(TASKS))))
        first = tasks[0].data
        self.assertTrue(first.system_prompt.startswith("You are a Python Expert"))
        self.assertIsInstance(first.prompt, str)
        self.assertEqual(len({t.key for t in tasks}), len(tasks))
        openrlhf = list(v1.load_taskset(self.config(dataset_path=EXPORTS["openrlhf"])).load())
        self.assertEqual([t.data.task_id for t in openrlhf], [t.data.task_id for t in tasks])
        self.assertEqual([t.data.prompt for t in openrlhf], [t.data.prompt for t in tasks])
        one_file = list(v1.load_taskset(self.config(dataset_path=os.path.join(EXPORTS["hf"], "train.jsonl"))).load())
        self.assertEqual(len(one_file), len(tasks))
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            with self.assertRaisesRegex(DatasetError, "pyarrow"):
                read_rows(EXPORTS["verl"])
        else:
            self.assertEqual([r.task_id for r in read_rows(EXPORTS["verl"])], [t["task_id"] for t in TASKS])

    def test_bad_datasets_are_refused_with_the_row(self) -> None:
        scratch = tempfile.mkdtemp(dir=EXPORTS["dir"])
        path = os.path.join(scratch, "rows.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps({"prompt": "Fix it", "task_id": 7}) + "\n")
        [row] = read_rows(path)
        self.assertEqual(row.task_id, "7")  # integer ids become the server's string ids
        cases = {
            "task file": (os.path.join(ROOT, "datasets", "seed", "demo-tasks.jsonl"), "make a GRPO export"),
            "no split": (EXPORTS["hf"], "no 'test' split"),
        }
        for what, (bad, message) in cases.items():
            with self.assertRaisesRegex(DatasetError, message, msg=what):
                read_rows(bad, split="test" if what == "no split" else "train")
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps({"prompt": "Fix it", "task_id": "a", "extra_info": {"task_id": "b"}}) + "\n")
        with self.assertRaisesRegex(DatasetError, "rows.jsonl:1: the row names different tasks"):
            read_rows(path)

    def test_the_env_server_rebuilds_the_task_from_its_wire_data(self) -> None:
        config = self.config()
        task = list(v1.load_taskset(config).load())[3]
        server = EnvServer(config)
        rebuilt = server._build_task(task.data.model_dump(mode="json"))
        self.assertIsInstance(rebuilt, minedit_repair.MineditTask)
        self.assertEqual(rebuilt.data, task.data)
        self.assertEqual(rebuilt.data.task_id, task.data.task_id)
        self.assertEqual(rebuilt.config.target, TARGET)
        # Undeclared keys are dropped on re-validation: why task_id is a declared field.
        plain = v1.TaskData.model_validate(task.data.model_dump(mode="json"))
        self.assertFalse(hasattr(plain, "task_id"))


class V1ScoringTest(unittest.TestCase):
    """verifiers.v1 scoring (verifiers/v1/task.py Task.score, verifiers/v1/rollout.py, verifiers/v1/
    session.py @ a60a606): @vf.stop before each model call, metrics then rewards, float(reward), any
    exception -> TaskError on the trace (ok False, rewards left None); PRIME-RL HEAD (559b447
    prime_rl/orchestrator/algo/base.py iter_trainable_traces) trains only ok traces."""

    @classmethod
    def setUpClass(cls) -> None:
        with open(os.path.join(EXAMPLES, "prime-rl-v1.toml"), "rb") as f:
            agent = tomllib.load(f)["orchestrator"]["train"]["source"][0]["env"]["agent"]
        cls.max_turns = agent["max_turns"]
        cls.config = v1.resolve_taskset_config({
            "id": "minedit-repair", "dataset_path": EXPORTS["hf"],
            "task": {"target": TARGET, "timeout": SCORE_TIMEOUT},
        })
        cls.tasks = {t.data.task_id: t for t in v1.load_taskset(cls.config).load()}

    def run_trace(self, task_data, *replies, config=None):
        server = EnvServer(config or self.config, max_turns=self.max_turns, scoring_timeout=600.0)
        return asyncio.run(server.run(task_data, replies))

    def wire(self, task_id):
        return self.tasks[task_id].data.model_dump(mode="json")

    def test_gold_repair_scores_0_1_and_one_reply_ends_the_episode(self) -> None:
        trace = self.run_trace(self.wire(TASK_ID), GOLD, "a second reply the model is never asked for")
        self.assertTrue(trace.ok, trace.errors)
        self.assertEqual(trace.num_turns, 1)
        self.assertEqual(trace.rewards["minedit"].score, 0.1)
        self.assertEqual(trace.rewards["minedit"].weight, 1.0)
        self.assertEqual(trace.reward, 0.1)
        self.assertEqual(trace.metrics, {"minedit_passed": 1.0, "minedit_excess": 0.0, "minedit_infra_error": 0.0})
        self.assertEqual(trace.info["minedit"]["verdict"], "PASSED")
        json.dumps(trace.info)  # info is serialized with the trace
        self.assertEqual(len(list(iter_trainable_traces([trace]))), 1)

    def test_the_stop_hook_alone_ends_the_episode(self) -> None:
        server = EnvServer(self.config, max_turns=None)
        trace = asyncio.run(server.run(self.wire(TASK_ID), [CORRUPTED, GOLD]))
        self.assertEqual((trace.num_turns, trace.stop_condition), (1, "answered"))
        self.assertEqual(trace.reward, -0.2)

    def test_corrupted_program_scores_the_failure_reward(self) -> None:
        trace = self.run_trace(self.wire(TASK_ID), CORRUPTED)
        self.assertTrue(trace.ok, trace.errors)
        self.assertEqual(trace.rewards["minedit"].score, -0.2)
        self.assertEqual(trace.metrics["minedit_passed"], 0.0)
        self.assertEqual(trace.info["minedit"]["verdict"], "FAILED_TESTS")

    def test_infra_error_is_a_task_error_and_the_trace_is_masked(self) -> None:
        data = {"idx": 999, "prompt": "Repair f.", "task_id": INFRA_TASK_ID, "prompt_id": "p"}
        trace = self.run_trace(data, GOLD)
        self.assertFalse(trace.ok)
        self.assertTrue(trace.has_error)
        self.assertEqual(trace.last_error.type, "TaskError")
        self.assertIn("INFRA_ERROR", trace.last_error.message)
        self.assertEqual(trace.rewards, {"minedit": None})
        self.assertEqual(trace.reward, 0.0)  # never read: the trace does not train
        self.assertEqual(trace.metrics["minedit_infra_error"], 1.0)
        self.assertEqual(trace.info["minedit"]["verdict"], "INFRA_ERROR")
        self.assertEqual(list(iter_trainable_traces([trace])), [])

    def test_transport_failure_is_a_task_error(self) -> None:
        config = v1.resolve_taskset_config({
            "id": "minedit-repair", "dataset_path": EXPORTS["hf"], "task": {"target": UNREACHABLE, "timeout": 1.0},
        })
        trace = self.run_trace(self.wire(TASK_ID), GOLD, config=config)
        self.assertFalse(trace.ok)
        self.assertEqual(trace.last_error.type, "TaskError")
        self.assertIn("MineditError", trace.last_error.message)
        self.assertEqual(trace.rewards, {"minedit": None})
        self.assertEqual(list(iter_trainable_traces([trace])), [])


class V1ConcurrencyTest(unittest.TestCase):
    """One env-server worker runs many rollouts at once on one event loop (verifiers/v1/serve/server.py @
    a60a606); their Task.score calls (asyncio.gather in the fake rollout) share ScoreBatch calls through
    the process's CoalescingScorer."""

    def test_32_traces_share_a_few_score_batch_calls(self) -> None:
        config = v1.resolve_taskset_config({
            "id": "minedit-repair", "dataset_path": EXPORTS["hf"],
            "task": {"target": TARGET, "timeout": SCORE_TIMEOUT, "coalesce_ms": 50.0},
        })
        tasks = list(v1.load_taskset(config).load())
        task = next(t for t in tasks if t.data.task_id == TASK_ID)
        scorer = task.scorer()
        self.assertIs(scorer, tasks[0].scorer())  # one per process and settings
        before = (scorer.stats.calls, scorer.stats.rollouts)
        server = EnvServer(config, max_turns=1)
        wire = task.data.model_dump(mode="json")

        async def main():
            return await asyncio.gather(*(server.run(wire, [GOLD if i % 2 == 0 else CORRUPTED]) for i in range(32)))

        traces = asyncio.run(main())
        self.assertTrue(all(t.ok for t in traces))
        self.assertEqual([t.reward for t in traces], [0.1, -0.2] * 16)
        calls, rollouts = scorer.stats.calls - before[0], scorer.stats.rollouts - before[1]
        self.assertEqual(rollouts, 32)
        self.assertLessEqual(calls, 4, scorer.stats)
        print(f"v1 env server: 32 traces in {calls} ScoreBatch call(s)")


# ---- config-plugged rewards (TaskConfig.rewards) ------------------------------------------------------
# verifiers/v1/configs/task.py (DecoratedFunctionConfig, RewardFunctionConfig, TaskConfig.stops / metrics /
# rewards), verifiers/v1/utils/loaders.py (file_module, plugged_fn, load_plugged_fn) and verifiers/v1/task.py
# (Task.hooks) @ a60a606, added by 74959f5 (#2309, after the v0.3.0 release 0a4d872) with 42a6c95's fn-less
# entries. The shared fake stops short of plugged hooks, so this module adds upstream's path on top of it.


class DecoratedFunctionConfig(v1.BaseConfig):
    fn: Optional[str] = None
    priority: Optional[int] = None


class RewardFunctionConfig(DecoratedFunctionConfig):
    weight: Optional[float] = None


class PluggableTaskConfig(v1.TaskConfig):
    """``TaskConfig`` with its plugged-hook tables validated, as upstream (pydantic_config: extra keys
    forbidden; the fake's TaskConfig refuses non-empty tables, hence the direct BaseConfig init)."""

    stops: Dict[str, DecoratedFunctionConfig] = {}
    metrics: Dict[str, DecoratedFunctionConfig] = {}
    rewards: Dict[str, RewardFunctionConfig] = {}

    def __init__(self, **data) -> None:
        v1.BaseConfig.__init__(self, **data)


@functools.cache
def file_module(path):
    resolved = pathlib.Path(path).resolve()
    spec = importlib.util.spec_from_file_location(resolved.stem, resolved)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plugged_fn(path):
    module_path, _, attr = path.rpartition(":")
    if not module_path:
        module_path, _, attr = path.rpartition(".")
    if not module_path or not attr:
        raise ValueError(f"fn {path!r} must be `pkg.module.function`, `pkg.module:function` or `file.py:function`")
    module = file_module(module_path) if module_path.endswith(".py") else importlib.import_module(module_path)
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise TypeError(f"fn {path!r} is not a function (got {fn!r})")
    return fn


def load_plugged_fn(name, config, attr, decorated=None):
    if config.fn:
        fn = plugged_fn(config.fn)
    elif decorated is not None:
        fn = decorated
    else:
        raise ValueError(f"{attr} {name!r} plugs no `fn` and the task has no @vf.{attr} method named {name!r}")

    @functools.wraps(fn)
    def plugged(*args, **kwargs):
        return fn(*args, **kwargs)

    plugged.__name__ = name
    setattr(plugged, attr, True)
    priority = config.priority if config.priority is not None else getattr(fn, f"{attr}_priority", 0)
    setattr(plugged, f"{attr}_priority", priority)
    if isinstance(config, RewardFunctionConfig):
        plugged._vf_weight = config.weight if config.weight is not None else getattr(fn, "_vf_weight", 1.0)
    return plugged


def hooks(self, attr):
    """verifiers/v1/task.py ``Task.hooks``: decorated methods merged with the config-plugged functions (a
    plugged one replaces a decorated one of the same name), by descending priority, then name."""
    plugged = {"stop": self.config.stops, "metric": self.config.metrics, "reward": self.config.rewards}[attr]
    merged = {fn.__name__: fn for fn in discover_decorated(self, attr)}
    merged |= {name: load_plugged_fn(name, spec, attr, decorated=merged.get(name)) for name, spec in plugged.items()}
    fns = list(merged.values())
    fns.sort(key=lambda fn: (-getattr(fn, f"{attr}_priority", 0), fn.__name__))
    return fns


class CodeData(v1.TaskData):
    """The data of a taskset that is not minedit's (shaped like upstream's tests/v1/test_scoring.py
    ``HookData``): its own ``answer`` and an ``info`` dict, declared so the env server keeps them."""

    answer: str = ""
    info: Dict[str, Any] = {}


class CodeDataWithId(CodeData):
    task_id: Optional[str] = None


class CodeTask(v1.Task[CodeData, v1.State, v1.TaskConfig]):
    @v1.stop
    async def one_reply(self, trace: v1.Trace) -> bool:
        return trace.num_turns >= 1

    @v1.reward
    async def mentions_answer(self, trace: v1.Trace) -> float:
        return float(bool(self.data.answer) and self.data.answer in trace.last_reply)


def example_rewards():
    with open(os.path.join(EXAMPLES, "prime-rl-plugged-reward.toml"), "rb") as f:
        table = tomllib.load(f)["orchestrator"]["train"]["source"][0]["env"]["taskset"]["task"]
    return table["rewards"]


class V1PluggedRewardTest(unittest.TestCase):
    """minedit_client.verifiers.minedit_taskset_reward plugged into a foreign taskset's TaskConfig.rewards,
    run through the fake rollout (verifiers/v1/rollout.py ``Rollout.close``: ``Task.score`` inside
    ``boundary(TaskError, "scoring")``, any error recorded, ``ok = not failed``) with the hooks above."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.saved_hooks = v1.Task.hooks
        v1.Task.hooks = hooks

    @classmethod
    def tearDownClass(cls) -> None:
        v1.Task.hooks = cls.saved_hooks

    def run_task(self, reply, rewards=None, data_cls=CodeData, **data):
        config = PluggableTaskConfig(rewards=example_rewards() if rewards is None else rewards)
        task = CodeTask(data_cls(idx=0, prompt="Repair the program.", **data), config)
        return asyncio.run(v1.run_rollout(task, [reply], scoring_timeout=600.0))

    def test_the_example_entry_scores_a_foreign_taskset_beside_its_own_reward(self) -> None:
        self.assertEqual(example_rewards(), {"minedit": {"fn": "minedit_client.verifiers:minedit_taskset_reward",
                                                          "weight": 1.0}})
        trace = self.run_task(GOLD, info={"task_id": TASK_ID}, answer="merge_bookings")
        self.assertTrue(trace.ok, trace.errors)
        self.assertEqual((trace.rewards["minedit"].score, trace.rewards["minedit"].weight), (0.1, 1.0))
        self.assertEqual(trace.rewards["mentions_answer"].score, 1.0)  # the taskset's own reward still runs
        self.assertAlmostEqual(trace.reward, 1.1)
        self.assertEqual(trace.metrics, {"minedit_passed": 1.0, "minedit_excess": 0.0, "minedit_infra_error": 0.0,
                                         "minedit_invalid_task": 0.0})
        self.assertEqual(trace.info["minedit"]["verdict"], "PASSED")
        self.assertEqual(len(list(iter_trainable_traces([trace]))), 1)

    def test_a_fn_less_entry_reweights_the_taskset_reward_and_a_weight_scales_minedit(self) -> None:
        rewards = {**example_rewards(), "mentions_answer": {"weight": 0.0}}
        rewards["minedit"] = {**rewards["minedit"], "weight": 2.0}
        trace = self.run_task(CORRUPTED, rewards=rewards, data_cls=CodeDataWithId, task_id=TASK_ID)
        self.assertTrue(trace.ok, trace.errors)
        self.assertEqual(trace.rewards["mentions_answer"].weight, 0.0)
        self.assertAlmostEqual(trace.reward, -0.4)
        with self.assertRaises(ValueError):  # a typo in the TOML table is refused, as pydantic_config does
            PluggableTaskConfig(rewards={"minedit": {"fn": "x:y", "wieght": 1.0}})

    def test_the_hooks_file_reads_the_task_id_from_answer(self) -> None:
        rewards = {"minedit": {"fn": f"{os.path.join(EXAMPLES, 'minedit_hooks.py')}:minedit"}}
        traces = [self.run_task(reply, rewards=rewards, answer=TASK_ID) for reply in (GOLD, CORRUPTED)]
        self.assertEqual([t.rewards["minedit"].score for t in traces], [0.1, -0.2])
        self.assertEqual([t.rewards["minedit"].weight for t in traces], [1.0, 1.0])  # unset weight: 1.0

    def test_an_inline_task_from_info_as_dict_or_json(self) -> None:
        inline = {k: TASK[k] for k in ("corrupted", "gold", "tests", "entry_point")}
        for value in (inline, json.dumps(inline)):
            trace = self.run_task(GOLD, info={"minedit_task": value})
            self.assertTrue(trace.ok, trace.errors)
            self.assertEqual(trace.rewards["minedit"].score, 0.1)

    def test_infra_error_and_invalid_task_raise_and_the_trace_does_not_train(self) -> None:
        invalid = {**{k: TASK[k] for k in ("corrupted", "gold", "tests", "entry_point")}, "gold": TASK["corrupted"]}
        for data, verdict in (({"task_id": INFRA_TASK_ID}, "INFRA_ERROR"), ({"minedit_task": invalid}, "INVALID_TASK")):
            trace = self.run_task(GOLD, info=data)
            self.assertFalse(trace.ok)
            self.assertEqual(trace.last_error.type, "TaskError")
            self.assertIn(f"MineditUnscoredError: minedit {verdict}", trace.last_error.message)
            self.assertIsNone(trace.rewards["minedit"])
            self.assertEqual(trace.info["minedit"]["verdict"], verdict)
            self.assertEqual(list(iter_trainable_traces([trace])), [])
        self.assertEqual(trace.metrics["minedit_invalid_task"], 1.0)

    def test_rows_without_a_usable_task_are_task_errors(self) -> None:
        cases = {
            "no minedit task in the task data": {},
            "NOT_FOUND": {"info": {"task_id": "no/such/task"}},
            "names both a task id": {"info": {"task_id": TASK_ID, "minedit_task": {"gold": "x"}}},
        }
        for message, data in cases.items():
            trace = self.run_task(GOLD, **data)
            self.assertFalse(trace.ok, message)
            self.assertEqual(trace.last_error.type, "TaskError")
            self.assertIn(message, trace.last_error.message)

    def test_concurrent_traces_share_a_few_score_batch_calls(self) -> None:
        scorer = shared_scorer()  # the settings minedit_taskset_reward uses: the MINEDIT_* environment
        before = (scorer.stats.calls, scorer.stats.rollouts)
        config = PluggableTaskConfig(rewards=example_rewards())
        task = CodeTask(CodeData(idx=0, prompt="Repair the program.", info={"task_id": TASK_ID}), config)

        async def main():
            return await asyncio.gather(*(v1.run_rollout(task, [GOLD if i % 2 else CORRUPTED]) for i in range(32)))

        traces = asyncio.run(main())
        self.assertEqual(sorted(t.rewards["minedit"].score for t in traces), [-0.2] * 16 + [0.1] * 16)
        calls, rollouts = scorer.stats.calls - before[0], scorer.stats.rollouts - before[1]
        self.assertEqual(rollouts, 32)
        self.assertLessEqual(calls, 4, scorer.stats)
        print(f"v1 plugged reward: 32 traces in {calls} ScoreBatch call(s)")


if __name__ == "__main__":
    unittest.main()
