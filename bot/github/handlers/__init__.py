"""Webhook routes: one table per feature, combined here. Handlers only turn a parsed payload into jobs."""

from __future__ import annotations

from ..payloads import Envelope, PayloadError, parse_payload
from . import checks, installation, pull_request, push
from .context import WebhookContext
from .routing import Route, Routes

routes = Routes(push.routes, pull_request.routes, checks.routes, installation.routes)

__all__ = ["Envelope", "PayloadError", "Route", "Routes", "WebhookContext", "parse_payload", "routes"]
