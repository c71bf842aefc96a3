"""A2A conversations end to end: real Temporal, real HTTP on 127.0.0.1, the real a2a-sdk client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from a2a.helpers import get_artifact_text, get_message_text
from a2a.types import GetTaskRequest, ListTasksRequest, SubscribeToTaskRequest, TaskState
from temporalio.client import Client

from tests.support import BINDINGS, HeldLLM, collect, running_harness, send_request, states

PLAN_THEN_ANSWER = """
turns:
  - text: "Planning."
    tool_calls:
      - name: create_plan
        arguments: {steps: [{id: a, name: look}, {id: b, name: answer, depends_on: [a]}]}
  - tool_calls:
      - {name: complete_step, arguments: {step_id: a, output: looked}}
      - {name: complete_step, arguments: {step_id: b, output: answered}}
  - text: "The answer is 42."
"""

ASK_THEN_ANSWER = """
turns:
  - tool_calls:
      - name: ask_participant
        arguments: {question: "Which colour?", options: [red, blue]}
  - when: "(?i)blue"
    text: "Blue it is."
  - text: "I did not get a colour."
"""


@pytest.mark.parametrize("binding", BINDINGS)
async def test_message_streams_to_completed_with_answer_artifact(
    temporal_client: Client, tmp_path: Path, binding: str
) -> None:
    async with running_harness(temporal_client, tmp_path, PLAN_THEN_ANSWER) as harness:
        client = await harness.client(binding)
        events = await collect(client.send_message(send_request("What is the answer?")))

    seen = states(events)
    assert seen[0] == "TASK_STATE_SUBMITTED"
    assert seen[1] == "TASK_STATE_WORKING"
    assert seen[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
    artifact = next(e.artifact_update.artifact for e in events if e.HasField("artifact_update"))
    assert get_artifact_text(artifact) == "The answer is 42."
    progress = [
        get_message_text(e.status_update.status.message)
        for e in events
        if e.HasField("status_update") and e.status_update.status.HasField("message")
    ]
    progress = [text for text in progress if text]  # a call's message is its data part
    assert progress[0] == "Planning."
    assert any(text.startswith("Step b done") for text in progress)


async def test_both_bindings_give_the_same_conversation(
    temporal_client: Client, tmp_path: Path
) -> None:
    results = {}
    async with running_harness(temporal_client, tmp_path, PLAN_THEN_ANSWER) as harness:
        for binding in BINDINGS:
            client = await harness.client(binding)
            events = await collect(client.send_message(send_request("same question")))
            task_id = events[0].task.id
            task = await client.get_task(GetTaskRequest(id=task_id))
            results[binding] = (
                states(events),
                [get_message_text(m) for m in task.history],
                [get_artifact_text(a) for a in task.artifacts],
                TaskState.Name(task.status.state),
            )
    assert results["JSONRPC"] == results["HTTP+JSON"]
    assert results["JSONRPC"][3] == "TASK_STATE_COMPLETED"


@pytest.mark.parametrize("binding", BINDINGS)
async def test_question_pauses_input_required_and_reply_completes_once(
    temporal_client: Client, tmp_path: Path, binding: str
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK_THEN_ANSWER) as harness:
        client = await harness.client(binding)
        first = await collect(client.send_message(send_request("Paint the fence")))
        task = first[0].task
        assert states(first)[-1] == "TASK_STATE_INPUT_REQUIRED"
        question = first[-1].status_update.status.message
        assert get_message_text(question) == "Which colour?"

        reply = send_request("blue please", task_id=task.id)
        second = await collect(client.send_message(reply))
        assert states(second)[0] == "TASK_STATE_INPUT_REQUIRED"  # the snapshot opens the stream
        assert states(second)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
        answer = next(e.artifact_update.artifact for e in second if e.HasField("artifact_update"))
        assert get_artifact_text(answer) == "Blue it is."

        final = await client.get_task(GetTaskRequest(id=task.id))
        replies = [m for m in final.history if get_message_text(m) == "blue please"]
        assert len(replies) == 1
        assert final.context_id == task.context_id


async def test_non_streaming_send_waits_for_the_final_task(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, PLAN_THEN_ANSWER) as harness:
        client = await harness.client(streaming=False)
        results = await collect(client.send_message(send_request("question")))
    assert len(results) == 1
    task = results[0].task
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert [get_artifact_text(a) for a in task.artifacts] == ["The answer is 42."]


async def test_return_immediately_answers_before_the_work_is_done(
    temporal_client: Client, tmp_path: Path
) -> None:
    llm = HeldLLM("turns:\n  - text: slow answer\n")
    async with running_harness(temporal_client, tmp_path, "", llm=llm) as harness:
        client = await harness.client(streaming=False)
        request = send_request("question")
        request.configuration.return_immediately = True
        results = await collect(client.send_message(request))
        task = results[0].task
        streaming = await harness.client()
        stream = streaming.subscribe(SubscribeToTaskRequest(id=task.id))
        opened = await anext(stream)  # while the model call is still held
        llm.release.set()
        followed = [opened, *[event async for event in stream]]
    assert task.status.state == TaskState.TASK_STATE_SUBMITTED
    # The stream opens with the task as it stands (still under way), then follows it.
    assert followed[0].WhichOneof("payload") == "task"
    assert states(followed)[0] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
    assert states(followed)[-1] == "TASK_STATE_COMPLETED"


async def test_list_tasks_pages_by_context(temporal_client: Client, tmp_path: Path) -> None:
    async with running_harness(temporal_client, tmp_path, PLAN_THEN_ANSWER) as harness:
        client = await harness.client()
        first = await collect(client.send_message(send_request("one")))
        context_id = first[0].task.context_id
        await collect(client.send_message(send_request("two", context_id=context_id)))
        await collect(client.send_message(send_request("elsewhere")))
        page = await client.list_tasks(ListTasksRequest(context_id=context_id, page_size=1))
        assert page.total_size == 2
        assert len(page.tasks) == 1
        rest = await client.list_tasks(
            ListTasksRequest(context_id=context_id, page_size=1, page_token=page.next_page_token)
        )
        assert {page.tasks[0].id, rest.tasks[0].id} == {
            t.id for t in (await client.list_tasks(ListTasksRequest(context_id=context_id))).tasks
        }


async def test_jsonrpc_stream_frames_on_the_wire(temporal_client: Client, tmp_path: Path) -> None:
    """Read the SSE bytes as curl would: each frame one JSON-RPC response carrying the id."""
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "SendStreamingMessage",
        "params": {"message": {"messageId": "w-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
    }
    headers = {"content-type": "application/json", "A2A-Version": "1.0"}
    async with (
        running_harness(temporal_client, tmp_path, PLAN_THEN_ANSWER) as harness,
        harness.http.stream("POST", harness.url + "/", json=body, headers=headers) as r,
    ):
        assert r.headers["content-type"].startswith("text/event-stream")
        frames = [
            json.loads(line.removeprefix("data:"))
            async for line in r.aiter_lines()
            if line.startswith("data:")
        ]
    assert all(frame["jsonrpc"] == "2.0" and frame["id"] == 7 for frame in frames)
    kinds = [next(iter(frame["result"])) for frame in frames]
    assert kinds[0] == "task"
    assert kinds[-2:] == ["artifactUpdate", "statusUpdate"]
    assert frames[-1]["result"]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
