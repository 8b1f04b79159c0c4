"""search_files through the gateway: candidates, statuses, refusals, cursors."""

from __future__ import annotations

import pytest

from tests.integration.knowledge_base.support import DEMO, api, get, ok, refused, wait_revision
from tests.support.mesh import RunningMesh

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module", autouse=True)
def demo_ready(kb_mesh: RunningMesh) -> None:
    wait_revision(kb_mesh, DEMO, 1)


def search(mesh: RunningMesh, query: str, **params: object) -> dict[str, object]:
    return ok(api(mesh, DEMO, "/files/search", query=query, **params))


def test_items_carry_the_seed_fields_and_working_read_actions(kb_mesh: RunningMesh) -> None:
    body = search(kb_mesh, "How many days of annual leave do employees get?")
    assert body["searchStatus"] == "ok" and body["searchMode"] == "hybrid"
    assert body["activeContentRevision"] == 1
    assert body["rerankerStatus"] == {"state": "skipped", "safeCode": "RERANKER_DISABLED"}
    assert body["semanticStatus"]["state"] in ("ready", "degraded")  # type: ignore[index]
    items = body["items"]
    assert isinstance(items, list)
    top = items[0]
    assert top["path"] in ("pages/hr/annual-leave.md", "pages/zh/nianjia.md")
    assert {"fileId", "sourceFileId", "path", "title", "description", "score", "matchedFields",
            "evidenceTypes", "sourceExcerpt", "contentAvailable", "readActions"} <= set(top)
    assert len(top["sourceExcerpt"]) <= 260
    read = ok(get(kb_mesh, top["readActions"]["fileContentById"]))
    assert read["file"]["fileId"] == top["fileId"]


def test_exact_title_and_path_come_first(kb_mesh: RunningMesh) -> None:
    assert search(kb_mesh, "Contract Renewal Notices")["items"][0]["path"] == "pages/legal/contract-renewals.md"  # type: ignore[index]
    assert search(kb_mesh, "pages/it/vpn.md")["items"][0]["path"] == "pages/it/vpn.md"  # type: ignore[index]
    assert search(kb_mesh, "年假制度")["items"][0]["path"] == "pages/zh/nianjia.md"  # type: ignore[index]


def test_chinese_question_finds_chinese_pages(kb_mesh: RunningMesh) -> None:
    body = search(kb_mesh, "发现钓鱼邮件后多久之内必须上报？", mode="file")
    paths = [i["path"] for i in body["items"]]  # type: ignore[attr-defined]
    assert paths[0] == "pages/zh/xinxi-anquan.md"


def test_search_never_returns_navigation_files(kb_mesh: RunningMesh) -> None:
    for query in ("index", "catalog json", "company handbook policies", "_index/catalog.json", "relations of"):
        body = search(kb_mesh, query, limit=50)
        for item in body["items"]:  # type: ignore[attr-defined]
            assert item["path"].startswith("pages/"), item["path"]
    # unless asked for by exact path or title: index.md's title is "Company Handbook"
    for query in ("index.md", "Company Handbook"):
        paths = [i["path"] for i in search(kb_mesh, query, limit=50)["items"]]  # type: ignore[attr-defined]
        assert paths[0] == "index.md" and all(p.startswith("pages/") for p in paths[1:]), paths


def test_gibberish_is_a_successful_empty_result(kb_mesh: RunningMesh) -> None:
    body = search(kb_mesh, "qxzvv blorftang zzkqpw")
    assert body["searchStatus"] == "no_candidates" and body["items"] == []
    assert body["message"] and body["nextActions"]


def test_limits_and_modes_are_validated(kb_mesh: RunningMesh) -> None:
    for params in ({"limit": 0}, {"limit": 51}, {"mode": "fuzzy"}, {"graphDepth": 3}):
        refused(api(kb_mesh, DEMO, "/files/search", query="travel", **params), 422, "VALIDATION_ERROR")
    refused(api(kb_mesh, DEMO, "/files/search", query="x"), 422, "VALIDATION_ERROR")
    lexical = search(kb_mesh, "travel hotel cap", mode="file")
    assert lexical["semanticStatus"]["state"] == "unavailable"  # type: ignore[index]
    assert search(kb_mesh, "travel", rerank="true")["rerankerStatus"]["state"] == "not_configured"  # type: ignore[index]


def test_search_cursor_continues_and_is_bound_to_the_query(kb_mesh: RunningMesh) -> None:
    first = search(kb_mesh, "policy", limit=2)
    assert first["nextCursor"]
    second = search(kb_mesh, "policy", limit=2, cursor=first["nextCursor"])
    assert {i["fileId"] for i in first["items"]}.isdisjoint(i["fileId"] for i in second["items"])  # type: ignore[attr-defined]
    other = refused(api(kb_mesh, DEMO, "/files/search", query="leave", limit=2, cursor=first["nextCursor"]),
                    422, "VALIDATION_ERROR")
    assert other["details"]["reason"] == "stale_cursor"
    refused(api(kb_mesh, DEMO, "/files/search", query="policy", limit=2, cursor="sc_made_up"),
            422, "VALIDATION_ERROR")
