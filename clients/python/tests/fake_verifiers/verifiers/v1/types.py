"""TEST FAKE of verifiers/v1/types.py @ a60a606 (PrimeIntellect-ai/verifiers HEAD, 2026-08-21): the typed
chat messages. Names and shapes as upstream: ``AssistantMessage(role="assistant", content: str | None,
reasoning_content, tool_calls)``, ``SystemMessage`` / ``UserMessage`` with ``content: str |
list[ContentPart]``, ``Messages = list[Message]`` (a role-discriminated union: a dict prompt message is
validated into the model of its role), ``content_text``. Attribute access only: these are pydantic models,
not Mappings.
"""

from __future__ import annotations

from typing import Any, List, Literal, Optional, Union

from ._model import BaseModel


class TextContentPart(BaseModel):
    type: Literal["text"] = "text"
    text: str


class ImageUrlSource(BaseModel):
    url: str


class ImageUrlContentPart(BaseModel):
    type: Literal["image_url"] = "image_url"
    image_url: ImageUrlSource


ContentPart = Union[TextContentPart, ImageUrlContentPart]
MessageContent = Union[str, List[ContentPart]]


def content_text(content: Any) -> str:
    """Extract text from message content, dropping images (upstream ``content_text``)."""
    if isinstance(content, str):
        return content
    return "\n".join(part.text for part in content or [] if isinstance(part, TextContentPart))


class SystemMessage(BaseModel):
    role: Literal["system"] = "system"
    content: MessageContent


class UserMessage(BaseModel):
    role: Literal["user"] = "user"
    content: MessageContent


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: str


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: Optional[str] = None
    reasoning_content: Optional[str] = None
    tool_calls: Optional[List[ToolCall]] = None


class ToolMessage(BaseModel):
    role: Literal["tool"] = "tool"
    tool_call_id: str
    content: MessageContent
    name: Optional[str] = None


Message = Union[SystemMessage, UserMessage, AssistantMessage, ToolMessage]
Messages = List[Message]
