"""Wikis for sweep tests that several test folders share."""

from __future__ import annotations

from typing import Any

import pytest
from apptools import grounded

from bot.claims.options import SweepOptions
from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, render_sidecar
from bot.claims.snapshot import MemorySnapshot, Snapshot
from bot.claims.sweep import Sweeper
from bot.claims.sweep import wiki as wiki_module
from bot.claims.text import FileText
from bot.claims.versions import lines_version
from bot.parallel import Forking


def _module(name: str, count: int) -> str:
    return "".join(f"def {name}_{i}(x):\n    return x + {i}\n\n" for i in range(count))


CODE = {f"src/m{k}.py": _module(f"f{k}", 10) for k in range(8)} | {"src/tiny.py": "A = 1\n"}
CLAIMS = {
    f"page{p}.md": [(f"claim {p}.{c}", [f"repo://src/m{(p + c) % 8}.py#L{3 * c + 1}-L{3 * c + 2}"]) for c in range(8)]
    + [(f"whole {p}", ["repo://src/tiny.py"])]
    for p in range(4)
}


def every_kind_of_result() -> dict[str, bytes]:
    """The grounded wiki after edits that leave fresh, moved, stale, unresolved and erroneous evidence."""
    files = grounded(CODE, CLAIMS)
    files["src/m0.py"] = b"# moved down\n" + files["src/m0.py"]  # moved
    files["src/m1.py"] = files["src/m1.py"].replace(b"return x + 2", b"return x - 2")  # stale or unresolved
    files["src/m2.py"] = b"\x00binary now"  # error
    del files["src/m3.py"]  # error: gone
    files["src/m4.py"] = files["src/m4.py"].replace(b"def f4_1(x):\n    return x + 1\n\n", b"")  # text deleted
    files["src/tiny.py"] = b"A = 2\n"  # a whole-file record, stale
    return files


def sweeper_of(snapshot: Snapshot, processes: int, **kwargs: Any) -> Sweeper:
    sweeper = Sweeper(snapshot, None, SweepOptions(), parallel=Forking(processes), **kwargs)
    sweeper.records_per_process = 1  # share even this small wiki
    return sweeper


CODE_300 = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(300)).encode()
PAGE_300 = b"---\ntype: Concept\n---\n\n# Page\n\nProse.\n"


def three_hundred_claims() -> MemorySnapshot:
    """300 claims on one file, each citing a function of it, all fresh."""
    text = FileText(CODE_300)
    claims = tuple(
        Claim(
            f"c{i}",
            f"f{i} adds {i}",
            (EvidenceRecord(f"repo://src/f.py#L{3 * i + 1}-L{3 * i + 2}", lines_version(text, 3 * i, 3 * i + 2)),),
        )
        for i in range(300)
    )
    sidecar = render_sidecar(Sidecar(page_version(PAGE_300), claims))
    return MemorySnapshot(
        {"src/f.py": CODE_300, "openwiki/f.md": PAGE_300, "openwiki/.claims/f.json": sidecar}, label="head"
    )


def sidecars_read(monkeypatch: pytest.MonkeyPatch) -> dict[str, bool]:
    """Each sidecar the sweep parses from now on, by path: whether it was parsed as read before (`parse_sidecar`)."""
    seen: dict[str, bool] = {}
    real = wiki_module.parse_sidecar

    def spy(data: bytes, sidecar_path: str, *, read_before: bool = False) -> Sidecar:
        seen[sidecar_path] = read_before
        return real(data, sidecar_path, read_before=read_before)

    monkeypatch.setattr(wiki_module, "parse_sidecar", spy)
    return seen
