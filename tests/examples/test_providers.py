"""Each configuration of `examples/providers/`, loaded as `--config` loads it, runs a task:
its adapter sends the file's model and the environment's key to a local stub replaying
that provider's recorded answer, and the answer ends the task."""

from __future__ import annotations

from pathlib import Path

import pytest
from a2a.helpers import get_artifact_text
from temporalio.client import Client

from tests.harness.models.provider_stub import ProviderStub
from tests.support import collect, running_harness, send_request, states
from tiny_harness.config.loading import load_settings
from tiny_harness.harness.models.factory import choose_model

pytestmark = pytest.mark.timeout(60)

EXAMPLES = Path(__file__).parents[2] / "examples" / "providers"
KEY = "sk-example-" + "k3y" * 8


@pytest.mark.parametrize(
    ("name", "scenario", "prefix"),
    [
        ("openai.toml", "openai_text", "/v1"),
        ("anthropic.toml", "anthropic_text", ""),
        ("local.toml", "chat_text", "/v1"),
    ],
)
async def test_each_provider_configuration_runs_a_task_on_its_recorded_answer(
    temporal_client: Client, tmp_path: Path, name: str, scenario: str, prefix: str
) -> None:
    async with ProviderStub() as stub:
        environ = {
            "TINY_HARNESS_MODEL__API_KEY": KEY,
            # The stub stands in for the provider's endpoint, as a proxy would.
            "TINY_HARNESS_MODEL__BASE_URL": stub.base_url(scenario) + prefix,
        }
        settings = load_settings(config_file=EXAMPLES / name, environ=environ)
        chosen = choose_model(settings.model)
        try:
            async with running_harness(temporal_client, tmp_path, "turns: []", llm=chosen.llm) as h:
                events = await collect((await h.client()).send_message(send_request("2+3?")))
        finally:
            await chosen.llm.aclose()
        sent = stub.last

    assert states(events)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
    answer = next(e.artifact_update.artifact for e in events if e.HasField("artifact_update"))
    assert get_artifact_text(answer) == "Two plus three is five."
    assert sent.body["model"] == settings.model.model
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in chosen.description
