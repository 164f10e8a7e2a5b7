"""TEST FAKE of verifiers/v1/utils/loaders.py @ a60a606 (the fix of #2423: strip the hub org before
importing): how a taskset id becomes a class.

- ``_import_plugin(id)``: ``name = id.rsplit("/", 1)[-1].split("@", 1)[0]``, ``module =
  name.replace("-", "_").lower()``; ``verifiers.v1.tasksets.<module>`` wins when it exists, else the
  installed top-level module;
- ``_plugin_class(module, Taskset)``: the module must define ``__all__``; among the names it lists, the
  subclasses of ``Taskset`` (not ``Taskset`` itself): none is a ``TypeError``, more than one a
  ``ValueError``;
- ``taskset_config_type(id)`` is the config class off the Taskset's generic parameters; the run's TOML
  table ``[...env.taskset]`` validates into it (``narrow_plugin_field``: ``model_validate({**raw, "id":
  id})``), and ``load_taskset(config)`` builds the taskset with it.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Any, Dict

from ..configs.taskset import TasksetConfig
from ..taskset import Taskset
from .generic import concrete_type


def _import_plugin(plugin_id: str, kind: str, group: str) -> ModuleType:
    name = plugin_id.rsplit("/", 1)[-1].split("@", 1)[0]
    module = name.replace("-", "_").lower()
    namespaced = f"{group}.{module}"
    target = namespaced if importlib.util.find_spec(namespaced) else module
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(
            f"{kind} {plugin_id!r} not found (tried to import {target!r}). A {kind} is a package exporting "
            f"its {kind.capitalize()} subclass via `__all__`"
        ) from e


def _plugin_class(module: ModuleType, base: type, kind: str) -> type:
    names = getattr(module, "__all__", None)
    if names is None:
        raise AttributeError(f"{kind} module {module.__name__!r} defines no `__all__`")
    matches = [
        obj
        for name in names
        if isinstance(obj := getattr(module, name, None), type) and issubclass(obj, base) and obj is not base
    ]
    if not matches:
        raise TypeError(f"{kind} module {module.__name__!r} exports no {base.__name__} subclass via `__all__`")
    if len(matches) > 1:
        raise ValueError(f"{kind} module {module.__name__!r} exports {len(matches)} {base.__name__} subclasses")
    return matches[0]


def import_taskset(taskset_id: str) -> ModuleType:
    return _import_plugin(taskset_id, "taskset", "verifiers.v1.tasksets")


def taskset_class(taskset_id: str) -> type:
    return _plugin_class(import_taskset(taskset_id), Taskset, "taskset")


def taskset_config_type(taskset_id: str) -> type:
    return concrete_type(taskset_class(taskset_id), TasksetConfig, origin=Taskset) or TasksetConfig


def resolve_taskset_config(raw: Dict[str, Any]) -> TasksetConfig:
    """``narrow_plugin_field(data, "taskset", taskset_config_type)`` for one ``[...env.taskset]`` table."""
    ident = raw.get("id")
    return taskset_config_type(ident).model_validate({**raw, "id": ident})


def load_taskset(config: TasksetConfig) -> Taskset:
    return taskset_class(config.id)(config)


def task_type(taskset_id: str) -> type:
    return taskset_class(taskset_id).task_type()
