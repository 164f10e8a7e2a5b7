"""TEST FAKE of verifiers/utils/env_utils.py @ v0.1.12: ``load_environment(env_id, **env_args)``:
``module = env_id.replace("-", "_").split("/")[-1]``, ``importlib.import_module(module)``, its
``load_environment(**env_args)``; a module without one is an ``AttributeError`` (re-raised as
``RuntimeError``), an ``ImportError`` becomes ``ValueError("Could not import ...")``; the env gets
``env_id`` / ``env_args`` when it has none."""

from __future__ import annotations

import importlib
from typing import Any


def load_environment(env_id: str, **env_args: Any) -> Any:
    module_name = env_id.replace("-", "_").split("/")[-1]
    try:
        module = importlib.import_module(module_name)
        if not hasattr(module, "load_environment"):
            raise AttributeError(f"Module '{module_name}' does not have a 'load_environment' function.")
        env_instance = module.load_environment(**env_args)
        env_instance.env_id = env_instance.env_id or env_id
        env_instance.env_args = env_instance.env_args or env_args
        return env_instance
    except ImportError as e:
        raise ValueError(f"Could not import '{env_id}' environment. Ensure the package is installed.") from e
    except Exception as e:
        raise RuntimeError(f"Failed to load environment '{env_id}': {e}") from e
