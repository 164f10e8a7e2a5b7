"""TEST FAKE of verifiers/v1/state.py @ a60a606: ``State``, the mutable per-rollout state model."""

from __future__ import annotations

from typing import Dict, Optional

from ._model import BaseModel, Field


class State(BaseModel):
    artifacts: Dict[str, Optional[bytes]] = Field(default_factory=dict)
