"""minedit-repair: minimal-edit program repair as a verifiers environment, scored by a minedit server.

One package, both lines of verifiers, found by the id ``minedit-repair`` (module ``minedit_repair``):

- v1 (verifiers >= 0.2, PRIME-RL >= v0.8): ``__all__`` exports exactly one ``Taskset`` subclass,
  :class:`~minedit_repair.v1.MineditTaskset`, which the loader picks by type;
- v0 (verifiers 0.1.x, PRIME-RL v0.5 to v0.8): :func:`~minedit_repair.v0.load_environment`, which
  ``verifiers.load_environment`` looks up by name.

``verifiers.v1`` is imported only where it exists with the v1 task API (verifiers 0.1.14 / 0.1.15 ship an
older ``verifiers.v1`` without ``TaskData``): on verifiers 0.1.x this package offers the v0 function only.
"""

from __future__ import annotations

import importlib

from .v0 import load_environment


def _has_v1_taskset_api() -> bool:
    try:
        v1 = importlib.import_module("verifiers.v1")
    except ModuleNotFoundError as error:
        # Only a missing verifiers / verifiers.v1 means "v0 line"; a missing dependency of an installed
        # verifiers.v1 is a broken install and must surface.
        if error.name in ("verifiers", "verifiers.v1"):
            return False
        raise
    return all(hasattr(v1, name) for name in ("Taskset", "TaskData", "Task", "TasksetConfig", "reward", "stop"))


if _has_v1_taskset_api():
    from .v1 import (  # noqa: F401 - the rest are public for subclassing and tests, not for the loader
        MineditData,
        MineditInfraError,
        MineditTask,
        MineditTaskConfig,
        MineditTaskset,
        MineditTasksetConfig,
    )

    __all__ = ["MineditTaskset", "load_environment"]
else:
    __all__ = ["load_environment"]
