"""The web renderer as `tiny-harness serve` serves it at /ui: a real serve process, real HTTP.

The build folder here is a small stand-in (a page and one hashed asset): what is under test
is how the server serves a Vite build, not the build itself (renderers/web's own browser
tests open the real one)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from tests.service.serve_process import ServeProcess
from tiny_harness.service.http import free_port

PAGE = '<!doctype html><div id="root"></div><script src="/ui/assets/app-1a2b.js"></script>'
ASSET = "console.log('tiny-harness');"


def serve_with(temporal_env: WorkflowEnvironment, tmp_path: Path, build: Path) -> ServeProcess:
    env = {
        "TINY_HARNESS_TEMPORAL__ADDRESS": temporal_env.client.service_client.config.target_host,
        "TINY_HARNESS_TEMPORAL__TASK_QUEUE": f"web-ui-{tmp_path.name}",
        "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
        "TINY_HARNESS_SERVER__WEB_UI_DIR": str(build),
    }
    return ServeProcess(tmp_path / "data", free_port(), env)


@pytest.mark.timeout(60)
async def test_serve_serves_the_build_at_ui_beside_the_a2a_routes(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    build = tmp_path / "dist"
    (build / "assets").mkdir(parents=True)
    (build / "index.html").write_text(PAGE)
    (build / "assets" / "app-1a2b.js").write_text(ASSET)
    serve = serve_with(temporal_env, tmp_path, build)
    await serve.start()
    try:
        async with httpx.AsyncClient(base_url=serve.url, timeout=10) as http:
            bare = await http.get("/ui")
            page = await http.get("/ui/")
            asset = await http.get("/ui/assets/app-1a2b.js")
            missing = await http.get("/ui/assets/gone-0000.js")
            card = await http.get("/.well-known/agent-card.json")
    finally:
        assert await serve.stop() == 0

    assert (bare.status_code, bare.headers["location"]) == (308, "/ui/")
    assert page.status_code == 200
    assert page.text == PAGE
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "no-cache"  # a new build shows on the next load
    assert asset.text == ASSET
    assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert missing.status_code == 404
    assert card.status_code == 200  # the SDK's routes answer as before
    assert f"web ui: {serve.url}/ui/" in "\n".join(serve.lines)


@pytest.mark.timeout(60)
async def test_serve_without_a_build_says_how_to_build_it_in_the_log_and_at_ui(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    build = tmp_path / "never-built"
    serve = serve_with(temporal_env, tmp_path, build)
    await serve.start()
    try:
        async with httpx.AsyncClient(base_url=serve.url, timeout=10) as http:
            answers = [await http.get(path) for path in ("/ui", "/ui/", "/ui/assets/app.js")]
            card = await http.get("/.well-known/agent-card.json")
    finally:
        assert await serve.stop() == 0

    sentence = (
        f"the web UI is not built ({build / 'index.html'} is missing): run `make serve` "
        "with npm on PATH, or `npm ci && npm run build` in renderers/web"
    )
    assert [(a.status_code, a.text) for a in answers] == [(404, sentence)] * 3
    assert card.status_code == 200
    logged = [line for line in serve.lines if "web ui:" in line]
    assert len(logged) == 1
    assert logged[0].endswith(f"web ui: {sentence}")
