"""The `LLM` interface the loop calls, and the request and response it exchanges.

A request is everything the model sees for one turn: the static instructions (the cacheable
prefix), the conversation so far and the tools on offer. Every provider adapter and the
scripted model implement `LLM.invoke`; the `invoke_llm` activity is the only caller.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Annotated, Literal

from pydantic import BaseModel, Field, JsonValue

from tiny_harness.harness.entities import Entity, EntityKind
from tiny_harness.harness.tools.definition import ToolCall, ToolDefinition


class UserItem(BaseModel, frozen=True):
    """An inbound message from a participant.

    `reply_to` names the `ask_participant` call this message answers, so an adapter can
    present it as that call's output: the model sees a reply exactly once.
    """

    kind: Literal["user"] = "user"
    message_id: str
    text: str
    reply_to: str | None = None


class AssistantItem(BaseModel, frozen=True):
    """One earlier answer of the model: its text and the tool calls it made."""

    kind: Literal["assistant"] = "assistant"
    text: str
    tool_calls: tuple[ToolCall, ...] = ()


class ToolResultItem(BaseModel, frozen=True):
    """The outcome of one earlier tool call."""

    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    text: str
    is_error: bool = False


type InputItem = Annotated[UserItem | AssistantItem | ToolResultItem, Field(discriminator="kind")]

type FinishReason = Literal["stop", "tool_calls", "length", "refusal"]


class OutputSchema(BaseModel, frozen=True):
    """A JSON schema the answer's text must follow (structured output): the model answers
    with one JSON object and calls no tools."""

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    json_schema: dict[str, JsonValue]


class LLMRequest(BaseModel, frozen=True):
    """Everything the model sees for one turn."""

    instructions: str
    input: tuple[InputItem, ...]
    tools: tuple[ToolDefinition, ...] = ()
    cache_key: str | None = None
    output_schema: OutputSchema | None = None
    """Set for a structured answer (a decision, not a turn of the loop)."""


class Usage(BaseModel, frozen=True):
    """Token counts a provider reported for one call."""

    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0


class LLMResponse(BaseModel, frozen=True):
    """One answer of the model: text, tool calls, or both."""

    output_text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    model: str
    finish: FinishReason = "stop"


class LLMModelInfo(BaseModel, frozen=True):
    """What the loop needs to know about a model to budget its context."""

    provider: str
    model: str
    context_window: int


class LLM(Entity):
    """A language model the loop can call. Implementations must be safe to call again with
    the same request: an activity retry repeats the call."""

    @property
    def kind(self) -> EntityKind:
        """Always `EntityKind.LLM`."""
        return EntityKind.LLM

    @property
    @abstractmethod
    def info(self) -> LLMModelInfo:
        """The provider, model name and context window."""

    @abstractmethod
    async def invoke(self, request: LLMRequest) -> LLMResponse:
        """Answer one turn."""

    async def aclose(self) -> None:
        """Release the model's connections; the worker calls it once, at shutdown."""
