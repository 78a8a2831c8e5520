"""OKF projection against hand-worked expectations of the format's §4.2–§4.4 and §1.5/§4.1.

Where Wikiwarden writes what OpenWiki writes, the expected bytes are OpenWiki 0.3.3's (worked out from its
sources and the bytes its bot committed). Where OpenWiki would disturb a person's text (re-rendering other
producers' entries, leaving orphaned lines, rewriting an unchanged `generated`, converting line endings,
dropping fields of a page without `type`), the test says what Wikiwarden does instead and why.
"""

from __future__ import annotations

import pytest
from deadline import finishes

from bot.okf.frontmatter import FrontMatterError
from bot.okf.project import (
    first_heading,
    generated_line,
    normalize_concept,
    project_sources,
    project_verified,
    source_id,
    stamp_generated,
    whole_file_resources,
)

A, T = "wikiwarden/0.1.0", "2026-08-22T08:02:55.052Z"


# -- sources (§4.2) ------------------------------------------------------------------------------


def test_source_ids_are_openwikis() -> None:
    assert source_id("repo://src/claims/brains/code/runtime.ts") == "openwiki-source-239b2968fb2bcd073e89cedc"
    assert source_id("repo://src/a.ts") == "openwiki-source-0ee38066f9f4635849d09c69"


def test_resources_collapse_to_whole_files_in_locale_compare_order() -> None:
    resources = ["repo://src/b.ts#L1-L3", "repo://src/a.ts#L2-L2", "repo://src/a.ts", "repo://README.md#L1-L1",
                 "repo://src/_x.ts", "repo://./src/b.ts#L9", "not a resource"]  # fmt: skip
    # localeCompare: README.md before src/, `_` before letters (Python's sorted() would differ).
    assert whole_file_resources(resources) == [
        "repo://README.md",
        "repo://src/_x.ts",
        "repo://src/a.ts",
        "repo://src/b.ts",
    ]


def test_sources_appended_at_the_end_of_the_block() -> None:
    resources = ["repo://src/b.ts#L1-L3", "repo://src/a.ts#L2-L2", "repo://src/a.ts", "repo://README.md#L1-L1",
                 "repo://src/_x.ts"]  # fmt: skip
    assert project_sources("---\ntype: Guide\ntitle: X\n---\n\n# X\n", resources) == (
        "---\ntype: Guide\ntitle: X\nsources:\n"
        "  - id: openwiki-source-23775c3de52f3ab95a13cb8b\n    resource: repo://README.md\n"
        "  - id: openwiki-source-00a65f3e1f8552491b89dea6\n    resource: repo://src/_x.ts\n"
        "  - id: openwiki-source-0ee38066f9f4635849d09c69\n    resource: repo://src/a.ts\n"
        "  - id: openwiki-source-a1fc53d0755e6ce076615193\n    resource: repo://src/b.ts\n"
        "---\n\n# X\n"
    )


def test_other_producers_entries_first_and_their_resources_not_repeated() -> None:
    page = (
        "---\ntype: Guide\nsources:\n  - id: openwiki-source-000000000000000000000000\n    resource: repo://old.ts\n"
        "  - resource: https://example.com/spec\n    title: Spec\n  - id: human-1\n    resource: repo://src/a.ts\n"
        "tags: [a]\n---\nBody\n"
    )
    assert project_sources(page, ["repo://src/a.ts#L1-L2", "repo://src/c.ts#L4-L4"]) == (
        "---\ntype: Guide\nsources:\n  - resource: https://example.com/spec\n    title: Spec\n"
        "  - id: human-1\n    resource: repo://src/a.ts\n"
        "  - id: openwiki-source-d2c19bb808ecc4df1342b7aa\n    resource: repo://src/c.ts\ntags: [a]\n---\nBody\n"
    )


def test_other_entries_are_kept_as_written_not_re_rendered() -> None:
    """OpenWiki re-renders kept entries from their values (dropping comments, turning 0o17 into 15) and drops
    items that are not mappings; Wikiwarden keeps them byte for byte."""
    page = (
        '---\ntype: Guide\nsources:\n  - just a string\n  - resource: "x: y"   # why\n    weight: 0o17\n'
        "    - not: this\n---\nBody\n"
    ).replace("    - not: this\n", "")
    out = project_sources(page, ["repo://src/a.ts"])
    assert out == (
        '---\ntype: Guide\nsources:\n  - just a string\n  - resource: "x: y"   # why\n    weight: 0o17\n'
        "  - id: openwiki-source-0ee38066f9f4635849d09c69\n    resource: repo://src/a.ts\n---\nBody\n"
    )


def test_flow_style_sources_are_re_rendered_in_block_style() -> None:
    page = "---\ntype: Guide\nsources: [{resource: 'https://x/y', id: ext}]\n---\nBody\n"
    assert project_sources(page, ["repo://src/a.ts"]) == (
        "---\ntype: Guide\nsources:\n  - resource: https://x/y\n    id: ext\n"
        "  - id: openwiki-source-0ee38066f9f4635849d09c69\n    resource: repo://src/a.ts\n---\nBody\n"
    )


def test_sources_not_a_list_is_replaced_in_place() -> None:
    assert project_sources("---\ntype: Guide\nsources: not-a-list\ntitle: T\n---\nBody\n", ["repo://src/a.ts#L1"]) == (
        "---\ntype: Guide\nsources:\n  - id: openwiki-source-0ee38066f9f4635849d09c69\n    resource: repo://src/a.ts\n"
        "title: T\n---\nBody\n"
    )


def test_empty_projection_removes_the_field_and_unchanged_projection_is_a_no_op() -> None:
    page = (
        "---\ntype: Guide\nsources:\n  - id: openwiki-source-aaaaaaaaaaaaaaaaaaaaaaaa\n    resource: repo://src/a.ts\n"
        "\n  # comment\ntitle: T\n---\nBody\n"
    )
    assert project_sources(page, []) == "---\ntype: Guide\ntitle: T\n---\nBody\n"
    same = "---\ntype: Guide\nsources:\n  - id: openwiki-source-0ee38066f9f4635849d09c69\n    resource: repo://src/a.ts\n---\nB\n"
    assert project_sources(same, ["repo://src/a.ts#L9-L9"]) == same
    assert project_sources("---\ntype: Guide\n---\nB\n", []) == "---\ntype: Guide\n---\nB\n"


def test_compact_list_at_column_zero_is_part_of_the_field() -> None:
    """OpenWiki treats only the key line as the field and leaves the old items behind (orphans)."""
    page = "---\ntype: Guide\nsources:\n- id: openwiki-source-aaaaaaaaaaaaaaaaaaaaaaaa\n  resource: repo://src/old.ts\ntitle: T\n---\nBody\n"
    assert project_sources(page, ["repo://src/a.ts"]) == (
        "---\ntype: Guide\nsources:\n  - id: openwiki-source-0ee38066f9f4635849d09c69\n    resource: repo://src/a.ts\n"
        "title: T\n---\nBody\n"
    )


def test_crlf_pages_stay_crlf() -> None:
    """OpenWiki writes LF delimiters and new lines into a CRLF page (mixed endings); Wikiwarden keeps CRLF."""
    out = project_sources("---\r\ntype: Guide\r\ntitle: T\r\n---\r\n\r\n# T\r\n", ["repo://src/a.ts"])
    assert out == (
        "---\r\ntype: Guide\r\ntitle: T\r\nsources:\r\n  - id: openwiki-source-0ee38066f9f4635849d09c69\r\n"
        "    resource: repo://src/a.ts\r\n---\r\n\r\n# T\r\n"
    )


# -- generated (§4.3) ----------------------------------------------------------------------------


def test_generated_line_is_openwikis() -> None:
    assert generated_line("openwiki/0.3.3", T) == 'generated: {by: "openwiki/0.3.3", at: "2026-08-22T08:02:55.052Z"}'


def test_body_change_stamps_generated_and_retires_timestamp() -> None:
    before = "---\ntype: Guide\ntimestamp: 2025-01-01T00:00:00Z\ntitle: T\n---\n\nOld body\n"
    after = before.replace("Old body", "New body")
    assert stamp_generated(before, after, A, T) == (
        f'---\ntype: Guide\ntitle: T\ngenerated: {{by: "{A}", at: "{T}"}}\n---\n\nNew body\n'
    )


def test_front_matter_only_changes_keep_the_old_stamp_untouched() -> None:
    """OpenWiki re-renders the prior event on every run (undoing a formatter's spacing); Wikiwarden leaves it."""
    before = '---\ntype: Guide\ngenerated: { by: "openwiki/0.3.2", at: "2026-08-01T00:00:00.000Z" }\n---\n\nSame\n'
    after = before.replace("type: Guide", "type: Guide\ntags: [x]")
    assert stamp_generated(before, after, A, T) == after


def test_new_page_and_whitespace_only_body_change_are_stamped() -> None:
    assert stamp_generated(None, "---\ntype: G\n---\n\n# Fresh\n", A, T) == (
        f'---\ntype: G\ngenerated: {{by: "{A}", at: "{T}"}}\n---\n\n# Fresh\n'
    )
    before = "---\ntype: G\n---\nText\n"
    assert "generated:" in stamp_generated(before, before.replace("Text\n", "Text \n"), A, T)


def test_block_style_generated_is_replaced_whole() -> None:
    """OpenWiki replaces only the key line and leaves `  by:`/`  at:` behind: invalid YAML."""
    page = "---\ntype: Guide\ngenerated:\n  by: x\n  at: 2026-01-01T00:00:00Z\ntitle: T\n---\n\nChanged\n"
    assert stamp_generated(None, page, A, T) == f"---\ntype: Guide\n{generated_line(A, T)}\ntitle: T\n---\n\nChanged\n"


# -- verified (§4.4) -----------------------------------------------------------------------------


def test_bare_human_mapping_is_listed_and_kept_before_our_event() -> None:
    page = "---\ntype: Guide\nverified: {by: jane, at: 2026-08-01T00:00:00Z}\n---\nBody\n"
    assert project_verified(page, (A, T)) == (
        f"---\ntype: Guide\nverified:\n  - by: jane\n    at: 2026-08-01T00:00:00Z\n  - by: {A}\n    at: {T}\n---\nBody\n"
    )


def test_a_page_needing_attention_loses_only_wikiwardens_event() -> None:
    page = (
        "---\ntype: Guide\nverified:\n  - by: human:jane   # read it twice\n    at: 2026-08-01T00:00:00Z\n"
        "  - by: openwiki/0.3.3\n    at: 2026-08-02T00:00:00.000Z\n  - by: wikiwarden/0.0.9\n"
        "    at: 2026-08-03T00:00:00.000Z\ntitle: T\n---\nBody\n"
    )
    assert project_verified(page, None) == (
        "---\ntype: Guide\nverified:\n  - by: human:jane   # read it twice\n    at: 2026-08-01T00:00:00Z\n"
        "  - by: openwiki/0.3.3\n    at: 2026-08-02T00:00:00.000Z\ntitle: T\n---\nBody\n"
    )
    only_ours = "---\ntype: Guide\nverified:\n  - by: wikiwarden/0.0.9\n    at: 2026-08-01T00:00:00.000Z\n---\nBody\n"
    assert project_verified(only_ours, None) == "---\ntype: Guide\n---\nBody\n"


def test_our_event_is_replaced_not_accumulated() -> None:
    page = "---\ntype: Guide\nverified:\n  - by: wikiwarden/0.0.9\n    at: 2026-08-01T00:00:00.000Z\n---\nBody\n"
    assert project_verified(page, (A, T)) == f"---\ntype: Guide\nverified:\n  - by: {A}\n    at: {T}\n---\nBody\n"
    assert project_verified(project_verified(page, (A, T)), (A, T)) == project_verified(page, (A, T))


def test_verified_quoting_and_no_op_cases() -> None:
    assert project_verified('---\ntype: Guide\nverified: {by: "Jane: reviewer"}\n---\nBody\n', None) == (
        '---\ntype: Guide\nverified:\n  - by: "Jane: reviewer"\n---\nBody\n'
    )
    assert (
        project_verified("---\ntype: Guide\nverified: 42\n---\nBody\n", None)
        == "---\ntype: Guide\nverified: 42\n---\nBody\n"
    )
    assert project_verified("---\ntype: Guide\n---\nBody\n", (A, T)) == (
        f"---\ntype: Guide\nverified:\n  - by: {A}\n    at: {T}\n---\nBody\n"
    )


# -- pages without a usable type (§1.5, §4.1) ----------------------------------------------------


def test_minimal_block_for_a_page_without_front_matter() -> None:
    assert normalize_concept('\n# Hello "World" #\n\nText\n', "openwiki/a/page.md") == (
        '---\ntype: "Reference"\ntitle: "Hello \\"World\\" #"\nopenwiki_generated: true\n---\n\n# Hello "World" #\n\nText\n'
    )
    assert normalize_concept("\n\n  # Indented\n\nText\n", "openwiki/a/my_cool--page.md") == (
        '---\ntype: "Reference"\ntitle: "My cool page"\nopenwiki_generated: true\n---\n\n# Indented\n\nText\n'
    )
    assert normalize_concept("Body\n", "openwiki/x.md", "de").startswith('---\ntype: "Referenz"\ntitle: "X"\n')


def test_a_page_without_type_keeps_its_other_fields() -> None:
    """OpenWiki rebuilds the block and drops title, description, tags and custom keys; Wikiwarden adds `type`."""
    page = "---\ntitle: Old\ndescription: D\ntags: [x]\ncustom: 1\n---\n\nNo heading here\n"
    assert normalize_concept(page, "openwiki/my_cool--page.md") == (
        '---\ntype: "Reference"\ntitle: Old\ndescription: D\ntags: [x]\ncustom: 1\nopenwiki_generated: true\n---\n\n'
        "No heading here\n"
    )
    assert normalize_concept('---\nowner: me\ntype: ""\n---\n# T\n', "x.md") == (
        '---\nowner: me\ntype: "Reference"\ntitle: "T"\nopenwiki_generated: true\n---\n# T\n'
    )


def test_invalid_yaml_is_reported_and_never_rewritten() -> None:
    with pytest.raises(FrontMatterError, match="invalid YAML"):
        normalize_concept("---\ntype: [unclosed\ngenerated: {by: x}\n---\n# T\n", "t.md")
    with pytest.raises(FrontMatterError):
        project_sources("---\ntype: A\ntype: B\n---\n", ["repo://a.py"])


def test_a_heading_of_a_mebibyte_of_spaces_is_read_in_time() -> None:
    # `#\s+(.+?)\s*` tried each length of the title against the rest of the line: hours for a line of 1 MiB
    code = "from bot.okf.project import first_heading\nline = 'a' + ' ' * (1 << 20) + 'b'\n"
    code += "print(first_heading('# ' + line + '  \\n') == line)"
    assert finishes(code, 30).split() == ["True"]


def test_a_heading_s_title_is_the_line_after_the_hash_trimmed() -> None:
    assert first_heading("#  Title  \u3000\n") == "Title"
    assert first_heading("#\tTwo  words \n") == "Two  words"
    assert first_heading("#  \n\n# Second\n") == "Second"  # an empty heading has no title: the next one's


def test_a_log_heading_of_a_mebibyte_of_spaces_is_read_in_time() -> None:
    # `^## (.*?)\s*$` likewise (bot/okf/validate.py): the heading, right-trimmed, is what is checked
    code = "from bot.okf.validate import check_log\nline = '## a' + ' ' * (1 << 20) + 'b  \\n## 2026-01-02  \\n'\n"
    code += "print([p.problem for p in check_log('openwiki/log.md', line.encode())] == ['log heading `## a' + ' ' * (1 << 20) + 'b` must be a date, YYYY-MM-DD'])"
    assert finishes(code, 30).split() == ["True"]
