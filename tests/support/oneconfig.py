"""One repository's `.github/wikiwarden.yml` and one change, shared by the tests of every face (the command
line, the pre-commit hook, the GitHub Action and the App): each must give the same answer from the same file.

The file names the docs folder (`docs`, not the default `openwiki`) and excludes `docs/legacy/**`. The change
deletes `src/util.py`, which `docs/guide.md` names as a path (certain: it fails the check), `docs/guide.md` names
the removed `typer-slim/` folder by its bare word too (a note), and `docs/legacy/old.md` names it as well
(excluded: never reported).
"""

from __future__ import annotations

CONFIG = 'wiki_dir: docs\nreferences:\n  exclude: ["docs/legacy/**"]\n'
UTIL = "def flatten(items):\n    out = []\n    for xs in items:\n        out.extend(xs)\n    return out\n"
BEFORE = {
    ".github/wikiwarden.yml": CONFIG,
    "src/util.py": UTIL,
    "src/main.py": "from util import flatten\n",
    "typer-slim/README.md": "# typer-slim\n",
    "docs/guide.md": "# Guide\n\nThe helpers live in `src/util.py`; install `typer-slim` too.\n",
    "docs/legacy/old.md": "# Old\n\nSee `src/util.py`.\n",
}
DELETED = ("src/util.py", "typer-slim/README.md")  # the change
# (page, line, text, attention) of every broken reference the change makes, as every face must report it
EXPECTED = [("docs/guide.md", 3, "src/util.py", True), ("docs/guide.md", 3, "typer-slim", False)]
FAILING = [(page, line, text) for page, line, text, attention in EXPECTED if attention]
