"""help.decided.in end to end: the model asks for help without naming whom, the task's
model decides (structured output, scripted here), the decision is held to the task's
rules, and a refused decision is asked for once more with the refusal in context."""

from __future__ import annotations

from pathlib import Path

from a2a.types import CancelTaskRequest, SendMessageRequest, TaskState
from temporalio.client import Client

from tests.service.durable.test_participant_tasks import ALICE, ended, until
from tests.support import (
    as_participant,
    collect,
    llm_requests,
    running_harness,
    send_request,
    tool_output,
    watchers,
    with_task_envelope,
)
from tiny_harness.harness.channels.extension import channel_messages_in
from tiny_harness.harness.channels.help import HelpDecision, HelpRoute
from tiny_harness.harness.hooks import HelpDecidedIn, HookContext, HookPoint
from tiny_harness.harness.models.llm import ToolResultItem
from tiny_harness.harness.tasks.extension import (
    AcceptanceCriterion,
    ParticipantRole,
    TaskExtensionData,
    ext_of,
)

BOB = as_participant("bob")
CAROL = as_participant("carol")

ASK_ANYONE = """
turns:
  - tool_calls: [{name: ask_participant,
                  arguments: {question: "Could someone count the shirts in stock?"}}]
  - when: "is now TASK_STATE_COMPLETED"
    text: "Counted."
answers:
  - schema_name: HelpDecision
    when: "rejected"
    output: {route: create_task, participant_id: bob, name: "Count shirts",
             goal: "Count the shirts in stock", reason: "the count is bob's"}
  - schema_name: HelpDecision
    output: {route: ask, participant_id: carol, reason: "carol is nearby"}
"""


def shop_task(text: str) -> SendMessageRequest:
    """Alice's task with Bob and Carol on it; counting stock is Bob's criterion."""
    request = send_request(text)
    criterion = AcceptanceCriterion(text="Count the shirts in stock", assignee="bob")
    ext = TaskExtensionData(participants=watchers("bob", "carol"), acceptance_criteria=(criterion,))
    with_task_envelope(request, ext)
    request.configuration.return_immediately = True
    return request


async def test_a_refused_ask_is_decided_again_and_the_work_goes_to_its_assignee(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK_ANYONE) as h:
        client = await h.client(streaming=False)
        parent_id = (
            await client.send_message(shop_task("restock"), context=ALICE).__anext__()
        ).task.id
        parent = await until(temporal_client, parent_id, TaskState.TASK_STATE_WORKING, sub_tasks=1)
        parent_ext = ext_of(parent)
        assert parent_ext is not None
        child_id = parent_ext.sub_tasks[0].task_id
        child = await until(temporal_client, child_id, TaskState.TASK_STATE_INPUT_REQUIRED)
        await collect(client.send_message(send_request("12", task_id=child_id), context=BOB))
        parent_end = await ended(temporal_client, parent_id)
        requests = await llm_requests(temporal_client, parent_id)

    child_ext = ext_of(child)
    assert child_ext is not None
    assert (child_ext.name, child_ext.goal) == ("Count shirts", "Count the shirts in stock")
    assert child_ext.description == "the count is bob's"
    assert [(p.id, p.role) for p in child_ext.participants] == [
        ("alice", ParticipantRole.ADMIN),
        ("bob", ParticipantRole.ASSIGNEE),
    ]
    results = [i for i in requests[1].input if isinstance(i, ToolResultItem)]
    assert results[0].name == "ask_participant"
    assert f"Task {child_id} ('Count shirts') created for bob" in results[0].text
    assert parent_end.task.status.state == TaskState.TASK_STATE_COMPLETED
    assert parent_end.task.artifacts[-1].parts[0].text == "Counted."


ASK_TWO = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "Which carrier?",
                                                     options: [DHL, UPS]}}]
  - when: "^(DHL|UPS)$"
    text: "Shipping."
answers:
  - schema_name: HelpDecision
    output: {route: ask, participant_id: carol, reason: "carol ships"}
"""


async def test_a_decided_question_goes_to_the_chosen_participant_alone(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK_TWO) as h:
        client = await h.client()
        request = shop_task("ship it")
        request.configuration.return_immediately = False
        first = await collect(client.send_message(request, context=ALICE))
        task_id = first[0].task.id
        await collect(client.send_message(send_request("UPS", task_id=task_id), context=CAROL))
        end = await ended(temporal_client, task_id)

    asked = first[-1].status_update.status
    assert asked.state == TaskState.TASK_STATE_INPUT_REQUIRED
    help_requests = channel_messages_in(asked.message)
    assert [(m.to, m.text) for m in help_requests] == [("carol", "Which carrier?")]
    assert end.task.status.state == TaskState.TASK_STATE_COMPLETED
    assert end.task.artifacts[-1].parts[0].text == "Shipping."


async def test_a_decision_refused_twice_is_an_error_result_and_nobody_is_asked(
    temporal_client: Client, tmp_path: Path
) -> None:
    script = """
turns:
  - tool_calls: [{name: ask_participant,
                  arguments: {question: "Please count the shirts in stock"}}]
  - text: "I will count them myself."
answers:
  - schema_name: HelpDecision
    output: {route: ask, participant_id: carol}
"""
    async with running_harness(temporal_client, tmp_path, script) as h:
        client = await h.client()
        request = shop_task("restock")
        request.configuration.return_immediately = False
        events = await collect(client.send_message(request, context=ALICE))
        task_id = events[0].task.id
        requests = await llm_requests(temporal_client, task_id)
        end = await ended(temporal_client, task_id)

    assert end.task.status.state == TaskState.TASK_STATE_COMPLETED
    assert not any(
        e.status_update.status.state == TaskState.TASK_STATE_INPUT_REQUIRED for e in events
    )
    refusal = [i for i in requests[1].input if isinstance(i, ToolResultItem)]
    assert refusal[0].is_error
    assert tool_output(refusal[0].text).startswith("help.decision_invalid: the need is work")
    assert "create a task for bob instead" in refusal[0].text


class Dispatcher:
    """An executor that decides instead of the model: Carol first, then, told why that was
    refused, a task for whoever owns the work."""

    name = "dispatcher"
    priority = 10
    points = frozenset({HookPoint.parse("help.decided.in")})

    def __init__(self) -> None:
        self.seen: list[str | None] = []

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        if not isinstance(ctx, HelpDecidedIn):
            return None
        self.seen.append(ctx.refused)
        if ctx.refused is None:
            decision = HelpDecision(route=HelpRoute.ASK, participant_id="carol")
        else:
            decision = HelpDecision(
                route=HelpRoute.CREATE_TASK, participant_id="bob", name="Count", goal="Count"
            )
        return ctx.model_copy(update={"result": decision})


async def test_an_executor_decides_instead_of_the_model_and_is_still_checked(
    temporal_client: Client, tmp_path: Path
) -> None:
    script = """
turns:
  - tool_calls: [{name: ask_participant,
                  arguments: {question: "Please count the shirts in stock"}}]
  - text: "Waiting for the count."
"""
    dispatcher = Dispatcher()
    async with running_harness(temporal_client, tmp_path, script) as h:
        h.harness.hooks.register(dispatcher)
        client = await h.client(streaming=False)
        request = shop_task("restock")
        parent_id = (await client.send_message(request, context=ALICE).__anext__()).task.id
        parent = await until(temporal_client, parent_id, TaskState.TASK_STATE_WORKING, sub_tasks=1)
        await client.cancel_task(CancelTaskRequest(id=parent_id), context=ALICE)
        await ended(temporal_client, parent_id)

    assert dispatcher.seen[0] is None
    assert dispatcher.seen[1] is not None
    assert "rejected asking carol" in dispatcher.seen[1]
    ext = ext_of(parent)
    assert ext is not None
    assert len(ext.sub_tasks) == 1
