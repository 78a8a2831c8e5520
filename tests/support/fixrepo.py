"""A small repository whose retry code changes under a grounded wiki, and a model answering about it: the fix's
end-to-end tests (the App's and the Action's) share it."""

from __future__ import annotations

import re
from typing import Any

from fakeopenai import Reply

RETRY = "ATTEMPTS = 3\n\n\ndef backoff(n):\n    return 0.1 * n\n"
RETRY_NOW = "ATTEMPTS = 5\n\n\ndef backoff(n):\n    return 0.1 * 2 ** n\n"
POOL = "WORKERS = 4\n"
RETRY_PAGE = (
    "---\ntype: Concept\ntitle: Retries\n---\n\n# Retries\n\n"
    "A failing task is tried 3 times. Retries wait 0.1 s, 0.2 s, 0.3 s: the wait grows linearly.\n"
)
POOL_PAGE = "---\ntype: Concept\ntitle: Pool\n---\n\n# Pool\n\nThe pool runs four workers.\n"
CLAIMS = {
    "retry.md": [
        ("A failing task is tried 3 times.", ["repo://src/retry.py#L1"]),
        ("The wait grows linearly.", ["repo://src/retry.py#L4-L5"]),
    ],
    "pool.md": [("The pool runs four workers.", ["repo://src/pool.py#L1"])],
}
GOOD = {
    "A failing task is tried 3 times.": {
        "action": "update",
        "statement": "A failing task is tried 5 times.",
        "edits": [("tried 3 times", "tried 5 times")],
    },
    "The wait grows linearly.": {
        "action": "update",
        "statement": "The wait doubles after each retry.",
        "edits": [("Retries wait 0.1 s, 0.2 s, 0.3 s: the wait grows linearly.", "The wait doubles after each retry.")],
    },
}

GOOD_WITH_POOL = {
    **GOOD,
    "The pool runs four workers.": {
        "action": "update",
        "statement": "The pool runs eight workers.",
        "edits": [("The pool runs four workers.", "The pool runs eight workers.")],
    },
}


def model_answer(body: dict[str, Any], plan: dict[str, dict[str, Any]]) -> Reply:
    """Answer a page prompt the way `plan` (statement → decision) says, for whatever claims it lists."""
    prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
    page = re.search(r"^Page: (\S+)$", prompt, re.M)[1]
    claims, edits = [], []
    for claim_id, statement in re.findall(
        r"^claim (claim_[0-9a-f]{32}):\n<untrusted>\n(.*)\n</untrusted>$", prompt, re.M
    ):
        decision = plan[statement]
        claims.append(
            {
                "id": claim_id,
                "action": decision["action"],
                "statement": decision.get("statement"),
                "evidence": decision.get("evidence"),
                "reason": decision.get("reason", "the code says so"),
            }
        )
        for search, replace in decision.get("edits", []):
            edits.append({"file": decision.get("file", page), "search": search, "replace": replace})
    return Reply.json({"claims": claims, "edits": edits})
