"""`tiny-harness tasks`: an operator lists and shows the tasks a real harness stored."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from temporalio.client import Client

from tests.support import collect, running_harness, send_request, states
from tiny_harness.cli import EXIT_CONFIG, EXIT_FAILURE, main

ASK = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "Which colour?"}}]
  - text: finished
"""


def store_config(tmp_path: Path, store: Path) -> list[str]:
    """`--config` naming the harness's store file, as an operator's TOML would."""
    config = tmp_path / "operator.toml"
    config.write_text(f'[store]\npath = "{store}"\n', encoding="utf-8")
    return ["--config", str(config)]


async def test_list_shows_each_task_with_its_state_and_question_and_show_prints_it_whole(
    temporal_client: Client, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK) as harness:
        client = await harness.client()
        parked = await collect(client.send_message(send_request("paint it")))
        second = await collect(client.send_message(send_request("again")))
        assert states(parked)[-1] == states(second)[-1] == "TASK_STATE_INPUT_REQUIRED"
        store = harness.store.path
    config = store_config(tmp_path, store)

    assert await asyncio.to_thread(main, ["tasks", "list", *config]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert await asyncio.to_thread(main, ["tasks", "list", "--limit", "1", *config]) == 0
    first_only = capsys.readouterr().out.splitlines()
    task_id = parked[0].task.id
    assert await asyncio.to_thread(main, ["tasks", "show", task_id, *config]) == 0
    shown = json.loads(capsys.readouterr().out)
    unknown = await asyncio.to_thread(main, ["tasks", "show", "no-such-task", *config])
    said = capsys.readouterr().err

    assert listed[-1] == "2 tasks"
    assert [line.split()[0] for line in listed[:-1]] == [second[0].task.id, task_id]
    assert all("input-required" in line and "Which colour?" in line for line in listed[:-1])
    assert first_only[-1] == "1 of 2 tasks"
    assert shown["id"] == task_id
    assert shown["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert shown["history"][0]["parts"][0]["text"] == "paint it"
    assert unknown == EXIT_FAILURE
    assert "no task no-such-task" in said


async def test_list_filters_by_state_and_refuses_an_unknown_one(
    temporal_client: Client, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK) as harness:
        client = await harness.client()
        await collect(client.send_message(send_request("paint it")))
        store = harness.store.path
    config = store_config(tmp_path, store)

    assert await asyncio.to_thread(main, ["tasks", "list", "--state", "completed", *config]) == 0
    none_completed = capsys.readouterr().out
    status = await asyncio.to_thread(main, ["tasks", "list", "--state", "stuck", *config])
    refused = capsys.readouterr().err

    assert none_completed == "0 tasks\n"
    assert status == EXIT_CONFIG
    assert "unknown task state 'stuck'" in refused
    assert "input-required" in refused


def test_show_of_a_task_the_store_lacks_and_a_missing_store_exit_1_saying_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    absent = tmp_path / "nowhere" / "tiny-harness.sqlite3"
    status = main(["tasks", "show", "t-1", *store_config(tmp_path, absent)])
    said = capsys.readouterr().err

    assert status == EXIT_FAILURE
    assert f"no store at {absent}" in said
    assert not absent.exists(), "a mistyped path must not leave an empty store behind"
