"""The Action's cache can cost time, never change a verdict (issue 42). action.yml's memory step names the cache: with
`cache-key` a signed cache, restored from any ref; without it only this ref's own. Then the check step, with the
environment action.yml gives it, verifies every restored file: each of the review's forgeries (the verdict cache
given the new blob ids, the evidence index emptied, the readings emptied), left in the folder by an earlier step or
saved by a job of another ref, gives the step the outputs and exit status of `cache: false`. GitHub's cache is
played by `Caches`, which matches keys as actions/cache does (its docs, "Matching a cache key")."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from citools import parse_output_file
from conftest import GitRepo
from forgery import FILES, FORGERIES, RESOURCE, forge, head_blobs, second_commit, two_commits
from ruamel.yaml import YAML

from bot.cli import main

ACTION = YAML(typ="safe").load((Path(__file__).resolve().parents[2] / "action.yml").read_text())
STEPS = {s.get("id"): s for s in ACTION["runs"]["steps"]}
KEY = "0123456789abcdef" * 4
DEFAULT_REF, FEATURE_REF = "refs/heads/main", "refs/heads/feature"
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_TERM = re.compile(r"([a-z_]+(?:\.[A-Za-z0-9_-]+)+)(?: (==|!=) '([^']*)')?")


def evaluate(text: str, context: dict[str, Any]) -> str:
    """Actions' `${{ ... }}` for what action.yml uses here: a property (`a.b.c`, '' when missing) or a property
    compared with a string (`true`/`false`); any other expression fails the test."""

    def value(found: re.Match[str]) -> str:
        term = _TERM.fullmatch(found.group(1))
        assert term is not None, f"unsupported expression {found.group(1)!r}"
        current: Any = context
        for part in term[1].split("."):
            current = current.get(part, "") if isinstance(current, dict) else ""
        if term[2] is None:
            return str(current)
        return str((str(current) == term[3]) == (term[2] == "==")).lower()

    return _EXPRESSION.sub(value, text)


@dataclass
class Caches:
    """GitHub's cache of one repository: entries (ref, key, files) in the order saved. A run on `ref` restores from
    its own ref, then the default branch's: the exact key, else the newest entry whose key starts with each
    restore key in turn."""

    entries: list[tuple[str, str, dict[str, bytes]]] = field(default_factory=list)

    def save(self, ref: str, key: str, folder: Path) -> None:
        assert not any(r == ref and k == key for r, k, _ in self.entries), "a cache is saved once per key and ref"
        self.entries.append((ref, key, {p.name: p.read_bytes() for p in folder.iterdir()}))

    def restore(self, ref: str, key: str, restore_keys: list[str], folder: Path) -> str | None:
        for scope in dict.fromkeys((ref, DEFAULT_REF)):
            mine = [(k, files) for r, k, files in self.entries if r == scope]
            found = [(k, f) for k, f in mine if k == key]
            for prefix in restore_keys:
                found = found or [(k, f) for k, f in mine if k.startswith(prefix)][-1:]
            if found:
                if folder.exists():
                    shutil.rmtree(folder)
                folder.mkdir()
                for name, data in found[0][1].items():
                    (folder / name).write_bytes(data)
                return found[0][0]
        return None


@dataclass
class Run:
    status: int
    stdout: str
    outputs: dict[str, str]


class Workflow:
    """A repository's workflow running the Action: the memory step's script as action.yml has it, the cache's keys
    from its outputs, and the check step with the environment action.yml maps (`wikiwarden action` in this
    interpreter, as the install step's Python would run it)."""

    def __init__(self, repo: GitRepo, tmp_path: Path, caches: Caches) -> None:
        self.repo, self.tmp, self.caches = repo, tmp_path, caches
        self.folder = repo.root / ".git" / "wikiwarden"

    def _context(self, ref: str, sha: str, inputs: dict[str, str]) -> dict[str, Any]:
        given = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
        given.update(inputs)
        return {"inputs": given, "github": {"ref": ref, "sha": sha, "token": ""}, "runner": {"os": "Linux"}}

    def memory(self, ref: str, sha: str, inputs: dict[str, str]) -> dict[str, str]:
        """The memory step's outputs (the folder, the cache's key and restore keys)."""
        context, step = self._context(ref, sha, inputs), STEPS["memory"]
        script, output = self.tmp / "memory.sh", self.tmp / "memory-output"
        script.write_text(step["run"])
        output.write_text("")
        env = {
            "PATH": os.environ["PATH"], "GITHUB_WORKSPACE": str(self.repo.root), "GITHUB_OUTPUT": str(output),
            "GITHUB_REF": ref, "GITHUB_SHA": sha, "RUNNER_OS": "Linux", "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1", **{k: evaluate(v, context) for k, v in step.get("env", {}).items()},
        }  # fmt: skip
        subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], env=env, check=True)
        return parse_output_file(output.read_text())

    def _with(self, step: str, ref: str, sha: str, inputs: dict[str, str], memory: dict[str, str]) -> dict[str, str]:
        context = {**self._context(ref, sha, inputs), "steps": {"memory": {"outputs": memory}}}
        return {name: evaluate(str(value), context) for name, value in STEPS[step]["with"].items()}

    def restore(self, ref: str, sha: str, inputs: dict[str, str]) -> str | None:
        """The restore step: the key it restored, None for none."""
        given = self._with("restore", ref, sha, inputs, self.memory(ref, sha, inputs))
        restore_keys = [line for line in given.get("restore-keys", "").splitlines() if line.strip()]
        return self.caches.restore(ref, given["key"], restore_keys, self.folder)

    def save(self, ref: str, sha: str, inputs: dict[str, str]) -> None:
        """The save step, under the key the restore step would have looked for first."""
        self.caches.save(
            ref, self._with("restore", ref, sha, inputs, self.memory(ref, sha, inputs))["key"], self.folder
        )

    def check(self, event: str, payload: dict[str, Any], sha: str, ref: str, inputs: dict[str, str]) -> Run:
        context = self._context(ref, sha, inputs)
        event_path, output = self.tmp / "event.json", self.tmp / "output"
        event_path.write_text(json.dumps(payload))
        output.write_text("")
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("WIKIWARDEN_", "GITHUB_", "INPUT_"))},
            "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": str(event_path), "GITHUB_SHA": sha, "GITHUB_REF": ref,
            "GITHUB_REPOSITORY": "Codertocat/Hello-World", "GITHUB_WORKSPACE": str(self.repo.root),
            "GITHUB_OUTPUT": str(output), "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
            **{k: evaluate(v, context) for k, v in STEPS["check"]["env"].items() if k != "WIKIWARDEN_PYTHON"},
        }  # fmt: skip
        code = "import sys\nfrom bot.cli import main\nsys.exit(main(['action']))\n"
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=self.tmp, check=False
        )
        assert done.stderr == "", done.stderr
        return Run(done.returncode, done.stdout, parse_output_file(output.read_text()))


def _grounded(repo: GitRepo) -> str:
    two_commits(repo)
    assert main(["claim", "add", "--repo", str(repo.root), "a.md", "a returns 1.", RESOURCE]) == 0
    return repo.commit("ground")


def _event(forgery: str, base: str, head: str) -> tuple[str, dict[str, Any]]:
    """A push from `base` for the evidence index (a diff-aware check), else a run of the workflow by hand (a full
    check of GITHUB_SHA, which the verdict cache serves)."""
    if forgery == "index":
        from test_action import push  # GitHub's example push, as the Action's other tests use it

        return "push", push(created=False, before=base, after=head, ref=FEATURE_REF)
    return "workflow_dispatch", {"repository": {"id": 7}}


def _counts(run: Run) -> dict[str, str]:
    return {k: v for k, v in run.outputs.items() if k != "pull-request"}


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in list(os.environ):
        if name.startswith("WIKIWARDEN_"):
            monkeypatch.delenv(name)


# (cache-key, how the forger leaves the seal): a step without the key could recompute a plain digest, so without
# one the test is an edit (a file changed but not sealed again) or a seal under a key of the forger's
SAME_REF = [(None, "edited"), (None, "another key"), (KEY, "edited"), (KEY, "plain digest"), (KEY, "another key")]


@pytest.mark.parametrize(("key", "how"), SAME_REF)
@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_memory_an_earlier_step_forged_gives_the_step_of_cache_false(
    repo: GitRepo, tmp_path: Path, forgery: str, key: str | None, how: str
) -> None:
    flow = Workflow(repo, tmp_path, Caches())
    inputs = {"conclusion": "failure"} | ({"cache-key": key} if key else {})
    base = _grounded(repo)
    first = flow.check("workflow_dispatch", {"repository": {"id": 7}}, base, FEATURE_REF, inputs)
    assert first.status == 0 and first.outputs["claims"] == "1"  # the memory of commit one is kept
    head = (second_commit(repo, forgery), repo.git("rev-parse", "HEAD").strip())[1]
    event, payload = _event(forgery, base, head)
    expected = flow.check(event, payload, head, FEATURE_REF, inputs | {"cache": "false"})
    assert expected.status == 1
    forge(flow.folder, forgery, how, head_blobs(repo))
    run = flow.check(event, payload, head, FEATURE_REF, inputs)
    assert (run.status, _counts(run)) == (expected.status, _counts(expected))
    said = [line for line in run.stdout.splitlines() if line.startswith("::notice") and FILES[forgery] in line]
    assert len(said) == 1 and "not used, and replaced after this sweep" in said[0]


@pytest.mark.parametrize("key", [None, KEY])
@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_cache_a_job_of_another_ref_saved_gives_the_step_of_cache_false(
    repo: GitRepo, tmp_path: Path, forgery: str, key: str | None
) -> None:
    """A run on the default branch checks commit one and keeps its memory; a later step of that job (untrusted code,
    or a pull_request_target job) forges the folder, and the job saves it under the Action's own key. The feature
    branch's run restores a cache from its own ref and the default branch's: without a key, none of another ref's;
    with one, the signed cache, whose forged file does not verify."""
    caches = Caches()
    flow = Workflow(repo, tmp_path, caches)
    inputs = {"conclusion": "failure"} | ({"cache-key": key} if key else {})
    base = _grounded(repo)
    assert flow.restore(DEFAULT_REF, base, inputs) is None
    assert flow.check("workflow_dispatch", {"repository": {"id": 7}}, base, DEFAULT_REF, inputs).status == 0
    head = (second_commit(repo, forgery), repo.git("rev-parse", "HEAD").strip())[1]
    forge(flow.folder, forgery, "plain digest" if key else "edited", head_blobs(repo))
    flow.save(DEFAULT_REF, base, inputs)
    shutil.rmtree(flow.folder)  # the feature branch's runner starts empty
    event, payload = _event(forgery, base, head)
    expected = flow.check(event, payload, head, FEATURE_REF, inputs | {"cache": "false"})
    assert expected.status == 1 and not flow.folder.exists()
    restored = flow.restore(FEATURE_REF, head, inputs)
    assert (restored is not None) is (key is not None)  # a signed cache is any ref's; an unsigned one its own
    run = flow.check(event, payload, head, FEATURE_REF, inputs)
    assert (run.status, _counts(run)) == (expected.status, _counts(expected))
    if key is None:
        lines = run.stdout.splitlines()
        assert any(line.startswith("Wikiwarden cache: No cache-key: only a cache this branch") for line in lines)
    else:
        said = [line for line in run.stdout.splitlines() if line.startswith("::notice") and FILES[forgery] in line]
        assert len(said) == 1 and "is not signed with the cache key" in said[0]


def test_a_signed_cache_of_another_ref_is_used_and_an_unsigned_one_of_this_ref_too(
    repo: GitRepo, tmp_path: Path
) -> None:
    """What the cache is for: with the key, a feature branch's first run starts from the default branch's signed
    cache (nothing said: every file verifies); without it, a ref's second run from its own first run's."""
    caches = Caches()
    flow = Workflow(repo, tmp_path, caches)
    signed = {"cache-key": KEY}
    base = _grounded(repo)
    flow.check("workflow_dispatch", {"repository": {"id": 7}}, base, DEFAULT_REF, signed)
    flow.save(DEFAULT_REF, base, signed)
    shutil.rmtree(flow.folder)
    assert flow.restore(FEATURE_REF, base, signed) is not None
    run = flow.check("workflow_dispatch", {"repository": {"id": 7}}, base, FEATURE_REF, signed)
    assert run.status == 0 and "Wikiwarden cache" not in run.stdout
    shutil.rmtree(flow.folder)
    assert flow.restore(FEATURE_REF, base, {}) is None  # unsigned: the default branch's signed cache is not its
    flow.check("workflow_dispatch", {"repository": {"id": 7}}, base, FEATURE_REF, {})
    flow.save(FEATURE_REF, base, {})
    shutil.rmtree(flow.folder)
    assert flow.restore(FEATURE_REF, base, {}) is not None
    again = flow.check("workflow_dispatch", {"repository": {"id": 7}}, base, FEATURE_REF, {})
    assert again.status == 0 and "Wikiwarden cache: No cache-key" in again.stdout
    assert "::notice title=Wikiwarden cache::" not in again.stdout  # its own files all verify


def test_the_cache_key_reaches_the_check_only_and_names_a_cache_of_its_own(repo: GitRepo, tmp_path: Path) -> None:
    assert STEPS["check"]["env"]["INPUT_CACHE_KEY"] == "${{ inputs.cache-key }}"
    for step, spec in STEPS.items():  # the secret itself is in no other step, nor in any cache's name
        if step != "check":
            assert "inputs.cache-key }}" not in json.dumps(spec), step
    assert ACTION["inputs"]["cache-key"]["default"] == ""
    _grounded(repo)
    flow = Workflow(repo, tmp_path, Caches())
    sha = "c" * 40
    keys = {
        (ref, bool(key)): flow.memory(ref, sha, {"cache-key": key} if key else {})
        for ref in (DEFAULT_REF, FEATURE_REF, "refs/pull/7/merge")
        for key in ("", KEY)
    }
    for (_, signed), outputs in keys.items():
        prefix = f"wikiwarden-memory-v2-{'signed' if signed else 'plain'}-Linux-"
        own = outputs["key"].removesuffix(sha)
        assert outputs["key"].startswith(prefix) and own.endswith("-") and KEY not in outputs["key"]
        assert outputs["restore-keys"].splitlines() == ([own, prefix] if signed else [own])
    owns = {outputs["key"] for (_, signed), outputs in keys.items() if not signed}
    assert len(owns) == 3  # each ref a name of its own


@pytest.mark.parametrize("key", ["shortkey1", "x" * 31])
def test_a_cache_key_too_short_to_be_a_secret_fails_the_step_in_one_line(
    repo: GitRepo, tmp_path: Path, key: str
) -> None:
    base = _grounded(repo)
    run = Workflow(repo, tmp_path, Caches()).check("workflow_dispatch", {}, base, FEATURE_REF, {"cache-key": key})
    errors = [line for line in run.stdout.splitlines() if line.startswith("::error")]
    assert run.status == 2 and len(errors) == 1 and "input cache-key: the cache key is" in errors[0]
    assert key not in run.stdout  # the secret is never printed, even a bad one
    assert not (repo.root / ".git" / "wikiwarden").exists()
