"""TEST FAKE of the verifiers v0 surface (``import verifiers as vf``; PrimeIntellect-ai/verifiers
verifiers/__init__.py @ v0.1.12, commit 1979705 — the last stable pure-v0 release; at HEAD a60a606 the
same modules live in ``verifiers.legacy`` and are aliased here), plus the ``verifiers.v1`` subpackage of
verifiers >= 0.2. Names, shapes and calling behaviour as upstream, not its code; each module's docstring
names the file it mirrors. Test-only: the contract tests put it on ``sys.path``.
"""

__version__ = "0.1.12+fake"

from .envs.environment import Environment  # noqa: E402
from .envs.singleturn_env import SingleTurnEnv  # noqa: E402
from .errors import (  # noqa: E402
    EmptyModelResponseError,
    Error,
    InfraError,
    InvalidModelResponseError,
    ModelError,
    OverlongPromptError,
    SandboxError,
    TunnelError,
)
from .parsers.parser import Parser  # noqa: E402
from .rubrics.rubric import Rubric  # noqa: E402
from .types import AssistantMessage, Messages, State, SystemMessage, UserMessage  # noqa: E402
from .utils.env_utils import load_environment  # noqa: E402

MultiTurnEnv = Environment

__all__ = [
    "AssistantMessage",
    "EmptyModelResponseError",
    "Environment",
    "Error",
    "InfraError",
    "InvalidModelResponseError",
    "Messages",
    "ModelError",
    "MultiTurnEnv",
    "OverlongPromptError",
    "Parser",
    "Rubric",
    "SandboxError",
    "SingleTurnEnv",
    "State",
    "SystemMessage",
    "TunnelError",
    "UserMessage",
    "load_environment",
]
