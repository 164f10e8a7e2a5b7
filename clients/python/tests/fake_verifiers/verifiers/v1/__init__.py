"""TEST FAKE of ``verifiers.v1`` (PrimeIntellect-ai/verifiers verifiers/v1/__init__.py @ a60a606, HEAD of
2026-08-21; the same task API since v0.2.0 6c64ce6): the names a taskset package and PRIME-RL's
orchestrator use, with upstream's names, shapes and calling behaviour (not its code). Each module's
docstring names the upstream file it mirrors. Test-only: put on ``sys.path`` by the contract tests.
"""

from .configs.task import BaseConfig, TaskConfig
from .configs.taskset import TasksetConfig
from .errors import EnvError, HarnessError, ProviderError, RolloutError, SandboxError, TaskError
from .rollout import run_rollout
from .state import State
from .task import Task, TaskData, TaskResources, TaskTimeout, WireTaskData
from .taskset import Taskset
from .trace import AgentInfo, Error, MessageNode, Reward, Trace, TraceTask
from .types import (
    AssistantMessage,
    ContentPart,
    Message,
    MessageContent,
    Messages,
    SystemMessage,
    TextContentPart,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from .utils.decorators import metric, reward, stop
from .utils.loaders import import_taskset, load_taskset, resolve_taskset_config, task_type, taskset_config_type

__all__ = [
    "AgentInfo",
    "AssistantMessage",
    "BaseConfig",
    "ContentPart",
    "EnvError",
    "Error",
    "HarnessError",
    "Message",
    "MessageContent",
    "MessageNode",
    "Messages",
    "ProviderError",
    "Reward",
    "RolloutError",
    "SandboxError",
    "State",
    "SystemMessage",
    "Task",
    "TaskConfig",
    "TaskData",
    "TaskError",
    "TaskResources",
    "TaskTimeout",
    "Taskset",
    "TasksetConfig",
    "TextContentPart",
    "ToolCall",
    "ToolMessage",
    "Trace",
    "TraceTask",
    "UserMessage",
    "WireTaskData",
    "import_taskset",
    "load_taskset",
    "metric",
    "resolve_taskset_config",
    "reward",
    "run_rollout",
    "stop",
    "task_type",
    "taskset_config_type",
]
