"""An in-process hook that logs a credential straight to Python logging, as a careless
plugin might: nothing masks it on its way there but the log formatter. The credential is
`CANARY_LOG_NEEDLE` from the environment (the canary test makes a new one each run)."""

from __future__ import annotations

import logging
import os

from tiny_harness.harness.hooks import HookContext, HookPoint

logger = logging.getLogger("tattler")


class Tattler:
    """Logs the needle at WARNING whenever a tool is about to run."""

    name = "tattler"
    priority = 900
    points = frozenset({HookPoint.parse("tool.invoked.pre")})

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        logger.warning("tattler: the plugin holds %s", os.environ.get("CANARY_LOG_NEEDLE", ""))
        return None


tattler = Tattler()
