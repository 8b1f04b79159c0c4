"""A folder as people have it, applied through ``clctl kb apply`` on the real mesh: warnings
instead of a refusal, relations by the one link rule, a generated root index, navigation pages
that search never answers with, and ``--strict`` refusing the same folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.knowledge_base.support import api, kb_apply, ok, refused, wait_revision
from tests.support.mesh import RunningMesh

pytestmark = pytest.mark.integration

KB = "messy-docs"
FILES: dict[str, bytes] = {
    # no index.md at the root; Hugo, MkDocs, Obsidian and GitHub habits side by side
    "guide/_index.md": b'+++\ntitle = "Guide section"\nweight = 1\n+++\nEverything about zephyr widgets.\n',
    "guide/install.md": (b"---\ntitle: Installing zephyr widgets\naliases: [setup]\ntags: [zephyr]\n"
                         b"date: 2024-05-01\n---\n# Install\n\nInstall the zephyr widget with the installer.\n"
                         b"Then read [deployment](/docs/guide/deploy) and ![diagram](../img/arch.png).\n"),
    "guide/deploy.md": (b"\xef\xbb\xbf# Deploying zephyr widgets\r\n\r\nDeploy after [[setup|installing]]; "
                        b"see [[Troubleshooting#Logs]] and the [spec](spec.pdf).\r\n"),
    "guide/spec.pdf": b"%PDF-1.4",
    "img/arch.png": b"\x89PNG",
    "notes/README.md": b"# Notes about zephyr widgets\n\n- [troubleshooting](troubleshooting)\n",
    "notes/troubleshooting.md": (b"Zephyr widgets log to the journal.\n\n"
                                 b"See [the old page](old-page.md) and [install](../guide/install.md#top).\n"),
    "notes/legacy.md": b"caf\xe9 zephyr\n",
    "TOC.md": b"# Contents\n\n- [Install](guide/install.md)\n- [Deploy](guide/deploy.md)\n",
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("messy")
    for path, data in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    return root


@pytest.fixture(scope="module")
def applied(kb_mesh: RunningMesh, folder: Path) -> str:
    result = kb_apply(kb_mesh, folder, KB, "dev", extra=("--link-root", "/docs"))
    assert result.returncode == 0, result.stderr
    wait_revision(kb_mesh, KB, 1)
    return result.stdout


def file_of(mesh: RunningMesh, path: str) -> dict[str, object]:
    return dict(ok(api(mesh, KB, "/files/content", path=path))["file"])


def test_the_report_lists_each_warning_and_a_summary(applied: str) -> None:
    lines = applied.splitlines()
    assert "  notes/legacy.md:1: not UTF-8 text; skipped (save it as UTF-8)" in lines
    assert "  notes/troubleshooting.md:3: link 'notes/old-page.md' names no file of the knowledge base" in lines
    assert lines[0] == "warnings (2):"
    summary = next(line for line in lines if line.startswith("6 files published"))
    assert "1 skipped" in summary and "2 warnings (dangling_link 1, not_utf8 1)" in summary
    assert "2 links to assets (not indexed)" in summary
    assert "the service generates index.md" in summary


def test_relations_follow_the_links_as_written(kb_mesh: RunningMesh, applied: str) -> None:
    ids = {p: str(file_of(kb_mesh, p)["fileId"]) for p in ("guide/install.md", "guide/deploy.md",
                                                          "notes/troubleshooting.md")}

    def related(path: str) -> set[tuple[str, str, str]]:
        items = ok(api(kb_mesh, KB, f"/files/{ids[path]}/related", limit=100))["items"]
        return {(i["path"], i["relationType"], i["direction"]) for i in items}

    assert related("guide/install.md") >= {
        ("guide/deploy.md", "references", "outgoing"),  # /docs/guide/deploy: link root, no .md
        ("guide/deploy.md", "references", "incoming"),  # [[setup|installing]]: an alias
        ("notes/troubleshooting.md", "references", "incoming"),  # ../guide/install.md#top
    }
    assert ("notes/troubleshooting.md", "references", "outgoing") in related("guide/deploy.md")  # [[x#heading]]
    everything = related("guide/install.md") | related("guide/deploy.md") | related("notes/troubleshooting.md")
    assert not {p for p, _, _ in everything} & {"notes/README.md", "TOC.md", "guide/_index.md", "img/arch.png"}


def test_derived_fields_frontmatter_and_the_tree(kb_mesh: RunningMesh, applied: str) -> None:
    trouble = file_of(kb_mesh, "notes/troubleshooting.md")
    assert trouble["title"] == "troubleshooting" and trouble["derivedFields"] == ["title", "description"]
    deploy = ok(api(kb_mesh, KB, f"/files/{file_of(kb_mesh, 'guide/deploy.md')['fileId']}"))
    assert deploy["title"] == "Deploying zephyr widgets" and deploy["description"].startswith("Deploy after installing")
    install = file_of(kb_mesh, "guide/install.md")
    assert install["frontmatter"]["date"] == "2024-05-01" and install["derivedFields"] == ["description"]  # type: ignore[index]
    assert "\r" not in ok(api(kb_mesh, KB, "/files/content", path="guide/deploy.md"))["content"]
    root = {i["path"]: i for i in ok(api(kb_mesh, KB, "/tree"))["items"]}
    assert root["index.md"]["fileKind"] == "directory_index" and root["index.md"]["navigation"] is True
    assert root["TOC.md"]["fileKind"] == "index" and root["TOC.md"]["navigation"] is True
    assert {"guide", "notes"} <= set(root) and "img" not in root  # assets are not indexed
    guide = {i["path"]: i for i in ok(api(kb_mesh, KB, "/tree", parentPath="guide"))["items"]}
    assert guide["guide/_index.md"]["navigation"] is True and "guide/index.md" not in guide  # its own page
    notes = {i["path"] for i in ok(api(kb_mesh, KB, "/tree", parentPath="notes"))["items"]}
    assert notes == {"notes/README.md", "notes/troubleshooting.md"}  # legacy.md was skipped
    generated = ok(api(kb_mesh, KB, "/files/content", path="index.md"))["content"]
    assert "- [guide/](guide/_index.md)" in generated and "- [notes/](notes/README.md)" in generated


def test_navigation_pages_never_come_back_from_search(kb_mesh: RunningMesh, applied: str) -> None:
    for query in ("zephyr widgets", "notes about zephyr", "contents install deploy", "everything about zephyr"):
        for mode in ("hybrid", "file", "graph"):
            items = ok(api(kb_mesh, KB, "/files/search", query=query, mode=mode, limit=50))["items"]
            assert items, (query, mode)
            assert all(not i["path"].endswith(("README.md", "_index.md", "TOC.md", "index.md")) for i in items), items
    by_title = ok(api(kb_mesh, KB, "/files/search", query="Guide section"))["items"]
    assert by_title[0]["path"] == "guide/_index.md"  # asked for by title
    by_path = ok(api(kb_mesh, KB, "/files/search", query="notes/README.md"))["items"]
    assert by_path[0]["path"] == "notes/README.md"  # asked for by path


def test_strict_refuses_the_same_folder(kb_mesh: RunningMesh, folder: Path) -> None:
    result = kb_apply(kb_mesh, folder, "messy-strict", "dev", extra=("--strict", "--link-root", "/docs"))
    assert result.returncode == 2
    assert "nothing was published" in result.stderr
    assert "index.md: a knowledge base needs an index.md at its root" in result.stderr
    assert "notes/legacy.md: not UTF-8 text" in result.stderr
    assert "notes/troubleshooting.md: link 'notes/old-page.md' names no file of the knowledge base" in result.stderr
    refused(api(kb_mesh, "messy-strict", "/tree"), 404, "NOT_FOUND")
