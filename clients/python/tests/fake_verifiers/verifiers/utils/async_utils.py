"""TEST FAKE of verifiers/utils/async_utils.py @ v0.1.12: ``maybe_await`` (call, await the result when it
is awaitable) and ``maybe_retry``: with ``max_retries > 0``, a result whose state(s) hold an error of
``error_types`` (``InfraError``, ``InvalidModelResponseError``) is retried; when retries are exhausted the
last result is returned with its error (tenacity upstream; no waits here)."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Tuple

from ..errors import InfraError, InvalidModelResponseError


async def maybe_await(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    result = func(*args, **kwargs)
    if inspect.isawaitable(result):
        return await result
    return result


def maybe_retry(
    func: Callable[..., Any],
    max_retries: int = 0,
    error_types: Tuple[type, ...] = (InfraError, InvalidModelResponseError),
) -> Callable[..., Any]:
    if max_retries <= 0:
        return func

    def has_retryable_error(result: Any) -> bool:
        states = result if isinstance(result, list) else [result]
        return any(isinstance(state.get("error"), error_types) for state in states)

    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = None
        for _ in range(max_retries + 1):
            result = await func(*args, **kwargs)
            if not has_retryable_error(result):
                return result
        return result

    return wrapper
