"""Cutting a long tool result for the model, and `read_tool_result` reading it back by range
from a real SQLite store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tiny_harness.errors import ToolArgumentError, ToolError
from tiny_harness.harness.persistence.records import ToolResultRecord
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.persistence.store import Store
from tiny_harness.harness.tools.definition import ToolCall, ToolResult
from tiny_harness.harness.tools.stored_results import ReadToolResultTool, cut

LIMIT = 1_000
TEXT = "".join(f"{n:04d}|" for n in range(1_000))  # 5,000 characters, every range distinct


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "tasks.db")
    await opened.put_record(
        ToolResultRecord(
            task_id="t-1",
            call_id="call-0-0",
            name="library.shelf.read_book",
            text=TEXT,
            recorded_at=datetime(2026, 1, 1, tzinfo=UTC),
        )
    )
    yield opened
    await opened.close()


def _reader(store: Store) -> ReadToolResultTool:
    async def given() -> Store:
        return store

    return ReadToolResultTool(given, lambda: LIMIT)


def _read(**arguments: object) -> ToolCall:
    return ToolCall(call_id="call-1-0", name="read_tool_result", arguments=dict(arguments))


def test_a_result_that_fits_is_not_cut() -> None:
    result = ToolResult(call_id="c", name="t", text="x" * LIMIT)
    assert cut(result, LIMIT) is None


def test_a_longer_result_is_cut_to_the_limit_with_a_note_on_how_to_read_on() -> None:
    result = ToolResult(call_id="call-0-0", name="t", text=TEXT, is_error=True)

    shown = cut(result, LIMIT)

    assert shown is not None
    assert len(shown.text) <= LIMIT
    assert shown.is_error
    assert shown.call_id == "call-0-0"
    assert shown.text.startswith(TEXT[:800])
    assert shown.text.endswith(
        "\n[cut: 800 of 5,000 characters shown, 4,200 left out. The whole result is stored: "
        "call read_tool_result with call_id 'call-0-0' and offset 800 to read on.]"
    )


async def test_a_read_returns_the_range_and_where_to_go_on(store: SqliteStore) -> None:
    result = await _reader(store).invoke_for("t-1", _read(call_id="call-0-0", offset=800))

    assert len(result.text) <= LIMIT
    assert result.text == (
        TEXT[800:1600]
        + "\n[characters 800..1,600 of 5,000; call again with offset 1600 to read on.]"
    )


async def test_a_read_to_the_end_says_so(store: SqliteStore) -> None:
    result = await _reader(store).invoke_for(
        "t-1", _read(call_id="call-0-0", offset=4_900, length=500)
    )

    assert result.text == TEXT[4_900:] + "\n[characters 4,900..5,000 of 5,000; the end.]"


async def test_a_shorter_length_is_honoured(store: SqliteStore) -> None:
    result = await _reader(store).invoke_for("t-1", _read(call_id="call-0-0", length=10))

    assert result.text.startswith(TEXT[:10] + "\n[characters 0..10 of 5,000;")


async def test_another_tasks_result_cannot_be_read(store: SqliteStore) -> None:
    with pytest.raises(ToolArgumentError, match="no stored result of call 'call-0-0'"):
        await _reader(store).invoke_for("t-2", _read(call_id="call-0-0"))


async def test_an_offset_past_the_end_is_refused(store: SqliteStore) -> None:
    with pytest.raises(ToolArgumentError, match="offset 5000 is past the end"):
        await _reader(store).invoke_for("t-1", _read(call_id="call-0-0", offset=5_000))


async def test_a_negative_offset_is_refused(store: SqliteStore) -> None:
    with pytest.raises(ToolArgumentError, match="offset"):
        await _reader(store).invoke_for("t-1", _read(call_id="call-0-0", offset=-1))


async def test_outside_a_task_the_tool_refuses(store: SqliteStore) -> None:
    with pytest.raises(ToolError, match="only inside a task"):
        await _reader(store).invoke(_read(call_id="call-0-0"))
