"""Frontmatter is optional: each fallback, TOML, text encodings, and what an apply reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from bkn_common.domain.kb_source import decode_text, derive_metadata, parse_source, split_frontmatter
from clctl.kb import KnowledgeBaseRefused, folder_progress, load_folder, report_lines


def meta(text: str, path: str = "docs/some-page.md") -> tuple[str, str, tuple[str, ...], tuple[str, ...]]:
    doc = parse_source(path, text)
    found = derive_metadata(path, doc.frontmatter, doc.body)
    return found.title, found.description, found.tags, found.derived


def test_title_falls_back_to_the_first_heading_then_the_file_name() -> None:
    assert meta("---\ntitle: Given\ndescription: d\n---\n# Heading\n")[0] == "Given"
    assert meta("```\n# not a heading\n```\n## Second level\n# Heading #\n")[0] == "Heading"
    assert meta("no heading at all\n")[0] == "some-page"
    assert meta("---\ntitle: 3\n---\n# From heading\n")[0] == "From heading"  # a title that is not text


def test_description_falls_back_to_summary_then_the_first_paragraph() -> None:
    assert meta("---\ntitle: T\ndescription: Given.\nsummary: s\n---\nbody\n")[1:] == ("Given.", (), ())
    assert meta("---\ntitle: T\nsummary: From summary.\n---\nbody\n")[1] == "From summary."
    text = "# T\n\n<!-- c -->\n| a | b |\n\nFirst **real** paragraph with [a link](x.md)\ncontinued.\n\nSecond.\n"
    assert meta(text)[1] == "First real paragraph with a link continued."
    long = meta("# T\n\n" + "word " * 200)[1]
    assert len(long) <= 301 and long.endswith("…")
    assert meta("# T\n")[1:] == ("", (), ("title", "description"))


def test_derived_fields_are_named_and_lists_may_be_strings() -> None:
    title, description, tags, derived = meta("---\ntags: alpha, beta\naliases: one\n---\nBody.\n")
    assert (title, description, tags, derived) == ("some-page", "Body.", ("alpha", "beta"), ("title", "description"))
    doc = parse_source("a.md", "---\naliases: one\ntags: [2024, x]\n---\n")
    assert derive_metadata("a.md", doc.frontmatter, doc.body).aliases == ("one",)
    assert derive_metadata("a.md", doc.frontmatter, doc.body).tags == ("2024", "x")


def test_unknown_keys_are_kept_as_json_can_carry_them() -> None:
    text = "---\ntitle: T\ndate: 2024-01-02\nweight: 3\n1: one\nnested: {at: 2024-01-02 10:00:00}\n---\n"
    doc = parse_source("a.md", text)
    assert doc.frontmatter == {"title": "T", "date": "2024-01-02", "weight": 3, "1": "one",
                               "nested": {"at": "2024-01-02T10:00:00"}}
    assert not doc.warnings


def test_toml_frontmatter_and_its_errors() -> None:
    frontmatter, body, error, body_line = split_frontmatter('+++\ntitle = "Toml"\ntags = ["a"]\n+++\n# Body\n')
    assert (frontmatter, body, error, body_line) == ({"title": "Toml", "tags": ["a"]}, "# Body\n", None, 5)
    broken = parse_source("a.md", "+++\ntitle = \n+++\n# Still here\n")
    assert broken.warnings[0][1] == "frontmatter_invalid" and "not valid TOML" in broken.warnings[0][2]
    assert derive_metadata("a.md", broken.frontmatter, broken.body).title == "Still here"


def test_yaml_problems_are_warnings_with_lines_and_strict_problems() -> None:
    doc = parse_source("pages/a.md", "---\ntitle: T\nstatus: lost\nrelated: {a: 1}\n---\n")
    found = sorted((line, kind) for line, kind, _ in doc.warnings)
    assert found == [(3, "frontmatter_field"), (4, "frontmatter_field")]
    assert "pages/a.md: frontmatter tags is required (a list of strings)" in doc.problems  # --strict only
    unclosed = parse_source("a.md", "---\ntitle: T\nno end\n")
    assert unclosed.warnings[0][2].startswith("frontmatter block is not closed with ---")


@pytest.mark.parametrize(("raw", "text"), [
    (b"\xef\xbb\xbf# BOM\r\nline\r\n", "# BOM\nline\n"),
    ("# UTF-16\r\n".encode("utf-16"), "# UTF-16\n"),
    (b"old\rmac\r", "old\nmac\n"),
    (b"", ""),
    (b"caf\xe9", None),
])
def test_text_encodings(raw: bytes, text: str | None) -> None:
    assert decode_text(raw) == text


def write(root: Path, files: dict[str, bytes | str]) -> Path:
    for path, data in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data if isinstance(data, bytes) else data.encode())
    return root


MESSY: dict[str, bytes | str] = {
    "README.md": "# Docs\n\nStart at [install](/guide/install) or [[Deploying]].\n",
    "guide/install.md": "---\ntitle: Install\nrelated: [deploy.md]\n---\nSee ![d](../img/d.png) and [gone](gone.md).\n",
    "guide/deploy.md": "+++\ntitle = \"Deploying\"\n+++\n[[dup]] [spec](spec.pdf) [out](../../x.md)\n",
    "guide/dup.md": "one", "notes/dup.md": "two",
    "notes/latin.md": b"caf\xe9\n", "notes/empty.md": "", "notes/big.md": "x" * 500,
    "notes/broken.md": "---\ntitle: [x\n---\nText.\n",
    "img/d.png": b"\x89PNG", "guide/spec.pdf": b"%PDF",
}


def test_a_messy_folder_is_published_with_every_warning(tmp_path: Path) -> None:
    loaded = load_folder(write(tmp_path, MESSY), 400)
    assert sorted(loaded.files) == ["README.md", "guide/deploy.md", "guide/dup.md", "guide/install.md",
                                    "notes/broken.md", "notes/dup.md", "notes/empty.md"]
    assert sorted(loaded.skipped) == ["notes/big.md", "notes/latin.md"]
    found = {(w.path, w.line, w.kind) for w in loaded.warnings}
    assert found == {
        ("guide/install.md", 5, "dangling_link"), ("guide/deploy.md", 4, "ambiguous_link"),
        ("guide/deploy.md", 4, "link_outside"), ("notes/latin.md", 1, "not_utf8"),
        ("notes/big.md", 1, "too_large"), ("notes/empty.md", 1, "empty_file"),
        ("notes/broken.md", 1, "frontmatter_invalid"),
    }
    assert loaded.asset_links == 2  # the image and the PDF: never relations, never warnings
    assert loaded.derived["guide/dup.md"] == ("title", "description")
    assert "README.md" not in loaded.derived  # navigation pages are not counted
    lines = report_lines(loaded)
    assert lines[0] == "warnings (7):"
    assert "  guide/deploy.md:4: wikilink [[dup]] names several files: guide/dup.md, notes/dup.md" in lines
    assert "  guide/install.md:5: link 'guide/gone.md' names no file of the knowledge base" in lines
    assert lines[-1].startswith("7 files published; 6 with derived fields (description 6, title 4); "
                                "2 skipped; 7 warnings (ambiguous_link 1, dangling_link 1")
    assert "service generates index.md" not in lines[-1]  # README.md is the root's page


def test_strict_refuses_the_same_folder_with_every_problem(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeBaseRefused) as refused:
        load_folder(write(tmp_path, MESSY), 400, strict=True)
    problems = refused.value.problems
    assert "index.md: a knowledge base needs an index.md at its root" in problems
    assert "notes/latin.md: not UTF-8 text" in problems
    assert "guide/install.md: link 'guide/gone.md' names no file of the knowledge base" in problems
    assert len(problems) == 7  # six warnings that are problems (not the empty file), and index.md


def test_reserved_paths_and_unreadable_folders_always_refuse(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeBaseRefused, match="1 problem"):
        load_folder(write(tmp_path, {"_graph/x.md": "# x", "a.md": "[gone](gone.md)"}), 400)
    with pytest.raises(KnowledgeBaseRefused):
        load_folder(tmp_path / "nowhere", 400)


def test_without_a_root_page_the_summary_says_one_is_generated(tmp_path: Path) -> None:
    loaded = load_folder(write(tmp_path, {"a.md": "# A\n"}), 400)
    assert loaded.summary().endswith("no index.md, README.md or _index.md at the root: the service generates index.md")


def test_progress_is_reported_for_large_folders_only(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    folder = write(tmp_path, {f"p{i}.md": f"# {i}" for i in range(3)})
    load_folder(folder, 400, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
    with folder_progress() as update:
        update(1, 3)  # small folders draw nothing


def test_multimarkdown_meta_setext_headings_and_markup_in_titles() -> None:
    doc = parse_source("a.md", "title: Tables Extension\ntoc_depth: 2\n\nTables\n======\n\nThe tables extension.\n")
    assert doc.frontmatter == {"title": "Tables Extension", "toc_depth": "2"}
    assert derive_metadata("a.md", doc.frontmatter, doc.body).description == "The tables extension."
    assert parse_source("a.md", "Note: this is prose\n\nMore.\n").frontmatter == {}  # no title key: body
    assert meta("Tables\n======\n\nText.\n")[:2] == ("Tables", "Text.")
    assert meta("# Introducing _Black_ to *your* `project` {: #intro }\n")[0] == "Introducing Black to your project"
    text = "(label)=\n:::{note}\nA note.\n:::\n[![badge](b.svg)](x)\n\nReal prose here.\n"
    assert meta(text)[1] == "A note."  # a directive's text is prose; labels and badges are not
