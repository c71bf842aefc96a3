"""How the main screens look, as SVG screenshots compared with the reviewed ones in
`__snapshots__/` (syrupy; `pytest --snapshot-update` rewrites them after a change of look,
to be reviewed in the diff). Each is the real app against a real harness, at rest: the
screen shows no id, port or time, so it is the same on every run (how long each call took
is measured, so the shots show every call at `MEASURED_MS`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from a2a.types import TaskState
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from temporalio.client import Client

from tests.interaction.tui.pilot import connected, type_and_send, until
from tests.interaction.tui.test_app import ASK_COLOUR, PLAN_THEN_ANSWER
from tests.support import running_harness
from tiny_harness.interaction.tui.app import TinyHarnessApp
from tiny_harness.interaction.tui.widgets.blocks import Block
from tiny_harness.interaction.tui.widgets.composer import Composer
from tiny_harness.interaction.tui.widgets.task_list import TaskList, badge

SNAPSHOT_SIZE = (110, 32)
MEASURED_MS = 25

A2UI_FORM = """
turns:
  - tool_calls:
      - name: emit_ui
        arguments:
          text: "Your order"
          messages:
            - {version: v0.9.1, createSurface: {surfaceId: order,
               catalogId: "https://a2ui.org/specification/v0_9/basic_catalog.json"}}
            - {version: v0.9.1, updateDataModel: {surfaceId: order,
               value: {name: "Ada", gift: false, size: [m]}}}
            - {version: v0.9.1, updateComponents: {surfaceId: order, components: [
                {id: root, component: Card, child: form},
                {id: form, component: Column, children: [title, name, size, gift, line, go]},
                {id: title, component: Text, text: "Shirt order", variant: h2},
                {id: name, component: TextField, label: "Name", value: {path: /name}},
                {id: size, component: ChoicePicker, label: "Size", value: {path: /size},
                 options: [{label: Small, value: s}, {label: Medium, value: m}]},
                {id: gift, component: CheckBox, label: "Gift wrap", value: {path: /gift}},
                {id: line, component: Divider},
                {id: go, component: Button, child: go-label, variant: primary,
                 action: {event: {name: order, context: {name: {path: /name}}}}},
                {id: go-label, component: Text, text: "Order"}]}}
      - {name: ask_participant, arguments: {question: "Shall I order it?"}}
  - text: "Ordered."
"""


class SvgSnapshot(SingleFileSnapshotExtension):
    """One SVG file per snapshot; Rich's random id in the SVG is taken out first."""

    file_extension = "svg"
    _write_mode = WriteMode.TEXT

    def serialize(self, data: Any, **kwargs: Any) -> Any:
        return re.sub(r"\bterminal-\d+-", "terminal-", str(data))


@pytest.fixture
def svg(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(SvgSnapshot)


async def screen_after(
    temporal_client: Client,
    tmp_path: Path,
    script: str,
    text: str,
    *,
    settled: str,
    drawn: str = "Block",
) -> str:
    """The screen once the task the message starts reaches `settled` (a state name) and
    a widget matching `drawn` is on it."""
    async with running_harness(temporal_client, tmp_path, script) as h:
        app = TinyHarnessApp(h.url, participant="alice")
        async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
            await connected(pilot)
            await type_and_send(pilot, text)
            tasks = app.query_one(TaskList)

            def at_rest() -> bool:
                timeline = app.timeline
                return (
                    timeline is not None
                    and timeline.state_name == settled
                    and bool(app.query(drawn))
                    and tasks.option_count == 1
                    and badge(TaskState.Value(settled)).plain
                    in str(tasks.get_option_at_index(0).prompt)
                )

            await until(pilot, at_rest, settled)
            await same_durations(app)
            app.query_one(Composer).cursor_blink = False  # the cursor shown, always
            await pilot.wait_for_scheduled_animations()
            await pilot.pause(0.3)  # let the last redraw land
            return app.export_screenshot()


async def same_durations(app: TinyHarnessApp) -> None:
    """Every call block shows its call as taking `MEASURED_MS`."""
    for block in app.query(Block):
        call = block.entry.call
        if call is not None and call.duration_ms is not None:
            shown = call.model_copy(update={"duration_ms": MEASURED_MS})
            await block.update_entry(block.entry.model_copy(update={"call": shown}))


async def test_conversation_with_a_plan(
    temporal_client: Client, tmp_path: Path, svg: SnapshotAssertion
) -> None:
    shot = await screen_after(
        temporal_client,
        tmp_path,
        PLAN_THEN_ANSWER,
        "What is the answer?",
        settled="TASK_STATE_COMPLETED",
        drawn="AnswerBlock",
    )
    assert shot == svg


async def test_question_with_options(
    temporal_client: Client, tmp_path: Path, svg: SnapshotAssertion
) -> None:
    shot = await screen_after(
        temporal_client,
        tmp_path,
        ASK_COLOUR,
        "Paint the fence",
        settled="TASK_STATE_INPUT_REQUIRED",
        drawn="QuestionBlock",
    )
    assert shot == svg


async def test_a2ui_form(temporal_client: Client, tmp_path: Path, svg: SnapshotAssertion) -> None:
    shot = await screen_after(
        temporal_client,
        tmp_path,
        A2UI_FORM,
        "order a shirt",
        settled="TASK_STATE_INPUT_REQUIRED",
        drawn="#a2ui--order--go",
    )
    assert shot == svg


def test_the_readme_screenshots_are_the_reviewed_snapshots() -> None:
    """docs/images shows what the app draws today, not an older look."""
    snapshots = Path(__file__).with_name("__snapshots__") / "test_snapshots"
    docs = Path(__file__).resolve().parents[3] / "docs" / "images"
    pairs = {"tui-question.svg": "test_question_with_options.svg"}
    pairs["tui-plan.svg"] = "test_conversation_with_a_plan.svg"
    for doc, snapshot in pairs.items():
        assert (docs / doc).read_text() == (snapshots / snapshot).read_text(), (
            f"copy {snapshot} to docs/images/{doc}"
        )
