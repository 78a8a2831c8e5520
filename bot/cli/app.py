"""The App's commands: `wikiwarden serve` (the webhook server), `worker` (the Redis queue's jobs), and `manifest`
(app.yml for GitHub's manifest flow)."""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources
from typing import TYPE_CHECKING

from ..extras import missing_extra
from .common import EXIT_OK, UsageError

if TYPE_CHECKING:
    from ..settings import Settings


def run(args: argparse.Namespace) -> int:
    return {"serve": serve, "worker": worker, "manifest": manifest}[args.command](args)


# The web process's informational lines (one a delivery) are written together within this time: formatted one by
# one among a burst's deliveries in flight they were a quarter of what a delivery cost it.
LOG_BATCH_SECONDS = 1.0


def serve(args: argparse.Namespace) -> int:
    # Imported here so `wikiwarden check` (a pre-commit hook) does not pay for the web stack at start-up.
    try:
        from aiohttp import web  # noqa: PLC0415

        from ..web import create_app, server_options  # noqa: PLC0415
    except ModuleNotFoundError as exc:
        raise UsageError(missing_extra(exc, "app", "the GitHub App")) from exc

    settings = app_settings(batch_seconds=LOG_BATCH_SECONDS)
    web.run_app(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        print=None,
        shutdown_timeout=settings.shutdown_grace_seconds,
        access_log=None,
        **server_options(settings),
    )
    return EXIT_OK


def app_settings(batch_seconds: float = 0) -> Settings:
    """The App's settings from the environment, and logging set up by them (JSON, secrets scrubbed; informational
    lines written together within `batch_seconds`, see `bot.logs.Batched`)."""
    try:
        from ..logs import configure_logging  # noqa: PLC0415
    except ModuleNotFoundError as exc:
        raise UsageError(missing_extra(exc, "app", "the GitHub App")) from exc
    from ..settings import SettingsError, load_settings  # noqa: PLC0415

    try:
        settings = load_settings()
    except SettingsError as exc:  # every problem at once, one line each: one run tells the operator all of them
        raise UsageError(*exc.problems) from exc
    configure_logging(settings.log_format, settings.log_level, settings.secret_values(), batch_seconds=batch_seconds)
    return settings


def worker(args: argparse.Namespace) -> int:
    try:
        from ..worker import main  # noqa: PLC0415
    except ModuleNotFoundError as exc:
        raise UsageError(missing_extra(exc, "app", "the GitHub App's worker")) from exc

    settings = app_settings()
    if settings.queue_backend != "redis":
        raise UsageError("wikiwarden worker runs jobs from Redis: set WIKIWARDEN_QUEUE_BACKEND=redis (and _REDIS_URL)")
    return main(settings)


def manifest(args: argparse.Namespace) -> int:
    from ..okf.yaml12 import load_yaml  # noqa: PLC0415 - only this command needs YAML

    # Package data (bot/app.yml), read the same from a checkout, a wheel or a zip: never from beside the source tree.
    manifest = load_yaml(resources.files("bot").joinpath("app.yml").read_text(encoding="utf-8"))
    if not args.webhook_url.startswith("https://"):
        raise UsageError("--webhook-url must be an https:// URL GitHub can reach")
    manifest["hook_attributes"]["url"] = args.webhook_url
    if args.name:
        manifest["name"] = args.name
    if args.redirect_url:
        manifest["redirect_url"] = args.redirect_url
    sys.stdout.write(json.dumps(manifest, indent=2) + "\n")
    return EXIT_OK
