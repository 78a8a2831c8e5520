"""A repository's own settings, `.github/wikiwarden.yml`: one reader for every face (the command line, the
pre-commit hook, the GitHub Action and the App), over any `Source`, validated strictly (`config_file`): an
invalid file is an error saying exactly what is wrong, and nothing runs with it.

The file is untrusted input: its size is capped from the listing before it is read, it is parsed through the
capped YAML loader (off the event loop, where there is one), and every way it can fail is a ConfigError. A
repository without the file pays for neither pydantic nor YAML (a pre-commit hook runs at every commit). The
command line's flags override the file; the App's own limits bound it (`RepoConfig.bounded_by`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..claims.options import DEFAULT_MAX_FILE_BYTES, SweepOptions
from ..claims.pages import CONFIG_PATH, DEFAULT_WIKI_DIR
from ..claims.snapshot import Kind, Snapshot
from .loop import off_the_loop, run_inline

if TYPE_CHECKING:
    from ..settings import Settings
    from ..source import Source
    from ..source.git import GitRepository
    from .config_file import RepoConfig

@dataclass(frozen=True)
class Overrides:
    """What a command line says over the file (None: the file's setting, else the default)."""

    wiki_dir: str | None = None
    max_file_bytes: int | None = None
    baseline: str | None = None
    use_baseline: bool = True  # False: no baseline, whatever the file says (one is being written)


@dataclass(frozen=True)
class Config:
    """A repository's settings as the use cases read them: the file's (None without a file: the defaults) under
    the command line's overrides."""

    file: RepoConfig | None = None
    overrides: Overrides = Overrides()

    @property
    def wiki_dir(self) -> str:
        if self.overrides.wiki_dir is not None:
            return self.overrides.wiki_dir
        return self.file.wiki_dir if self.file is not None else DEFAULT_WIKI_DIR

    @property
    def max_file_bytes(self) -> int:
        if self.overrides.max_file_bytes is not None:
            return self.overrides.max_file_bytes
        return self.file.limits.max_file_bytes if self.file is not None else DEFAULT_MAX_FILE_BYTES

    @property
    def exclude(self) -> Sequence[str]:
        return self.file.references.exclude if self.file is not None else ()

    @property
    def history(self) -> Sequence[str]:
        return self.file.references.history if self.file is not None else ()

    @property
    def baseline(self) -> str | None:
        if not self.overrides.use_baseline:
            return None
        if self.overrides.baseline is not None:
            return self.overrides.baseline
        return self.file.baseline if self.file is not None else None

    def sweep_options(self, recheck_all: bool = False) -> SweepOptions:
        return SweepOptions(wiki_dir=self.wiki_dir, max_file_bytes=self.max_file_bytes, recheck_all=recheck_all)

    def repo_config(self) -> RepoConfig:
        """The whole file's settings (the defaults without one) with the overrides applied: what the App and the
        Action read beyond the check's own (the conclusion, the fix, grounding)."""
        from .config_file import RepoConfig  # noqa: PLC0415 - pydantic only where the whole model is wanted

        model = self.file if self.file is not None else RepoConfig()
        update: dict[str, object] = {}
        if self.overrides.wiki_dir is not None:
            update["wiki_dir"] = self.overrides.wiki_dir
        if self.overrides.max_file_bytes is not None:
            update["limits"] = model.limits.model_copy(update={"max_file_bytes": self.overrides.max_file_bytes})
        if self.overrides.baseline is not None:
            update["baseline"] = self.overrides.baseline
        return model.model_copy(update=update) if update else model


async def read_config(source: Source, head: Snapshot, overrides: Overrides | None = None) -> Config:
    """The settings at `head` (the commit, index or working tree being checked): its `.github/wikiwarden.yml`
    (the defaults without one) under the command line's `overrides`; ConfigError when the file cannot be used.
    Too large a file, a symlink or a folder is refused from the listing, before anything is read."""
    overrides = overrides or Overrides()
    entry = head.entry(CONFIG_PATH)
    if entry is None:
        return Config(None, overrides)
    # pydantic and YAML only when there is a file
    from .config_file import MAX_CONFIG_BYTES, ConfigError, parse_repo_config  # noqa: PLC0415

    if entry.kind is not Kind.FILE:
        raise ConfigError(f"{CONFIG_PATH}: not a regular file (a symlink, a folder or a submodule)")
    if entry.size is not None and entry.size > MAX_CONFIG_BYTES:
        raise ConfigError(f"{CONFIG_PATH}: {entry.size:,} bytes; the file may hold at most {MAX_CONFIG_BYTES:,}")
    await source.fetch(head, [CONFIG_PATH])
    data = head.read(CONFIG_PATH)
    return Config(await off_the_loop(lambda: parse_repo_config(data)), overrides)


async def read_repo_config(source: Source, head: Snapshot, settings: Settings) -> RepoConfig:
    """The App's read: the file at the commit being checked (the defaults without one), within the App's limits."""
    return (await read_config(source, head)).repo_config().bounded_by(settings)


def read_local_config(repo: GitRepository, overrides: Overrides | None = None) -> Config:
    """`read_config` of a local repository's working tree, from synchronous code (the command line), with the
    baseline it names read as the check reads it (`read_baseline`): every command refuses a baseline that cannot
    be used alike (BaselineError), whether it uses it or not."""
    from ..source.git import LocalSource  # noqa: PLC0415

    source, worktree = LocalSource(repo), repo.worktree()
    config = run_inline(read_config(source, worktree, overrides))
    if config.baseline is not None:
        from .baseline import read_baseline  # noqa: PLC0415 - only when a baseline is named

        run_inline(read_baseline(source, worktree, config.baseline))
    return config
