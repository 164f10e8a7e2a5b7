"""What several contract tests share beyond support.py's server set-up: a stand-in for Ray's actors (NeMo-RL
and ROLL start minedit's code as Ray actors, and Ray cannot be installed here), a client that makes a sandbox
fault real for marked completions, the oracle result of one rollout, the completions of a GRPO group, and the
argv an example launcher script hands ``python3``.
"""

import asyncio
import copy
import os
import subprocess
import tempfile
import threading
import types
from concurrent.futures import Future
from dataclasses import replace
from functools import partial
from typing import Any, Callable, Dict, List, Optional, Tuple

from support import GOLD, INFRA_TASK_ID, TARGET, TASKS, TOKEN, fence
from minedit_client import CoalescingScorer, MineditClient, Rollout, RolloutResult, _adapt

# ---- Ray: actors as NeMo-RL and ROLL use them ------------------------------------------------------------
# An actor is a thread running an event loop; its methods run there, an ``async`` one concurrently with
# others (as in Ray's async actors); the runtime env's ``env_vars`` are its environment while it is built;
# arguments are copied, as Ray serializes them.


class ObjectRef:
    def __init__(self, future: Future) -> None:
        self.future = future

    def __await__(self):
        return asyncio.wrap_future(self.future).__await__()


class ActorHandle:
    """A started actor: its own thread running an event loop; the instance is built there."""

    _env_lock = threading.Lock()

    def __init__(self, cls: type, options: Dict[str, Any], args: tuple, kwargs: dict) -> None:
        self.options = options
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        # NeMo-RL passes the runtime env as a dict, ROLL as an object with attributes.
        runtime_env = options.get("runtime_env") or {}
        env_vars = runtime_env.get("env_vars", {}) if isinstance(runtime_env, dict) else runtime_env.env_vars
        self.instance = self._call(lambda: self._construct(cls, env_vars, args, kwargs)).result()

    @classmethod
    def _construct(cls_, actor_cls: type, env_vars: Dict[str, str], args: tuple, kwargs: dict) -> Any:
        with cls_._env_lock:  # the actor process's environment is the runtime env's
            saved = dict(os.environ)
            os.environ.update(env_vars)
            try:
                return actor_cls(*copy.deepcopy(args), **copy.deepcopy(kwargs))
            finally:
                os.environ.clear()
                os.environ.update(saved)

    def _call(self, fn) -> Future:
        future: Future = Future()

        def run() -> None:
            try:
                future.set_result(fn())
            except BaseException as error:  # noqa: BLE001 - the caller's ray.get re-raises it
                future.set_exception(error)

        self._loop.call_soon_threadsafe(run)
        return future

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.instance, name)
        handle = self

        class Method:
            @staticmethod
            def remote(*args: Any, **kwargs: Any) -> ObjectRef:
                args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
                if asyncio.iscoroutinefunction(method):
                    return ObjectRef(asyncio.run_coroutine_threadsafe(method(*args, **kwargs), handle._loop))
                return ObjectRef(handle._call(lambda: method(*args, **kwargs)))

        return Method

    def kill(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


class ActorClass:
    def __init__(self, cls: type, options: Optional[Dict[str, Any]] = None) -> None:
        self.__ray_actor_class__ = cls
        self.__ray_metadata__ = types.SimpleNamespace(modified_class=cls)
        self._options = options or {}

    def options(self, **options: Any) -> "ActorClass":
        return ActorClass(self.__ray_actor_class__, {**self._options, **options})

    def remote(self, *args: Any, **kwargs: Any) -> ActorHandle:
        return ActorHandle(self.__ray_actor_class__, self._options, args, kwargs)


def ray_get(refs: Any, timeout: Optional[float] = None) -> Any:
    if isinstance(refs, list):
        return [ref.future.result(timeout) for ref in refs]
    return refs.future.result(timeout)


def ray_module() -> types.ModuleType:
    """A ``ray`` module for ``sys.modules``: ``ray.remote`` (bare, or with options), ``ray.get``, ``ray.kill``."""
    ray = types.ModuleType("ray")
    ray.remote = lambda cls=None, **options: ActorClass(cls) if cls else (lambda c: ActorClass(c, options))
    ray.get = ray_get
    ray.kill = lambda handle: handle.kill()
    return ray


# ---- scoring against the real server ---------------------------------------------------------------------

#: A completion holding this is sent against the stored task whose tests cannot run (SandboxFaultClient).
FAULT = "# sandbox fault\n"


class SandboxFaultClient(MineditClient):
    """A client whose rollouts holding FAULT hit a broken sandbox: they are sent against the stored task
    whose tests cannot run, so the REAL server answers INFRA_ERROR for exactly those samples of a group."""

    def score_batch(self, rollouts, *args, **kwargs):
        rerouted = [replace(r, task_id=INFRA_TASK_ID, task=None) if FAULT in r.completion else r for r in rollouts]
        return super().score_batch(rerouted, *args, **kwargs)


def fault_scorer(**settings: Any) -> CoalescingScorer:
    """A scorer sending through :class:`SandboxFaultClient`; ``settings``: CoalescingScorer's keywords."""
    return CoalescingScorer(partial(SandboxFaultClient, TARGET, token=TOKEN, timeout=120), **settings)


def install_fault_scorer(coalesce_ms: float) -> CoalescingScorer:
    """Makes the adapters' per-process scorer of the settings (TARGET, TOKEN, ``coalesce_ms``) send through
    :class:`SandboxFaultClient`; a ``coalesce_ms`` no other test uses gives a test a scorer of its own."""
    key = (TARGET, TOKEN, None, coalesce_ms, None)  # as minedit_client._adapt.coalescing_scorer makes it
    return _adapt.per_process_scorer(key, lambda: fault_scorer(window_s=coalesce_ms / 1000.0))


_alone: Dict[Any, Any] = {}


def alone(completion: str, task_id: Optional[str] = None, task: Optional[dict] = None) -> Any:
    """The result of one rollout scored in its own ScoreBatch call (the oracle)."""
    key = (completion, task_id, repr(task))
    if key not in _alone:
        client = MineditClient(TARGET, token=TOKEN, timeout=120)
        try:
            [_alone[key]] = client.score_batch([Rollout(id="x", completion=completion, task_id=task_id, task=task)])
        finally:
            client.close()
    return _alone[key]


def samples_of(task: dict) -> List[str]:
    """Eight completions of a GRPO group for ``task``: passes, failures, a farther pass, no code, a syntax
    error."""
    gold = "Here is the repair:\n" + fence(task["gold"])
    failing, farther = fence(task["corrupted"]), fence(task["gold"] + "\n_unused = [1, 2, 3]\n")
    return [gold, failing, farther, "I could not find the bug.", gold, failing, fence("def broken(:\n"), farther]


def verl_export_row(task_id: Optional[str], index: int) -> dict:
    """A row of minedit's verl GRPO export (src/export/format-verl.ts), as the datasets library reads its
    Parquet: nested structs are dicts. ``task_id`` None: a row whose task the caller adds inline."""
    return {
        "data_source": "minedit",
        "prompt": [
            {"role": "system", "content": "You are a careful programmer."},
            {"role": "user", "content": f"Repair task {task_id or 'inline'} #{index}."},
        ],
        "ability": "code",
        "reward_model": {"style": "rule", "ground_truth": task_id},
        "extra_info": {"task_id": task_id, "problem_id": task_id, "split": "train", "index": index},
    }


def grpo_step_batch(export_row: Callable[[str, int], dict]) -> Tuple[List[dict], List[dict], List[List[str]]]:
    """A GRPO step of 8 prompts x 8 samples: seven unittest tasks (:func:`samples_of` each) and the task whose
    tests cannot run (INFRA_ERROR for every sample). Returns the seven tasks, the rows ``export_row(task_id,
    index)`` makes, and the completions of each row."""
    tasks = [t for t in TASKS if t["tests"]["style"] == "unittest"][:7]
    rows = [export_row(t["task_id"], i) for i, t in enumerate(tasks)] + [export_row(INFRA_TASK_ID, 7)]
    return tasks, rows, [samples_of(t) for t in tasks] + [[GOLD] * 8]


def oracle_groups(tasks: List[dict], completions: List[List[str]]) -> List[List[RolloutResult]]:
    """The results of each task's completions, scored as one ScoreBatch call of their own (the oracle)."""
    client = MineditClient(TARGET, token=TOKEN, timeout=120)
    try:
        return [
            client.score_batch([Rollout(str(j), c, task_id=task["task_id"]) for j, c in enumerate(group)])
            for task, group in zip(tasks, completions)
        ]
    finally:
        client.close()


# ---- the example launchers ---------------------------------------------------------------------------------


def script_argv(script: str, **env: str) -> List[str]:
    """The arguments the example script ``script`` (a path) gives ``python3``, after the shell's expansions:
    the script runs with a stand-in python3 first on PATH that records them."""
    with tempfile.TemporaryDirectory() as tmp:
        shim = os.path.join(tmp, "python3")
        with open(shim, "w") as f:
            f.write('#!/bin/sh\nfor a in "$@"; do printf \'%s\\0\' "$a"; done > "$ARGV_OUT"\n')
        os.chmod(shim, 0o755)
        out = os.path.join(tmp, "argv")
        run_env = {k: v for k, v in os.environ.items() if k not in ("TRAIN_FILES", "VAL_FILES", "MODEL", "GPUS")}
        run_env.update(PATH=tmp + os.pathsep + os.environ.get("PATH", ""), ARGV_OUT=out, **env)
        subprocess.run(["bash", script], env=run_env, check=True, timeout=60)
        with open(out, "rb") as f:
            return [a.decode() for a in f.read().split(b"\0")[:-1]]
