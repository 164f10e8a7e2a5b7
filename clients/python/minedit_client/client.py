"""The gRPC clients of the minedit reward service: :class:`MineditClient` (blocking) and
:class:`AsyncMineditClient` (``grpc.aio``, for asyncio code such as TRL's async reward functions).

Both offer the same calls:

- ``score_batch(rollouts, timeout=, reward_override=)`` -> one :class:`RolloutResult` per rollout, in order;
- ``score_stream(rollouts, timeout=, reward_override=)`` -> results as each rollout finishes (any order;
  match them by ``id``);
- ``health(service="")`` -> ``"SERVING"``, ``"NOT_SERVING"``, ``"SERVICE_UNKNOWN"`` or ``"UNKNOWN"``.

A call that fails with UNAVAILABLE (server not up yet, restarting, connection dropped) is retried with
exponential backoff and jitter (:class:`RetryPolicy`); every other failure raises :class:`MineditError`
at once. ``timeout`` is the deadline of the whole call in seconds, retries included.

Several servers (replicas behind a Kubernetes headless Service, docs/deploy.md): a target that can resolve
to more than one address — ``dns:///NAME:PORT``, a bare ``NAME:PORT``, or a static ``ipv4:A:P,B:P`` /
``ipv6:`` list — or a list of ``"IP:PORT"`` strings gets gRPC's ``round_robin`` policy, so calls spread
over every address (the default ``pick_first`` would send them all to one). The server's
``maxConnectionAgeMs`` makes the channel re-resolve, so replicas added later get calls too. Plaintext by
default;
``root_certificates=`` (and ``private_key=`` / ``certificate_chain=`` for client certificates) switch to
TLS, and ``token=`` sends ``authorization: Bearer <token>`` on every call, as the server's
``--auth-token`` requires.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import random
import time
from dataclasses import dataclass
from typing import Any, AsyncIterator, ClassVar, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import grpc
import grpc.aio

from . import _convert
from ._convert import OverrideLike, RolloutLike
from ._gen.minedit.v1 import reward_pb2 as pb
from ._gen.minedit.v1 import reward_pb2_grpc as pb_grpc
from .types import MineditError, RolloutResult

DEFAULT_TARGET = "127.0.0.1:50051"


@dataclass(frozen=True)
class RetryPolicy:
    """Retries of calls that fail with UNAVAILABLE.

    Attempt n (n >= 2) waits ``min(max_backoff_s, initial_backoff_s * multiplier ** (n - 2))``, scaled by a
    random factor in ``[1 - jitter, 1 + jitter]`` so that many trainer workers do not retry in lockstep.
    ``max_attempts=1`` disables retries. A call's ``timeout`` bounds the total time, waits included.
    """

    max_attempts: int = 5
    initial_backoff_s: float = 0.2
    max_backoff_s: float = 5.0
    multiplier: float = 2.0
    jitter: float = 0.2

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before attempt ``attempt`` (2, 3, ...)."""
        base = min(self.max_backoff_s, self.initial_backoff_s * self.multiplier ** (attempt - 2))
        return base * random.uniform(1 - self.jitter, 1 + self.jitter)


def _read(value: Union[bytes, str, None]) -> Optional[bytes]:
    """PEM given as bytes, or as a path to a file."""
    if value is None or isinstance(value, bytes):
        return value
    with open(value, "rb") as f:
        return f.read()


def _ip_literal(host: str) -> Optional[ipaddress._BaseAddress]:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def channel_target(target: Union[str, Sequence[str]]) -> str:
    """The gRPC target for ``target``: a string as it is; a list of ``"IP:PORT"`` addresses as a static
    ``ipv4:`` / ``ipv6:`` address list (names cannot be listed: use ``dns:///NAME:PORT``, which resolves to
    all of NAME's addresses)."""
    if isinstance(target, str):
        return target
    addresses = list(target)
    if len(addresses) == 0:
        raise ValueError("target: at least one address is needed")
    if len(addresses) == 1:
        return addresses[0]
    families = set()
    for address in addresses:
        host, _, port = address.rpartition(":")
        ip = _ip_literal(host)
        if ip is None or not port.isdigit():
            raise ValueError(
                f"target: {address!r} is not IP:PORT; a list of targets must be IP addresses "
                "(for a name with several addresses use 'dns:///NAME:PORT')"
            )
        families.add(ip.version)
    if len(families) != 1:
        raise ValueError("target: a list of addresses must be all IPv4 or all IPv6")
    return f"ipv{families.pop()}:{','.join(addresses)}"


def _may_resolve_to_several(target: str) -> bool:
    """Whether a target can name several servers: a DNS name (``dns:`` or a bare ``NAME:PORT``) or a static
    address list. A single IP literal, Unix sockets and other resolvers' schemes are left alone."""
    scheme = target.split(":", 1)[0]
    if scheme in ("dns", "ipv4", "ipv6"):
        return True
    if scheme in ("unix", "unix-abstract", "vsock", "xds", "google-c2p") or "://" in target:
        return False
    host = target[1 : target.find("]")] if target.startswith("[") else target.rpartition(":")[0] or target
    return _ip_literal(host) is None


def _channel_options(
    retry: RetryPolicy, extra: Sequence[Tuple[str, object]], target: str = DEFAULT_TARGET
) -> List[Tuple[str, object]]:
    # Large batches: 4096 results with stderr tails exceed gRPC's default 4 MiB receive limit. The
    # reconnect backoff follows the retry policy, so a retry after the server came back finds the channel
    # already reconnecting instead of parked in gRPC's default 1-120 s backoff. Not
    # grpc.min_reconnect_backoff_ms: gRPC core takes it as the time a connection attempt gets to finish
    # its handshake (grpc/grpc src/core/client_channel/subchannel.cc at f80e3f8efd00, default 20 s), and a server busy for longer
    # than a short one (a GRPO step on a small machine) then refused every trainer that connected.
    options: dict = {
        "grpc.max_receive_message_length": 256 * 1024 * 1024,
        "grpc.max_send_message_length": 256 * 1024 * 1024,
        "grpc.initial_reconnect_backoff_ms": max(1, int(retry.initial_backoff_s * 1000)),
        "grpc.max_reconnect_backoff_ms": max(1, int(retry.max_backoff_s * 1000)),
    }
    if _may_resolve_to_several(target):
        # Spread calls over every address the target resolves to (replicas), not only the first.
        options["grpc.lb_policy_name"] = "round_robin"
    options.update(dict(extra))
    return list(options.items())


def _credentials(
    root_certificates: Union[bytes, str, None],
    private_key: Union[bytes, str, None],
    certificate_chain: Union[bytes, str, None],
    tls: Optional[bool],
) -> Optional[grpc.ChannelCredentials]:
    use_tls = tls if tls is not None else root_certificates is not None or certificate_chain is not None
    if not use_tls:
        return None
    return grpc.ssl_channel_credentials(
        root_certificates=_read(root_certificates),
        private_key=_read(private_key),
        certificate_chain=_read(certificate_chain),
    )


def _error(error: grpc.RpcError, attempts: int) -> MineditError:
    trailers = {}
    try:
        metadata = error.trailing_metadata() or ()
        # Blocking gRPC gives a tuple of (key, value) pairs; grpc.aio a Metadata mapping with items().
        pairs = metadata.items() if hasattr(metadata, "items") else metadata
        trailers = {key: value for key, value in pairs}
    except Exception:  # noqa: BLE001 - a transport-level failure may carry no call metadata at all
        pass
    return MineditError(
        error.code(),
        error.details() or "",
        error_code=trailers.get("minedit-error-code"),
        field=trailers.get("minedit-field"),
        attempts=attempts,
    )


class _Base:
    # grpc (blocking) or grpc.aio: both have the same channel constructors.
    _channels: ClassVar[Any] = grpc

    def __init__(
        self,
        target: Union[str, Sequence[str]] = DEFAULT_TARGET,
        *,
        token: Optional[str] = None,
        timeout: Optional[float] = None,
        retry: RetryPolicy = RetryPolicy(),
        tls: Optional[bool] = None,
        root_certificates: Union[bytes, str, None] = None,
        private_key: Union[bytes, str, None] = None,
        certificate_chain: Union[bytes, str, None] = None,
        options: Sequence[Tuple[str, object]] = (),
    ) -> None:
        if retry.max_attempts < 1:
            raise ValueError("retry.max_attempts must be at least 1")
        target = channel_target(target)
        self.target = target
        self.default_timeout = timeout
        self.retry = retry
        self._metadata: Tuple[Tuple[str, str], ...] = (
            (("authorization", f"Bearer {token}"),) if token is not None else ()
        )
        creds = _credentials(root_certificates, private_key, certificate_chain, tls)
        opts = _channel_options(retry, options, target)
        self._channel = (
            self._channels.secure_channel(target, creds, options=opts)
            if creds is not None
            else self._channels.insecure_channel(target, options=opts)
        )
        self._stub = pb_grpc.RewardServiceStub(self._channel)
        self._health = self._channel.unary_unary(
            _convert.HEALTH_CHECK_METHOD,
            request_serializer=_convert.encode_health_request,
            response_deserializer=_convert.decode_health_response,
        )

    def _deadline(self, timeout: Optional[float]) -> Optional[float]:
        timeout = self.default_timeout if timeout is None else timeout
        return None if timeout is None else time.monotonic() + timeout

    @staticmethod
    def _remaining(deadline: Optional[float]) -> Optional[float]:
        return None if deadline is None else max(0.0, deadline - time.monotonic())

    def _retry_wait(self, error: grpc.RpcError, attempt: int, deadline: Optional[float]) -> Optional[float]:
        """Seconds to wait before retrying after ``error`` on attempt ``attempt``; None: do not retry."""
        if error.code() != grpc.StatusCode.UNAVAILABLE or attempt >= self.retry.max_attempts:
            return None
        wait = self.retry.backoff(attempt + 1)
        if deadline is not None and time.monotonic() + wait >= deadline:
            return None
        return wait

    @staticmethod
    def _batch_request(rollouts: Iterable[RolloutLike], reward_override: OverrideLike) -> "pb.ScoreBatchRequest":
        request = pb.ScoreBatchRequest(rollouts=[_convert.rollout_message(r) for r in rollouts])
        override = _convert.override_message(reward_override)
        if override is not None:
            request.reward_override.CopyFrom(override)
        return request

    @staticmethod
    def _stream_message(rollout: RolloutLike, override: Optional["pb.RewardOverride"]) -> "pb.ScoreStreamRequest":
        message = pb.ScoreStreamRequest(rollouts=[_convert.rollout_message(rollout)])
        if override is not None:
            message.reward_override.CopyFrom(override)
        return message


class MineditClient(_Base):
    """Blocking client. Use as a context manager, or call :meth:`close`.

    >>> with MineditClient("127.0.0.1:50051") as client:
    ...     [result] = client.score_batch([{"id": "r1", "task_id": "minedit/seed/001-merge-bookings/demo/v1",
    ...                                       "completion": "```python\\n...\\n```"}])
    ...     result.reward, result.verdict
    """

    _channels = grpc

    def __enter__(self) -> "MineditClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._channel.close()

    def _back_off(self, wait: float) -> None:
        """Waits ``wait`` seconds before the next attempt, watching the channel meanwhile: a sync gRPC
        channel makes progress only while something polls it, so behind a plain sleep a reconnection (the
        server back up, or slow to finish a handshake) went unseen until gRPC's 5 s backup poller."""
        until = time.monotonic() + wait
        ready = grpc.channel_ready_future(self._channel)
        try:
            ready.result(timeout=wait)
        except grpc.FutureTimeoutError:
            pass
        finally:
            ready.cancel()
        # Ready early: the rest of the backoff still passes, as the retry policy says.
        time.sleep(max(0.0, until - time.monotonic()))

    def _call(self, fn, request, deadline):  # type: ignore[no-untyped-def]
        attempt = 1
        while True:
            try:
                return fn(request, timeout=self._remaining(deadline), metadata=self._metadata)
            except grpc.RpcError as error:
                wait = self._retry_wait(error, attempt, deadline)
                if wait is None:
                    raise _error(error, attempt) from None
                self._back_off(wait)
                attempt += 1

    def score_batch(
        self,
        rollouts: Iterable[RolloutLike],
        *,
        timeout: Optional[float] = None,
        reward_override: OverrideLike = None,
    ) -> List[RolloutResult]:
        """Scores the rollouts in one ScoreBatch call; results in request order."""
        request = self._batch_request(rollouts, reward_override)
        response = self._call(self._stub.ScoreBatch, request, self._deadline(timeout))
        return [_convert.result_from_message(r) for r in response.results]

    def score_stream(
        self,
        rollouts: Iterable[RolloutLike],
        *,
        timeout: Optional[float] = None,
        reward_override: OverrideLike = None,
    ) -> Iterator[RolloutResult]:
        """Streams the rollouts (one message each, read lazily from ``rollouts``) and yields each result as
        soon as the server has it. Retried on UNAVAILABLE only while no result has arrived and only when
        ``rollouts`` is a sequence (an iterator cannot be replayed)."""
        deadline = self._deadline(timeout)
        override = _convert.override_message(reward_override)
        replayable = isinstance(rollouts, Sequence)

        def requests() -> Iterator["pb.ScoreStreamRequest"]:
            for rollout in rollouts:
                yield self._stream_message(rollout, override)

        attempt = 1
        while True:
            received = False
            try:
                call = self._stub.ScoreStream(requests(), timeout=self._remaining(deadline), metadata=self._metadata)
                for response in call:
                    received = True
                    yield _convert.result_from_message(response.result)
                return
            except grpc.RpcError as error:
                wait = None if received or not replayable else self._retry_wait(error, attempt, deadline)
                if wait is None:
                    raise _error(error, attempt) from None
                self._back_off(wait)
                attempt += 1

    def health(self, service: str = "", *, timeout: Optional[float] = 10.0) -> str:
        """The serving status of ``service`` ("" = the whole server; ``minedit.v1.RewardService``)."""
        return self._call(self._health, service, self._deadline(timeout))


class AsyncMineditClient(_Base):
    """``grpc.aio`` client: the same calls as :class:`MineditClient`, as coroutines, and ``score_stream``
    as an async iterator. A ``grpc.aio`` channel belongs to the event loop it was created in: create the
    client inside that loop. Use ``async with``, or ``await client.close()``."""

    _channels = grpc.aio

    async def __aenter__(self) -> "AsyncMineditClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._channel.close()

    async def _call(self, fn, request, deadline):  # type: ignore[no-untyped-def]
        attempt = 1
        while True:
            try:
                return await fn(request, timeout=self._remaining(deadline), metadata=self._metadata)
            except grpc.RpcError as error:
                wait = self._retry_wait(error, attempt, deadline)
                if wait is None:
                    raise _error(error, attempt) from None
                await asyncio.sleep(wait)
                attempt += 1

    async def score_batch(
        self,
        rollouts: Iterable[RolloutLike],
        *,
        timeout: Optional[float] = None,
        reward_override: OverrideLike = None,
    ) -> List[RolloutResult]:
        """Scores the rollouts in one ScoreBatch call; results in request order."""
        request = self._batch_request(rollouts, reward_override)
        response = await self._call(self._stub.ScoreBatch, request, self._deadline(timeout))
        return [_convert.result_from_message(r) for r in response.results]

    async def score_stream(
        self,
        rollouts: Union[Iterable[RolloutLike], AsyncIterator[RolloutLike]],
        *,
        timeout: Optional[float] = None,
        reward_override: OverrideLike = None,
    ) -> AsyncIterator[RolloutResult]:
        """Async version of :meth:`MineditClient.score_stream`; ``rollouts`` may be an async iterator."""
        deadline = self._deadline(timeout)
        override = _convert.override_message(reward_override)
        replayable = isinstance(rollouts, Sequence)

        async def requests() -> AsyncIterator["pb.ScoreStreamRequest"]:
            if hasattr(rollouts, "__aiter__"):
                async for rollout in rollouts:  # type: ignore[union-attr]
                    yield self._stream_message(rollout, override)
            else:
                for rollout in rollouts:  # type: ignore[union-attr]
                    yield self._stream_message(rollout, override)

        attempt = 1
        while True:
            received = False
            try:
                call = self._stub.ScoreStream(requests(), timeout=self._remaining(deadline), metadata=self._metadata)
                async for response in call:
                    received = True
                    yield _convert.result_from_message(response.result)
                return
            except grpc.RpcError as error:
                wait = None if received or not replayable else self._retry_wait(error, attempt, deadline)
                if wait is None:
                    raise _error(error, attempt) from None
                await asyncio.sleep(wait)
                attempt += 1

    async def health(self, service: str = "", *, timeout: Optional[float] = 10.0) -> str:
        """The serving status of ``service`` ("" = the whole server; ``minedit.v1.RewardService``)."""
        return await self._call(self._health, service, self._deadline(timeout))


#: The deadline of one scoring call made through the trainer adapters, unless ``MINEDIT_TIMEOUT`` or a
#: ``timeout`` argument says otherwise. A stalled server must fail the call (the sample then counts as
#: INFRA_ERROR) rather than hang training, and must do so BEFORE the trainer's own timeout substitutes a
#: reward of its own: verl's ``reward.timeout`` (300 s) scores 0.0, which outranks a failed repair.
DEFAULT_TIMEOUT_S = 240.0


def settings_from_env(**overrides: object) -> dict:
    """Client keyword arguments from the environment, for trainers that load a reward function by file
    path and so cannot pass a client (verl, verifiers environments, Ray workers):

    - ``MINEDIT_TARGET``: ``host:port`` of ``minedit serve`` (default ``127.0.0.1:50051``);
    - ``MINEDIT_TOKEN``: the server's ``--auth-token``;
    - ``MINEDIT_ROOT_CERTS``: a PEM file of the CAs to trust, which turns TLS on;
    - ``MINEDIT_TIMEOUT``: deadline of one scoring call in seconds, retries included (default
      :data:`DEFAULT_TIMEOUT_S`, 240; ``0`` or ``none``: no deadline).

    Keyword arguments given here win over the environment.
    """
    settings: dict = {"target": os.environ.get("MINEDIT_TARGET", DEFAULT_TARGET), "timeout": DEFAULT_TIMEOUT_S}
    if os.environ.get("MINEDIT_TOKEN"):
        settings["token"] = os.environ["MINEDIT_TOKEN"]
    if os.environ.get("MINEDIT_ROOT_CERTS"):
        settings["root_certificates"] = os.environ["MINEDIT_ROOT_CERTS"]
    timeout = os.environ.get("MINEDIT_TIMEOUT", "").strip().lower()
    if timeout:
        settings["timeout"] = None if timeout in ("0", "none") else float(timeout)
    settings.update({k: v for k, v in overrides.items() if v is not None})
    if settings["timeout"] is not None and float(settings["timeout"]) <= 0:
        settings["timeout"] = None
    return settings
