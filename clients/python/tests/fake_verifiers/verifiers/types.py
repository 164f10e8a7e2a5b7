"""TEST FAKE of verifiers/types.py @ v0.1.12 (commit 1979705): the v0 message and state types.

Messages since v0.1.11 (commit 191c516 "unified client interface", first released in v0.1.11.dev0,
0f1e334) are pydantic ``CustomBaseModel`` s: ``extra="allow"``, ``m["content"]`` / ``m.get(...)`` /
``"content" in m`` work, ``==`` against a Mapping compares the dump — but they are NOT Mappings
(``isinstance(m, Mapping)`` is False). ``AssistantMessage(role="assistant", content: str |
list[ContentPart] | None, reasoning_content, thinking_blocks, tool_calls)``. Up to v0.1.10 (ccef044)
messages were plain dicts (verifiers/utils/response_utils.py ``parse_response_messages``:
``{"role": "assistant", "content": text}``).

``State`` is a dict whose input fields (prompt, answer, task, info, example_id) are read from and
written to ``state["input"]``; ``get`` goes through the same lookup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Dict, List


class CustomBaseModel:
    """Allow extras and dict-like attribute access (pydantic ``BaseModel`` upstream)."""

    _defaults: Dict[str, Any] = {}

    def __init__(self, **fields: Any) -> None:
        for name, value in {**self._defaults, **fields}.items():
            setattr(self, name, value)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)

    def __contains__(self, key: str) -> bool:
        return hasattr(self, key)

    def model_dump(self) -> Dict[str, Any]:
        return dict(vars(self))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self.model_dump() == dict(other)
        return type(other) is type(self) and self.model_dump() == other.model_dump()  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({vars(self)!r})"


class TextContentPart(CustomBaseModel):
    _defaults = {"type": "text"}


class SystemMessage(CustomBaseModel):
    _defaults = {"role": "system"}


class UserMessage(CustomBaseModel):
    _defaults = {"role": "user"}


class AssistantMessage(CustomBaseModel):
    _defaults = {"role": "assistant", "content": None, "reasoning_content": None, "thinking_blocks": None,
                 "tool_calls": None}


class ToolMessage(CustomBaseModel):
    _defaults = {"role": "tool"}


Messages = List[Any]


class State(dict):
    INPUT_FIELDS = ["prompt", "answer", "task", "info", "example_id"]

    def __getitem__(self, key: str) -> Any:
        if key in self.INPUT_FIELDS and "input" in self:
            input_obj = super().__getitem__("input")
            if key in input_obj:
                return input_obj[key]
        return super().__getitem__(key)

    def __setitem__(self, key: str, value: Any) -> None:
        if key in self.INPUT_FIELDS and "input" in self:
            input_obj = super().__getitem__("input")
            if key in input_obj:
                input_obj[key] = value
                return
        super().__setitem__(key, value)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default
