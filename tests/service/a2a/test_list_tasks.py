"""ListTasks as A2A 1.0 specifies it, through both bindings, on a real harness.

Spec facts checked here (a2aproject/A2A `specification/a2a.proto`, `ListTasksRequest`, and
`docs/specification.md` section 3.1.4): page size 1..100, 50 when unset; tasks sorted by
their last update, newest first (ours: the last status change); `statusTimestampAfter`
keeps the tasks whose status timestamp is greater than or equal to it; artifacts are
omitted unless `includeArtifacts`; `historyLength` trims each task; `totalSize` counts every
match before paging; `nextPageToken` is "" on the last page.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from pathlib import Path

import pytest
from a2a.client import Client as A2AClient
from a2a.types import ListTasksRequest, ListTasksResponse, Task, TaskState
from a2a.utils.errors import InvalidParamsError
from google.protobuf.json_format import ParseDict
from temporalio.client import Client

from tests.support import BINDINGS, RunningHarness, collect, running_harness, send_request
from tiny_harness.harness.persistence.store import TaskQuery

ANSWER = "turns:\n  - text: answered\n"

ASK_OR_ANSWER = """
turns:
  - when: "(?i)ask me"
    tool_calls: [{name: ask_participant, arguments: {question: "Which one?"}}]
  - text: answered
"""
"""A message saying "ask me" parks its task INPUT_REQUIRED; any other completes at once."""

PLAN_THEN_ANSWER = """
turns:
  - text: "Planning."
    tool_calls:
      - name: create_plan
        arguments: {steps: [{id: a, name: answer}]}
  - tool_calls: [{name: complete_step, arguments: {step_id: a, output: done}}]
  - text: "The answer."
"""
"""Each task's history gathers several agent messages before it completes."""

COMPLETED = TaskState.TASK_STATE_COMPLETED
INPUT_REQUIRED = TaskState.TASK_STATE_INPUT_REQUIRED
JSONRPC_HEADERS = {"content-type": "application/json", "A2A-Version": "1.0"}


async def start(harness: RunningHarness, texts: Iterable[str], context_id: str = "") -> list[Task]:
    """One task per text, sent concurrently; each task as its stream first showed it."""
    client = await harness.client()

    async def one(text: str) -> Task:
        events = await collect(client.send_message(send_request(text, context_id=context_id)))
        return events[0].task

    return list(await asyncio.gather(*(one(text) for text in texts)))


async def settled(harness: RunningHarness, expected: dict[int, int]) -> None:
    """Wait until the store holds exactly `expected` tasks per state, so no task's place
    in the listing can still move (the store's record trails the stream briefly)."""
    counts: dict[int, int] = {}
    for _ in range(400):
        page = await harness.store.list_tasks(TaskQuery(page_size=100))
        counts = {}
        for record in page.records:
            state = int(record.task.status.state)
            counts[state] = counts.get(state, 0) + 1
        if counts == expected:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the store never settled: {counts} != {expected}")


def request(**fields: object) -> ListTasksRequest:
    """A ListTasksRequest from its JSON form (camelCase), as a client would send it."""
    return ParseDict(fields, ListTasksRequest())


async def walk(
    client: A2AClient, query: ListTasksRequest, *, token: str = ""
) -> tuple[list[str], list[ListTasksResponse]]:
    """Every page of a listing from `token` on: the task ids in order, and the pages."""
    pages: list[ListTasksResponse] = []
    for _ in range(200):  # a cursor that never ends must fail, not hang
        asked = ListTasksRequest()
        asked.CopyFrom(query)
        asked.page_token = token
        page = await client.list_tasks(asked)
        pages.append(page)
        token = page.next_page_token
        if not token:
            return [task.id for page in pages for task in page.tasks], pages
    raise AssertionError("the walk never reached a last page")


def newest_first(tasks: Iterable[Task]) -> list[str]:
    """Task ids by last status change, newest first, ties by id descending."""
    key = [(t.status.timestamp.ToNanoseconds(), t.id) for t in tasks]
    return [task_id for _, task_id in sorted(key, reverse=True)]


async def test_every_page_size_from_1_to_50_visits_every_task_exactly_once(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ANSWER) as harness:
        started = await start(harness, [f"task {i}" for i in range(23)])
        await settled(harness, {COMPLETED: 23})
        for binding in BINDINGS:
            client = await harness.client(binding)
            whole = await client.list_tasks(request(pageSize=100))
            expected = newest_first(whole.tasks)
            assert sorted(expected) == sorted(t.id for t in started)
            assert [t.id for t in whole.tasks] == expected
            for page_size in range(1, 51):
                seen, pages = await walk(client, request(pageSize=page_size))
                assert seen == expected, (binding, page_size)
                assert len(pages) == -(-23 // page_size), (binding, page_size)
                assert all(p.total_size == 23 and p.page_size == page_size for p in pages)
                assert all(p.next_page_token for p in pages[:-1])
                assert pages[-1].next_page_token == ""


async def test_page_size_defaults_to_50(temporal_client: Client, tmp_path: Path) -> None:
    async with running_harness(temporal_client, tmp_path, ANSWER) as harness:
        await start(harness, ["one", "two"])
        await settled(harness, {COMPLETED: 2})
        for binding in BINDINGS:
            page = await (await harness.client(binding)).list_tasks(ListTasksRequest())
            assert (page.page_size, page.total_size, len(page.tasks)) == (50, 2, 2)
            assert page.next_page_token == ""


async def test_a_page_token_stays_valid_after_new_tasks_arrive(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ANSWER) as harness:
        originals = await start(harness, [f"old {i}" for i in range(12)])
        await settled(harness, {COMPLETED: 12})
        first_pages = {}
        for binding in BINDINGS:
            client = await harness.client(binding)
            first_pages[binding] = await client.list_tasks(request(pageSize=5))
        # The same listing position gives the same token on either binding.
        tokens = {page.next_page_token for page in first_pages.values()}
        assert len(tokens) == 1

        newcomers = await start(harness, [f"new {i}" for i in range(3)])
        await settled(harness, {COMPLETED: 15})

        for binding in BINDINGS:
            client = await harness.client(binding)
            first = first_pages[binding]
            rest, pages = await walk(client, request(pageSize=5), token=first.next_page_token)
            seen = [task.id for task in first.tasks] + rest
            assert sorted(seen) == sorted(task.id for task in originals)
            assert len(seen) == len(set(seen)) == 12
            assert not {task.id for task in newcomers} & set(seen)
            assert all(page.total_size == 15 for page in pages)


async def test_filters_combine_and_total_size_counts_each_filter_exactly(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK_OR_ANSWER) as harness:
        (seed,) = await start(harness, ["hello"])
        ctx_a = seed.context_id
        await start(harness, ["hi", "hey", "ask me", "ask me too"], context_id=ctx_a)
        (other,) = await start(harness, ["ask me"])
        ctx_b = other.context_id
        await start(harness, ["hello", "hi"], context_id=ctx_b)
        await settled(harness, {COMPLETED: 5, INPUT_REQUIRED: 3})
        everything = (await (await harness.client()).list_tasks(request(pageSize=100))).tasks
        by_id = {task.id: task for task in everything}
        order = newest_first(everything)
        bound = by_id[order[4]].status.timestamp  # the fifth-newest status change
        since = {
            t.id for t in everything if t.status.timestamp.ToNanoseconds() >= bound.ToNanoseconds()
        }

        def expect(context: str = "", state: int = 0, *, after: bool = False) -> list[str]:
            return [
                task_id
                for task_id in order
                if (not context or by_id[task_id].context_id == context)
                and (not state or by_id[task_id].status.state == state)
                and (not after or task_id in since)
            ]

        after = bound.ToJsonString()
        cases: list[tuple[dict[str, object], list[str]]] = [
            ({"contextId": ctx_a}, expect(ctx_a)),
            ({"status": "TASK_STATE_COMPLETED"}, expect(state=COMPLETED)),
            ({"contextId": ctx_a, "status": "TASK_STATE_COMPLETED"}, expect(ctx_a, COMPLETED)),
            (
                {"contextId": ctx_a, "status": "TASK_STATE_INPUT_REQUIRED"},
                expect(ctx_a, INPUT_REQUIRED),
            ),
            (
                {"contextId": ctx_b, "status": "TASK_STATE_INPUT_REQUIRED"},
                expect(ctx_b, INPUT_REQUIRED),
            ),
            ({"statusTimestampAfter": after}, expect(after=True)),
            ({"statusTimestampAfter": after, "contextId": ctx_b}, expect(ctx_b, after=True)),
            (
                {"statusTimestampAfter": after, "status": "TASK_STATE_COMPLETED"},
                expect(state=COMPLETED, after=True),
            ),
            ({"contextId": "no-such-context"}, []),
        ]
        assert [len(ids) for _, ids in cases[:5]] == [5, 5, 3, 2, 1]
        assert order[4] in cases[5][1]  # the bound is inclusive
        for fields, ids in cases:
            answers = {}
            for binding in BINDINGS:
                client = await harness.client(binding)
                seen, pages = await walk(client, request(pageSize=2, **fields))
                assert seen == ids, (binding, fields)
                assert all(page.total_size == len(ids) for page in pages), (binding, fields)
                answers[binding] = pages
            assert answers["JSONRPC"] == answers["HTTP+JSON"], fields


async def test_artifacts_only_when_asked_and_history_trimmed_per_task(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, PLAN_THEN_ANSWER) as harness:
        await start(harness, ["one", "two", "three"])
        await settled(harness, {COMPLETED: 3})
        for binding in BINDINGS:
            client = await harness.client(binding)
            plain = await client.list_tasks(ListTasksRequest())
            assert all(not task.artifacts for task in plain.tasks)
            assert all(len(task.history) >= 2 for task in plain.tasks)
            full = await client.list_tasks(request(includeArtifacts=True))
            assert all(len(task.artifacts) == 1 for task in full.tasks)
            one = await client.list_tasks(request(historyLength=1))
            assert all(len(task.history) == 1 for task in one.tasks)
            assert [t.history[0] for t in one.tasks] == [t.history[-1] for t in plain.tasks]
            none = await client.list_tasks(request(historyLength=0))
            assert all(not task.history for task in none.tasks)
        # On the wire, an artifact-less listing has no `artifacts` key at all (spec 3.1.4).
        body = {"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}
        answer = await harness.http.post(harness.url + "/", json=body, headers=JSONRPC_HEADERS)
        rest = await harness.http.get(harness.url + "/rest/tasks", headers=JSONRPC_HEADERS)
    assert all("artifacts" not in task for task in answer.json()["result"]["tasks"])
    assert all("artifacts" not in task for task in rest.json()["tasks"])


@pytest.mark.parametrize("binding", BINDINGS)
async def test_refused_listings_are_invalid_params_and_change_nothing(
    temporal_client: Client, tmp_path: Path, binding: str
) -> None:
    async with running_harness(temporal_client, tmp_path, ANSWER) as harness:
        tasks = await start(harness, ["one", "two", "three"])
        await settled(harness, {COMPLETED: 3})
        client = await harness.client(binding)
        token = (await client.list_tasks(request(pageSize=1))).next_page_token
        flipped = token[:8] + ("A" if token[8] != "A" else "B") + token[9:]
        inner_cursor = json.dumps(["2999-01-01T00:00:00.000000Z", "zzz"])
        refused: list[dict[str, object]] = [
            {"pageSize": 0},
            {"pageSize": -1},
            {"pageSize": 101},
            {"historyLength": -1},
            {"status": 99},
            {"status": -1},
            {"pageToken": "%%%"},
            {"pageToken": "not-a-token"},
            {"pageToken": flipped},
            {"pageToken": token[:-3]},
            {"pageToken": token + "AAAA"},
            {"pageToken": inner_cursor},
            # A real token, but issued for a listing with other filters.
            {"pageToken": token, "contextId": tasks[0].context_id},
            {"pageToken": token, "status": "TASK_STATE_COMPLETED"},
        ]
        before = await client.list_tasks(request(pageSize=100))
        workflows = sorted(await harness.workflow_ids())
        for fields in refused:
            with pytest.raises(InvalidParamsError):
                await client.list_tasks(request(**fields))
        assert await client.list_tasks(request(pageSize=100)) == before
        assert sorted(await harness.workflow_ids()) == workflows
        # The same token with the filters it was issued for still works.
        assert (await client.list_tasks(request(pageSize=1, pageToken=token))).tasks


async def test_an_unknown_status_name_is_dropped_by_the_sdk_parser_not_refused(
    temporal_client: Client, tmp_path: Path
) -> None:
    """Spec 6.5 shows `status=TASK_STATE_RUNNING` answered 400 InvalidParams. The SDK parses
    params with `ignore_unknown_fields=True`, which turns an unknown enum name into the
    default, TASK_STATE_UNSPECIFIED (a2a/server/routes/jsonrpc_dispatcher.py:303-310,
    a2a/utils/proto_utils.py:231), before our handler sees the request: the listing comes
    back unfiltered. Pinned so the day the SDK refuses it, this test says so."""
    async with running_harness(temporal_client, tmp_path, ANSWER) as harness:
        await start(harness, ["one"])
        await settled(harness, {COMPLETED: 1})
        params = {"status": "TASK_STATE_RUNNING"}
        body = {"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": params}
        rpc = await harness.http.post(harness.url + "/", json=body, headers=JSONRPC_HEADERS)
        rest = await harness.http.get(
            harness.url + "/rest/tasks", params=params, headers=JSONRPC_HEADERS
        )
    assert rpc.json()["result"]["totalSize"] == 1
    assert (rest.status_code, rest.json()["totalSize"]) == (200, 1)
