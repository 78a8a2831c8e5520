"""A repository's `.github/wikiwarden.yml` end to end, as a hostile repository would write it: a config that cannot
be read fails the check run saying why and is not tried again, and no config can raise the App's own limits."""

from __future__ import annotations

import oneconfig
import pytest
from apptools import deliver, grounded, push_payload, queue_of, runs_of, start_app
from fakegithub import FakeGitHub

CODE = {"src/values.py": "".join(f"VALUE_{n} = {n}\n" for n in range(5))}
CLAIMS = {"values.md": [(f"value {n} is {n}", [f"repo://src/values.py#L{n + 1}"]) for n in range(5)]}


async def check_push(aiohttp_client, fake: FakeGitHub, files: dict[str, str], change: dict[str, str], **settings):
    """Commit `files` (the code, its wiki and a config), then `change`, push it and return the check run."""
    repo = fake.create_repo("acme", "widgets", 77)
    base = repo.commit(files, message="init")
    head = repo.commit(change, message="change")
    app = await start_app(aiohttp_client, fake, **settings)
    await deliver(app, "push", push_payload(repo, before=base, after=head), secret=fake.webhook_secret)
    queue = queue_of(app)
    await queue.wait_idle()
    [run] = runs_of(repo, head)
    return run, queue


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ("limits: " + "[" * 20_000 + "]" * 20_000, "collections are nested more than 32 deep"),
        ("conclusion: failure\nlimits:\n  max_annotations: " + "9" * 5_000, "an integer has more digits"),
        ("model: " + "x" * 70_000, "the file may hold at most 65,536"),
    ],
)
async def test_a_config_that_cannot_be_read_fails_the_run_once_saying_why(
    aiohttp_client, fake: FakeGitHub, config: str, problem: str
) -> None:
    files = {**grounded(CODE, CLAIMS), ".github/wikiwarden.yml": config}
    run, queue = await check_push(aiohttp_client, fake, files, {"src/values.py": "VALUE_0 = 1\n"})
    assert run["conclusion"] == "failure"
    assert run["output"]["title"] == ".github/wikiwarden.yml is not valid"
    assert problem in run["output"]["summary"] and "\n" not in run["output"]["summary"]
    assert (queue.completed, queue.failed) == (1, 0)  # reported, not retried


async def test_a_config_that_is_a_symlink_is_not_followed(aiohttp_client, fake: FakeGitHub) -> None:
    repo = fake.create_repo("acme", "linked", 77)
    base = repo.commit(grounded(CODE, CLAIMS), symlinks={".github/wikiwarden.yml": "../src/values.py"}, message="i")
    head = repo.commit({"src/values.py": "VALUE_0 = 1\n"}, message="change")
    app = await start_app(aiohttp_client, fake)
    await deliver(app, "push", push_payload(repo, before=base, after=head), secret=fake.webhook_secret)
    await queue_of(app).wait_idle()
    [run] = runs_of(repo, head)
    assert run["output"]["title"] == ".github/wikiwarden.yml is not valid"
    assert "not a regular file" in run["output"]["summary"]


async def test_a_repository_cannot_raise_the_file_size_limit(aiohttp_client, fake: FakeGitHub) -> None:
    big = "".join(f"VALUE_{n} = {n}\n" for n in range(5)) + "# padding\n" * 300  # about 3 KB
    files = {
        **grounded({"src/values.py": big}, CLAIMS),
        ".github/wikiwarden.yml": "limits:\n  max_file_bytes: 100000000\n",
    }
    run, _ = await check_push(aiohttp_client, fake, files, {"src/values.py": big + "# more\n"}, max_file_bytes=1000)
    assert "larger than the 1000-byte limit" in run["output"]["summary"]


async def test_the_apps_annotation_limit_holds_whatever_the_repository_says(aiohttp_client, fake: FakeGitHub) -> None:
    changed = "".join(f"VALUE_{n} = {n + 1}\n" for n in range(5))
    files = {**grounded(CODE, CLAIMS), ".github/wikiwarden.yml": "limits:\n  max_annotations: 5000\n"}
    run, _ = await check_push(aiohttp_client, fake, files, {"src/values.py": changed}, max_annotations=2)
    assert len(run["annotations"]) == 2
    assert run["output"]["summary"].endswith("_3 more annotations were left out (limit 2)._\n")


async def test_one_config_file_the_app(aiohttp_client, fake: FakeGitHub) -> None:
    """tests/oneconfig.py: `wiki_dir: docs` and an exclude read at the pushed commit; the same answer as the
    command line, the pre-commit hook and the Action give from the same file."""
    run, _ = await check_push(
        aiohttp_client, fake, oneconfig.BEFORE, dict.fromkeys(oneconfig.DELETED)  # type: ignore[arg-type]
    )
    assert run["conclusion"] == "neutral"  # the file sets no conclusion: the App's default
    summary = run["output"]["summary"]
    assert run["output"]["title"].startswith("1 broken reference")
    for page, line, text in oneconfig.FAILING:
        assert f"- `{page}` line {line}: `{text}`: removed by this change" in summary
    assert "References to check, not failing (1)" in summary and "`typer-slim`" in summary
    assert "`docs/legacy/old.md` line" not in summary  # excluded: its references are not checked


async def test_an_ignore_file_over_the_limits_fails_the_run_once_saying_why(aiohttp_client, fake: FakeGitHub) -> None:
    files = {**grounded(CODE, CLAIMS), ".openwikiignore": "x\n" * 1001}
    run, queue = await check_push(aiohttp_client, fake, files, {"src/values.py": "VALUE_0 = 1\n"})
    assert run["conclusion"] == "failure"
    assert run["output"]["title"] == "The ignore patterns cannot be used"
    assert "more than 1,000 patterns; there may be at most that many" in run["output"]["summary"]
    assert (queue.completed, queue.failed) == (1, 0)  # reported, not retried


async def test_too_many_exclude_patterns_fail_the_run_as_a_config_error(aiohttp_client, fake: FakeGitHub) -> None:
    many = ", ".join(f'"p{k}"' for k in range(1001))
    files = {**grounded(CODE, CLAIMS), ".github/wikiwarden.yml": f"references:\n  exclude: [{many}]\n"}
    run, queue = await check_push(aiohttp_client, fake, files, {"src/values.py": "VALUE_0 = 1\n"})
    assert run["output"]["title"] == ".github/wikiwarden.yml is not valid"
    assert "1,001 patterns; there may be at most 1,000" in run["output"]["summary"]
    assert (queue.completed, queue.failed) == (1, 0)
