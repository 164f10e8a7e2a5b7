"""What the trainer adapters share: turning a trainer's completion (a string, or a list of chat messages)
into the text the server scores, finding the task of a sample (a task id, or an inline task), telling a
transient failure from a bad sample, filling in the rewards of unscored samples for trainers that cannot
take ``None``, one cached client per process and event loop, and one coalescing scorer per process and
settings."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import threading
from concurrent.futures import Future
from functools import partial
from typing import Any, Callable, Dict, Hashable, List, Mapping, Optional, Sequence, Tuple

import grpc

from .client import AsyncMineditClient, MineditClient, settings_from_env
from .coalesce import CoalescingScorer, coalescing_settings_from_env
from .types import MineditError, RolloutResult

#: Failures that say nothing about the sample: the server was unreachable after the client's retries, or
#: slow. The adapters count such a sample as INFRA_ERROR; any other failed call (an unknown task id, a bad
#: token) is a dataset or setup error, and raised.
TRANSIENT_CODES = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def transient(error: BaseException) -> bool:
    """Whether a failed call failed transiently (:data:`TRANSIENT_CODES`)."""
    return isinstance(error, MineditError) and error.code in TRANSIENT_CODES


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


def _given(value: Any) -> bool:
    return value is not None and value != ""


def task_id_of(*places: Tuple[str, Any]) -> str:
    """The task id of a sample that may be given in several places, each a ``(name, value)`` pair (e.g.
    verl's ``ground_truth`` and ``extra_info["task_id"]``). Any may be missing (None or ""); those given must
    agree, since silently preferring one would score against a task the dataset writer may not have meant."""
    given = [(name, str(value)) for name, value in places if _given(value)]
    if not given:
        names = [name for name, _ in places]
        either = " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        raise ValueError(f"no task id: set {either} to the minedit task id")
    first_name, first = given[0]
    for name, value in given[1:]:
        if value != first:
            raise ValueError(f"{first_name} ({first!r}) and {name} ({value!r}) name different tasks")
    return first


def one_task(
    inline: Optional[Mapping[str, Any]], *places: Tuple[str, Any]
) -> Tuple[Optional[str], Optional[Mapping[str, Any]]]:
    """``(task_id, None)`` or ``(None, inline)`` for a sample that names its task inline (``inline``; None
    when it has none) or by id in ``places`` (:func:`task_id_of`). Both at once is an error: which of the
    two the dataset writer meant cannot be known."""
    if inline is None:
        return task_id_of(*places), None
    named = [name for name, value in places if _given(value)]
    if named:
        raise ValueError(f"minedit: a sample names both a task id and an inline task; give one (the id is {named[0]})")
    return None, inline


def json_object(value: Any) -> Optional[Mapping[str, Any]]:
    """``value`` as a mapping: a mapping itself, or a string holding a JSON object (a Parquet column holds
    one type, and inline tasks' ``tests`` differ in shape between rows, so datasets often store an inline
    task as JSON); None for anything else."""
    if isinstance(value, Mapping):
        return value
    if isinstance(value, str) and value.lstrip().startswith("{"):
        parsed = json.loads(value)
        if isinstance(parsed, Mapping):
            return parsed
    return None


def inline_task(value: Any, *, complete: bool = False) -> Optional[Mapping[str, Any]]:
    """An inline task (:class:`~minedit_client.Task`'s fields) given as a mapping or as a JSON object string
    (:func:`json_object`): one with a ``corrupted`` key or, with ``complete`` (the SkyRL and rLLM rows), a
    copy of one whose ``corrupted``, ``gold`` and ``tests`` are all set. None for anything else: a task id,
    ``{"task_id": ...}``."""
    found = json_object(value)
    if found is None:
        return None
    if complete:
        return dict(found) if all(found.get(name) is not None for name in ("corrupted", "gold", "tests")) else None
    return found if "corrupted" in found else None


def task_or_id(value: Any) -> Tuple[Any, Optional[Mapping[str, Any]]]:
    """``(task_id, inline_task)`` of a field that holds a task id, ``{"task_id": ...}`` or an inline task
    (:func:`inline_task`), each object as a mapping or a JSON string; at most one of the two is set."""
    found = json_object(value)
    if found is None:
        return value, None
    inline = inline_task(found)
    return (None, inline) if inline is not None else (found.get("task_id"), None)


def task_group(task_id: Optional[str], inline: Optional[Mapping[str, Any]]) -> str:
    """The group of a sample for a group mean: its task id, or ``inline:<hash>`` of its inline task's
    content, which the samples of one GRPO prompt share."""
    if inline is None:
        return str(task_id)
    digest = hashlib.sha256(json.dumps(inline, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return f"inline:{digest}"


def group_means(values: Sequence[Optional[float]], groups: Sequence[Hashable], fallback: float) -> List[float]:
    """Each value, and for a missing one (None: a masked sample, or one whose call failed) the mean of the
    values of its group (e.g. the same task id, i.e. the same GRPO prompt) in this batch, so its
    group-normalized advantage is zero and it teaches nothing -- the closest a number comes to masking. A
    group with no value falls back to ``fallback``."""
    sums: Dict[Hashable, Tuple[float, int]] = {}
    for value, group in zip(values, groups):
        if value is not None:
            total, count = sums.get(group, (0.0, 0))
            sums[group] = (total + value, count + 1)
    filled = []
    for value, group in zip(values, groups):
        if value is not None:
            filled.append(value)
        else:
            total, count = sums.get(group, (0.0, 0))
            filled.append(total / count if count else fallback)
    return filled


def masked_rewards(
    results: Sequence[RolloutResult], groups: Sequence[str], fallback: float
) -> Tuple[List[float], List[bool]]:
    """Rewards for trainers that need a number for every sample (verl, OpenRLHF): an INFRA_ERROR sample gets
    its group's mean (:func:`group_means`). Returns the rewards and, per sample, whether it was an
    infrastructure error."""
    rewards = [result.reward for result in results]
    return group_means(rewards, groups, fallback), [reward is None for reward in rewards]


async def results_of(futures: Sequence["Future[RolloutResult]"]) -> List[Optional[RolloutResult]]:
    """The results of rollouts submitted to a :class:`~minedit_client.CoalescingScorer`, in order; None for
    one whose call failed transiently (:func:`transient`). Any other failure is raised."""
    results: List[Optional[RolloutResult]] = []
    for future in futures:
        try:
            results.append(await asyncio.wrap_future(future))
        except MineditError as error:
            if not transient(error):
                raise
            results.append(None)
    return results


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


# ---- one CoalescingScorer per process and settings ---------------------------------------------------

_scorers: Dict[Hashable, CoalescingScorer] = {}


def per_process_scorer(key: Hashable, make: Callable[[], CoalescingScorer]) -> CoalescingScorer:
    """The scorer of this process for ``key``, made by ``make`` on first use; later calls with the same key
    get the same one, so their rollouts share ``ScoreBatch`` calls. A scorer starts its threads and client
    on first use, and again in a forked child."""
    scorer = _scorers.get(key)
    if scorer is None:
        # setdefault is atomic: concurrent first callers agree on one scorer (it starts on first use, so the
        # loser's copy holds no threads or channel).
        scorer = _scorers.setdefault(key, make())
    return scorer


def new_scorer(
    client_factory: Callable[[], MineditClient], coalesce_ms: Optional[float] = None, coalesce_max: Optional[int] = None
) -> CoalescingScorer:
    """A new :class:`~minedit_client.CoalescingScorer` sending with ``client_factory``'s client. Its window
    (``coalesce_ms``, in milliseconds) and batch size (``coalesce_max``) default to ``MINEDIT_COALESCE_MS``
    and ``MINEDIT_COALESCE_MAX``."""
    settings = coalescing_settings_from_env(
        window_s=None if coalesce_ms is None else float(coalesce_ms) / 1000.0,
        max_rollouts=None if coalesce_max is None else int(coalesce_max),
    )
    return CoalescingScorer(client_factory, **settings)


def _new_client(target: Optional[str], token: Optional[str], timeout: Optional[float]) -> MineditClient:
    # The MINEDIT_* environment is read here, when the scorer starts: in a forked child, the child's.
    return MineditClient(**settings_from_env(target=target, token=token, timeout=timeout))


def coalescing_scorer(
    minedit_target: Optional[str] = None,
    minedit_token: Optional[str] = None,
    minedit_timeout: Optional[float] = None,
    coalesce_ms: Optional[float] = None,
    coalesce_max: Optional[int] = None,
) -> CoalescingScorer:
    """The :class:`~minedit_client.CoalescingScorer` the trainer adapters score through for these settings
    (one per process; it starts afresh after ``fork``); its ``stats`` count the ``ScoreBatch`` calls sent.
    Settings left None come from the ``MINEDIT_*`` environment."""
    key = (minedit_target, minedit_token, minedit_timeout, coalesce_ms, coalesce_max)
    client = partial(_new_client, minedit_target, minedit_token, minedit_timeout)
    return per_process_scorer(key, lambda: new_scorer(client, coalesce_ms, coalesce_max))
