"""Reading the demo base through the gateway's public REST API (seed 002): tree, files,
relations, graph expansion, access, the envelope and every readActions path as returned."""

from __future__ import annotations

import pytest

from tests.integration.knowledge_base.support import DEMO, api, get, ok, refused, wait_revision
from tests.support.mesh import RunningMesh

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module", autouse=True)
def demo_ready(kb_mesh: RunningMesh) -> None:
    wait_revision(kb_mesh, DEMO, 1)


def _file_id(mesh: RunningMesh, path: str) -> str:
    body = ok(api(mesh, DEMO, "/files/content", path=path))
    return str(body["file"]["fileId"])


def test_tree_lists_directories_and_files_with_read_actions_that_work(kb_mesh: RunningMesh) -> None:
    root = ok(api(kb_mesh, DEMO, "/tree"))
    assert root["activeContentRevision"] == 1 and root["nextCursor"] is None
    by_path = {i["path"]: i for i in root["items"]}
    assert {"pages", "_index", "_graph", "index.md"} <= set(by_path)
    assert by_path["pages"]["entryType"] == "directory"
    assert by_path["index.md"]["navigation"] is True and by_path["index.md"]["fileKind"] == "index"
    hr = ok(get(kb_mesh, by_path["pages"]["readActions"]["treeByParentPath"]))
    assert any(i["path"] == "pages/hr" for i in hr["items"])
    leaves = ok(api(kb_mesh, DEMO, "/tree", parentPath="pages/hr"))
    item = next(i for i in leaves["items"] if i["path"] == "pages/hr/annual-leave.md")
    assert item["fileId"] == item["sourceFileId"] and item["fileId"].startswith("source-file-")
    assert (item["entryType"], item["fileKind"], item["contentAvailable"]) == ("file", "page", True)
    read = ok(get(kb_mesh, item["readActions"]["fileContentByPath"]))
    assert read["file"]["path"] == "pages/hr/annual-leave.md" and "20 days" in read["content"]
    directory_index = next(i for i in leaves["items"] if i["path"] == "pages/hr/index.md")
    assert directory_index["navigation"] is True and directory_index["fileKind"] == "directory_index"


def test_tree_pages_with_cursor_bound_to_parent_and_limit(kb_mesh: RunningMesh) -> None:
    first = ok(api(kb_mesh, DEMO, "/tree", parentPath="pages/hr", limit=3))
    assert len(first["items"]) == 3 and first["nextCursor"]
    second = ok(api(kb_mesh, DEMO, "/tree", parentPath="pages/hr", limit=3, cursor=first["nextCursor"]))
    assert not {i["path"] for i in first["items"]} & {i["path"] for i in second["items"]}
    other_limit = refused(api(kb_mesh, DEMO, "/tree", parentPath="pages/hr", limit=4,
                              cursor=first["nextCursor"]), 422, "VALIDATION_ERROR")
    assert other_limit["details"]["reason"] == "stale_cursor"
    assert other_limit["details"]["retryHint"] == "restart_without_cursor"
    refused(api(kb_mesh, DEMO, "/tree", parentPath="pages/it", limit=3, cursor=first["nextCursor"]),
            422, "VALIDATION_ERROR")
    refused(api(kb_mesh, DEMO, "/tree", limit=0), 422, "VALIDATION_ERROR")


def test_read_file_by_id_and_by_path_is_the_seed_shape(kb_mesh: RunningMesh) -> None:
    file_id = _file_id(kb_mesh, "pages/finance/travel-policy-2025.md")
    by_id = ok(api(kb_mesh, DEMO, f"/files/{file_id}/content"))
    assert set(by_id) == {"file", "content"}
    file = by_id["file"]
    assert {"activeContentRevision", "fileId", "sourceFileId", "path", "title", "frontmatter",
            "readActions"} <= set(file)
    assert file["frontmatter"]["tags"] == ["finance", "travel"]
    assert ok(get(kb_mesh, file["readActions"]["relatedFilesById"]))["fileId"] == file_id
    meta = ok(api(kb_mesh, DEMO, f"/files/{file_id}"))
    assert meta["description"].startswith("Booking flights") and meta["contentAvailable"] is True
    assert meta["generatedOutputStatus"] == "current_available" and "content" not in meta
    assert ok(get(kb_mesh, meta["readActions"]["fileContentByPath"]))["content"] == by_id["content"]


def test_read_file_needs_exactly_one_of_file_id_and_path(kb_mesh: RunningMesh) -> None:
    file_id = _file_id(kb_mesh, "pages/hr/sick-leave.md")
    both = refused(api(kb_mesh, DEMO, "/files/content", path="pages/hr/sick-leave.md", fileId=file_id),
                   422, "VALIDATION_ERROR")
    assert "exactly one" in both["message"]
    refused(api(kb_mesh, DEMO, "/files/content"), 422, "VALIDATION_ERROR")
    refused(api(kb_mesh, DEMO, "/files/content", path="pages/nope.md"), 404, "NOT_FOUND")


def test_navigation_files_are_readable_and_marked(kb_mesh: RunningMesh) -> None:
    catalog = ok(api(kb_mesh, DEMO, "/files/content", path="_index/catalog.json"))
    assert catalog["file"]["navigation"] is True and catalog["file"]["sourceFileId"] is None
    assert '"pages/hr/annual-leave.md"' in catalog["content"]
    graph_ref = ok(api(kb_mesh, DEMO, f"/files/{_file_id(kb_mesh, 'pages/hr/annual-leave.md')}/related"))["graphRef"]
    graph = ok(api(kb_mesh, DEMO, "/files/content", path=graph_ref))
    assert graph["file"]["fileKind"] == "graph" and "pages/hr/sick-leave.md" in graph["content"]


def test_related_files_links_frontmatter_and_weaker_shared_tags(kb_mesh: RunningMesh) -> None:
    leave = _file_id(kb_mesh, "pages/hr/annual-leave.md")
    related = ok(api(kb_mesh, DEMO, f"/files/{leave}/related", limit=100))
    kinds = {(i["path"], i["relationType"], i["direction"]) for i in related["items"]}
    assert ("pages/hr/sick-leave.md", "references", "outgoing") in kinds  # a Markdown link
    assert ("pages/hr/sick-leave.md", "related", "incoming") not in kinds  # one record per direction
    assert ("pages/zh/nianjia.md", "references", "incoming") in kinds  # linked (and named) by the Chinese page
    assert ("pages/hr/parental-leave.md", "related", "incoming") in kinds  # see_also
    tagged = [i for i in related["items"] if i["relationType"] == "shared_tag"]
    linked = [i for i in related["items"] if i["relationType"] != "shared_tag"]
    assert tagged and max(i["weight"] for i in tagged) < min(i["weight"] for i in linked)
    assert all(i["reason"] for i in related["items"])
    page = ok(api(kb_mesh, DEMO, f"/files/{leave}/related", limit=2))
    rest = ok(api(kb_mesh, DEMO, f"/files/{leave}/related", limit=2, cursor=page["nextCursor"]))
    assert page["items"] != rest["items"]
    refused(api(kb_mesh, DEMO, f"/files/{leave}/related", limit=0), 422, "VALIDATION_ERROR")


def test_expand_graph_walks_depth_and_returns_working_actions(kb_mesh: RunningMesh) -> None:
    seed = _file_id(kb_mesh, "pages/hr/onboarding.md")
    one = ok(api(kb_mesh, DEMO, "/graph/expand", fileId=seed, depth=1, fanout=10))
    assert one["seedFile"]["fileId"] == seed and one["relationships"]
    assert {r["depth"] for r in one["relationships"]} == {1}
    two = ok(api(kb_mesh, DEMO, "/graph/expand", fileId=seed, depth=2, fanout=3))
    assert 2 in {r["depth"] for r in two["relationships"]}
    assert two["graphPaths"][0] == "_graph/by-file/hr/onboarding.json"
    first = two["relationships"][0]
    assert ok(get(kb_mesh, first["readActions"]["fileContentByPath"]))["file"]["fileId"] == first["fileId"]
    assert ok(get(kb_mesh, first["readActions"]["graphExpansionByFileId"]))["seedFile"]["fileId"] == first["fileId"]
    for path in two["graphPaths"]:
        ok(api(kb_mesh, DEMO, "/files/content", path=path))
    zero = ok(api(kb_mesh, DEMO, "/graph/expand", fileId=seed, depth=0))
    assert zero["relationships"] == []
    refused(api(kb_mesh, DEMO, "/graph/expand", fileId=seed, depth=3), 422, "VALIDATION_ERROR")


def test_a_base_the_account_may_not_read_is_not_found(kb_mesh: RunningMesh) -> None:
    hidden = refused(api(kb_mesh, DEMO, "/tree", account="viewer"), 404, "NOT_FOUND")
    missing = refused(api(kb_mesh, "no-such-base", "/tree"), 404, "NOT_FOUND")
    assert hidden["details"]["resource"] == missing["details"]["resource"] == "knowledge_base"
    refused(api(kb_mesh, DEMO, "/files/search", account="viewer", query="annual leave"), 404, "NOT_FOUND")
    with kb_mesh.client("dev") as client:
        unauthenticated = client.get(f"/openapi/v2/knowledge-bases/{DEMO}/tree", headers={"Authorization": ""})
    refused(unauthenticated, 401, "UNAUTHORIZED")


def test_messages_follow_accept_language(kb_mesh: RunningMesh) -> None:
    with kb_mesh.client("dev", **{"Accept-Language": "zh-CN"}) as client:
        zh = client.get(f"/openapi/v2/knowledge-bases/{DEMO}/files/content", params={"path": "pages/x.md"})
    assert "未找到" in zh.json()["error"]["message"]
