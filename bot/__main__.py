"""`python -m bot` runs the `wikiwarden` command."""

from .cli import run

run()
