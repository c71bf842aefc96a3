"""A message's data parts are parsed once by the worker: the inbox update's validator keeps
what it parsed for the handler, and the model's lines for its A2UI actions ride with it to
intake; a request.received hook that rewrites the message is still what the model reads.
Through the A2A server, a real worker and the dev server."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from a2a.types import GetTaskRequest, Message, TaskState
from temporalio import activity, workflow
from temporalio.client import Client

from tests.harness.a2ui.test_surfaces import PICK_A_SIZE, action
from tests.service.durable.test_extension_points import NAMESPACE, write_plugin
from tests.support import collect, llm_requests, running_harness, send_request
from tiny_harness.harness.a2ui import messages as a2ui_messages
from tiny_harness.harness.models.llm import UserItem
from tiny_harness.harness.protocol import data_parts
from tiny_harness.harness.tasks import extension

type Parses = Counter[tuple[str, str]]
"""(message id, media type) → how often the worker parsed that message's parts of it."""


def count_worker_parses(monkeypatch: pytest.MonkeyPatch) -> Parses:
    """Count every parse of a message's typed parts in workflow code (not replaying: a
    replay parses again, legitimately) and in activities; the server's own admission is
    another process's parse and is not counted."""
    parses: Parses = Counter()
    real: Callable[..., Any] = data_parts.typed_parts

    def counting(message: Message, media_type: str, *args: Any, **kwargs: Any) -> Any:
        replaying = workflow.in_workflow() and workflow.unsafe.is_replaying()
        if (workflow.in_workflow() or activity.in_activity()) and not replaying:
            parses[(message.message_id, media_type)] += 1
        return real(message, media_type, *args, **kwargs)

    monkeypatch.setattr(a2ui_messages, "typed_parts", counting)
    monkeypatch.setattr(extension, "typed_parts", counting)
    return parses


async def test_the_worker_parses_an_action_message_once_and_the_model_reads_it(
    monkeypatch: pytest.MonkeyPatch, temporal_client: Client, tmp_path: Path
) -> None:
    parses = count_worker_parses(monkeypatch)
    async with running_harness(temporal_client, tmp_path, PICK_A_SIZE) as h:
        client = await h.client()
        first = await collect(client.send_message(send_request("order a shirt")))
        task_id = first[0].task.id
        await collect(
            (await h.client(streaming=False)).send_message(action("sizes", "pick", task_id=task_id))
        )
        await temporal_client.get_workflow_handle(task_id).result()
        done = await client.get_task(GetTaskRequest(id=task_id))
        requests = await llm_requests(temporal_client, task_id)

    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    seen = [i.text for r in requests for i in r.input if isinstance(i, UserItem)]
    assert any("UI action 'choose' on surface 'sizes', component 'pick'" in t for t in seen)
    assert parses[("sizes-pick", a2ui_messages.A2UI_MEDIA_TYPE)] == 1
    assert parses[("sizes-pick", extension.EVENT_MEDIA_TYPE)] == 1


async def test_a_hook_that_rewrites_an_action_is_what_the_model_reads(
    temporal_client: Client, tmp_path: Path
) -> None:
    hooks = [
        {
            "name": "rewrite",
            "import_path": "tests.service.durable.plugin_hooks:rewrite_action_context",
        }
    ]
    plugin = write_plugin(tmp_path, "rewrite", {f"{NAMESPACE}/hooks.json": json.dumps(hooks)})
    async with running_harness(temporal_client, tmp_path, PICK_A_SIZE, plugins=[plugin]) as h:
        client = await h.client()
        first = await collect(client.send_message(send_request("order a shirt")))
        task_id = first[0].task.id
        await collect(
            (await h.client(streaming=False)).send_message(action("sizes", "pick", task_id=task_id))
        )
        await temporal_client.get_workflow_handle(task_id).result()
        requests = await llm_requests(temporal_client, task_id)

    seen = [i.text for r in requests for i in r.input if isinstance(i, UserItem)]
    chosen = [t for t in seen if "UI action 'choose'" in t]
    assert chosen, seen
    assert '{"size": "L"}' in chosen[-1]
    assert '"M"' not in chosen[-1]
