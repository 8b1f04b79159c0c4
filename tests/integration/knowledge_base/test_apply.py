"""clctl kb apply: --strict refusals listing every problem (nothing published), revisions that
move only with readable content, removals, stable sourceFileIds, revision-bound cursors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.knowledge_base.support import api, kb_apply, ok, page, refused, wait_revision, write_base
from tests.support.mesh import RunningMesh

pytestmark = pytest.mark.integration


def test_a_bad_folder_is_refused_by_strict_with_every_problem_and_nothing_published(
    kb_mesh: RunningMesh, tmp_path: Path,
) -> None:
    folder = write_base(tmp_path / "bad", {
        "pages/a.md": "---\ntitle: [unclosed\n---\nbody\n",
        "pages/b.md": page("B", "See [outside](../../secret.md)."),
        "pages/c.md": page("C", "x" * 5000),
        "pages/d.md": "---\ntitle: D\n---\nno description and no tags\n",
    })
    result = kb_apply(kb_mesh, folder, "refused-base", "dev", extra=("--max-file-bytes", "2000", "--strict"))
    assert result.returncode == 2
    assert "nothing was published" in result.stderr
    assert "pages/a.md: frontmatter is not valid YAML" in result.stderr
    assert "pages/b.md: link '../secret.md' points outside the knowledge base" in result.stderr
    assert "over the size limit of 2000 bytes" in result.stderr
    assert "pages/d.md: frontmatter description is required" in result.stderr
    assert "pages/d.md: frontmatter tags is required" in result.stderr
    refused(api(kb_mesh, "refused-base", "/tree"), 404, "NOT_FOUND")


def test_revisions_removals_stable_ids_and_stale_cursors(kb_mesh: RunningMesh, tmp_path: Path) -> None:
    kb = "revisions"
    pages = {f"pages/p{i}.md": page(f"Page {i}", f"Body {i} about kiwis.", tags=("fruit",)) for i in range(4)}
    pages["pages/p0.md"] = page("Page 0", "Body 0 about kiwis. See [page 3](p3.md).", tags=("fruit",))
    folder = write_base(tmp_path / "rev", pages)
    assert kb_apply(kb_mesh, folder, kb, "dev", name="Revisions").returncode == 0
    tree = wait_revision(kb_mesh, kb, 1)
    cursor = ok(api(kb_mesh, kb, "/tree", parentPath="pages", limit=2))["nextCursor"]
    p1 = ok(api(kb_mesh, kb, "/files/content", path="pages/p1.md"))["file"]["fileId"]
    p3 = ok(api(kb_mesh, kb, "/files/content", path="pages/p3.md"))["file"]["fileId"]
    p0 = ok(api(kb_mesh, kb, "/files/content", path="pages/p0.md"))["file"]["fileId"]
    assert any(i["fileId"] == p3 for i in ok(api(kb_mesh, kb, f"/files/{p0}/related"))["items"])
    search_cursor = ok(api(kb_mesh, kb, "/files/search", query="kiwis", limit=1))["nextCursor"]
    assert tree["items"]

    # the same folder again: readable content unchanged, the revision stays
    assert kb_apply(kb_mesh, folder, kb, "dev", "analyst").returncode == 0
    wait_revision(kb_mesh, kb, 1, account="analyst")  # the new reader sees it: the apply arrived
    ok(api(kb_mesh, kb, "/tree", parentPath="pages", limit=2, cursor=cursor))

    # change p1, drop p3 (p0's link to it goes too)
    pages["pages/p1.md"] = page("Page 1", "Body 1 is about mangos now.", tags=("fruit",))
    pages["pages/p0.md"] = page("Page 0", "Body 0 about kiwis.", tags=("fruit",))
    del pages["pages/p3.md"]
    assert kb_apply(kb_mesh, write_base(tmp_path / "rev", pages), kb, "dev").returncode == 0
    after = wait_revision(kb_mesh, kb, 2)
    assert after["activeContentRevision"] == 2
    stale = refused(api(kb_mesh, kb, "/tree", parentPath="pages", limit=2, cursor=cursor), 422, "VALIDATION_ERROR")
    assert stale["details"]["reason"] == "stale_cursor"
    stale_search = refused(api(kb_mesh, kb, "/files/search", query="kiwis", limit=1, cursor=search_cursor),
                           422, "VALIDATION_ERROR")
    assert stale_search["details"]["reason"] == "stale_cursor"
    listed = [i["path"] for i in ok(api(kb_mesh, kb, "/tree", parentPath="pages"))["items"]]
    assert "pages/p3.md" not in listed
    refused(api(kb_mesh, kb, f"/files/{p3}/content"), 404, "NOT_FOUND")
    found = ok(api(kb_mesh, kb, "/files/search", query="Page 3 kiwis", limit=50))["items"]
    assert p3 not in [i["fileId"] for i in found]
    assert p3 not in [i["fileId"] for i in ok(api(kb_mesh, kb, f"/files/{p0}/related"))["items"]]
    changed = ok(api(kb_mesh, kb, "/files/content", path="pages/p1.md"))
    assert changed["file"]["fileId"] == p1 and "mangos" in changed["content"]  # same id, new content
    assert ok(api(kb_mesh, kb, "/files/search", query="mangos"))["items"][0]["fileId"] == p1
    # analyst is no longer a reader
    refused(api(kb_mesh, kb, "/tree", account="analyst"), 404, "NOT_FOUND")
