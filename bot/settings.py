"""Configuration of the App process, read from the environment (`WIKIWARDEN_*`) by pydantic-settings.

Missing or invalid values stop start-up with a message naming the variable. Secrets are `SecretStr`, so
they never show up in a log line or a repr.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, EnvSettingsSource, NoDecode, SettingsConfigDict

ENV_PREFIX = "WIKIWARDEN_"


class SettingsError(ValueError):
    """The configuration cannot be used: `problems` names every offending variable, one problem a line."""

    def __init__(self, *problems: str) -> None:
        super().__init__("invalid configuration:\n  " + "\n  ".join(problems))
        self.problems = problems


class ModelSettings(BaseSettings):
    """The fixing agent's model: any OpenAI-compatible server. Enough for `wikiwarden fix` on its own."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore", frozen=True)

    openai_base_url: str | None = Field(None, description="OpenAI-compatible API, e.g. http://localhost:8000/v1")
    openai_api_key: SecretStr | None = Field(None, description="the model server's API key (a local server needs none)")
    model: str | None = Field(
        None, description="model name; without it (or `none`) the fix and grounding do only deterministic work"
    )
    model_timeout_seconds: float = Field(120, gt=0, description="time one model call may take")
    model_max_retries: int = Field(2, ge=0, description="retries of a model call after a 429 or a 5xx")
    tokens_per_run: int = Field(200_000, gt=0, description="model tokens one fix may spend")
    tokens_per_day: int = Field(2_000_000, gt=0, description="model tokens one repository may spend a day")

    @field_validator("model")
    @classmethod
    def _no_model(cls, value: str | None) -> str | None:
        return chosen_model(value)  # `none` is no model, never a model's name to call


class Settings(ModelSettings):
    """Everything `wikiwarden serve` needs."""

    # The GitHub App
    app_id: int = Field(gt=0, description="the App's id (shown on its settings page)")
    app_slug: str | None = Field(None, description="the App's slug; looked up with GET /app when not set")
    private_key: SecretStr | None = Field(None, description="the App's private key (PEM text)")
    private_key_path: Path | None = Field(None, description="a file holding the App's private key")
    webhook_secret: SecretStr = Field(min_length=16, description="the webhook secret (16 characters or more)")
    github_api_url: str = Field("https://api.github.com", description="GitHub's REST API (GitHub Enterprise, tests)")
    github_graphql_url: str | None = Field(None, description="GitHub's GraphQL API (default: <api url>/graphql)")

    # The web process
    # A server inside a container listens on every interface.
    host: str = Field("0.0.0.0", description="where `wikiwarden serve` listens")  # noqa: S104
    port: int = Field(8080, gt=0, lt=65536, description="`wikiwarden serve`'s port: POST /webhook, /healthz, /metrics")
    max_body_bytes: int = Field(26 * 1024 * 1024, gt=0, description="webhook body limit (GitHub sends up to 25 MB)")
    body_memory_bytes: int = Field(
        64 * 1024 * 1024,
        gt=0,
        description="webhook bodies read at once, before their signature is checked (a quarter kept for small ones); "
        "a request beyond it gets a 503 with Retry-After",
    )
    body_timeout_seconds: float = Field(10, gt=0, description="time a webhook body has to arrive after its headers")
    header_timeout_seconds: float = Field(
        10, gt=0, description="time a connection has to send a request's headers (and an idle one stays open)"
    )

    # Work
    workers: int = Field(4, gt=0, description="jobs one process runs at once (in-process or `wikiwarden worker`)")
    queue_backend: Literal["memory", "redis"] = Field(
        "memory", description="memory: jobs run inside `serve`; redis: `serve` enqueues, `wikiwarden worker` runs"
    )
    redis_url: SecretStr = Field(
        SecretStr("redis://localhost:6379/0"), description="the Redis queue (its URL may hold a password)"
    )
    job_timeout_seconds: float = Field(600, gt=0, description="a job running longer is killed, its run timed_out")
    job_max_tries: int = Field(3, gt=0, description="tries of a failing job before it ends as failed")
    job_retry_base_seconds: float = Field(5.0, ge=0, description="wait before the second try; doubles each try")
    shutdown_grace_seconds: float = Field(30, ge=0, description="on SIGTERM, time for running jobs to finish")
    worker_port: int = Field(8081, gt=0, lt=65536, description="`wikiwarden worker`'s /healthz and /metrics")

    # Logs
    log_format: Literal["json", "text"] = Field("json", description="json: one object per line, for log collectors")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field("INFO", description="the least severe lines logged")

    # The models a repository may choose (`model:` in its config); WIKIWARDEN_MODEL, the default, always is one
    models: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="more models a repository may choose with `model:` (comma-separated names)"
    )

    # GitHub etiquette
    max_retries: int = Field(5, ge=0, description="retries of a GitHub request after 5xx or rate limits")
    retry_base_seconds: float = Field(1.0, ge=0, description="first backoff delay; doubles each retry")
    max_wait_seconds: float = Field(900, ge=0, description="longest wait for a rate limit before giving up")
    mutation_spacing_seconds: float = Field(1.0, ge=0, description="pause between writes to one installation")

    # Limits
    max_file_bytes: int = Field(1 << 20, gt=0, description="evidence files larger than this are errors")
    blob_cache_bytes: int = Field(256 << 20, gt=0, description="file contents cached by blob sha")
    max_annotations: int = Field(500, ge=0, le=5000, description="annotations per check run")
    max_claims_per_fix: int = Field(50, gt=0, description="claims the agent decides in one fix; the rest wait")
    max_pages_per_ground: int = Field(20, gt=0, description="pages the agent grounds in one run; the rest wait")

    @field_validator("github_api_url")
    @classmethod
    def _strip_slash(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http(s) URL")
        return value.rstrip("/")

    @field_validator("models", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        if isinstance(value, str):  # from the environment: `gpt-4.1-mini, gpt-4.1`
            value = value.split(",")
        if isinstance(value, (list, tuple)):  # `none` offers no model
            return tuple(name.strip() for name in value if isinstance(name, str) and chosen_model(name))
        return value

    @model_validator(mode="after")
    def _one_key(self) -> Settings:
        if (self.private_key is None) == (self.private_key_path is None):
            raise ValueError(ONE_KEY)
        return self

    @model_validator(mode="after")
    def _room_for_the_largest_body(self) -> Settings:
        large = self.body_memory_bytes - self.body_memory_bytes // 4  # a quarter is kept for small bodies
        if large < self.max_body_bytes:
            least = -(-self.max_body_bytes * 4 // 3)
            raise ValueError(
                f"WIKIWARDEN_BODY_MEMORY_BYTES must be at least {least:,} (four thirds of WIKIWARDEN_MAX_BODY_BYTES: "
                "a quarter is kept for small bodies), or no body of the largest size could be read"
            )
        return self

    @property
    def offered_models(self) -> tuple[str, ...]:
        """The models this App lets a repository use: its default (WIKIWARDEN_MODEL), then WIKIWARDEN_MODELS. None
        without either: a repository's `model:` never turns a model on by itself."""
        return tuple(dict.fromkeys(((self.model,) if self.model else ()) + self.models))

    @property
    def graphql_url(self) -> str:
        return self.github_graphql_url or f"{self.github_api_url}/graphql"

    def secret_values(self) -> list[str]:
        """Every secret this process holds, for the log scrubber (the Redis URL's password included)."""
        values = [self.webhook_secret.get_secret_value()]
        if self.openai_api_key is not None:
            values.append(self.openai_api_key.get_secret_value())
        redis = urlsplit(self.redis_url.get_secret_value())
        if redis.password:
            values.append(redis.password)
        with contextlib.suppress(SettingsError):  # an unreadable key file stops start-up anyway
            values.append(self.private_key_pem())
        return values

    def private_key_pem(self) -> str:
        """The private key's PEM text, read from the file when a path was given."""
        if self.private_key is not None:
            pem = self.private_key.get_secret_value()
        else:
            assert self.private_key_path is not None
            try:
                pem = self.private_key_path.read_text()
            except OSError as exc:
                raise SettingsError(_unreadable_key(self.private_key_path, exc)) from exc
        if "PRIVATE KEY-----" not in pem:
            raise SettingsError(_NOT_PEM)
        return pem


ONE_KEY = f"{ENV_PREFIX}PRIVATE_KEY, {ENV_PREFIX}PRIVATE_KEY_PATH: set exactly one (the key's text, or a file of it)"
_NOT_PEM = f"{ENV_PREFIX}PRIVATE_KEY: not a PEM private key"


def _unreadable_key(path: Path, exc: OSError) -> str:
    return f"{ENV_PREFIX}PRIVATE_KEY_PATH: cannot read {path}: {exc.strerror or exc}"


def load_settings(**overrides: object) -> Settings:
    """Settings from the environment (and `overrides`), or one SettingsError naming every bad variable at once: the
    fields' own problems, and the private key's (none or both given, a file that cannot be read, text that is not
    PEM) even when other fields failed, when pydantic stops before the checks across fields."""
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = [_in_words(error) for error in exc.errors()]
        raw = {**EnvSettingsSource(Settings)(), **overrides}
        for problem in _key_problems(raw.get("private_key"), raw.get("private_key_path")):
            if not any(problem in known for known in problems):
                problems.append(problem)
        raise SettingsError(*problems) from None
    settings.private_key_pem()  # fail at start-up, not on the first delivery
    return settings


NO_MODEL = "none"  # the model's name that says no model, wherever a model is named: WIKIWARDEN_MODEL, --model


def chosen_model(name: str | None) -> str | None:
    """A model's name as a setting, a flag or an input gives it, or None for no model: unset, blank, or `none`
    (any case), which every face reads alike (`WIKIWARDEN_MODEL=none` as `--model none`)."""
    if name is None or not name.strip() or name.strip().lower() == NO_MODEL:
        return None
    return name


def _in_words(error: ErrorDetails) -> str:
    if not error["loc"]:  # a check across fields (a model validator): its message says which variables
        return str(error["msg"]).removeprefix("Value error, ")
    field = ".".join(str(part) for part in error["loc"])
    return f"{ENV_PREFIX}{field.upper()}: {error['msg']}"


def _key_problems(key: object, path: object) -> list[str]:
    """The private key's problems from the raw values, checked the way `Settings` and `private_key_pem` check them."""
    if (key is None) == (path is None):
        return [ONE_KEY]
    if key is not None:
        text = key.get_secret_value() if isinstance(key, SecretStr) else str(key)
        return [] if "PRIVATE KEY-----" in text else [_NOT_PEM]
    file = Path(str(path))
    try:
        text = file.read_text()
    except OSError as exc:
        return [_unreadable_key(file, exc)]
    except ValueError:  # not UTF-8
        return [_NOT_PEM]
    return [] if "PRIVATE KEY-----" in text else [_NOT_PEM]
