"""What the trainer adapters share: turning a trainer's completion (a string, or a list of chat messages)
into the text the server scores, finding the task id of a sample, masking infrastructure errors for
trainers that cannot take ``None``, and one cached client per process and event loop."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .client import AsyncMineditClient, MineditClient, settings_from_env
from .types import RolloutResult


def _field(item: Any, name: str) -> Any:
    """A field of a message or content part: a key of a dict, or an attribute of an object (verifiers
    >= 0.1.11 passes pydantic models, which are not Mappings; TRL and older verifiers pass dicts)."""
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)


def _is_message(item: Any) -> bool:
    return isinstance(item, Mapping) or (hasattr(item, "role") and hasattr(item, "content"))


def _content_text(content: Any) -> str:
    # OpenAI-style content may be a list of parts: keep the text parts, in order.
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif (_field(part, "type") or "text") == "text":
                text = _field(part, "text")
                texts.append("" if text is None else str(text))
        return "".join(texts)
    return "" if content is None else str(content)


def completion_text(completion: Any) -> str:
    """The text to score from one completion as trainers pass it: a plain string (standard format), or a
    conversation whose LAST assistant message is the answer (the last message of any role when none is
    marked assistant), or one message. Messages are dicts (``{"role", "content"}``: TRL, verifiers up to
    0.1.10) or objects with ``role`` / ``content`` attributes (verifiers' pydantic messages since 0.1.11,
    and ``verifiers.v1``); content is a string or a list of parts (dicts or objects with ``type``/``text``).
    """
    if isinstance(completion, str):
        return completion
    if _is_message(completion):
        return _content_text(_field(completion, "content"))
    if isinstance(completion, Sequence):
        messages = [m for m in completion if _is_message(m)]
        assistant = [m for m in messages if _field(m, "role") == "assistant"]
        chosen = assistant[-1] if assistant else (messages[-1] if messages else None)
        return "" if chosen is None else _content_text(_field(chosen, "content"))
    raise TypeError(f"cannot read a completion of type {type(completion).__name__}")


def task_id_of(primary: Any, secondary: Any, primary_name: str, secondary_name: str) -> str:
    """The task id of a sample found in two places (e.g. verl's ``ground_truth`` and
    ``extra_info["task_id"]``). Either may be missing; when both are given they must agree, since silently
    preferring one would score against a task the dataset writer may not have meant."""
    a = None if primary is None or primary == "" else str(primary)
    b = None if secondary is None or secondary == "" else str(secondary)
    if a is not None and b is not None and a != b:
        raise ValueError(f"{primary_name} ({a!r}) and {secondary_name} ({b!r}) name different tasks")
    if a is None and b is None:
        raise ValueError(f"no task id: set {primary_name} or {secondary_name} to the minedit task id")
    return a if a is not None else b  # type: ignore[return-value]


def masked_rewards(
    results: Sequence[RolloutResult], groups: Sequence[str], fallback: float
) -> Tuple[List[float], List[bool]]:
    """Rewards for trainers that need a number for every sample (verl, OpenRLHF).

    An INFRA_ERROR sample gets the mean reward of the scored samples of its group (same task id, i.e.
    the same GRPO prompt) in this batch, so its group-normalized advantage is zero and it teaches nothing
    -- the closest a number comes to masking. A group with no scored sample falls back to ``fallback``.
    Returns the rewards and, per sample, whether it was an infrastructure error.
    """
    sums: Dict[str, Tuple[float, int]] = {}
    for result, group in zip(results, groups):
        if result.reward is not None:
            total, count = sums.get(group, (0.0, 0))
            sums[group] = (total + result.reward, count + 1)
    rewards, infra = [], []
    for result, group in zip(results, groups):
        if result.reward is not None:
            rewards.append(result.reward)
            infra.append(False)
        else:
            total, count = sums.get(group, (0.0, 0))
            rewards.append(total / count if count else fallback)
            infra.append(True)
    return rewards, infra


class SyncClients:
    """One blocking client per process (gRPC channels do not survive ``fork``, which Ray and dataloader
    workers do), built lazily from :func:`settings_from_env` plus the given settings."""

    def __init__(self, **settings: Any) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        self._client: Optional[MineditClient] = None
        self._pid = -1

    def get(self) -> MineditClient:
        with self._lock:
            if self._client is None or self._pid != os.getpid():
                self._client = MineditClient(**settings_from_env(**self._settings))
                self._pid = os.getpid()
            return self._client


class AsyncClients:
    """One :class:`AsyncMineditClient` per event loop: a ``grpc.aio`` channel is bound to the loop it was
    created in, and trainers differ in which loop runs reward functions (TRL keeps one in a background
    thread; a test calls ``asyncio.run`` per call). Clients of loops that have closed are dropped, so a
    caller that makes a new loop per call does not accumulate channels."""

    def __init__(self, factory: Callable[[], AsyncMineditClient]) -> None:
        self._factory = factory
        # Keyed by the loop object itself (not a weak reference: the client's channel refers to its loop,
        # so a weak key would never die); closed loops are swept on every lookup.
        self._clients: Dict[asyncio.AbstractEventLoop, AsyncMineditClient] = {}
        self._lock = threading.Lock()

    def get(self) -> AsyncMineditClient:
        loop = asyncio.get_running_loop()
        with self._lock:
            for stale in [l for l in self._clients if l.is_closed()]:
                del self._clients[stale]
            client = self._clients.get(loop)
            if client is None:
                client = self._factory()
                self._clients[loop] = client
            return client
