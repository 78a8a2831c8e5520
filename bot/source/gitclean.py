"""How git turns a working tree file into the blob it stores: its clean conversions, chosen by the attributes
`git check-attr` reports and by `core.autocrlf`, and the two built-in ones reproduced byte for byte from git's
`convert.c` (`convert_attrs`, `crlf_to_git`, `ident_to_git`): line endings (`text`, `eol`, `crlf`, `core.autocrlf`)
and `ident` (`$Id: <sha> $` collapsed to `$Id$`).

Two conversions are not reproduced: a filter driver (`filter=<name>`, git-lfs, git-crypt, nbstripout: a command
from the user's git config) and `working-tree-encoding`. A file they convert is read from git's index while git's
stat info says it is unmodified (the blob git stores, exactly); edited, its bytes as git would store them are not
known without running the driver, so `Conversion.unreproduced` says why, and the claims citing it are errors.
Wikiwarden runs no filter command: a check stays a reader (git-lfs's clean command, for one, writes the file into
`.git/lfs/objects`), and an edited file is one `git add` away from being checked (`wikiwarden check --staged`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import NamedTuple

ATTRIBUTES = ("crlf", "ident", "filter", "eol", "text", "working-tree-encoding")  # what convert_attrs asks about
UNSPECIFIED, SET, UNSET = "unspecified", "set", "unset"  # `git check-attr`'s words for a value that is no string

# What the clean direction does to line endings (git's eight `crlf_action`s, as `crlf_to_git` tells them apart):
KEEP = "keep"  # CRLF_BINARY: nothing
TEXT = "text"  # CRLF_TEXT*: every CRLF becomes LF
AUTO = "auto"  # CRLF_AUTO*: the same, unless the file looks binary or the index's version holds CRLF


class Driver(NamedTuple):
    """A `filter.<name>` of git's config: whether it names a command for the clean direction, and `required`."""

    runs: bool
    required: bool


class Settings(NamedTuple):
    """What git's config says about conversions: `core.autocrlf` ("true", "input" or "false") and the filter
    drivers by name."""

    autocrlf: str = "false"
    drivers: Mapping[str, Driver] = {}  # a NamedTuple's default, never mutated


class Conversion(NamedTuple):
    """The clean conversions git applies to one path."""

    eol: str = KEEP  # KEEP, TEXT or AUTO
    ident: bool = False
    unreproduced: str | None = None  # why the bytes git stores cannot be had without git (a driver, an encoding)

    @property
    def identity(self) -> bool:
        """Whether git stores the file's bytes as they are."""
        return self.eol == KEEP and not self.ident and self.unreproduced is None


NONE = Conversion()


def config_bool(value: str | None) -> bool:
    """git's `git_config_bool` on a value `git config` printed (a key without `=` has no value: true)."""
    lowered = (value or "").strip().lower()
    if lowered in ("true", "yes", "on", ""):
        return True
    if lowered in ("false", "no", "off"):
        return False
    try:
        return int(lowered, 0) != 0
    except ValueError:
        return True  # git would refuse the value; a driver that may be required is treated as one


def settings(entries: Iterable[tuple[str, str | None]]) -> Settings:
    """Settings from `git config --get-regexp` entries (key, value), in git's order: the last value wins."""
    autocrlf = "false"
    commands: dict[tuple[str, str], bool] = {}  # (driver, "clean" or "process") -> a command is set
    required: dict[str, bool] = {}
    for key, value in entries:
        section, _, rest = key.partition(".")
        if section.lower() == "core" and rest.lower() == "autocrlf":
            text = (value or "").strip().lower()
            autocrlf = "input" if text == "input" else ("true" if config_bool(value) else "false")
        elif section.lower() == "filter" and "." in rest:
            name, _, variable = rest.rpartition(".")
            variable = variable.lower()
            if variable in ("clean", "process"):
                commands[name, variable] = bool(value)  # an empty command runs nothing
            elif variable == "required":
                required[name] = config_bool(value)
    names = {name for name, _ in commands} | set(required)
    runs = {name for (name, _), command in commands.items() if command}
    drivers = {name: Driver(name in runs, required.get(name, False)) for name in names}
    return Settings(autocrlf, drivers)


def _crlf_action(value: str) -> str | None:
    """`git_path_check_crlf`: TEXT, BINARY, TEXT_INPUT, AUTO, or None (undefined)."""
    if value == SET:
        return "text"
    if value == UNSET:
        return "binary"
    if value == "input":
        return "text-input"
    if value == "auto":
        return "auto"
    return None


def conversion(attributes: Mapping[str, str], config: Settings) -> Conversion:
    """`convert_attrs` for the clean direction: the conversion of a path from its attributes (as `git check-attr`
    prints them: "unspecified", "set", "unset" or a value) under `config`."""
    action = _crlf_action(attributes.get("text", UNSPECIFIED))
    if action is None:
        action = _crlf_action(attributes.get("crlf", UNSPECIFIED))
    if action != "binary":
        eol = attributes.get("eol", UNSPECIFIED)
        if eol in ("lf", "crlf"):  # an `eol` attribute makes a path text (auto stays auto)
            action = "auto" if action == "auto" else "text"
    if action is None and config.autocrlf in ("true", "input"):
        action = "auto"
    eol_kind = KEEP if action in (None, "binary") else AUTO if action == "auto" else TEXT
    unreproduced = None
    driver_name = attributes.get("filter", UNSPECIFIED)
    driver = config.drivers.get(driver_name) if driver_name not in (UNSPECIFIED, SET, UNSET) else None
    if driver is not None and (driver.runs or driver.required):
        unreproduced = (
            f"git stores it through the filter driver `{driver_name}` (its `filter` attribute), a command wikiwarden "
            "does not run"
            if driver.runs
            else f"git refuses to store it: its filter driver `{driver_name}` is required but has no command"
        )
    encoding = attributes.get("working-tree-encoding", UNSPECIFIED)
    if unreproduced is None and encoding in (SET, UNSET):
        unreproduced = "git refuses to store it: its `working-tree-encoding` attribute names no encoding"
    elif unreproduced is None and encoding not in (UNSPECIFIED, "") and not _utf8(encoding):
        unreproduced = f"git stores it re-encoded from {encoding} (its `working-tree-encoding` attribute)"
    return Conversion(eol_kind, attributes.get("ident") == SET, unreproduced)


def _utf8(name: str) -> bool:
    """git's `same_encoding(name, "UTF-8")`: "UTF-8" and "UTF8", in any case."""
    return name.upper() in ("UTF-8", "UTF8")


def check_attr_records(output: bytes) -> Iterator[tuple[str, str, str]]:
    """(path, attribute, value) from `git check-attr -z` output."""
    fields = output.split(b"\0")
    for k in range(0, len(fields) - 2, 3):
        yield (
            fields[k].decode("utf-8", "surrogateescape"),
            fields[k + 1].decode("utf-8", "surrogateescape"),
            fields[k + 2].decode("utf-8", "surrogateescape"),
        )


# -- the conversions, from git's convert.c --------------------------------------------------------------

# Bytes `gather_stats` counts as non-printable: controls but BS, HT, ESC and FF (CR and LF are counted apart), and DEL.
_NONPRINTABLE = bytes(c for c in (*range(32), 127) if c not in (8, 9, 27, 12, 13, 10))


def looks_binary(data: bytes) -> bool:
    """`convert_is_binary` over `gather_stats`: a lone CR, a NUL, or more than one non-printable byte in 128."""
    crlf = data.count(b"\r\n")
    if data.count(b"\r") != crlf or b"\0" in data:
        return True
    nonprintable = len(data) - len(data.translate(None, _NONPRINTABLE))
    if data.endswith(b"\x1a"):  # a final ^Z (DOS's end of file) is not counted
        nonprintable -= 1
    printable = len(data) - nonprintable - data.count(b"\r") - data.count(b"\n") - (1 if data.endswith(b"\x1a") else 0)
    return (printable >> 7) < nonprintable


def has_crlf_text(data: bytes) -> bool:
    """`has_crlf_in_index` on a blob's bytes: text (not binary) with a CRLF in it."""
    return b"\r" in data and not looks_binary(data) and b"\r\n" in data


def clean(data: bytes, converting: Conversion, index_has_crlf: Callable[[], bool]) -> bytes:
    """The bytes git stores for a working tree file's `data` (`convert_to_git` with the built-in conversions):
    line endings, then `ident`. `index_has_crlf` tells whether the index's version of the path is text holding a
    CRLF (git then leaves the line endings of an `auto` file alone); asked only when it matters."""
    assert converting.unreproduced is None, converting.unreproduced
    if (
        converting.eol != KEEP
        and b"\r\n" in data
        and (converting.eol == TEXT or not (looks_binary(data) or index_has_crlf()))
    ):
        data = data.replace(b"\r\n", b"\n")
    if converting.ident:
        data = collapse_ident(data)
    return data


def collapse_ident(data: bytes) -> bytes:
    """`ident_to_git`: each `$Id: ... $` (no line break inside) becomes `$Id$`."""
    if b"$Id:" not in data:
        return data
    out: list[bytes] = []
    src, n = 0, len(data)
    while True:
        dollar = data.find(b"$", src)
        if dollar < 0:
            break
        out.append(data[src : dollar + 1])
        src = dollar + 1
        if n - src > 3 and data.startswith(b"Id:", src):
            closing = data.find(b"$", src + 3)
            if closing < 0:
                break
            if data.find(b"\n", src + 3, closing) >= 0:
                continue  # a line break before the next dollar: that dollar may open one
            out.append(b"Id$")
            src = closing + 1
    out.append(data[src:])
    return b"".join(out)
