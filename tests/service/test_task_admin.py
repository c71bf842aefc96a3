"""`tiny-harness tasks`: an operator lists, shows and purges the tasks a real harness stored."""

from __future__ import annotations

import asyncio
import base64
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from a2a.types import Task, TaskPushNotificationConfig, TaskState, TaskStatus
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.service import RPCError, RPCStatusCode

from tests.service.notifications.receiver import push_receiver
from tests.support import collect, running_harness, send_request, states
from tiny_harness.cli import EXIT_CONFIG, EXIT_FAILURE, main
from tiny_harness.harness.persistence.postgres import PostgresStore
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.persistence.store import TaskRecord

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


async def test_list_and_show_read_the_postgres_store_the_url_names(
    postgres_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    task = Task(
        id="t-pg",
        context_id="ctx-pg",
        status=TaskStatus(state=TaskState.TASK_STATE_INPUT_REQUIRED),
    )
    store = PostgresStore(postgres_url)
    try:
        await store.put_task(TaskRecord(task=task, version=1, updated_at=datetime.now(UTC)))
    finally:
        await store.close()
    monkeypatch.setenv("TINY_HARNESS_STORE__URL", postgres_url)
    data_dir = ["--data-dir", str(tmp_path / "no-sqlite-here")]

    assert await asyncio.to_thread(main, ["tasks", "list", *data_dir]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert await asyncio.to_thread(main, ["tasks", "show", "t-pg", *data_dir]) == 0
    shown = json.loads(capsys.readouterr().out)

    assert listed[-1] == "1 task"
    assert listed[0].split()[:2] == ["t-pg", "input-required"]
    assert shown["id"] == "t-pg"


def test_show_of_a_task_the_store_lacks_and_a_missing_store_exit_1_saying_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    absent = tmp_path / "nowhere" / "tiny-harness.sqlite3"
    status = main(["tasks", "show", "t-1", *store_config(tmp_path, absent)])
    said = capsys.readouterr().err

    assert status == EXIT_FAILURE
    assert f"no store at {absent}" in said
    assert not absent.exists(), "a mistyped path must not leave an empty store behind"


async def listed(client: Client, query: str, count: int) -> list[str]:
    """The ids visibility lists for `query`, once it lists `count` (it lags a write)."""
    async with asyncio.timeout(20):
        while True:
            ids = sorted([w.id async for w in client.list_workflows(query)])
            if len(ids) >= count:
                return ids
            await asyncio.sleep(0.05)


async def test_purge_ends_the_task_and_its_courier_and_deletes_what_the_store_held(
    temporal_client: Client,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with (
        push_receiver() as receiver,
        running_harness(temporal_client, tmp_path, ASK) as harness,
    ):
        client = await harness.client()
        parked = await collect(client.send_message(send_request("paint it")))
        task_id = parked[0].task.id
        config = TaskPushNotificationConfig(task_id=task_id, url=receiver.url)
        await client.create_task_push_notification_config(config)
        query = f"WorkflowId = '{task_id}' OR WorkflowId STARTS_WITH '{task_id}.'"
        workflows = await listed(temporal_client, query, 2)
        monkeypatch.setenv("TINY_HARNESS_TEMPORAL__ADDRESS", temporal_address(temporal_client))
        monkeypatch.setenv("TINY_HARNESS_PUSH_KEY", base64.b64encode(os.urandom(32)).decode())
        config_args = store_config(tmp_path, harness.store.path)

        status = await asyncio.to_thread(main, ["tasks", "purge", task_id, *config_args])
        said = capsys.readouterr().out
        handle = temporal_client.get_workflow_handle(task_id)
        ended = await ended_or_deleted(handle)
        stored = await harness.store.get_task(task_id)
        configs = await harness.push_configs.list(task_id)
        unknown = await asyncio.to_thread(main, ["tasks", "purge", "no-such-task", *config_args])
        refused = capsys.readouterr().err

    assert status == 0
    assert said.splitlines()[0] == f"purged task {task_id}"
    assert f"ended {', '.join(workflows)}" in said
    assert "push configs: 1" in said
    assert ended
    assert stored is None
    assert configs == []
    assert unknown == EXIT_FAILURE
    assert "no task no-such-task" in refused


async def ended_or_deleted(handle: WorkflowHandle[Any, Any]) -> bool:
    """Whether the workflow was terminated (its deletion from Temporal runs after)."""
    try:
        description = await handle.describe()
    except RPCError as error:
        return error.status == RPCStatusCode.NOT_FOUND
    return description.status == WorkflowExecutionStatus.TERMINATED


def test_purge_without_temporal_deletes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "tiny-harness.sqlite3"
    asyncio.run(seed(store))
    monkeypatch.setenv("TINY_HARNESS_TEMPORAL__ADDRESS", "127.0.0.1:1")  # nothing listens
    monkeypatch.setenv("TINY_HARNESS_PUSH_KEY", base64.b64encode(os.urandom(32)).decode())

    status = main(["tasks", "purge", "t-1", *store_config(tmp_path, store)])
    said = capsys.readouterr().err

    assert status == EXIT_FAILURE
    assert "cannot reach Temporal at 127.0.0.1:1" in said
    assert "nothing was deleted" in said
    assert asyncio.run(still_stored(store, "t-1"))


async def seed(path: Path) -> None:
    store = SqliteStore(path)
    task = Task(id="t-1", context_id="ctx", status=TaskStatus(state=TaskState.TASK_STATE_WORKING))
    await store.put_task(TaskRecord(task=task, version=1, updated_at=datetime.now(UTC)))
    await store.close()


async def still_stored(path: Path, task_id: str) -> bool:
    store = SqliteStore(path)
    try:
        return await store.get_task(task_id) is not None
    finally:
        await store.close()


def temporal_address(client: Client) -> str:
    return client.service_client.config.target_host
