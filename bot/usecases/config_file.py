"""The schema of `.github/wikiwarden.yml` (pydantic models), its parser and its errors: imported only when a
repository has the file, so a check without one pays for neither pydantic nor YAML (`bot.usecases.config` reads
it)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)

from ..claims.ignore import MAX_PATTERN_CHARS, MAX_PATTERNS
from ..claims.options import DEFAULT_MAX_FILE_BYTES
from ..claims.pages import CONFIG_PATH, DEFAULT_WIKI_DIR, normalize_repo_path, normalize_wiki_dir
from ..okf.yaml12 import YAMLError, load_yaml, yaml_problem

if TYPE_CHECKING:
    from ..settings import Settings

MAX_CONFIG_BYTES = 64 * 1024  # the file holds a dozen settings
MAX_MODEL_CHARS = 200  # model names are a few dozen characters, a provider's path included
# Controls (C0, DEL, C1) and Unicode's line and paragraph separators: what would end or bend a line.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class ConfigError(ValueError):
    """The repository's config file cannot be used; the message says where and why."""


# Every value is taken as written or refused, never coerced: pydantic's lax mode would read `yes`, "true" or 1 as
# true and `true` or 1.0 as the number 1 (YAML 1.2 hands over `yes` as a string, `true` as a boolean). Strict types
# per field rather than a strict model: lists must still be read as the tuples the models keep.


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_file_bytes: StrictInt = Field(
        DEFAULT_MAX_FILE_BYTES, gt=0, description="evidence files larger than this are errors"
    )
    max_annotations: StrictInt = Field(500, ge=0, le=5000, description="annotations on one check run")
    max_claims_per_fix: StrictInt = Field(50, gt=0, description="claims the agent handles in one fix")
    max_pages_per_ground: StrictInt = Field(20, gt=0, description="pages without claims the agent grounds in one run")
    tokens_per_run: StrictInt = Field(200_000, gt=0, description="model tokens one fix or grounding may spend")
    tokens_per_day: StrictInt = Field(2_000_000, gt=0, description="model tokens the repository may spend a day")


class References(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    exclude: tuple[StrictStr, ...] = Field(
        (), description="pages whose references are never checked (gitignore-style patterns of repository paths)"
    )
    history: tuple[StrictStr, ...] = Field(
        (),
        description="more pages that are history (besides changelogs, release notes and news, known by name), whose "
        "references are never checked",
    )

    @field_validator("exclude", "history")
    @classmethod
    def _patterns(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if len(value) > MAX_PATTERNS:
            raise ValueError(f"{len(value):,} patterns; there may be at most {MAX_PATTERNS:,}")
        for pattern in value:
            if not pattern.strip() or "\n" in pattern or "\r" in pattern:
                raise ValueError("each pattern is one non-empty line")
            if len(pattern) > MAX_PATTERN_CHARS:
                raise ValueError(
                    f"a pattern of {len(pattern):,} characters; a pattern may have at most {MAX_PATTERN_CHARS:,}"
                )
        return value


@dataclass(frozen=True)
class ModelRefusal:
    """A `model:` the App does not offer: the name asked for, the model used instead (the App's default, or none),
    and the models the App offers."""

    asked: str
    used: str | None
    offered: tuple[str, ...]


class RepoConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Set by `bounded_by` (never from the file): the `model:` the App refused, to say so on the check run.
    _model_refusal: ModelRefusal | None = PrivateAttr(None)

    wiki_dir: StrictStr = Field(DEFAULT_WIKI_DIR, description="the wiki (or docs) folder")
    conclusion: Literal["neutral", "failure", "action_required"] = Field(
        "neutral", description="the check run's conclusion when claims need attention"
    )
    auto_fix: StrictBool = Field(False, description="open a fix pull request after each push to the default branch")
    fix_pull_requests: StrictBool = Field(True, description="offer the Fix wiki button on pull requests")
    ground: Literal["off", "button", "auto"] = Field(
        "button",
        description="pages without claims: off, the Ground wiki button, or auto (a grounding pull request after "
        "each push to the default branch that leaves pages without claims)",
    )
    model: StrictStr | None = Field(
        None, description="the model the fix and the grounding use: one the App offers (default: the App's)"
    )
    limits: Limits = Limits()
    references: References = References()
    baseline: StrictStr | None = Field(
        None, description="a file of broken references that no longer fail the check (`check --write-baseline`)"
    )

    @field_validator("wiki_dir")
    @classmethod
    def _wiki_dir(cls, value: str) -> str:
        return normalize_wiki_dir(_one_line_path(value))

    @field_validator("baseline")
    @classmethod
    def _baseline(cls, value: str | None) -> str | None:
        return None if value is None else normalize_repo_path(_one_line_path(value))

    @field_validator("model")
    @classmethod
    def _model(cls, value: str | None) -> str | None:
        # The name goes to the model's API and into the fix's pull request: one line, as a model's name is.
        if value is not None and (not value.strip() or len(value) > MAX_MODEL_CHARS or _CONTROL.search(value)):
            raise ValueError(f"the model is one line of 1 to {MAX_MODEL_CHARS} characters, without control characters")
        return value

    @property
    def model_refusal(self) -> ModelRefusal | None:
        """The `model:` of the file that the App does not offer (replaced by its default, or none), if any."""
        return self._model_refusal

    def bounded_by(self, settings: Settings) -> RepoConfig:
        """This config with every limit no higher than the App's own, and a model only among those the App offers
        (`WIKIWARDEN_MODEL`, `WIKIWARDEN_MODELS`): another is replaced by the App's default, or by none, and
        `model_refusal` says so. A repository's `model:` never turns a model on where the App configured none."""
        own = self.limits
        limits = Limits(
            max_file_bytes=min(own.max_file_bytes, settings.max_file_bytes),
            max_annotations=min(own.max_annotations, settings.max_annotations),
            max_claims_per_fix=min(own.max_claims_per_fix, settings.max_claims_per_fix),
            max_pages_per_ground=min(own.max_pages_per_ground, settings.max_pages_per_ground),
            tokens_per_run=min(own.tokens_per_run, settings.tokens_per_run),
            tokens_per_day=min(own.tokens_per_day, settings.tokens_per_day),
        )
        update: dict[str, object] = {"limits": limits}
        refusal = None
        if self.model is not None and self.model not in settings.offered_models:
            refusal = ModelRefusal(self.model, settings.model, settings.offered_models)
            update["model"] = None  # the App's default, if it has one
        bounded = self.model_copy(update=update)
        bounded._model_refusal = refusal
        return bounded


def _one_line_path(value: str) -> str:
    if _CONTROL.search(value):
        raise ValueError("a path is one line, without control characters")
    return value


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
