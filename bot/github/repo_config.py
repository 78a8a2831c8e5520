"""A repository's own settings, `.github/wikiwarden.yml`, validated strictly: an invalid file is reported on
the check run with exactly what is wrong, and nothing else runs until it is fixed.

The file is untrusted input: its size is capped before it is fetched, it is parsed off the event loop through
the capped YAML loader, and every way it can fail is a ConfigError (reported, never retried). Its `limits` can
only lower the App's own (`bounded_by`): a repository cannot buy itself bigger files or more tokens.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..claims.pages import DEFAULT_WIKI_DIR, normalize_wiki_dir
from ..claims.snapshot import Kind
from ..okf.yaml12 import YAMLError, load_yaml, yaml_problem
from ..settings import Settings

if TYPE_CHECKING:  # the GitHub Action reads the file from its checkout, without the App's extra
    from ..source.github import GitHubSnapshot, GitHubSource

CONFIG_PATH = ".github/wikiwarden.yml"
MAX_CONFIG_BYTES = 64 * 1024  # the file holds a dozen settings


class ConfigError(ValueError):
    """The repository's config file cannot be used; the message says where and why."""


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_file_bytes: int = Field(1 << 20, gt=0, description="evidence files larger than this are errors")
    max_annotations: int = Field(500, ge=0, le=5000, description="annotations on one check run")
    max_claims_per_fix: int = Field(50, gt=0, description="claims the agent handles in one fix")
    max_pages_per_ground: int = Field(20, gt=0, description="pages without claims the agent grounds in one run")
    tokens_per_run: int = Field(200_000, gt=0, description="model tokens one fix or grounding may spend")
    tokens_per_day: int = Field(2_000_000, gt=0, description="model tokens the repository may spend a day")


class RepoConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    wiki_dir: str = DEFAULT_WIKI_DIR
    conclusion: Literal["neutral", "failure", "action_required"] = Field(
        "neutral", description="the check run's conclusion when claims need attention"
    )
    auto_fix: bool = Field(False, description="open a fix pull request after each push to the default branch")
    fix_pull_requests: bool = Field(True, description="offer the Fix wiki button on pull requests")
    ground: Literal["off", "button", "auto"] = Field(
        "button",
        description="pages without claims: off, the Ground wiki button, or auto (a grounding pull request after "
        "each push to the default branch that leaves pages without claims)",
    )
    model: str | None = Field(None, description="the model the fix and the grounding use (default: the App's)")
    limits: Limits = Limits()

    @field_validator("wiki_dir")
    @classmethod
    def _wiki_dir(cls, value: str) -> str:
        return normalize_wiki_dir(value)

    def bounded_by(self, settings: Settings) -> RepoConfig:
        """This config with every limit no higher than the App's own."""
        own = self.limits
        limits = Limits(
            max_file_bytes=min(own.max_file_bytes, settings.max_file_bytes),
            max_annotations=min(own.max_annotations, settings.max_annotations),
            max_claims_per_fix=min(own.max_claims_per_fix, settings.max_claims_per_fix),
            max_pages_per_ground=min(own.max_pages_per_ground, settings.max_pages_per_ground),
            tokens_per_run=min(own.tokens_per_run, settings.tokens_per_run),
            tokens_per_day=min(own.tokens_per_day, settings.tokens_per_day),
        )
        return self.model_copy(update={"limits": limits})


def parse_repo_config(data: bytes | None) -> RepoConfig:
    """The config in `data` (None or empty: the defaults); ConfigError naming the file, field and problem."""
    if not data or not data.strip():
        return RepoConfig()
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{CONFIG_PATH}: {len(data):,} bytes; the file may hold at most {MAX_CONFIG_BYTES:,}")
    try:
        raw = load_yaml(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{CONFIG_PATH}: not UTF-8 ({exc.reason})") from exc
    except YAMLError as exc:
        raise ConfigError(f"{CONFIG_PATH}: invalid YAML: {yaml_problem(exc)}") from None
    if raw is None:
        return RepoConfig()
    if not isinstance(raw, dict):
        raise ConfigError(f"{CONFIG_PATH}: must be a mapping of settings, not {type(raw).__name__}")
    try:
        return RepoConfig.model_validate(raw)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"])
            problems.append(f"`{where}`: {error['msg']}" if where else error["msg"])
        raise ConfigError(f"{CONFIG_PATH}: " + "; ".join(problems)) from None


async def read_repo_config(source: GitHubSource, head: GitHubSnapshot, settings: Settings) -> RepoConfig:
    """The config at the commit being checked (the defaults when it has none), within the App's limits;
    ConfigError when it cannot be used. Too large a file is refused from the tree listing, before any fetch."""
    entry = head.tree.get(CONFIG_PATH)
    if entry is None:
        return RepoConfig().bounded_by(settings)
    if entry.kind is not Kind.FILE:
        raise ConfigError(f"{CONFIG_PATH}: not a regular file (a symlink or a submodule)")
    if entry.size is not None and entry.size > MAX_CONFIG_BYTES:
        raise ConfigError(f"{CONFIG_PATH}: {entry.size:,} bytes; the file may hold at most {MAX_CONFIG_BYTES:,}")
    await source.fetch(head, [CONFIG_PATH])
    config = await asyncio.to_thread(parse_repo_config, head.read(CONFIG_PATH))
    return config.bounded_by(settings)
