"""A scripted `LLM` that replays a YAML script deterministically.

The test suite and the offline demo run on it. A script is a list of turns, each an
answer (text, tool calls or both), optionally guarded by a `when` regex that must match
the newest inbound message:

    final: "answered once the script has run out"
    turns:
      - text: "Planning the work."
        tool_calls: [{name: create_plan, arguments: {steps: [...]}}]
      - when: "(?i)refund"
        text: "Done."
        delay_seconds: 0.5

The answer depends only on the request, so a retried activity gets the same answer: the
model replays the conversation's earlier calls (one per `AssistantItem` in the input) to
find its place in the script. Starting at position 0, each call consumes the first turn
at or after the position whose `when` is absent or matches that call's newest inbound
text; turns passed over are skipped for good. A call that matches no turn answers `final`
and leaves the position where it was, so a guarded turn can still fire later.

A request with an output schema (a structured answer, such as a help decision) is
answered from `answers`: the first whose `schema_name` is the schema's and whose `when`
matches the request's newest inbound text, as JSON; `{}` when none does.

    answers:
      - schema_name: HelpDecision
        when: "(?i)rejected"
        output: {route: create_task, participant_id: bob, name: "Count", goal: "Count"}

Asked to summarise for a compaction (instructions opening with `SUMMARY_INSTRUCTIONS`), it
replays the transcript the same way and answers a fixed summary ending in a marker of
where the folded calls left the script, `[scripted position P, calls C]`; a conversation
that opens with such a summary resumes from the marker. (A kept answer that precedes the
newest user message is then replayed against the summary's text as its inbound text.)
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Self

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    field_validator,
    model_validator,
)

from tiny_harness.errors import ScriptError
from tiny_harness.harness.context.compaction import SUMMARY_INSTRUCTIONS
from tiny_harness.harness.context.window import prefix_chars, render_item
from tiny_harness.harness.entities import EntityKind, EntityRef
from tiny_harness.harness.models.llm import (
    LLM,
    AssistantItem,
    InputItem,
    LLMModelInfo,
    LLMRequest,
    LLMResponse,
    Usage,
    UserItem,
)
from tiny_harness.harness.tools.definition import ToolCall

DEFAULT_FINAL = "I have nothing more to add."
_BUILTIN_PACKAGE = "tiny_harness.builtin"
_BUILTIN_NAME = "demo_script.yaml"
_MAX_REPORTED_ERRORS = 3
_MARKER = re.compile(r"\[scripted position (\d+), calls (\d+)\]")
_ITEM_START = re.compile(r"\n\n(?=user: |user \(reply to |assistant: |<tool_result)")
"""Where one rendered item (`core.context.render_item`) of a transcript starts."""


class ScriptToolCall(BaseModel):
    """One tool call a scripted turn makes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    arguments: dict[str, JsonValue] = Field(default_factory=dict)


class ScriptTurn(BaseModel):
    """One scripted answer, optionally guarded by a regex on the newest inbound message."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = ""
    tool_calls: tuple[ScriptToolCall, ...] = ()
    when: str | None = None
    delay_seconds: float = Field(default=0, ge=0, le=60)

    @field_validator("when")
    @classmethod
    def _when_compiles(cls, value: str | None) -> str | None:
        return _regex(value)

    @model_validator(mode="after")
    def _not_empty(self) -> Self:
        if not self.text and not self.tool_calls:
            raise ValueError("a turn needs text, tool_calls or both")
        return self

    def matches(self, inbound_text: str) -> bool:
        """Whether this turn may answer a call whose newest inbound text is `inbound_text`."""
        return self.when is None or re.search(self.when, inbound_text) is not None


class ScriptAnswer(BaseModel):
    """A structured answer (a request with an output schema): a JSON object, guarded by a
    regex on the request's newest inbound message like a turn."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_name: str = Field(min_length=1)
    output: dict[str, JsonValue]
    when: str | None = None

    @field_validator("when")
    @classmethod
    def _when_compiles(cls, value: str | None) -> str | None:
        return _regex(value)

    def matches(self, inbound_text: str) -> bool:
        """Whether this answer may answer a request whose newest inbound text is given."""
        return self.when is None or re.search(self.when, inbound_text) is not None


class Script(BaseModel):
    """A whole script: the turns in order, the answer once they have run out, and the
    answers to structured requests (help decisions)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turns: tuple[ScriptTurn, ...] = ()
    final: str = DEFAULT_FINAL
    answers: tuple[ScriptAnswer, ...] = ()


def _regex(value: str | None) -> str | None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"invalid regex {value!r}: {exc}") from None
    return value


def parse_script(text: str, *, source: str) -> Script:
    """Parse and validate a script's YAML text; `source` names it in error messages."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ScriptError(f"{source}: invalid YAML: {_describe_yaml_error(exc)}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ScriptError(f"{source}: a script must be a YAML mapping with 'turns' and 'final'")
    try:
        return Script.model_validate(data)
    except ValidationError as exc:
        raise ScriptError(f"{source}: invalid script: {_describe_validation_error(exc)}") from None


def load_script(path: Path) -> Script:
    """Read and validate the script at `path`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScriptError(f"{path}: script file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ScriptError(f"{path}: cannot read script: {reason}") from None
    return parse_script(text, source=str(path))


@functools.cache
def builtin_demo_script() -> Script:
    """The script the offline demo runs when no provider is configured."""
    text = resources.files(_BUILTIN_PACKAGE).joinpath(_BUILTIN_NAME).read_text(encoding="utf-8")
    return parse_script(text, source=f"{_BUILTIN_PACKAGE}/{_BUILTIN_NAME}")


class ScriptedLLM(LLM):
    """An `LLM` that replays a `Script`; its answer depends only on the request."""

    def __init__(self, script: Script, *, name: str = "demo") -> None:
        self._script = script
        self._name = name
        self.ref = EntityRef(kind=EntityKind.LLM, id=f"scripted:{name}")

    @property
    def info(self) -> LLMModelInfo:
        return LLMModelInfo(provider="scripted", model=self._name, context_window=128_000)

    async def invoke(self, request: LLMRequest) -> LLMResponse:
        if request.instructions.startswith(SUMMARY_INSTRUCTIONS):
            return self._summarise(request)
        if request.output_schema is not None:
            return self._structured(request, request.output_schema.name)
        call_index, turn = self._select(request)
        usage_in = max(1, _input_chars(request) // 4)
        if turn is None:
            text = self._script.final
            return LLMResponse(
                output_text=text,
                usage=Usage(input_tokens=usage_in, output_tokens=len(text) // 4),
                model=self._name,
                finish="stop",
            )
        if turn.delay_seconds > 0:
            await asyncio.sleep(turn.delay_seconds)
        tool_calls = tuple(
            ToolCall(
                call_id=f"call-{call_index}-{j}",
                name=call.name,
                arguments=copy.deepcopy(call.arguments),
            )
            for j, call in enumerate(turn.tool_calls)
        )
        return LLMResponse(
            output_text=turn.text,
            tool_calls=tool_calls,
            usage=Usage(input_tokens=usage_in, output_tokens=len(turn.text) // 4),
            model=self._name,
            finish="tool_calls" if tool_calls else "stop",
        )

    def _select(self, request: LLMRequest) -> tuple[int, ScriptTurn | None]:
        """Replay earlier calls to find the turn for this one: (call index, turn or None)."""
        position, call_index, inbound = self._replay(request.input)
        found = self._find(position, inbound)
        return call_index, None if found is None else self._script.turns[found]

    def _replay(self, items: Sequence[InputItem]) -> tuple[int, int, str]:
        """(script position, calls made, newest inbound text) after the calls in `items`."""
        position = 0
        call_index = 0
        inbound = ""
        for index, item in enumerate(items):
            if isinstance(item, UserItem):
                inbound = item.text
                marker = _MARKER.search(item.text) if index == 0 else None
                if marker is not None:
                    position, call_index = int(marker[1]), int(marker[2])
            elif isinstance(item, AssistantItem):
                found = self._find(position, inbound)
                if found is not None:
                    position = found + 1
                call_index += 1
        return position, call_index, inbound

    def _structured(self, request: LLMRequest, schema_name: str) -> LLMResponse:
        """The first answer for the schema whose guard matches the newest inbound text, as
        JSON text; `{}` when none does (which a caller's validation then refuses)."""
        _, _, inbound = self._replay(request.input)
        answer = next(
            (
                a
                for a in self._script.answers
                if a.schema_name == schema_name and a.matches(inbound)
            ),
            None,
        )
        text = json.dumps(answer.output if answer is not None else {})
        return LLMResponse(
            output_text=text,
            usage=Usage(
                input_tokens=max(1, _input_chars(request) // 4), output_tokens=len(text) // 4
            ),
            model=self._name,
            finish="stop",
        )

    def _summarise(self, request: LLMRequest) -> LLMResponse:
        """The fixed summary of a compaction's transcript, with the script marker."""
        transcript = request.input[0].text if request.input else ""
        chunks = [c for c in _ITEM_START.split(transcript) if c.strip()]
        items = [_transcript_item(n, chunk) for n, chunk in enumerate(chunks)]
        position, calls, _ = self._replay([i for i in items if i is not None])
        text = (
            f"Scripted summary of {len(chunks)} earlier items.\n"
            f"[scripted position {position}, calls {calls}]"
        )
        usage = Usage(input_tokens=max(1, _input_chars(request) // 4), output_tokens=len(text) // 4)
        return LLMResponse(output_text=text, usage=usage, model=self._name, finish="stop")

    def _find(self, position: int, inbound: str) -> int | None:
        turns = self._script.turns
        for index in range(position, len(turns)):
            if turns[index].matches(inbound):
                return index
        return None


def _transcript_item(index: int, chunk: str) -> InputItem | None:
    """A transcript chunk as the item it renders (a tool result block replays as nothing)."""
    if chunk.startswith("assistant: "):
        return AssistantItem(text=chunk.removeprefix("assistant: "))
    if chunk.startswith("user"):
        return UserItem(message_id=f"transcript:{index}", text=chunk.split(": ", 1)[-1])
    return None


def _input_chars(request: LLMRequest) -> int:
    # Tool definitions and call arguments count, as a provider counts them.
    prefix = prefix_chars(request.instructions, request.tools)
    return prefix + sum(len(render_item(item)) for item in request.input)


def _describe_yaml_error(exc: yaml.YAMLError) -> str:
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        problem = exc.problem or "syntax error"
        return f"{problem} (line {mark.line + 1}, column {mark.column + 1})"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _describe_validation_error(exc: ValidationError) -> str:
    parts: list[str] = []
    errors = exc.errors(include_url=False)
    for error in errors[:_MAX_REPORTED_ERRORS]:
        location = ".".join(str(part) for part in error["loc"])
        message = error["msg"]
        if error["type"] == "value_error":
            message = str(error.get("ctx", {}).get("error", message))
        elif error["type"] == "extra_forbidden":
            message = "unknown key"
        parts.append(f"{location}: {message}" if location else message)
    if len(errors) > _MAX_REPORTED_ERRORS:
        parts.append(f"and {len(errors) - _MAX_REPORTED_ERRORS} more")
    return "; ".join(parts)
