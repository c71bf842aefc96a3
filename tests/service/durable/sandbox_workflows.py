"""Workflows for the sandbox tests, in a module of their own: the sandbox imports a
workflow's module afresh, so it holds nothing but what the workflows need."""

from __future__ import annotations

from datetime import datetime, timedelta

from temporalio import activity, workflow


@activity.defn
async def echo(text: str) -> str:
    """An activity whose input and result pass the codec."""
    return text


@workflow.defn
class EchoChild:
    """A child workflow whose input and result pass the codec."""

    @workflow.run
    async def run(self, text: str) -> str:
        return text


@workflow.defn
class EchoTwice:
    """Sends its input through an activity, a local activity and a child workflow."""

    @workflow.run
    async def run(self, text: str) -> list[str]:
        timeout = timedelta(seconds=30)
        remote = await workflow.execute_activity(echo, text, start_to_close_timeout=timeout)
        local = await workflow.execute_local_activity(echo, text, start_to_close_timeout=timeout)
        child = await workflow.execute_child_workflow(
            EchoChild.run, text, id=f"{workflow.info().workflow_id}-child"
        )
        return [remote, local, child]


@workflow.defn
class ClockReader:
    """Reads the machine's clock, which workflow code must not."""

    @workflow.run
    async def run(self) -> str:
        return datetime.now().isoformat()
