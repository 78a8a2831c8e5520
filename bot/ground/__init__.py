"""Grounding, pure: the symbol index of a repository's code, the references a page makes to it, candidate
evidence for a page's statements, and grounding answers checked and turned into sidecars."""
