"""`installation`: the App was installed or removed; a removed installation's token is dropped."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from gidgethub.routing import Router
from gidgethub.sansio import Event

if TYPE_CHECKING:
    from .context import WebhookContext

router = Router()
log = logging.getLogger(__name__)


@router.register("installation")
async def on_installation(event: Event, ctx: WebhookContext) -> None:
    installation = event.data["installation"]
    action = event.data.get("action")
    log.info("installation %s", action, extra={"installation": installation["id"], "delivery": ctx.delivery})
    if action in ("deleted", "suspend"):
        ctx.forget_installation(int(installation["id"]))
