"""The recorded A2A event sequences both renderers' reducers replay (tests/fixtures/streams/).

Each file holds what a real harness streamed to the SDK client for one short conversation,
as ProtoJSON (the wire's camelCase), with what a person must see once it is folded in:
`view`, a renderer-neutral summary both reducers' tests compare against (the TUI's in
tests/interaction/tui/, the web's in renderers/web/src/model/recorded.test.ts). So the two
renderers cannot drift apart, and neither can drift from what the server sends:
`test_recorded_streams.py` replays each conversation against a real harness and checks the
file still holds what it streams (`TINY_HARNESS_RECORD_STREAMS=1` rewrites the events, never
the view).

Ids (UUIDs) become `id-N` in order of first appearance, times and measured figures (durations, token
counts, costs) fixed values: what varies from run to run is not what a renderer shows
differently.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

type Json = bool | int | float | str | list[Json] | dict[str, Json] | None

STREAMS: Final = Path(__file__).parents[1] / "fixtures" / "streams"

_UUID: Final = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
"""Task, context, message and artifact ids, wherever they appear."""
_TIME_KEYS: Final = {"timestamp", "startedAt"}
_MEASURED: Final[dict[str, Json]] = {
    "durationMs": 25,
    "inputTokens": 1200,
    "cachedTokens": 0,
    "outputTokens": 30,
}
_TIME: Final = "2026-01-01T00:00:00Z"


@dataclass(frozen=True)
class Conversation:
    """A script, and the texts a person sends: the first starts the task, each later one
    answers it."""

    script: str
    sent: tuple[str, ...]


CONVERSATIONS: Final = {
    "calls_and_plan": Conversation(
        script="""
turns:
  - text: "I will make a plan."
    tool_calls:
      - name: create_plan
        arguments: {steps: [{id: look, name: look it up}, {id: pack, name: pack it}]}
  - tool_calls:
      - {name: complete_step, arguments: {step_id: look, output: found a blue shirt}}
      - {name: no_such_tool, arguments: {query: shirts}}
  - text: "The shirt is **blue**."
""",
        sent=("find me a shirt",),
    ),
    "question_and_reply": Conversation(
        script="""
turns:
  - tool_calls:
      - {name: ask_participant, arguments: {question: "Which size?", options: [S, M, L]}}
  - text: "Size M it is."
""",
        sent=("order a shirt", "M"),
    ),
}


def normalised(events: list[Json]) -> list[Json]:
    """`events` with ids replaced by `id-N` in order of first appearance, times and
    measured figures by fixed values."""
    ids: dict[str, str] = {}

    def walk(value: Json, key: str = "") -> Json:
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        if key in _MEASURED and isinstance(value, int | float):
            return _MEASURED[key]
        if key in _TIME_KEYS and isinstance(value, str):
            return _TIME
        if isinstance(value, str):
            return _UUID.sub(lambda m: ids.setdefault(m[0], f"id-{len(ids) + 1}"), value)
        return value

    return [walk(event) for event in events]


def load(name: str) -> dict[str, Json]:
    """The recorded file `name` (its `events` and `view`)."""
    loaded: dict[str, Json] = json.loads((STREAMS / f"{name}.json").read_text(encoding="utf-8"))
    return loaded


def save(name: str, events: list[Json], view: Json) -> None:
    """Write the recording `name`, as committed: sorted keys, two-space indent."""
    text = json.dumps({"events": events, "view": view}, indent=2, sort_keys=True) + "\n"
    (STREAMS / f"{name}.json").write_text(text, encoding="utf-8")
