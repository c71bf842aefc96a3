"""`WebUi`: the built web renderer (`renderers/web`), served at `/ui` beside the A2A routes.

Same origin as the A2A bindings, so the browser needs no CORS. The build is Vite's output
folder: `index.html` plus content-hashed files under `assets/`. The page is sent with
`no-cache` (a new build shows on the next load) and the hashed assets as immutable. With no
build, every `/ui` path answers 404 with the sentence `WebUi.missing` says, the same one
`serve` logs at startup.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

UI_PATH = "/ui"
CHECKOUT_BUILD = Path(__file__).resolve().parents[2] / "renderers" / "web" / "dist"
"""Where `make serve` (npm run build) puts the build in a checkout of this repository."""

_IMMUTABLE = "public, max-age=31536000, immutable"


class _Build(StaticFiles):
    """Static files with caching headers: hashed assets forever, everything else revalidated."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code == 200:
            hashed = path.startswith("assets/")
            response.headers["Cache-Control"] = _IMMUTABLE if hashed else "no-cache"
        return response


@dataclass(frozen=True)
class WebUi:
    """The web renderer's build folder, which may not exist."""

    build: Path

    @property
    def built(self) -> bool:
        """Whether the folder holds a build (its `index.html`)."""
        return (self.build / "index.html").is_file()

    @property
    def missing(self) -> str:
        """The sentence for a server with no build: what is missing and how to build it."""
        return (
            f"the web UI is not built ({self.build / 'index.html'} is missing): "
            "run `make serve` with npm on PATH, or `npm ci && npm run build` in renderers/web"
        )

    def routes(self) -> list[BaseRoute]:
        """`/ui` (redirected to `/ui/`) and everything under it; mount before the SDK's."""
        redirect = Route(UI_PATH, _to_slash, methods=["GET", "HEAD"])
        if self.built:
            return [redirect, Mount(UI_PATH, app=_Build(directory=self.build, html=True))]
        sentence = self.missing

        async def not_built(request: Request) -> Response:
            return PlainTextResponse(sentence, status_code=404)

        return [
            Route(UI_PATH, not_built, methods=["GET", "HEAD"]),
            Route(UI_PATH + "/{path:path}", not_built, methods=["GET", "HEAD"]),
        ]


async def _to_slash(request: Request) -> Response:
    # Relative asset URLs in index.html resolve against /ui/, not /.
    return RedirectResponse(UI_PATH + "/", status_code=308)
