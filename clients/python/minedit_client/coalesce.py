"""Coalescing per-sample reward calls into a few batch calls.

Some trainers ask for one sample's reward at a time, from many callers at once: verl's reward loop awaits
``compute_score`` per sample (0.7+), OpenRLHF posts one sample per HTTP request, a thread pool calls a
synchronous reward function per sample. Sent one by one, a 512-sample GRPO step costs 512 RPCs and the
server cannot run repeated completions of a group once. :class:`CoalescingScorer` gathers the rollouts of
concurrent callers for a short window (``window_s``, default 20 ms after the first one arrives) or until
``max_rollouts`` have arrived, and sends them as ONE ``ScoreBatch``; each caller gets its own result.

It is safe to call from any number of threads (:meth:`CoalescingScorer.score` blocks the calling thread)
and from any asyncio event loop (:meth:`CoalescingScorer.score_async`); the calls to the server are made
by its own threads with a blocking client, so no gRPC channel is tied to a caller's event loop. After
``fork`` (Ray workers, process pools) it starts afresh in the child.

A batch the server rejects as a whole because of one rollout (INVALID_ARGUMENT, NOT_FOUND: e.g. an
unknown task id) is sent again one rollout at a time, so only the caller whose rollout was bad gets the
error; any other failure (the server is down after the client's retries, the deadline passed) goes to
every caller of that batch.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Callable, List, Optional, Tuple

import grpc

from .client import MineditClient
from .types import MineditError, Rollout, RolloutResult

#: Status codes that blame one rollout of a batch rather than the call.
_PER_ROLLOUT_CODES = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND)


@dataclass
class CoalescingStats:
    """What a :class:`CoalescingScorer` has sent so far: batch calls and the rollouts in them."""

    calls: int = 0
    rollouts: int = 0


def coalescing_settings_from_env(**overrides: object) -> dict:
    """:class:`CoalescingScorer` keyword arguments from the environment:

    - ``MINEDIT_COALESCE_MS``: the window in milliseconds (default 20; 0 sends each call at once);
    - ``MINEDIT_COALESCE_MAX``: the most rollouts in one batch (default 512).

    Keyword arguments given here (not None) win over the environment.
    """
    settings: dict = {}
    if os.environ.get("MINEDIT_COALESCE_MS"):
        settings["window_s"] = float(os.environ["MINEDIT_COALESCE_MS"]) / 1000.0
    if os.environ.get("MINEDIT_COALESCE_MAX"):
        settings["max_rollouts"] = int(os.environ["MINEDIT_COALESCE_MAX"])
    settings.update({k: v for k, v in overrides.items() if v is not None})
    return settings


class CoalescingScorer:
    """Scores rollouts from concurrent callers in shared ``ScoreBatch`` calls (see the module doc).

    ``client_factory`` makes the blocking :class:`MineditClient` the batches are sent with (called once per
    process). ``max_in_flight`` bounds the batch calls running at once; a window that closes while they are
    all busy waits for one, gathering more rollouts meanwhile.
    """

    def __init__(
        self,
        client_factory: Callable[[], MineditClient],
        *,
        window_s: float = 0.02,
        max_rollouts: int = 512,
        max_in_flight: int = 8,
    ) -> None:
        if window_s < 0:
            raise ValueError("window_s must be >= 0")
        if max_rollouts < 1 or max_in_flight < 1:
            raise ValueError("max_rollouts and max_in_flight must be >= 1")
        self._factory = client_factory
        self.window_s = window_s
        self.max_rollouts = max_rollouts
        self.max_in_flight = max_in_flight
        self.stats = CoalescingStats()
        self._pid = -1
        self._guard = threading.Lock()
        self._shut = False

    # ---- per-process state (threads and channels do not survive fork) -------------------------------

    def _start(self) -> None:
        self._pid = os.getpid()
        self._client = self._factory()
        self._lock = threading.Condition()
        self._pending: List[Tuple[Rollout, "Future[RolloutResult]"]] = []
        self._first_at: Optional[float] = None
        self._closed = False
        self._senders = ThreadPoolExecutor(max_workers=self.max_in_flight, thread_name_prefix="minedit-batch")
        self._slots = threading.BoundedSemaphore(self.max_in_flight)
        self._flusher = threading.Thread(target=self._run_flusher, name="minedit-coalesce", daemon=True)
        self._flusher.start()

    def _ensure_started(self) -> None:
        with self._guard:
            if self._shut:
                raise RuntimeError("CoalescingScorer is closed")
            if self._pid != os.getpid():
                self._start()

    # ---- callers --------------------------------------------------------------------------------------

    def submit(self, rollout: Rollout) -> "Future[RolloutResult]":
        """Queues ``rollout`` for the next batch; the future resolves to its result (or its error)."""
        self._ensure_started()
        future: "Future[RolloutResult]" = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("CoalescingScorer is closed")
            if not self._pending:
                self._first_at = _now()
            self._pending.append((rollout, future))
            self._lock.notify()
        return future

    def score(self, rollout: Rollout, timeout: Optional[float] = None) -> RolloutResult:
        """Scores one rollout, blocking the calling thread until its batch has come back."""
        return self.submit(rollout).result(timeout=timeout)

    async def score_async(self, rollout: Rollout) -> RolloutResult:
        """Scores one rollout without blocking the event loop (any loop: the batch runs on our threads)."""
        return await asyncio.wrap_future(self.submit(rollout))

    def close(self) -> None:
        """Sends what is queued, waits for the batches in flight, and closes the client. Later calls raise."""
        with self._guard:
            self._shut = True
        if self._pid != os.getpid():
            return
        with self._lock:
            self._closed = True
            self._lock.notify()
        self._flusher.join()
        self._senders.shutdown(wait=True)
        self._client.close()
        self._pid = -1

    # ---- the flusher thread: cut a batch when its window closes or it is full ------------------------

    def _run_flusher(self) -> None:
        while True:
            with self._lock:
                while True:
                    if self._pending:
                        if self._closed or len(self._pending) >= self.max_rollouts:
                            break
                        wait = (self._first_at or 0.0) + self.window_s - _now()
                        if wait <= 0:
                            break
                        self._lock.wait(wait)
                    elif self._closed:
                        return
                    else:
                        self._lock.wait()
            # A free sender first, so a burst that outruns the server piles up into fewer, larger batches.
            self._slots.acquire()
            with self._lock:
                batch = self._pending[: self.max_rollouts]
                del self._pending[: self.max_rollouts]
                self._first_at = _now() if self._pending else None
            if not batch:
                self._slots.release()
                continue
            self._senders.submit(self._send, batch)

    def _send(self, batch: List[Tuple[Rollout, "Future[RolloutResult]"]]) -> None:
        try:
            self._send_batch(batch)
        finally:
            self._slots.release()

    def _send_batch(self, batch: List[Tuple[Rollout, "Future[RolloutResult]"]]) -> None:
        # A caller that gave up (its future was cancelled, e.g. by asyncio.wait_for) leaves the batch; the
        # others are marked running, so they can no longer be cancelled and each gets its result.
        batch = [(rollout, future) for rollout, future in batch if future.set_running_or_notify_cancel()]
        if not batch:
            return
        # Callers' ids need not be unique across callers: the batch numbers its rollouts itself.
        rollouts = [replace(rollout, id=str(index)) for index, (rollout, _) in enumerate(batch)]
        with self._guard:
            self.stats.calls += 1
            self.stats.rollouts += len(rollouts)
        try:
            results = self._client.score_batch(rollouts)
        except MineditError as error:
            if len(batch) > 1 and error.code in _PER_ROLLOUT_CODES:
                for one in batch:
                    self._send_one(one)
                return
            for _, future in batch:
                future.set_exception(error)
            return
        except BaseException as error:  # noqa: BLE001 - every caller must hear how its batch ended
            for _, future in batch:
                future.set_exception(error)
            return
        for (rollout, future), result in zip(batch, results):
            future.set_result(replace(result, id=rollout.id))

    def _send_one(self, item: Tuple[Rollout, "Future[RolloutResult]"]) -> None:
        """Sends one rollout of a rejected batch on its own (its future is already running)."""
        rollout, future = item
        with self._guard:
            self.stats.calls += 1
            self.stats.rollouts += 1
        try:
            [result] = self._client.score_batch([replace(rollout, id="0")])
        except BaseException as error:  # noqa: BLE001 - the caller hears how its rollout ended
            future.set_exception(error)
            return
        future.set_result(replace(result, id=rollout.id))


def _now() -> float:
    return time.monotonic()
