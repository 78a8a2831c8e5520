"""`python -m bot.cli` runs the `wikiwarden` command, as `python -m bot` does."""

from . import run

run()
