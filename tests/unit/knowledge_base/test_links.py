"""The one link rule, form by form: body links, wikilinks and frontmatter relations."""

from __future__ import annotations

import pytest

from bkn_common.domain.kb_links import (
    LinkRef,
    LinkResolver,
    Resolved,
    body_links,
    frontmatter_links,
    is_navigation_name,
)

PATHS = [
    "index.md", "guide/README.md", "guide/install.md", "guide/deploy/kubernetes.md",
    "guide/deploy/helm values.md", "pages/hr/leave.md", "pages/hr/sick-leave.md", "notes/dup.md",
    "guide/dup.md", "中文/页面.md", "notes/Upper Case.md",
]
NAMES = {"guide/deploy/kubernetes.md": ("Kubernetes deployment", "k8s"), "guide/install.md": ("Installing",),
         "notes/dup.md": ("Duplicate",), "guide/dup.md": ("Duplicate",)}
ASSETS = ["img/arch.png", "guide/spec.pdf"]


def resolve(target: str, from_path: str = "guide/install.md", *, wiki: bool = False, key: str = "link",
            link_root: str = "") -> Resolved:
    resolver = LinkResolver(PATHS, NAMES, ASSETS, link_root)
    return resolver.resolve(from_path, LinkRef(target, 1, key, wiki=wiki))


@pytest.mark.parametrize(("target", "expected"), [
    ("deploy/kubernetes.md", "guide/deploy/kubernetes.md"),  # relative to the linking file
    ("./deploy/kubernetes.md", "guide/deploy/kubernetes.md"),
    ("../pages/hr/leave.md", "pages/hr/leave.md"),
    ("/pages/hr/leave.md", "pages/hr/leave.md"),  # from the base root
    ("pages/hr/leave.md", "pages/hr/leave.md"),  # relative names nothing: the base root (curated bases)
    ("deploy/kubernetes", "guide/deploy/kubernetes.md"),  # without .md
    ("deploy/kubernetes.html", "guide/deploy/kubernetes.md"),
    ("deploy/kubernetes.md#helm", "guide/deploy/kubernetes.md"),  # anchors and queries stripped
    ("deploy/kubernetes?tab=2#x", "guide/deploy/kubernetes.md"),
    ("deploy/helm%20values.md", "guide/deploy/helm values.md"),  # percent-decoded
    ("../%E4%B8%AD%E6%96%87/%E9%A1%B5%E9%9D%A2", "中文/页面.md"),
    ("../guide/", "guide/README.md"),  # a directory's navigation page
    ("/", "index.md"),
    ("../notes/upper case.md", "notes/Upper Case.md"),  # case differs, one file fits
])
def test_markdown_links_resolve_to_the_file_the_author_meant(target: str, expected: str) -> None:
    found = resolve(target)
    assert (found.outcome, found.path) == ("file", expected)


def test_link_root_is_stripped_from_root_relative_links() -> None:
    found = resolve("/docs/pages/hr/leave.md", link_root="/docs")
    assert (found.outcome, found.path) == ("file", "pages/hr/leave.md")
    assert resolve("/docs/pages/hr/leave.md").outcome == "dangling"  # without the prefix option
    assert resolve("/pages/hr/leave.md", link_root="docs/").path == "pages/hr/leave.md"  # outside the prefix


@pytest.mark.parametrize(("target", "outcome", "path"), [
    ("https://example.org/x.md", "external", None),
    ("mailto:someone@example.org", "external", None),
    ("//cdn.example.org/x", "external", None),
    ("#install", "anchor", None),
    ("../img/arch.png", "asset", "img/arch.png"),  # files the folder holds that are not Markdown
    ("spec.pdf", "asset", "guide/spec.pdf"),
    ("missing.md", "dangling", "guide/missing.md"),
    ("../../outside.md", "outside", "../outside.md"),
    ("./../../outside.md", "outside", "../outside.md"),
    ("deploy", "directory", "guide/deploy"),  # a folder without a navigation page: no relation, no problem
])
def test_other_targets_are_classified(target: str, outcome: str, path: str | None) -> None:
    found = resolve(target)
    assert (found.outcome, found.path) == (outcome, path)


def test_explicitly_relative_targets_do_not_fall_back_to_the_base_root() -> None:
    assert resolve("./pages/hr/leave.md", "guide/install.md").outcome == "dangling"
    assert resolve("pages/hr/leave.md", "guide/install.md").path == "pages/hr/leave.md"


@pytest.mark.parametrize(("name", "expected"), [
    ("install", "guide/install.md"),  # the unique file name, anywhere in the base
    ("install.md", "guide/install.md"),
    ("kubernetes#Helm", "guide/deploy/kubernetes.md"),  # [[name#heading]]
    ("Kubernetes deployment", "guide/deploy/kubernetes.md"),  # by title
    ("K8S", "guide/deploy/kubernetes.md"),  # by alias, any case
    ("deploy/kubernetes", "guide/deploy/kubernetes.md"),  # a path
    ("页面", "中文/页面.md"),
])
def test_wikilinks_resolve_by_file_name_title_or_alias(name: str, expected: str) -> None:
    found = resolve(name, wiki=True)
    assert (found.outcome, found.path) == ("file", expected)


def test_wikilink_ambiguity_names_the_candidates_and_assets_are_assets() -> None:
    dup = resolve("dup", wiki=True)
    assert (dup.outcome, dup.candidates) == ("ambiguous", ("guide/dup.md", "notes/dup.md"))
    assert resolve("Duplicate", wiki=True).candidates == ("guide/dup.md", "notes/dup.md")
    assert resolve("arch.png", wiki=True) == Resolved("asset", "img/arch.png")
    assert resolve("nowhere", wiki=True).outcome == "dangling"
    assert resolve("#Heading", wiki=True).outcome == "anchor"


def test_body_links_are_found_with_their_lines_outside_code() -> None:
    body = "\n".join([
        "intro [a](a.md) and ![img](i.png)",  # line 5 of the file
        "`[not](code.md)` [[Wiki|label]] ![[embed.png]]",
        "```",
        "[no](fenced.md) [[no]]",
        "```",
        '[ref]: <my page.md> "title"',
        '{{< ref "hugo.md" >}} [spaced](<with space.md>) [t](t.md "Title")',
        "[^1]: a footnote, not a link <!-- [hidden](h.md)",
        "[[still hidden]] -->",
    ])
    refs = body_links(body, first_line=5)
    assert [(r.target, r.line, r.key, r.wiki) for r in refs] == [
        ("a.md", 5, "link", False), ("i.png", 5, "image", False),
        ("Wiki", 6, "link", True), ("embed.png", 6, "link", True),
        ("my page.md", 10, "link", False),
        ("hugo.md", 11, "link", False), ("with space.md", 11, "link", False), ("t.md", 11, "link", False),
    ]


def test_frontmatter_relations_use_the_same_rule() -> None:
    frontmatter = {"related": ["sibling.md", "pages/hr/leave.md"], "see_also": "[[Installing]]",
                   "superseded_by": "../hr/sick-leave.md", "tags": ["x"]}
    refs = frontmatter_links(frontmatter, {"related": 3, "see_also": 4})
    assert [(r.target, r.key, r.line, r.wiki) for r in refs] == [
        ("sibling.md", "related", 3, False), ("pages/hr/leave.md", "related", 3, False),
        ("Installing", "see_also", 4, True), ("../hr/sick-leave.md", "superseded_by", 1, False),
    ]
    resolver = LinkResolver(["pages/hr/a.md", "pages/hr/sibling.md", "pages/hr/leave.md", "pages/hr/sick-leave.md"],
                            {"pages/hr/leave.md": ("Installing",)})
    assert [resolver.resolve("pages/hr/a.md", r).path for r in refs] == [
        "pages/hr/sibling.md", "pages/hr/leave.md", "pages/hr/leave.md", "pages/hr/sick-leave.md"]


@pytest.mark.parametrize(("path", "navigation"), [
    ("index.md", True), ("a/README.md", True), ("a/readme.md", True), ("a/_index.md", True),
    ("SUMMARY.md", True), ("TOC.md", True), ("TOC-2024.md", True), ("a/Index.md", True),
    ("TOCOPHEROL.md", False), ("docs/extensions/toc.md", False), ("summary.md", False),
    ("a/readme-first.md", False), ("pages/x.md", False),
])
def test_navigation_names(path: str, navigation: bool) -> None:
    assert is_navigation_name(path) is navigation
