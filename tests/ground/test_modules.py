"""Python modules and packages by their dotted paths, and the renames of them git's file renames make: a page's
old dotted path named dead, renamed to the new one."""

from __future__ import annotations

import pytest

from bot.ground.modules import (
    ModuleMove,
    module_moves,
    module_of,
    moved_name,
    moved_references,
    names_moved,
    with_dotted_paths,
    with_module_renames,
)
from bot.ground.references import ChangedCode, DeadReference, Mention, Target
from bot.ground.symbols import Definition, SymbolIndex


@pytest.mark.parametrize(
    ("path", "paths", "expected"),
    [
        ("pkg/widgets.py", {"pkg/__init__.py"}, "pkg.widgets"),
        ("src/pkg/widgets.py", {"src/pkg/__init__.py"}, "pkg.widgets"),  # src/ layout
        ("src/pkg/sub/x.py", {"src/pkg/__init__.py", "src/pkg/sub/__init__.py"}, "pkg.sub.x"),
        ("pkg/dispatch/__init__.py", {"pkg/__init__.py", "pkg/dispatch/__init__.py"}, "pkg.dispatch"),
        ("backend/pkg/widgets.py", {"backend/pkg/__init__.py"}, "pkg.widgets"),  # above the topmost package
        ("src/acme/plugins/x.py", set(), "acme.plugins.x"),  # namespace packages under src/
        ("src/acme/pkg/x.py", {"src/acme/pkg/__init__.py"}, "acme.pkg.x"),  # a namespace above a package
        ("pkg/widgets.py", set(), "pkg.widgets"),  # a namespace package at the top
        ("pkg/widgets.pyi", {"pkg/__init__.py"}, "pkg.widgets"),
        ("my-scripts/x.py", set(), None),  # no identifier: nothing imports it by a dotted path
        ("pkg/x.test.py", set(), None),
        ("pkg/widgets.js", set(), None),
    ],
)
def test_a_files_module_is_read_from_the_paths_as_python_imports_it(
    path: str, paths: set[str], expected: str | None
) -> None:
    assert module_of(path, {path, *paths}) == expected


def test_a_renamed_module_is_moved_to_its_new_dotted_path() -> None:
    before = {"pkg/__init__.py", "pkg/widgets.py", "pkg/app.py"}
    after = {"pkg/__init__.py", "pkg/widget_kit.py", "pkg/app.py"}
    moves = module_moves({"pkg/widgets.py": "pkg/widget_kit.py"}, before, after)
    assert moves == {"pkg.widgets": ModuleMove("pkg.widgets", "pkg.widget_kit", "pkg/widgets.py", "pkg/widget_kit.py")}


def test_a_renamed_package_folder_moves_the_package_and_every_module_in_it() -> None:
    before = {"src/pkg/__init__.py", "src/pkg/dispatch/__init__.py", "src/pkg/dispatch/table.py"}
    after = {"src/pkg/__init__.py", "src/pkg/tables/__init__.py", "src/pkg/tables/table.py"}
    renames = {
        "src/pkg/dispatch/__init__.py": "src/pkg/tables/__init__.py",
        "src/pkg/dispatch/table.py": "src/pkg/tables/table.py",
    }
    moves = module_moves(renames, before, after)
    assert {old: move.new for old, move in moves.items()} == {
        "pkg.dispatch": "pkg.tables",
        "pkg.dispatch.table": "pkg.tables.table",
    }


def test_a_namespace_package_folder_renamed_is_moved_too() -> None:
    before = {"src/acme/dispatch/table.py", "src/acme/dispatch/rows.py"}
    after = {"src/acme/tables/table.py", "src/acme/tables/rows.py"}
    renames = {
        "src/acme/dispatch/table.py": "src/acme/tables/table.py",
        "src/acme/dispatch/rows.py": "src/acme/tables/rows.py",
    }
    assert module_moves(renames, before, after)["acme.dispatch"].new == "acme.tables"


def test_what_is_still_importable_under_its_old_name_is_not_moved() -> None:
    # a file moved out of a package that keeps other files: the package stays; a shim left at the old name
    before = {"pkg/__init__.py", "pkg/a/__init__.py", "pkg/a/x.py", "pkg/a/y.py", "pkg/old.py"}
    after = {"pkg/__init__.py", "pkg/a/__init__.py", "pkg/b/x.py", "pkg/a/y.py", "pkg/new.py", "pkg/old/__init__.py"}
    moves = module_moves({"pkg/a/x.py": "pkg/b/x.py", "pkg/old.py": "pkg/new.py"}, before, after)
    assert set(moves) == {"pkg.a.x"}  # `pkg.a` still there; `pkg.old` is a package now


def test_a_package_whose_files_scattered_is_not_named_moved_to_one_of_their_places() -> None:
    before = {"p/q/a.py", "p/q/b.py"}
    after = {"p/r/a.py", "p/s/b.py"}
    moves = module_moves({"p/q/a.py": "p/r/a.py", "p/q/b.py": "p/s/b.py"}, before, after)
    assert "p.q" not in moves and moves["p.q.a"].new == "p.r.a" and moves["p.q.b"].new == "p.s.b"


def test_no_python_file_renamed_moves_nothing() -> None:
    assert module_moves({"docs/a.md": "docs/b.md"}, {"docs/a.md"}, {"docs/b.md"}) == {}


MOVES = {
    "pkg.widgets": ModuleMove("pkg.widgets", "pkg.widget_kit", "pkg/widgets.py", "pkg/widget_kit.py"),
    "pkg.dispatch": ModuleMove("pkg.dispatch", "pkg.tables", "pkg/dispatch/__init__.py", "pkg/tables/__init__.py"),
}


def test_a_mention_of_a_moved_module_or_of_what_is_in_it_is_renamed_to_the_new_dotted_path() -> None:
    mentioned = [
        Mention("pkg.widgets", "code", 3),
        Mention("pkg.widgets.Panel()", "code", 4),
        Mention("pkg.dispatch.Table.rows", "code", 5),
        Mention("widgets", "code", 6),  # one segment: as likely a word
        Mention("pkg.widgetsx", "code", 7),  # another name that starts alike
        Mention("pkg/widgets.py", "code", 8),  # a path: the path's own rules
        Mention("pkg.widgets", "link", 9),
    ]
    panel = Definition("Panel", "Panel", "class", "pkg/widget_kit.py", 12, 20)
    dead = moved_references("docs/api.md", mentioned, MOVES, SymbolIndex([panel]))
    assert [(d.mention.line, d.target.definition.qualified, d.renamed_to.qualified) for d in dead] == [  # type: ignore[union-attr]
        (3, "pkg.widgets", "pkg.widget_kit"),
        (4, "pkg.widgets.Panel", "pkg.widget_kit.Panel"),
        (5, "pkg.dispatch.Table.rows", "pkg.tables.Table.rows"),
    ]
    assert [(d.target.path, d.renamed_to.path, d.renamed_to.start) for d in dead[:2]] == [  # type: ignore[union-attr]
        ("pkg/widgets.py", "pkg/widget_kit.py", 1),
        ("pkg/widgets.py", "pkg/widget_kit.py", 12),  # where the head shows it
    ]
    assert all(d.what == "renamed" for d in dead)
    assert [names_moved(m, MOVES) for m in mentioned] == [True, True, True, False, False, False, False]
    assert not names_moved(mentioned[0], {})


def test_a_renamed_definition_written_by_its_dotted_path_is_named_by_the_new_one() -> None:
    paths = {"pkg/__init__.py", "pkg/app.py"}
    run = Definition("run", "App.run", "method", "pkg/app.py", 2, 5)
    run_all = Definition("run_all", "App.run_all", "method", "pkg/app.py", 2, 5)
    dotted = DeadReference("docs/a.md", Mention("pkg.app.App.run", "code", 3), Target("pkg/app.py", run), run_all)
    bare = DeadReference("docs/a.md", Mention("run()", "code", 4), Target("pkg/app.py", run), run_all)
    other = DeadReference("docs/a.md", Mention("app.App.run", "code", 5), Target("pkg/app.py", run), run_all)
    removed = DeadReference("docs/a.md", Mention("pkg.app.App.run", "code", 6), Target("pkg/app.py", run))
    named = with_dotted_paths([dotted, bare, other, removed], paths, paths)
    assert named[0].target.definition.qualified == "pkg.app.App.run"  # type: ignore[union-attr]
    assert named[0].renamed_to.qualified == "pkg.app.App.run_all"  # type: ignore[union-attr]
    assert named[1:] == [bare, other, removed]


def test_a_top_level_script_named_like_the_standard_library_is_not_moved() -> None:
    """A page's `json.dumps()` means Python's `json`, whatever a script `json.py` beside the code became."""
    moves = module_moves(
        {"json.py": "jsonfmt.py", "tools/json.py": "tools/fmt.py"}, {"json.py", "tools/json.py"}, set()
    )
    assert set(moves) == {"tools.json"}


def test_a_package_some_of_whose_files_were_deleted_is_not_moved_only_its_renamed_modules_are() -> None:
    """`pkg.dispatch.old` went: a page's `pkg.dispatch.old.X` is no `pkg.tables.old.X`."""
    before = {"pkg/__init__.py", "pkg/dispatch/__init__.py", "pkg/dispatch/table.py", "pkg/dispatch/old.py"}
    after = {"pkg/__init__.py", "pkg/tables/__init__.py", "pkg/tables/table.py"}
    renames = {"pkg/dispatch/__init__.py": "pkg/tables/__init__.py", "pkg/dispatch/table.py": "pkg/tables/table.py"}
    moves = module_moves(renames, before, after)
    assert {old: move.new for old, move in moves.items()} == {
        "pkg.dispatch": "pkg.tables",  # its `__init__.py` renamed: the package itself
        "pkg.dispatch.table": "pkg.tables.table",
    }
    assert moves["pkg.dispatch"].left == {"old"}
    assert moved_name("pkg.dispatch.old.X", moves) is None
    assert moved_name("pkg.dispatch.Table", moves) == (moves["pkg.dispatch"], "pkg.tables.Table")
    assert moved_name("pkg.dispatch.table.Table", moves) == (moves["pkg.dispatch.table"], "pkg.tables.table.Table")


def test_a_src_layout_moved_into_a_monorepo_folder_moves_no_module() -> None:
    """griffe 2.0.0 (its tuning pair 1.15.0..2.0.0): `src/griffe/` went to `packages/griffelib/src/griffe/`: `griffe.x` imports as before."""
    before = {"src/griffe/__init__.py", "src/griffe/_loader.py"}
    after = {"packages/griffelib/src/griffe/__init__.py", "packages/griffelib/src/griffe/_loader.py"}
    renames = dict(zip(sorted(before), sorted(after), strict=True))
    assert module_moves(renames, before, after) == {}


def test_a_package_still_importable_by_its_dotted_path_elsewhere_is_not_moved_with_a_module_leaving_it() -> None:
    """A monorepo split: `src/pkg/` goes to `packages/lib/src/pkg/` while its `_internal/cli.py` goes to a sibling
    package `packages/cli/src/pkgcli/_internal/cli.py`: `pkg` and `pkg._internal` import as before (from another
    place), only the module that left is moved."""
    before = {"src/pkg/__init__.py", "src/pkg/_internal/__init__.py", "src/pkg/_internal/cli.py"}
    after = {
        "packages/lib/src/pkg/__init__.py",
        "packages/lib/src/pkg/_internal/__init__.py",
        "packages/cli/src/pkgcli/__init__.py",
        "packages/cli/src/pkgcli/_internal/__init__.py",
        "packages/cli/src/pkgcli/_internal/cli.py",
    }
    renames = {
        "src/pkg/__init__.py": "packages/lib/src/pkg/__init__.py",
        "src/pkg/_internal/__init__.py": "packages/lib/src/pkg/_internal/__init__.py",
        "src/pkg/_internal/cli.py": "packages/cli/src/pkgcli/_internal/cli.py",
    }
    moves = module_moves(renames, before, after)
    assert {old: move.new for old, move in moves.items()} == {"pkg._internal.cli": "pkgcli._internal.cli"}


def test_the_changes_own_finding_for_a_mention_stands_and_the_moves_add_the_rest() -> None:
    """`pkg.widgets.Panel` removed with its module renamed: removed (the change's definitions say so), not renamed to
    a `pkg.widget_kit.Panel` that does not exist; the module's other mentions are renamed."""
    paths_before, paths_after = {"pkg/__init__.py", "pkg/widgets.py"}, {"pkg/__init__.py", "pkg/widget_kit.py"}
    code = ChangedCode(paths_before, paths_after, {"pkg/widgets.py", "pkg/widget_kit.py"}, SymbolIndex([]),
                       SymbolIndex([]), {"pkg/widgets.py": "pkg/widget_kit.py"})  # fmt: skip
    panel = Definition("Panel", "Panel", "class", "pkg/widgets.py", 1, 9)
    mentioned = [Mention("pkg.widgets.Panel", "code", 3), Mention("pkg.widgets", "code", 4)]
    removed = DeadReference("docs/a.md", mentioned[0], Target("pkg/widgets.py", panel))
    moves = module_moves(code.renames, paths_before, paths_after)
    found = with_module_renames([removed], {"docs/a.md": mentioned}, moves, code)
    assert [(d.mention.line, d.what, d.renamed_to.qualified if d.renamed_to else None) for d in found] == [
        (3, "removed", None),
        (4, "renamed", "pkg.widget_kit"),
    ]
    assert with_module_renames([removed], {"docs/a.md": mentioned}, {}, code) == [removed]
