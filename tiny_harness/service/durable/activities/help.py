"""The body of help.decided.in, run by the `invoke_tool` activity for `ask_participant`.

    ask_participant(question) with no participant_id
      ─ help.decided.in ─► HelpDecision ─ check_decision ─► refused? once more, told why
      ASK ─► wait_for_reply addressed to the participant
      CREATE_TASK ─► create_participant_task for the participant

The default body asks the task's model for a decision as structured output, unless the
task has a single participant, who is then asked without a model call (there is nothing
to decide). An executor may decide instead by setting the result; `check_decision` holds
whatever was decided to the task's rules either way. A question nobody can be chosen for
(a task without participants) is asked of whoever answers first, as before.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from tiny_harness.errors import HelpDecisionError
from tiny_harness.harness.channels.help import (
    HelpDecision,
    HelpNeed,
    HelpRoute,
    check_decision,
    decision_request,
    parse_decision,
)
from tiny_harness.harness.hooks import HelpDecidedIn, HookPoint, Operation, Phase
from tiny_harness.harness.runtime.harness import Harness
from tiny_harness.harness.tasks.extension import TaskExtensionData
from tiny_harness.harness.tools.definition import WorkflowCommand
from tiny_harness.service.durable.activities.beats import heartbeating
from tiny_harness.service.o11y.operations import Operations

logger = logging.getLogger(__name__)

_POINT = HookPoint(Operation.HELP_DECIDED, Phase.IN)


async def route_question(
    harness: Harness,
    task_id: str,
    command: WorkflowCommand,
    ext: TaskExtensionData | None,
    operations: Operations,
) -> WorkflowCommand:
    """`ask_participant`'s command, addressed (or turned into a task) as decided; an
    addressed question, or one on a task without participants, is left as it is. Raises
    `HelpDecisionError` when no decision keeps the task's rules after the second try.
    A decision is one `help.decided` operation (`operations`), its route the outcome."""
    if command.payload.get("participant_id") or ext is None or not ext.participants:
        return command
    options = command.payload.get("options")
    need = HelpNeed(
        question=str(command.payload["question"]),
        options=tuple(str(o) for o in options) if isinstance(options, list) else (),
    )
    with operations.run(Operation.HELP_DECIDED, task_id, command.call_id) as run:
        decision = await decide(harness, task_id, need, ext)
        run.outcome = decision.route.value
    logger.info(
        "task %s: help decided: %s %s", task_id, decision.route.value, decision.participant_id
    )
    if decision.route is HelpRoute.ASK:
        payload = {
            "question": decision.question,
            "options": list(decision.options),
            "participant_id": decision.participant_id,
        }
        return command.model_copy(update={"payload": payload})
    payload = {
        "participant_id": decision.participant_id,
        "name": decision.name,
        "goal": decision.goal,
        "description": decision.reason,
        "acceptance_criteria": list(decision.acceptance_criteria),
    }
    return command.model_copy(update={"kind": "create_participant_task", "payload": payload})


async def decide(
    harness: Harness, task_id: str, need: HelpNeed, ext: TaskExtensionData
) -> HelpDecision:
    """help.decided.in, checked; a refused decision is asked for once more, told why."""
    refused: str | None = None
    for attempt in (1, 2):
        ctx = HelpDecidedIn(
            task_id=task_id,
            correlation_id=f"{task_id}:help",
            attempt=attempt,
            need=need,
            task=ext,
            refused=refused,
        )
        try:
            decided = await harness.hooks.run_body(_POINT, ctx, _default_body(harness))
            if decided.result is None:
                raise HelpDecisionError("no decision was made")
            return check_decision(decided.result, need, ext)
        except HelpDecisionError as error:
            logger.info("task %s: help decision refused: %s", task_id, error.message)
            if attempt == 2:
                raise
            refused = error.message
    raise HelpDecisionError("no decision was made")  # the loop returns or raises first


def _default_body(harness: Harness) -> Callable[[HelpDecidedIn], Awaitable[HelpDecidedIn]]:
    async def body(ctx: HelpDecidedIn) -> HelpDecidedIn:
        people = ctx.task.participants
        if len(people) == 1:
            only = HelpDecision(
                route=HelpRoute.ASK, participant_id=people[0].id, reason="the only participant"
            )
            return ctx.model_copy(update={"result": only})
        llm = await harness.llm()
        async with heartbeating():
            answer = await llm.invoke(
                decision_request(ctx.task_id, ctx.need, ctx.task, ctx.refused)
            )
        return ctx.model_copy(update={"result": parse_decision(answer.output_text)})

    return body
