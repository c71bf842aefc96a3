"""Test workflows for the push endpoint: a stand-in with a `remote_push` update, and one without.

`PushTarget` plays the part the real `RemoteTaskWorkflow` will: its validator is the check a
push must pass (the digest in constant time, the remote task id, still open), and it records
every push it accepts, which the `accepted` query returns. `Bystander` has no such update.
"""

from __future__ import annotations

import hmac

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from pydantic import BaseModel

    from tiny_harness.service.durable.remote_payloads import REMOTE_PUSH_UPDATE, PushIn


class PushTargetStart(BaseModel, frozen=True):
    token_digest: str
    remote_task_id: str


@workflow.defn
class PushTarget:
    """Runs until `end`; `close` makes it refuse every push while it still runs."""

    @workflow.init
    def __init__(self, start: PushTargetStart) -> None:
        self._start = start
        self._closed = False
        self._ended = False
        self._accepted: list[PushIn] = []

    @workflow.run
    async def run(self, start: PushTargetStart) -> int:
        await workflow.wait_condition(lambda: self._ended)
        return len(self._accepted)

    @workflow.signal
    def close(self) -> None:
        self._closed = True

    @workflow.signal
    def end(self) -> None:
        self._ended = True

    @workflow.query
    def accepted(self) -> list[PushIn]:
        return list(self._accepted)

    @workflow.query
    def closed(self) -> bool:
        return self._closed

    @workflow.update(name=REMOTE_PUSH_UPDATE)
    def remote_push(self, push: PushIn) -> None:
        self._accepted.append(push)

    @remote_push.validator
    def check_push(self, push: PushIn) -> None:
        expected = self._start.token_digest.encode()
        if not hmac.compare_digest(push.token_digest.encode(), expected):
            raise ValueError("push refused")
        if push.remote_task_id != self._start.remote_task_id:
            raise ValueError("push refused")
        if self._closed:
            raise ValueError("push refused")


@workflow.defn
class Bystander:
    """A workflow with no `remote_push` update; runs until `end`."""

    def __init__(self) -> None:
        self._ended = False

    @workflow.run
    async def run(self) -> None:
        await workflow.wait_condition(lambda: self._ended)

    @workflow.signal
    def end(self) -> None:
        self._ended = True
