"""TEST FAKE of verifiers/envs/singleturn_env.py @ v0.1.12: ``SingleTurnEnv`` = a multi-turn env with
``max_turns=1`` (one model reply per rollout)."""

from __future__ import annotations

from typing import Any

from .environment import Environment


class SingleTurnEnv(Environment):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_turns=1, **kwargs)
