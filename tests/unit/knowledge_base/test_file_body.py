"""A source file's body is read from its content when it is the content's tail (the text is
held once)."""

from __future__ import annotations

from knowledge_base.domain.view import source_file


def test_a_body_after_frontmatter_is_the_contents_tail_not_a_copy() -> None:
    content = "---\ntitle: Pricing\ntags: [sales]\n---\n# Pricing\n\nDiscounts need approval.\n"
    file, _ = source_file("kb", "pricing.md", content, "sha")
    assert file.body == "# Pricing\n\nDiscounts need approval.\n"
    assert isinstance(file.stored_body, int) and file.stored_content is content


def test_a_file_without_frontmatter_is_its_own_body() -> None:
    content = "# Notes\n\nNothing above the heading.\n"
    file, _ = source_file("kb", "notes.md", content, "sha")
    assert file.body.strip() == content.strip()

