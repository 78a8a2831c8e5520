"""Code blocks copied from the source, through the command line on a small real repository: `ground` binds a
block copied from a function (no model); the function changes and `check --base` fails naming the block;
`fix --base` rewrites the block to the new code (no model); `check` passes; the function moved to another file is
followed, the page left as it is."""

from __future__ import annotations

import pytest
from clitools import use_fake
from conftest import GitRepo
from fakeopenai import FakeOpenAI
from groundtools import answer, claim

from bot.claims.sidecar import parse_sidecar
from bot.claims.snippet import parse_snippet
from bot.okf.frontmatter import Page

pytestmark = pytest.mark.usefixtures("isolated_cli")

RETRY_PY = '''"""Retries."""

import time


def retry(call, attempts=3, delay=0.5):
    """Call `call` until it succeeds, at most `attempts` times."""
    for attempt in range(attempts):
        try:
            return call()
        except OSError:
            time.sleep(delay * (attempt + 1))
    raise RuntimeError("gave up")
'''
RETRY_MD = """# Retrying

Every call to the network goes through `retry`:

```python
def retry(call, attempts=3, delay=0.5):
    \"\"\"Call `call` until it succeeds, at most `attempts` times.\"\"\"
    for attempt in range(attempts):
        ...
    raise RuntimeError("gave up")
```

The delay grows with each attempt.
"""


@pytest.fixture
def docs(repo: GitRepo) -> GitRepo:
    repo.write("src/net/retry.py", RETRY_PY)
    repo.write("openwiki/retry.md", RETRY_MD)
    repo.commit("a page copying a function")
    return repo


def snippet_claims(repo: GitRepo) -> list:
    sidecar = parse_sidecar(repo.read("openwiki/.claims/retry.json"), "retry.json")
    return [c for c in sidecar.claims if parse_snippet(c.statement)]


def block_line(repo: GitRepo) -> int:
    """The page line of the block's first line of code."""
    lines = repo.read("openwiki/retry.md").decode().split("\n")
    return next(n for n, line in enumerate(lines, 1) if line.startswith("def retry("))


def test_a_copied_block_is_bound_checked_rewritten_and_followed(docs: GitRepo, cli) -> None:
    bound = cli("ground", "--repo", docs.root)
    assert "bound 1 code block copied from the source on 1 page" in bound.out, bound.out
    (claim,) = snippet_claims(docs)
    line = block_line(docs)  # below the front matter grounding wrote (its OKF `sources`)
    assert claim.statement == (
        f"Snippet: the code block at line {line} of this page is a copy of src/net/retry.py lines 6-8, 13-13."
    )
    assert [r.resource for r in claim.evidence] == ["repo://src/net/retry.py#L6-L8", "repo://src/net/retry.py#L13-L13"]
    assert "```python\ndef retry(call, attempts=3, delay=0.5):" in docs.read("openwiki/retry.md").decode()
    docs.commit("bound")
    assert cli("check", "--repo", docs.root).code == 0

    # The function changes: its signature and its error.
    changed = RETRY_PY.replace("attempts=3, delay=0.5", "attempts=5, delay=1.0").replace(
        '"gave up"', '"gave up retrying"'
    )
    docs.write("src/net/retry.py", changed)
    docs.commit("retry longer")
    failing = cli("check", "--repo", docs.root, "--base", "HEAD~1")
    assert failing.code == 1, failing.out
    assert f"The code block at openwiki/retry.md:{line} no longer matches src/net/retry.py" in failing.out
    assert "-def retry(call, attempts=3, delay=0.5):" in failing.out  # with the diff
    assert "+def retry(call, attempts=5, delay=1.0):" in failing.out

    fixed = cli("fix", "--repo", docs.root, "--base", "HEAD~1")
    assert fixed.code == 0, fixed.out + fixed.err
    body = Page.parse(docs.read("openwiki/retry.md").decode()).body
    assert "```python\ndef retry(call, attempts=5, delay=1.0):\n" in body
    assert '    for attempt in range(attempts):\n        ...\n    raise RuntimeError("gave up retrying")\n```' in body
    assert "The delay grows with each attempt." in body  # the prose is left as it was
    (claim,) = snippet_claims(docs)
    assert [r.resource for r in claim.evidence] == ["repo://src/net/retry.py#L6-L8", "repo://src/net/retry.py#L13-L13"]
    assert claim.statement.startswith(f"Snippet: the code block at line {block_line(docs)} of this page")
    docs.commit("fixed")
    passing = cli("check", "--repo", docs.root)
    assert passing.code == 0, passing.out

    # The function moves to another file: the claim follows it, the page's text left as it is (only its OKF
    # `sources`, which name the files its claims cite, follow too).
    page = Page.parse(docs.read("openwiki/retry.md").decode()).body
    docs.remove("src/net/retry.py")
    docs.write("src/net/policy/retrying.py", "# Moved here.\n\n" + changed)
    docs.commit("move retry")
    moved = cli("check", "--repo", docs.root, "--base", "HEAD~1")
    assert moved.code == 0, moved.out
    followed = cli("fix", "--repo", docs.root, "--base", "HEAD~1")
    assert followed.code == 0, followed.out
    assert Page.parse(docs.read("openwiki/retry.md").decode()).body == page
    assert "resource: repo://src/net/policy/retrying.py" in docs.read("openwiki/retry.md").decode()
    (claim,) = snippet_claims(docs)
    assert [r.resource for r in claim.evidence] == [
        "repo://src/net/policy/retrying.py#L8-L10",
        "repo://src/net/policy/retrying.py#L15-L15",
    ]
    assert claim.statement.endswith("is a copy of src/net/policy/retrying.py lines 8-10, 15-15.")
    assert cli("check", "--repo", docs.root).code == 0


def test_a_block_whose_source_is_gone_is_listed_for_a_person(docs: GitRepo, cli) -> None:
    assert "bound 1 code block" in cli("ground", "--repo", docs.root).out  # exit 1: its prose is left to ground
    docs.commit("bound")
    line = block_line(docs)
    docs.write("src/net/retry.py", '"""Retries."""\n\nimport time\n')
    docs.commit("retry goes")
    failing = cli("check", "--repo", docs.root, "--base", "HEAD~1")
    assert failing.code == 1
    assert f"The code block at openwiki/retry.md:{line} copies lines gone from src/net/retry.py" in failing.out
    page = Page.parse(docs.read("openwiki/retry.md").decode()).body
    left = cli("fix", "--repo", docs.root, "--base", "HEAD~1")
    assert left.code == 1
    assert "no model is configured: a person must confirm, update or retract it" in left.out
    # Nothing to rewrite it from: the block is left as it is (the front matter's `verified` goes: a claim is open).
    assert Page.parse(docs.read("openwiki/retry.md").decode()).body == page


def test_ground_binds_copies_on_pages_that_have_claims_already_and_not_twice(docs: GitRepo, cli) -> None:
    assert "bound 1 code block" in cli("ground", "--repo", docs.root).out  # exit 1: its prose is left to ground
    docs.commit("bound")
    again = cli("ground", "--repo", docs.root)
    assert "bound" not in again.out and docs.git("status", "--porcelain") == ""
    docs.write(
        "openwiki/retry.md",
        docs.read("openwiki/retry.md").decode()
        + "\nIt gives up with:\n\n```python\n        except OSError:\n            time.sleep(delay * (attempt + 1))\n"
        + '    raise RuntimeError("gave up")\n```\n',
    )
    docs.commit("a second block")
    third = cli("ground", "--repo", docs.root)
    assert "bound 1 code block copied from the source on 1 page" in third.out, third.out
    assert [parse_snippet(c.statement).ranges for c in snippet_claims(docs)] == [((6, 8), (13, 13)), ((11, 13),)]


async def test_with_a_model_the_copies_are_bound_beside_the_prose_claims_and_the_page_stays_to_ground_until_then(
    docs: GitRepo, cli_in_thread, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "bound 1 code block" in (await cli_in_thread("ground", "--repo", docs.root)).out  # no model yet
    docs.commit("bound")
    use_fake(monkeypatch, fake_openai)
    prose = "The delay grows with each attempt."
    fake_openai.reply_json(answer(claim(prose, prose, "repo://src/net/retry.py#L12")))
    run = await cli_in_thread("ground", "--repo", docs.root)
    assert run.code == 0, run.out + run.err
    assert len(fake_openai.requests) == 1  # a page with copies alone is still a page to ground
    prompt = fake_openai.requests[0]["messages"][1]["content"]
    assert "Page: openwiki/retry.md" in prompt
    statements = [c.statement for c in parse_sidecar(docs.read("openwiki/.claims/retry.json"), "r.json").claims]
    assert statements[1:] == [prose] and parse_snippet(statements[0]) is not None
    assert parse_snippet(statements[0]).line == block_line(docs)  # the front matter grew: the line followed
