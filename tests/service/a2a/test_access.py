"""Who may see and act on a task (abuse case 4, decision-003): a task belongs to the
participants in its task extension, the one who started it its admin; anyone else gets the
very answer a missing task gets, on every verb, and the task is left as it was."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from a2a.client import Client as A2AClient
from a2a.client import ClientCallContext
from a2a.types import (
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    SendMessageRequest,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.errors import InvalidParamsError, TaskNotFoundError
from temporalio.client import Client

from tests.support import (
    ASKS_WHICH_SIZE,
    BINDINGS,
    RunningHarness,
    as_participant,
    collect,
    ext_as_set,
    running_harness,
    send_request,
    states,
    user_message,
)
from tiny_harness.harness.persistence.store import TaskQuery
from tiny_harness.harness.tasks.extension import (
    EventEnvelope,
    Participant,
    ParticipantRole,
    TaskExtensionData,
    envelope_part,
    ext_of,
)

ALICE = as_participant("alice")
BOB = as_participant("bob")

type Verb = Callable[[A2AClient, str, ClientCallContext | None], Awaitable[object]]


async def started_by(h: RunningHarness, who: ClientCallContext, binding: str = "JSONRPC") -> Task:
    """A task `who` started, parked INPUT_REQUIRED."""
    client = await h.client(binding)
    events = await collect(client.send_message(send_request("order a shirt"), context=who))
    assert states(events)[-1] == "TASK_STATE_INPUT_REQUIRED"
    return events[0].task


async def get(c: A2AClient, task_id: str, who: ClientCallContext | None) -> object:
    return await c.get_task(GetTaskRequest(id=task_id), context=who)


async def cancel(c: A2AClient, task_id: str, who: ClientCallContext | None) -> object:
    return await c.cancel_task(CancelTaskRequest(id=task_id), context=who)


async def subscribe(c: A2AClient, task_id: str, who: ClientCallContext | None) -> object:
    return await collect(c.subscribe(SubscribeToTaskRequest(id=task_id), context=who))


async def reply(c: A2AClient, task_id: str, who: ClientCallContext | None) -> object:
    return await collect(c.send_message(send_request("M", task_id=task_id), context=who))


async def create_push(c: A2AClient, task_id: str, who: ClientCallContext | None) -> object:
    config = TaskPushNotificationConfig(task_id=task_id, url="https://example.org/hook")
    return await c.create_task_push_notification_config(config, context=who)


async def get_push(c: A2AClient, task_id: str, who: ClientCallContext | None) -> object:
    request = GetTaskPushNotificationConfigRequest(task_id=task_id, id="any")
    return await c.get_task_push_notification_config(request, context=who)


async def list_push(c: A2AClient, task_id: str, who: ClientCallContext | None) -> object:
    request = ListTaskPushNotificationConfigsRequest(task_id=task_id)
    return await c.list_task_push_notification_configs(request, context=who)


async def delete_push(c: A2AClient, task_id: str, who: ClientCallContext | None) -> object:
    request = DeleteTaskPushNotificationConfigRequest(task_id=task_id, id="any")
    await c.delete_task_push_notification_config(request, context=who)
    return None


VERBS: dict[str, Verb] = {
    "get": get,
    "cancel": cancel,
    "subscribe": subscribe,
    "reply": reply,
    "create_push": create_push,
    "get_push": get_push,
    "list_push": list_push,
    "delete_push": delete_push,
}


async def refusal(
    verb: Verb, client: A2AClient, task_id: str, who: ClientCallContext | None
) -> str:
    """The error text `verb` gets, with the task id made generic."""
    with pytest.raises(TaskNotFoundError) as refused:
        await verb(client, task_id, who)
    return str(refused.value).replace(task_id, "<id>")


@pytest.mark.parametrize("binding", BINDINGS)
async def test_every_verb_on_a_foreign_task_is_refused_as_on_a_missing_one(
    temporal_client: Client, tmp_path: Path, binding: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Bob and an anonymous caller get what a missing task gets on every verb that names a
    task: get, cancel, subscribe, reply, and the four push-config operations (ListTasks
    takes no task id: `test_list_tasks_shows_each_participant_only_their_tasks`)."""
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as h:
        task = await started_by(h, ALICE, binding)
        client = await h.client(binding)
        before = await client.get_task(GetTaskRequest(id=task.id), context=ALICE)
        with caplog.at_level(logging.WARNING):
            for name, verb in VERBS.items():
                missing = await refusal(verb, client, "no-such-task", BOB)
                assert await refusal(verb, client, task.id, BOB) == missing, name
                assert await refusal(verb, client, task.id, None) == missing, name
        after = await client.get_task(GetTaskRequest(id=task.id), context=ALICE)
        configs = await h.push_configs.list(task.id)

    assert after == before  # nothing any refused verb did shows
    assert configs == []
    denials = [r.getMessage() for r in caplog.records if "access denied" in r.getMessage()]
    assert len(denials) == 2 * len(VERBS)
    assert all(task.id in d for d in denials)


async def test_the_participant_who_started_a_task_is_its_admin_and_can_use_it(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as h:
        task = await started_by(h, ALICE)
        client = await h.client()
        seen = await client.get_task(GetTaskRequest(id=task.id), context=ALICE)
        events = await collect(
            client.send_message(send_request("M", task_id=task.id), context=ALICE)
        )

    assert ext_as_set(seen) == TaskExtensionData(
        participants=(
            Participant(id="alice", kind="human", role=ParticipantRole.ADMIN, display_name="alice"),
        )
    )
    assert states(events)[-1] == "TASK_STATE_COMPLETED"


@pytest.mark.parametrize("key", ["participantId", "participant_id"])
async def test_a_participant_named_in_the_message_metadata_counts_when_no_header_does(
    temporal_client: Client, tmp_path: Path, key: str
) -> None:
    """The camelCase key, and the snake_case one clients wrote before it."""
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as h:
        message = user_message("order a shirt")
        message.metadata[key] = "carol"
        client = await h.client()
        events = await collect(client.send_message(SendMessageRequest(message=message)))
        task_id = events[0].task.id
        as_carol = await client.get_task(
            GetTaskRequest(id=task_id), context=as_participant("carol")
        )
        with pytest.raises(TaskNotFoundError):
            await client.get_task(GetTaskRequest(id=task_id))

    assert as_carol.id == task_id


async def test_context_hijack_refused(temporal_client: Client, tmp_path: Path) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as h:
        task = await started_by(h, ALICE)
        client = await h.client()
        hijack = user_message("what did alice ask?", context_id=task.context_id)
        with pytest.raises(InvalidParamsError) as refused:
            await collect(client.send_message(SendMessageRequest(message=hijack), context=BOB))
        own = user_message("another shirt", context_id=task.context_id)
        events = await collect(client.send_message(SendMessageRequest(message=own), context=ALICE))
        # Alice's second task, sent after the refusal, is the control.
        workflows = await h.workflows_once_visible({task.id, events[0].task.id})

    assert str(refused.value) == f"context {task.context_id} cannot be used"
    assert task.id not in str(refused.value)
    assert events[0].task.context_id == task.context_id  # its owner may use it
    assert workflows == {task.id, events[0].task.id}  # alice's two tasks; bob's started nothing


def with_participants(text: str, task_id: str, *people: Participant) -> SendMessageRequest:
    message = user_message(text, task_id=task_id)
    ext = TaskExtensionData(participants=people)
    message.parts.append(envelope_part(EventEnvelope.of_task(ext)))
    return SendMessageRequest(message=message)


async def test_role_change_requires_admin(temporal_client: Client, tmp_path: Path) -> None:
    watcher = Participant(id="bob", kind="human", role=ParticipantRole.WATCHER, display_name="Bob")
    admin_bob = watcher.model_copy(update={"role": ParticipantRole.ADMIN})
    script = "turns:\n" + "".join(
        "  - tool_calls: [{name: ask_participant,\n"
        '                  arguments: {question: "Next?", participant_id: alice}}]\n'
        for _ in range(3)
    )
    async with running_harness(temporal_client, tmp_path, script) as h:
        task = await started_by(h, ALICE)
        client = await h.client()
        alice = Participant(
            id="alice", kind="human", role=ParticipantRole.ADMIN, display_name="alice"
        )
        # Alice, the admin, makes Bob a watcher: he may now see and message the task.
        await collect(
            client.send_message(
                with_participants("add bob", task.id, alice, watcher), context=ALICE
            )
        )
        seen_by_bob = await client.get_task(GetTaskRequest(id=task.id), context=BOB)
        # Bob may not make himself an admin.
        with pytest.raises(InvalidParamsError, match="only an admin"):
            await collect(
                client.send_message(
                    with_participants("promote me", task.id, alice, admin_bob), context=BOB
                )
            )
        after = await client.get_task(GetTaskRequest(id=task.id), context=ALICE)

    assert seen_by_bob.id == task.id
    ext = ext_of(after)
    assert ext is not None
    assert ext.participants == (alice, watcher)
    assert "promote me" not in [m.parts[0].text for m in after.history]


@pytest.mark.parametrize("binding", BINDINGS)
async def test_list_tasks_shows_each_participant_only_their_tasks(
    temporal_client: Client, tmp_path: Path, binding: str
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as h:
        alices = {(await started_by(h, ALICE, binding)).id for _ in range(2)}
        bobs = {(await started_by(h, BOB, binding)).id}
        anonymous = {(await started_by(h, ClientCallContext(), binding)).id}
        client = await h.client(binding)
        await settled(h, 4)
        seen = {
            name: await client.list_tasks(ListTasksRequest(), context=who)
            for name, who in (("alice", ALICE), ("bob", BOB), ("anonymous", None))
        }

    assert {name: ({t.id for t in page.tasks}, page.total_size) for name, page in seen.items()} == {
        "alice": (alices, 2),
        "bob": (bobs, 1),
        "anonymous": (anonymous, 1),
    }


async def settled(h: RunningHarness, count: int) -> None:
    """Wait until the store holds `count` parked tasks (it trails the workflows a little)."""
    query = TaskQuery(state=TaskState.TASK_STATE_INPUT_REQUIRED)
    for _ in range(200):
        if (await h.store.list_tasks(query)).total_size >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the store never held {count} parked tasks")
