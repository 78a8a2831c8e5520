"""A code block copied from the source, through the App: a push changing the function it copies fails the check
run naming the block, and the fix pull request (no model) carries the block rewritten from the new code."""

from __future__ import annotations

import pytest
from apptools import deliver, push_payload, queue_of, runs_of, start_app
from fakegithub import FakeGitHub

from bot.claims.sidecar import Claim, Sidecar, page_version, parse_sidecar, render_sidecar
from bot.claims.snippet import parse_snippet
from bot.ground.snippets import SnippetIndex, bind
from bot.okf.frontmatter import Page

FIX_BRANCH = "refs/heads/wikiwarden/fix/main"
RETRY = b'''import time


def retry(call, attempts=3, delay=0.5):
    """Call `call` until it succeeds."""
    for attempt in range(attempts):
        try:
            return call()
        except OSError:
            time.sleep(delay * (attempt + 1))
    raise RuntimeError("gave up")
'''
PAGE = """# Retrying

```python
def retry(call, attempts=3, delay=0.5):
    \"\"\"Call `call` until it succeeds.\"\"\"
    for attempt in range(attempts):
```
"""


@pytest.fixture
def fake(fake_github: FakeGitHub) -> FakeGitHub:
    fake_github.add_installation(77, "acme")
    return fake_github


async def test_a_stale_copied_block_is_named_by_the_check_and_rewritten_by_the_fix_pull_request(
    aiohttp_client, fake: FakeGitHub
) -> None:
    repo = fake.create_repo("acme", "docs", 77)
    (statement,) = bind("docs/retry.md", PAGE, None, SnippetIndex({"src/retry.py": RETRY})).statements
    sidecar = Sidecar(
        page_version(PAGE.encode()), (Claim("claim_" + "a" * 32, statement.statement, statement.evidence),)
    )
    base = repo.commit(
        {
            ".github/wikiwarden.yml": "wiki_dir: docs\nauto_fix: true\n",
            "src/retry.py": RETRY,
            "docs/retry.md": PAGE,
            "docs/.claims/retry.json": render_sidecar(sidecar),
        },
        message="docs copying a function",
    )
    changed = RETRY.replace(b"attempts=3, delay=0.5", b"attempts=5, delay=1.0")
    head = repo.commit({"src/retry.py": changed}, message="retry longer")
    app = await start_app(aiohttp_client, fake)
    await deliver(app, "push", push_payload(repo, before=base, after=head), secret=fake.webhook_secret)
    await queue_of(app).wait_idle()

    [run] = runs_of(repo, head)
    assert run["output"]["title"] == "1 stale · this change made claims stale"
    messages = [a["message"] for a in run["annotations"]]
    assert any("The code block at docs/retry.md:4 no longer matches src/retry.py" in m for m in messages), messages

    [pull] = [p for p in repo.pulls if p["head"]["ref"] == "wikiwarden/fix/main"]
    fixed = repo.files_at(repo.refs[FIX_BRANCH])
    body = Page.parse(fixed["docs/retry.md"].decode()).body
    assert "```python\ndef retry(call, attempts=5, delay=1.0):\n" in body
    (claim,) = parse_sidecar(fixed["docs/.claims/retry.json"], "retry.json").claims
    assert parse_snippet(claim.statement) is not None
    assert claim.evidence[0].resource == "repo://src/retry.py#L4-L6"
    assert "rewritten from the lines of the source it copies" in pull["body"]
