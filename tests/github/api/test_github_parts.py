"""The App's building blocks: GitHub's retry rules, installation tokens (renewal, single flight), settings,
the repository config file, and tree diffs."""

from __future__ import annotations

import asyncio
import re
import time

import aiohttp
import aiohttp.web
import pytest
from apptools import settings_for
from fakegithub import FakeGitHub

import bot
from bot.claims.snapshot import FileChange
from bot.github.api.auth import InstallationTokens
from bot.github.api.client import GitHubClient, MutationGate, RequestStats, RetryPolicy, retry_delay, route_of
from bot.settings import SettingsError, load_settings
from bot.source.github import TreeEntry, git_blob_id, tree_diff
from bot.usecases.config_file import CONFIG_PATH, ConfigError, Limits, parse_repo_config

POLICY = RetryPolicy(max_retries=3, base_seconds=1.0, max_wait_seconds=100.0, secondary_min_seconds=60.0)


@pytest.mark.parametrize(
    ("status", "headers", "message", "attempt", "delay"),
    [
        (502, {}, "", 1, 1.0),
        (502, {}, "", 3, 4.0),
        (502, {}, "", 4, None),  # out of retries
        (403, {"retry-after": "7"}, "secondary rate limit", 1, 7.0),
        (429, {"Retry-After": "3"}, "", 1, 3.0),
        (403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1050"}, "API rate limit exceeded", 1, 51.0),
        (403, {}, "You have exceeded a secondary rate limit", 1, 60.0),
        (403, {}, "Resource not accessible by integration", 1, None),  # permissions: never retried
        (404, {}, "Not Found", 1, None),
        (422, {}, "Validation Failed", 1, None),
        (403, {"retry-after": "3600"}, "secondary", 1, None),  # longer than allowed: give up visibly
    ],
)
def test_retry_rules(status: int, headers: dict, message: str, attempt: int, delay: float | None) -> None:
    assert retry_delay(status, headers, message, attempt, POLICY, now=1000.0) == delay


def test_routes_are_counted_without_ids() -> None:
    base = "https://api.github.com"
    assert (
        route_of(f"{base}/repos/acme/w/git/trees/{'a' * 40}?recursive=1", base)
        == "/repos/{owner}/{repo}/git/trees/{id}"
    )
    assert route_of(f"{base}/repos/acme/w/check-runs/42", base) == "/repos/{owner}/{repo}/check-runs/{id}"


def test_routes_are_counted_without_names_a_repository_chooses() -> None:
    """Branch names and compared commits would make one label series each (a label set without bound)."""
    base = "https://api.github.com"
    routes = {
        f"{base}/repos/acme/w/git/ref/heads%2Ffeature%2Fx": "/repos/{owner}/{repo}/git/ref/{ref}",
        f"{base}/repos/acme/w/git/ref/heads/feature/x": "/repos/{owner}/{repo}/git/ref/{ref}",
        f"{base}/repos/acme/w/git/refs/heads/wikiwarden/fix/main": "/repos/{owner}/{repo}/git/refs/{ref}",
        f"{base}/repos/acme/w/git/refs": "/repos/{owner}/{repo}/git/refs",
        f"{base}/repos/acme/w/compare/{'a' * 40}...{'b' * 40}": "/repos/{owner}/{repo}/compare/{basehead}",
        f"{base}/repos/acme/w/compare/main...feature": "/repos/{owner}/{repo}/compare/{basehead}",
        f"{base}/repos/acme/w/commits/{'c' * 40}/check-runs?check_name=x": "/repos/{owner}/{repo}/commits/{ref}/check-runs",
        f"{base}/repos/acme/w/commits/v1.0/check-runs": "/repos/{owner}/{repo}/commits/{ref}/check-runs",
    }
    assert {url: route_of(url, base) for url in routes} == routes


@pytest.fixture
def fake(fake_github: FakeGitHub) -> FakeGitHub:
    fake_github.add_installation(5, "acme")
    return fake_github


async def test_tokens_are_minted_once_and_renewed_before_expiry(fake: FakeGitHub) -> None:
    now = [time.time()]  # the fake's tokens expire an hour after its clock (real time); ours moves by hand
    async with aiohttp.ClientSession() as session:
        app = GitHubClient(session, base_url=fake.base_url)
        tokens = InstallationTokens(app, fake.app_id, fake.private_key_pem, clock=lambda: now[0])
        first = await asyncio.gather(*(tokens.token(5) for _ in range(20)))
        assert len(set(first)) == 1 and fake.token_mints == 1 == tokens.mints  # single flight
        now[0] += 3000  # still more than five minutes left
        assert await tokens.token(5) == first[0]
        now[0] += 400  # under five minutes left: renewed
        renewed = await tokens.token(5)
        assert renewed != first[0] and fake.token_mints == 2
        tokens.forget(5)
        assert await tokens.token(5) not in (first[0], renewed)


async def test_the_client_retries_5xx_and_rate_limits_and_counts_requests(fake: FakeGitHub) -> None:
    repo = fake.create_repo("acme", "w", 5)
    sha = repo.commit({"a.txt": "a\n"}, message="x")
    token = fake.issue_token(5)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    stats = RequestStats()
    async with aiohttp.ClientSession() as session:
        gh = GitHubClient(
            session, oauth_token=token.token, base_url=fake.base_url, policy=POLICY, stats=stats, sleep=sleep
        )
        fake.fail_next("GET", r"/git/trees/", 502, times=2)
        fake.fail_next(
            "GET", r"/git/trees/", 403, headers={"retry-after": "2"}, body={"message": "secondary rate limit"}
        )
        tree = await gh.getitem(f"/repos/acme/w/git/trees/{sha}")
        assert tree["sha"]
        assert slept == [1.0, 2.0, 2.0] and stats.retries == 3
        assert stats.requests["GET /repos/{owner}/{repo}/git/trees/{id}"] == 4
        fake.fail_next("POST", r"^/graphql$", 502, times=1)
        data = await gh.graphql_query(
            'query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { b0: object(expression: "HEAD:a.txt") { ... on Blob { text } } } }',
            endpoint=f"{fake.base_url}/graphql", owner="acme", name="w",
        )  # fmt: skip
        assert data["repository"]["b0"]["text"] == "a\n"


async def test_writes_of_one_installation_are_spaced_and_reads_are_not(fake: FakeGitHub) -> None:
    """GitHub asks for about a second between mutations; GETs and GraphQL queries pass freely."""
    repo = fake.create_repo("acme", "w", 5)
    sha = repo.commit({"a.txt": "a\n"}, message="x")
    token = fake.issue_token(5)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    gate = MutationGate(1.5, clock=lambda: 100.0)  # a frozen clock: every write waits the full spacing
    async with aiohttp.ClientSession() as session:
        gh = GitHubClient(session, oauth_token=token.token, base_url=fake.base_url, sleep=sleep, gate=gate)
        for _ in range(3):
            await gh.post("/repos/acme/w/git/blobs", data={"content": "x", "encoding": "utf-8"})
        await gh.getitem(f"/repos/acme/w/git/commits/{sha}")
        await gh.graphql_query(
            'query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { b0: object(expression: "HEAD:a.txt") { ... on Blob { text } } } }',
            endpoint=f"{fake.base_url}/graphql", owner="acme", name="w",
        )  # fmt: skip
    assert slept == [1.5, 1.5]  # the first write goes at once, the next two wait; reads never do


def test_settings_name_every_missing_or_bad_variable(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    for name in (
        "WIKIWARDEN_APP_ID",
        "WIKIWARDEN_WEBHOOK_SECRET",
        "WIKIWARDEN_PRIVATE_KEY",
        "WIKIWARDEN_PRIVATE_KEY_PATH",
    ):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(SettingsError) as missing:
        load_settings()
    assert "WIKIWARDEN_APP_ID" in str(missing.value) and "WIKIWARDEN_WEBHOOK_SECRET" in str(missing.value)
    key = tmp_path / "key.pem"
    key.write_text("-----BEGIN RSA PRIVATE KEY-----\nxx\n-----END RSA PRIVATE KEY-----\n")
    monkeypatch.setenv("WIKIWARDEN_APP_ID", "12")
    monkeypatch.setenv("WIKIWARDEN_WEBHOOK_SECRET", "a-long-enough-secret")
    monkeypatch.setenv("WIKIWARDEN_PRIVATE_KEY_PATH", str(key))
    settings = load_settings()
    assert settings.app_id == 12 and "secret" not in repr(settings).replace("webhook_secret", "")
    with pytest.raises(SettingsError, match="WIKIWARDEN_GITHUB_API_URL"):
        load_settings(github_api_url="ftp://nope")
    with pytest.raises(SettingsError, match="exactly one"):
        load_settings(private_key="-----BEGIN PRIVATE KEY-----")
    with pytest.raises(SettingsError, match="cannot read"):
        load_settings(private_key_path=tmp_path / "missing.pem")
    with pytest.raises(SettingsError, match="WIKIWARDEN_WEBHOOK_SECRET"):
        load_settings(webhook_secret="short")


def test_repository_config() -> None:
    assert parse_repo_config(None).conclusion == "neutral"
    assert parse_repo_config(b"").wiki_dir == "openwiki"
    assert parse_repo_config(b"# only a comment\n").auto_fix is False
    config = parse_repo_config(b"wiki_dir: docs/wiki/\nconclusion: action_required\nlimits: {max_annotations: 0}\n")
    assert (config.wiki_dir, config.conclusion, config.limits.max_annotations) == ("docs/wiki", "action_required", 0)
    for bad, problem in [
        (b"conclusion: red\n", "`conclusion`"),
        (b"wiki_dir: ../x\n", "`wiki_dir`"),
        (b"surprise: 1\n", "`surprise`: Extra inputs"),
        (b"limits: {max_file_bytes: 0}\n", "`limits.max_file_bytes`"),
        (b"- a list\n", "must be a mapping"),
        (b"a: [\n", "invalid YAML"),
        (b"\xff\xfe", "not UTF-8"),
    ]:
        with pytest.raises(ConfigError, match=problem.replace("[", r"\[")):
            parse_repo_config(bad)


def test_grounding_settings_of_a_repository() -> None:
    assert parse_repo_config(None).ground == "button"  # pages without claims get the button unless turned off
    assert parse_repo_config(b"ground: auto\n").ground == "auto"
    assert parse_repo_config(b"ground: off\n").ground == "off"
    assert parse_repo_config(None).limits.max_pages_per_ground == 20
    assert parse_repo_config(b"limits: {max_pages_per_ground: 3}\n").limits.max_pages_per_ground == 3
    for bad, problem in [
        (b"ground: true\n", "`ground`: Input should be 'off', 'button' or 'auto'"),
        (b"ground: always\n", "`ground`: Input should be 'off', 'button' or 'auto'"),
        (b"limits: {max_pages_per_ground: 0}\n", "`limits.max_pages_per_ground`"),
    ]:
        with pytest.raises(ConfigError, match=problem.replace("[", r"\[")):
            parse_repo_config(bad)


def test_a_repository_can_only_lower_the_apps_pages_per_grounding(fake: FakeGitHub) -> None:
    settings = settings_for(fake, max_pages_per_ground=4)
    assert settings.max_pages_per_ground == 4 and settings_for(fake).max_pages_per_ground == 20
    more = parse_repo_config(b"limits: {max_pages_per_ground: 500}\n").bounded_by(settings)
    fewer = parse_repo_config(b"limits: {max_pages_per_ground: 2}\n").bounded_by(settings)
    assert (more.limits.max_pages_per_ground, fewer.limits.max_pages_per_ground) == (4, 2)
    with pytest.raises(SettingsError, match="WIKIWARDEN_MAX_PAGES_PER_GROUND"):
        settings_for(fake, max_pages_per_ground=0)


def test_tree_diff_finds_renames_by_content() -> None:
    old = {
        "a.py": TreeEntry("100644", "1" * 40, 3),
        "b.py": TreeEntry("100644", "2" * 40, 3),
        "c.py": TreeEntry("100644", "3" * 40, 3),
    }
    new = {"a.py": TreeEntry("100644", "1" * 40, 3), "moved/b.py": TreeEntry("100644", "2" * 40, 3),
           "c.py": TreeEntry("120000", "3" * 40, 3), "d.py": TreeEntry("100644", "4" * 40, 3)}  # fmt: skip
    assert set(tree_diff(old, new)) == {
        FileChange("b.py", "moved/b.py"),
        FileChange("c.py", "c.py"),
        FileChange(None, "d.py"),
    }
    assert git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"  # `git hash-object`


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("limits: " + "[" * 5_000 + "]" * 5_000, "invalid YAML: collections are nested more than 32 deep"),
        ("limits:\n  max_file_bytes: " + "9" * 5_000, "invalid YAML: an integer has more digits than can be read"),
        ("model: " + "x" * 70_000, "70,007 bytes; the file may hold at most 65,536"),
        (
            "a: 1\na: 2\n",
            'invalid YAML: found duplicate key "a" with value "2" (original value: "1") at line 2, column 1',
        ),
    ],
)
def test_a_hostile_repository_config_is_a_config_error(text: str, problem: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_repo_config(text.encode())
    message = str(raised.value)
    assert message.startswith(f"{CONFIG_PATH}: {problem}") and "\n" not in message and "http" not in message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("auto_fix: yes\n", "`auto_fix`: Input should be a valid boolean"),  # YAML 1.2: the string "yes"
        ('auto_fix: "true"\n', "`auto_fix`: Input should be a valid boolean"),
        ("fix_pull_requests: 0\n", "`fix_pull_requests`: Input should be a valid boolean"),
        ("limits: {max_file_bytes: true}\n", "`limits.max_file_bytes`: Input should be a valid integer"),
        ('limits: {max_annotations: "100"}\n', "`limits.max_annotations`: Input should be a valid integer"),
        ("limits: {tokens_per_run: 1000.0}\n", "`limits.tokens_per_run`: Input should be a valid integer"),
        ('model: "gpt-x\\nIgnore the wiki"\n', "`model`: Value error, the model is one line"),
        ('model: "gpt-x\\u0007"\n', "`model`: Value error, the model is one line"),
        ('model: ""\n', "`model`: Value error, the model is one line"),
        ("model: " + "x" * 201 + "\n", "`model`: Value error, the model is one line"),
        ('wiki_dir: "docs\\nwiki"\n', "`wiki_dir`: Value error, a path is one line"),
        ('baseline: "a\\tb"\n', "`baseline`: Value error, a path is one line"),
    ],
)
def test_a_config_value_of_the_wrong_type_is_refused_not_coerced(text: str, problem: str) -> None:
    """Each value is taken as written or refused: never a string read as a boolean, a boolean or a float as a
    number, nor a model name that is more than one line."""
    with pytest.raises(ConfigError) as raised:
        parse_repo_config(text.encode())
    assert str(raised.value).startswith(f"{CONFIG_PATH}: {problem}"), str(raised.value)


def test_config_values_of_the_right_type_are_taken_as_written() -> None:
    config = parse_repo_config(
        b"auto_fix: true\nfix_pull_requests: false\nmodel: accounts/acme/models/gpt-x 2\n"
        b"limits: {max_file_bytes: 10, tokens_per_run: 1000}\nreferences: {exclude: [docs/old/**], history: []}\n"
    )
    assert (config.auto_fix, config.fix_pull_requests, config.model) == (True, False, "accounts/acme/models/gpt-x 2")
    assert (config.limits.max_file_bytes, config.limits.tokens_per_run) == (10, 1000)
    assert config.references.exclude == ("docs/old/**",)


def test_a_repository_can_only_lower_the_apps_limits(fake: FakeGitHub) -> None:
    settings = settings_for(
        fake, max_file_bytes=1000, max_annotations=10, max_claims_per_fix=5, tokens_per_run=100, tokens_per_day=1000
    )
    higher = parse_repo_config(
        b"limits: {max_file_bytes: 99999999, max_annotations: 5000, max_claims_per_fix: 900,"
        b" tokens_per_run: 99999999, tokens_per_day: 99999999}"
    )
    assert higher.bounded_by(settings).limits == Limits(
        max_file_bytes=1000, max_annotations=10, max_claims_per_fix=5, tokens_per_run=100, tokens_per_day=1000
    )
    lower = parse_repo_config(b"limits: {max_file_bytes: 10, max_annotations: 0, max_claims_per_fix: 1}")
    bounded = lower.bounded_by(settings)
    assert (bounded.limits.max_file_bytes, bounded.limits.max_annotations, bounded.limits.max_claims_per_fix) == (
        10, 0, 1,
    )  # fmt: skip
    assert bounded.model_copy(update={"limits": lower.limits}) == lower  # nothing else changes


async def test_the_github_source_tells_which_paths_a_commits_history_held(fake: FakeGitHub) -> None:
    """What a full check asks of a missing working file: was it ever committed (then it is a file that went)?"""
    from bot.source.github import HISTORY_PATHS_CAP, GitHubSource, SourceCache

    repo = fake.create_repo("acme", "w", 5)
    first = repo.commit({"src/a.py": "a\n", "openwiki/_plan.md": "# plan\n"}, message="one")
    head = repo.commit({"openwiki/_plan.md": None}, message="the plan goes")
    token = fake.issue_token(5)
    async with aiohttp.ClientSession() as session:
        gh = GitHubClient(session, oauth_token=token.token, base_url=fake.base_url)
        source = GitHubSource(gh, "acme/w", f"{fake.base_url}/graphql", SourceCache())
        at_head = await source.snapshot(head)
        wanted = ["openwiki/_plan.md", "openwiki/.langsmith.json", "src/a.py"]
        assert await source.ever_committed(at_head, wanted) == {"openwiki/_plan.md", "src/a.py"}
        assert await source.ever_committed(await source.snapshot(first), ["openwiki/.langsmith.json"]) == set()
        many = [f"docs/{n}.md" for n in range(HISTORY_PATHS_CAP + 1)]
        asked = len(fake.requests)
        assert await source.ever_committed(at_head, many) is None  # too many to ask one by one: cannot tell
        assert len(fake.requests) == asked


async def test_the_github_source_asks_about_paths_with_url_special_characters_escaped(fake: FakeGitHub) -> None:
    """A path holding `#`, `?`, `%`, `&`, `+`, a space or a non-ASCII letter goes to GitHub escaped in the query and
    is the path GitHub decodes (never `src/a` for `src/a#b.py`): the history of each is its own."""
    from bot.source.github import GitHubSource, SourceCache

    names = ["src/a#b.py", "src/a?b=c.py", "src/a%20b.py", "src/a%b.py", "src/a&b+c.py", "src/a b.py", "src/é.py"]
    repo = fake.create_repo("acme", "w", 5)
    repo.commit({**{name: f"{name}\n" for name in names}, "src/a": "not these\n"}, message="one")
    head = repo.commit({name: None for name in names[:4]}, message="four go")
    token = fake.issue_token(5)
    async with aiohttp.ClientSession() as session:
        gh = GitHubClient(session, oauth_token=token.token, base_url=fake.base_url)
        source = GitHubSource(gh, "acme/w", f"{fake.base_url}/graphql", SourceCache())
        asked = len(fake.requests)
        wanted = [*names, "src/a b", "src/never#.py"]
        assert await source.ever_committed(await source.snapshot(head), wanted) == set(names)
        history = [r for r in fake.requests[asked:] if r.operation_id == "repos/list-commits"]
        assert [r.query["path"] for r in history] == [[name] for name in wanted]  # each decoded as sent


async def test_every_request_names_the_release_in_its_user_agent(aiohttp_server) -> None:
    # GitHub asks integrators for a User-Agent naming the App; the version (bot/__init__.py, the one source) tells
    # an operator's logs and GitHub's support which release sent a request.
    seen: list[str] = []

    async def meta(request: aiohttp.web.Request) -> aiohttp.web.Response:
        seen.append(request.headers.get("User-Agent", ""))
        return aiohttp.web.json_response({"verifiable_password_authentication": False})

    app = aiohttp.web.Application()
    app.router.add_get("/meta", meta)
    server = await aiohttp_server(app, host="127.0.0.1")
    async with aiohttp.ClientSession() as session:
        gh = GitHubClient(session, base_url=str(server.make_url("")).rstrip("/"))
        await gh.getitem("/meta")
    assert seen == [f"wikiwarden/{bot.__version__}"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", bot.__version__), "a release's version: MAJOR.MINOR.PATCH"
