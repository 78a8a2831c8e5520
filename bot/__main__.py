"""`python -m bot` runs the `wikiwarden` command."""

import sys

from .cli import main

sys.exit(main())
