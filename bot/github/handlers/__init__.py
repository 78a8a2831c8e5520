"""Webhook routes: one gidgethub Router per feature, combined here. Handlers only turn an event into jobs."""

from __future__ import annotations

from gidgethub.routing import Router

from . import checks, installation, pull_request, push
from .context import WebhookContext

router = Router(push.router, pull_request.router, checks.router, installation.router)

__all__ = ["WebhookContext", "router"]
