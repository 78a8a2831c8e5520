"""`installation`: the App was installed or removed; a removed installation's token is dropped."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..payloads import InstallationEvent
from .routing import Routes

if TYPE_CHECKING:
    from .context import WebhookContext

routes = Routes()
log = logging.getLogger(__name__)


@routes.register("installation", model=InstallationEvent)
async def on_installation(event: InstallationEvent, ctx: WebhookContext) -> None:
    installation = event.installation.id
    log.info("installation %s", event.action, extra={"installation": installation, "delivery": ctx.delivery})
    if event.action in ("deleted", "suspend"):
        ctx.forget_installation(installation)
