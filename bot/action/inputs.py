"""The action's inputs (`INPUT_*`, as `action.yml` maps them), read and checked, and the conclusion they choose."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..claims.pages import normalize_wiki_dir

GITHUB_ACTIONS_LOGIN = "github-actions[bot]"  # who commits and opens pull requests with the workflow's GITHUB_TOKEN
CONCLUSIONS = ("neutral", "failure", "action_required")  # RepoConfig.conclusion's values
DEFAULT_CONCLUSION = "failure"  # a step passes or fails: a check that never fails the job is easily missed


class ActionError(Exception):
    """The step cannot run as configured, or its event cannot be read: said in one line, exit status 2."""


# -- the inputs ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionInputs:
    """The action's inputs as `action.yml` passes them (`INPUT_*`); an empty value is an input left unset."""

    path: str = "."
    wiki_dir: str | None = None  # None: the config's `wiki_dir`, else openwiki
    conclusion: str | None = None  # None: the config's `conclusion` when it sets one, else DEFAULT_CONCLUSION
    fix: bool = False
    token: str | None = field(default=None, repr=False)
    bot_login: str = GITHUB_ACTIONS_LOGIN
    model: str | None = None
    openai_base_url: str | None = None
    openai_api_key: str | None = field(default=None, repr=False)
    mutation_spacing_seconds: float = 1.0
    cache: bool = True  # the sweep's memory in the checkout's git directory (action.yml keeps it between runs)
    cache_key: str | None = field(default=None, repr=False)  # the secret that signs the memory (checked by the step)


def _flag(name: str, value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    raise ActionError(f"input {name} must be true or false, not {value.strip()[:40]!r}")


def read_inputs(env: Mapping[str, str]) -> ActionInputs:
    """The inputs from the environment, checked (ActionError naming the input that cannot be used); a model named
    `none` is no model, as WIKIWARDEN_MODEL and `--model` read it."""
    from ..settings import chosen_model  # noqa: PLC0415

    def given(name: str) -> str | None:
        value = env.get(f"INPUT_{name}", "").strip()
        return value or None

    conclusion = given("CONCLUSION")
    if conclusion is not None and conclusion not in CONCLUSIONS:
        raise ActionError(f"input conclusion must be one of {', '.join(CONCLUSIONS)}, not {conclusion[:40]!r}")
    wiki_dir = given("WIKI_DIR")
    if wiki_dir is not None:
        try:
            wiki_dir = normalize_wiki_dir(wiki_dir)
        except ValueError as exc:
            raise ActionError(f"input wiki-dir: {exc}") from None
    spacing = env.get("WIKIWARDEN_MUTATION_SPACING_SECONDS", "").strip() or "1.0"
    try:
        mutation_spacing = float(spacing)
    except ValueError:
        mutation_spacing = math.nan
    if not math.isfinite(mutation_spacing):
        raise ActionError("WIKIWARDEN_MUTATION_SPACING_SECONDS must be a number of seconds")
    return ActionInputs(
        path=given("PATH") or ".",
        wiki_dir=wiki_dir,
        conclusion=conclusion,
        fix=_flag("fix", given("FIX") or "false"),
        token=given("TOKEN"),
        bot_login=given("BOT_LOGIN") or GITHUB_ACTIONS_LOGIN,
        model=chosen_model(given("MODEL")),
        openai_base_url=given("OPENAI_BASE_URL"),
        openai_api_key=given("OPENAI_API_KEY"),
        mutation_spacing_seconds=max(mutation_spacing, 0.0),
        cache=_flag("cache", given("CACHE") or "true"),
        cache_key=given("CACHE_KEY"),
    )


def conclusion_for(inputs: ActionInputs, configured: str | None) -> str:
    """The input's conclusion, else the one `.github/wikiwarden.yml` sets (`configured`), else DEFAULT_CONCLUSION."""
    return inputs.conclusion or configured or DEFAULT_CONCLUSION
