"""TEST FAKE of verifiers/v1/errors.py @ a60a606: the rollout error vocabulary and ``boundary``, the one
helper that attributes an exception escaping task code to a boundary type. As upstream: an already typed
``RolloutError`` passes through, a ``TimeoutError`` becomes ``error_cls(f"{what} timed out")``, any other
``Exception`` becomes ``error_cls(f"{what}: {type}: {message}")`` chained to it.
"""

from __future__ import annotations

import contextlib
from typing import AsyncIterator, Type


class RolloutError(Exception):
    """Base for a failure recorded onto the trace rather than crashing the rollout."""


class ProviderError(RolloutError):
    def __init__(self, message: str = "", *, status_code: int = 502) -> None:
        super().__init__(message)
        self.status_code = status_code


class HarnessError(RolloutError):
    pass


class SandboxError(RolloutError):
    pass


class TaskError(RolloutError):
    """Task-authored code raised: ``setup``, ``finalize``, or a ``@reward`` / ``@metric``."""


class EnvError(RolloutError):
    pass


@contextlib.asynccontextmanager
async def boundary(error_cls: Type[RolloutError], what: str) -> AsyncIterator[None]:
    try:
        yield
    except RolloutError:
        raise
    except TimeoutError as e:
        raise error_cls(f"{what} timed out") from e
    except Exception as e:
        raise error_cls(f"{what}: {type(e).__name__}: {e}") from e
