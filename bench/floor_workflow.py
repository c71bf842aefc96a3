"""The floor's workflow, in a module of its own so that Temporal's sandbox (on by default)
can import it: one update that runs one activity and returns its answer.

Used by `bench/throughput.py`; see its docstring. The activity makes the same model call
the harness makes (the one-turn benchmark script).
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import activity, workflow

with workflow.unsafe.imports_passed_through():
    from roundtrip import SCRIPT_TEXT

    from tiny_harness.harness.models.llm import LLMRequest, UserItem
    from tiny_harness.harness.models.scripted import ScriptedLLM, parse_script

LLM = ScriptedLLM(parse_script(SCRIPT_TEXT, source="<bench>"), name="one-turn")


@activity.defn(name="floor_answer")
async def floor_answer(text: str) -> str:
    """The model call, as the harness makes it: one activity."""
    request = LLMRequest(instructions="bench", input=(UserItem(message_id="m", text=text),))
    return (await LLM.invoke(request)).output_text


@workflow.defn(name="FloorWorkflow")
class FloorWorkflow:
    """Answers one message: its update runs the model activity and returns the answer."""

    def __init__(self) -> None:
        self._answer: str | None = None

    @workflow.run
    async def run(self) -> str:
        await workflow.wait_condition(lambda: self._answer is not None)
        await workflow.wait_condition(workflow.all_handlers_finished)
        return self._answer or ""

    @workflow.update
    async def ask(self, text: str) -> str:
        self._answer = await workflow.execute_activity(
            floor_answer, text, start_to_close_timeout=timedelta(seconds=30)
        )
        return self._answer
