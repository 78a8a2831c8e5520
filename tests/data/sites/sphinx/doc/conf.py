"""Sphinx's settings for Acme's docs (read by Wikiwarden with ast, never run by it)."""

import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "src")))

project = "Acme"
extensions = ["sphinx.ext.autodoc"]
root_doc = "index"
exclude_patterns = ["_build", "includes/*"]
html_theme = "alabaster"
