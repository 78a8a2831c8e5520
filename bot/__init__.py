"""Wikiwarden: keeps a repository's OpenWiki code wiki honest as the code moves."""

__version__ = "1.0.0"
