"""The builder."""


def build(name: str) -> str:
    """Build `name` and say what was built."""
    return f"built {name}"
