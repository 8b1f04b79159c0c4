"""search_capabilities over the real mesh: scope, one ranking, narrowing, limits, the lifecycle
gate with its bounded re-recall, membership without the index, permissions.

The demo networks stay as the bundle declares them; tests that need other shapes publish
their own networks, toolboxes and lifecycle events (private ids) to the mesh's topics.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from bkn_common.contracts import events as ev
from tests.integration.capabilities.helpers import (
    execute,
    function_tool,
    network,
    ok,
    publish,
    published,
    refs,
    refused,
    search,
    search_refs,
    start_interaction,
    tool_ref,
    wait_receipt,
    wait_until,
)
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh

# Mounted on supply_chain, published and enabled, in binding order (examples/supply_chain):
# tool_get_invoice is disabled, box_legacy_erp is offline, tool_abc_classify is not mounted.
VISIBLE = [
    ("skill", None, "skill_fx_report"),
    ("function", "box_finance", "tool_fx_convert"),
    ("function", "box_finance", "tool_settle_order"),
    ("function", "box_finance", "tool_get_rates"),
    ("function", "box_finance", "tool_slow_op"),
    ("function", "box_analytics", "tool_inventory_turnover"),
    ("function", "box_analytics", "tool_supplier_score"),
    ("mcp_tool", "mcp_logistics", "track_shipment"),
    ("mcp_tool", "mcp_logistics", "estimate_delivery"),
    ("skill", None, "skill_supplier_audit"),
]
HIDDEN = {
    ("function", "box_finance", "tool_get_invoice"),
    ("function", "box_legacy_erp", "tool_legacy_query_stock"),
    ("function", "box_legacy_erp", "tool_legacy_sync_order"),
    ("function", "box_analytics", "tool_abc_classify"),
    ("function", "box_other", "tool_other_echo"),
}
RR_IDS = [f"rr_{i:02d}" for i in range(40)]
RR_QUERY = "gizmo calibrate"


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    with running_mesh(infra, tmp_path_factory.mktemp("cap_search")) as running:
        _publish_fixtures(running)
        yield running


def _rr_box(box_id: str) -> ev.ToolboxUpserted:
    """40 tools with identical text: the ranking breaks the tie by id, rr_00 first."""
    return ev.ToolboxUpserted(
        id=box_id,
        name=box_id,
        kind="function",
        tools=tuple(
            function_tool(
                t,
                f"def handler(a):\n    return {{'tool': {t!r}}}\n",
                name=RR_QUERY,
                description="calibrate the gizmo before a production run",
            )
            for t in RR_IDS
        ),
    )


def _publish_fixtures(mesh: RunningMesh) -> None:
    """Private networks used below (none of them touches supply_chain)."""
    events: list[ev.Event] = [_rr_box("box_rr1"), _rr_box("box_rr2")]
    events += published("box_rr1", RR_IDS) + published("box_rr2", RR_IDS)
    # rr_a: the two best-ranked hits are disabled; rr_b: the eight best-ranked ones are.
    events += [
        ev.ToolStateChanged(owner_id="box_rr1", tool_id=t, enabled=False) for t in RR_IDS[:2]
    ]
    events += [
        ev.ToolStateChanged(owner_id="box_rr2", tool_id=t, enabled=False) for t in RR_IDS[:8]
    ]
    events += network("rr_a", refs=[tool_ref("box_rr1", t) for t in RR_IDS])
    events += network("rr_b", refs=[tool_ref("box_rr2", t) for t in RR_IDS])
    events += network("empty_kn")
    publish(mesh, *events)
    wait_until(lambda: len(search_refs(mesh, "rr_b", limit=100)) == 32, timeout=30)
    wait_until(lambda: search(mesh, "empty_kn").status_code == 200)


def entries(response: Any) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = ok(response)["capabilities"]
    return data


# -- scope and shape ------------------------------------------------------------------------


def test_without_query_lists_the_mounted_usable_set_in_binding_order(mesh: RunningMesh) -> None:
    response = search(mesh)
    assert refs(response) == VISIBLE
    data = ok(response)
    assert data["total_matched"] == len(VISIBLE)
    assert "truncated" not in data or data["truncated"] is False
    for entry in data["capabilities"]:
        assert entry["name"] and entry["description"]
        if entry["capability_type"] == "skill":
            assert "owner_id" not in entry and "input_schema" not in entry
        else:
            assert entry["owner_id"] and isinstance(entry["input_schema"], dict)
    by_id = {e["capability_id"]: e for e in data["capabilities"]}
    assert by_id["tool_fx_convert"]["metadata_type"] == "openapi"
    assert by_id["tool_supplier_score"]["metadata_type"] == "function"
    assert "metadata_type" not in by_id["track_shipment"]
    assert by_id["tool_fx_convert"]["use_rule"] == "只用于已结算币种，未结算单据先调 settle_order"


def test_tool_schemas_carry_business_inputs_only(mesh: RunningMesh) -> None:
    response = search(mesh)
    text = response.text
    # Server addresses and transport settings of the registrations never reach the caller.
    for secret in (
        mesh.url("finance_api"),
        mesh.url("logistics_mcp"),
        "server_url",
        "timeout_seconds",
        "127.0.0.1",
    ):
        assert secret not in text
    by_id = {e["capability_id"]: e for e in entries(response)}
    fx = by_id["tool_fx_convert"]["input_schema"]
    assert set(fx["request_body"]["content"]["application/json"]["schema"]["properties"]) == {
        "amount",
        "from",
        "to",
        "date",
    }
    settle = by_id["tool_settle_order"]["input_schema"]
    assert [(p["name"], p["in"]) for p in settle["parameters"]] == [
        ("order_id", "path"),
        ("currency", "query"),
        ("X-Settlement-Channel", "header"),
    ]
    assert by_id["track_shipment"]["input_schema"]["required"] == ["shipment_id"]


def test_auth_and_cookie_parameters_are_trimmed_from_schema_and_never_sent(
    mesh: RunningMesh,
) -> None:
    op = ev.OpenApiOperation(
        method="GET",
        path="/rates",
        parameters=(
            ev.OpenApiParameter(name="base", location="query", json_schema={"type": "string"}),
            ev.OpenApiParameter(
                name="Authorization",
                location="header",
                required=True,
                json_schema={"type": "string"},
            ),
            ev.OpenApiParameter(name="session", location="cookie", json_schema={"type": "string"}),
        ),
    )
    box = ev.ToolboxUpserted(
        id="box_trim",
        name="trim",
        kind="openapi",
        server_url=mesh.url("finance_api"),
        tools=(
            ev.ToolSpec(
                id="tool_rates_auth", name="rates with auth", description="rate table", openapi=op
            ),
        ),
    )
    publish(
        mesh,
        box,
        *published("box_trim", ["tool_rates_auth"]),
        *network("trim_kn", refs=[tool_ref("box_trim", "tool_rates_auth")]),
    )
    entry = wait_until(lambda: next(iter(entries(search(mesh, "trim_kn"))), None))
    assert [p["name"] for p in entry["input_schema"]["parameters"]] == ["base"]
    assert "Authorization" not in json.dumps(entry)
    context = start_interaction(mesh)
    response = execute(
        mesh,
        context,
        "box_trim",
        "tool_rates_auth",
        {"base": "USD", "Authorization": "Bearer stolen"},
        kn_id="trim_kn",
    )
    assert ok(response)["base"] == "USD"
    receipt = wait_receipt(mesh, lambda r: r.operation_id == response.headers["bkn-operation-id"])
    assert receipt.ignored_transport_fields == ("Authorization",)
    assert receipt.proxy_id == "proxy-trim_kn"


def test_one_ranking_mixes_every_kind_of_capability(mesh: RunningMesh) -> None:
    hits = entries(search(mesh, query="运单 供应商 汇率"))
    kinds = {(h["capability_type"], h.get("metadata_type")) for h in hits}
    assert kinds == {
        ("skill", None),
        ("function", "openapi"),
        ("function", "function"),
        ("mcp_tool", None),
    }
    # one ranked list, not a section per type
    order = [h["capability_type"] for h in hits]
    sections = [t for i, t in enumerate(order) if i == 0 or order[i - 1] != t]
    assert len(sections) > len(set(order))


def test_unmounted_capabilities_are_never_found(mesh: RunningMesh) -> None:
    for query in ("ABC 分类", "回显", "旧版 ERP 库存 同步订单", "发票"):
        assert not set(search_refs(mesh, query=query)) & HIDDEN
    for body in (
        {},
        {"limit": 100},
        {"owner_id": "box_analytics"},
        {"types": ["function"]},
        {"metadata_types": ["function"]},
        {"metadata_types": ["openapi"]},
    ):
        assert not set(search_refs(mesh, **body)) & HIDDEN
    # the echo tool exists and is indexed: it is simply mounted elsewhere
    assert ("function", "box_other", "tool_other_echo") in search_refs(
        mesh, "other_network", query="回显"
    )


# -- narrowing ------------------------------------------------------------------------------


def test_types_metadata_types_and_owner_narrow_within_the_mounted_set(mesh: RunningMesh) -> None:
    skills = [r for r in VISIBLE if r[0] == "skill"]
    assert search_refs(mesh, types=["skill"]) == skills
    assert search_refs(mesh, types=["mcp_tool"]) == [r for r in VISIBLE if r[0] == "mcp_tool"]
    assert search_refs(mesh, types=["skill", "mcp_tool"]) == [
        r for r in VISIBLE if r[0] != "function"
    ]
    assert search_refs(mesh, metadata_types=["function"]) == [
        ("function", "box_analytics", "tool_inventory_turnover"),
        ("function", "box_analytics", "tool_supplier_score"),
    ]
    assert search_refs(mesh, metadata_types=["openapi"]) == [
        r for r in VISIBLE if r[1] == "box_finance"
    ]
    assert search_refs(mesh, owner_id="box_analytics") == [
        r for r in VISIBLE if r[1] == "box_analytics"
    ]
    assert search_refs(mesh, owner_id="mcp_logistics", query="运单") == [
        ("mcp_tool", "mcp_logistics", "track_shipment")
    ]
    assert search_refs(mesh, owner_id="box_other") == []


def test_owner_id_excludes_skills(mesh: RunningMesh) -> None:
    assert search_refs(mesh, owner_id="box_finance", types=["skill"]) == []
    with_owner = search_refs(mesh, owner_id="box_finance", query="汇率")
    assert with_owner and all(r[0] != "skill" for r in with_owner)
    assert ("skill", None, "skill_fx_report") in search_refs(mesh, query="汇率")


@pytest.mark.parametrize(
    "body", [{"types": ["toolbox"]}, {"metadata_types": ["mcp"]}, {"unknown_field": 1}]
)
def test_invalid_filters_are_refused(mesh: RunningMesh, body: dict[str, Any]) -> None:
    refused(search(mesh, **body), 400, "invalid_request")


# -- limit, truncation, totals ----------------------------------------------------------------


def test_limit_defaults_to_20_and_truncation_is_reported(mesh: RunningMesh) -> None:
    data = ok(search(mesh, "rr_a"))
    assert len(data["capabilities"]) == 20
    assert data["total_matched"] == 38 and data["truncated"] is True
    assert "38" in data["message"] and "20" in data["message"]
    data = ok(search(mesh, "rr_a", limit=100))
    assert len(data["capabilities"]) == 38 and data["total_matched"] == 38
    assert not data.get("truncated")
    data = ok(search(mesh, limit=1))
    assert refs_of(data) == VISIBLE[:1]
    assert data["total_matched"] == len(VISIBLE) and data["truncated"] is True and data["message"]
    data = ok(search(mesh, query="汇率", limit=1))
    assert (
        len(data["capabilities"]) == 1 and data["total_matched"] > 1 and data["truncated"] is True
    )


def refs_of(data: dict[str, Any]) -> list[tuple[str, str | None, str]]:
    return [
        (c["capability_type"], c.get("owner_id"), c["capability_id"]) for c in data["capabilities"]
    ]


@pytest.mark.parametrize("limit", [0, -1, 101, 1000, "many", 2.5, None])
def test_limit_outside_1_to_100_is_a_400(mesh: RunningMesh, limit: Any) -> None:
    body = refused(search(mesh, limit=limit), 400, "invalid_request")
    assert "limit" in body["message"]


def test_kn_id_is_required(mesh: RunningMesh) -> None:
    refused(search(mesh, None), 400, "invalid_request")
    refused(search(mesh, None, query="汇率"), 400, "invalid_request")
    refused(search(mesh, ""), 400, "invalid_request")


# -- empty results --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body", [{}, {"query": "汇率"}, {"types": ["skill"]}, {"metadata_types": ["openapi"]}]
)
def test_a_network_without_bindings_gives_an_empty_list_with_a_hint(
    mesh: RunningMesh, body: dict[str, Any]
) -> None:
    data = ok(search(mesh, "empty_kn", **body))
    assert data["capabilities"] == [] and data["total_matched"] == 0
    assert "no capabilities mounted" in data["message"]
    zh = ok(search(mesh, "empty_kn", headers={"Accept-Language": "zh-CN"}, **body))
    assert "尚未挂载任何能力" in zh["message"]


def test_no_match_is_200_with_an_empty_list_and_a_message(mesh: RunningMesh) -> None:
    data = ok(search(mesh, query="量子纠缠 望远镜"))
    assert data["capabilities"] == [] and data["total_matched"] == 0 and data["message"]


def test_empty_result_caused_by_lifecycle_points_at_publish_state(mesh: RunningMesh) -> None:
    # the index itself knows nothing of lifecycle (it may lag anyway): it still ranks the hit
    with mesh.internal("capability_index") as client:
        indexed = client.post("/internal/v1/search", json={"kn_id": "supply_chain", "query": "发票"}).json()
    assert "tool_get_invoice" in [h["capability_id"] for h in indexed["hits"]]
    data = ok(search(mesh, query="发票"))  # only the disabled get_invoice matches
    assert data["capabilities"] == []
    assert "publish state" in data["message"] and "not permission" in data["message"]
    zh = ok(search(mesh, query="发票", headers={"Accept-Language": "zh-CN"}))
    assert "发布状态" in zh["message"]
    data = ok(search(mesh, owner_id="box_legacy_erp"))  # mounted but offline
    assert data["capabilities"] == [] and "publish state" in data["message"]


# -- lifecycle gate and re-recall --------------------------------------------------------------


def test_gate_removal_is_refilled_by_one_bounded_re_recall(mesh: RunningMesh) -> None:
    # rr_00 and rr_01 rank first and are disabled: the first recall (3) keeps one hit, the
    # re-recall (9) fills the page.
    data = ok(search(mesh, "rr_a", query=RR_QUERY, limit=3))
    assert [c["capability_id"] for c in data["capabilities"]] == ["rr_02", "rr_03", "rr_04"]
    assert data["truncated"] is True and data["total_matched"] == 38


def test_still_short_after_the_re_recall_is_marked_incomplete(mesh: RunningMesh) -> None:
    # eight disabled hits rank first: the re-recall (limit×3 = 9) finds only rr_08.
    data = ok(search(mesh, "rr_b", query=RR_QUERY, limit=3))
    assert [c["capability_id"] for c in data["capabilities"]] == ["rr_08"]
    assert data["truncated"] is True and "incomplete" in data["message"]
    # with room for everything, nothing is incomplete: re-recall is bounded by 100
    data = ok(search(mesh, "rr_b", query=RR_QUERY, limit=40))
    assert len(data["capabilities"]) == 32 and not data.get("truncated")
    assert all(int(c["capability_id"][3:]) >= 8 for c in data["capabilities"])


def test_unconfirmable_state_is_neither_listed_nor_run(mesh: RunningMesh) -> None:
    box = ev.ToolboxUpserted(
        id="box_unconfirmed",
        name="unconfirmed",
        kind="function",
        tools=(
            function_tool(
                "tool_hello",
                "def handler(a):\n    return {'hello': a.get('name')}\n",
                description="say hello to a colleague",
            ),
        ),
    )
    publish(mesh, box, *network("unconf_kn", refs=[tool_ref("box_unconfirmed", "tool_hello")]))
    wait_until(lambda: search(mesh, "unconf_kn").status_code == 200)
    context = start_interaction(mesh)

    def refusal() -> dict[str, Any]:
        response = execute(
            mesh, context, "box_unconfirmed", "tool_hello", {"name": "x"}, kn_id="unconf_kn"
        )
        assert response.status_code == 409, response.text
        result: dict[str, Any] = response.json()
        return result

    # no lifecycle record at all: the owner's state cannot be confirmed
    wait_until(lambda: refusal()["code"] == "owner_unpublished")
    assert refusal()["details"]["reason"] == "owner_state_unknown"
    for body in ({}, {"query": "hello colleague"}):
        data = ok(search(mesh, "unconf_kn", **body))
        assert data["capabilities"] == [] and "publish state" in data["message"]
    # published owner, tool state still unknown
    publish(
        mesh,
        ev.OwnerStateChanged(owner_kind="toolbox", owner_id="box_unconfirmed", state="published"),
    )
    wait_until(lambda: refusal()["code"] == "tool_disabled")
    assert refusal()["details"]["reason"] == "tool_state_unknown"
    assert search_refs(mesh, "unconf_kn") == []
    publish(
        mesh, ev.ToolStateChanged(owner_id="box_unconfirmed", tool_id="tool_hello", enabled=True)
    )
    wait_until(lambda: search_refs(mesh, "unconf_kn", query="hello colleague"))
    assert ok(
        execute(mesh, context, "box_unconfirmed", "tool_hello", {"name": "x"}, kn_id="unconf_kn")
    ) == {"hello": "x"}


def test_binding_and_lifecycle_events_become_visible_in_search(mesh: RunningMesh) -> None:
    """(The 1 s p95 is measured by bench/search_capabilities.py; here: it happens, promptly.)"""
    abc = ("function", "box_analytics", "tool_abc_classify")
    publish(mesh, *network("vis_kn", refs=[tool_ref("box_analytics", "tool_inventory_turnover")]))
    wait_until(lambda: search(mesh, "vis_kn").status_code == 200)
    timings = {}
    started = time.monotonic()
    publish(
        mesh,
        ev.BindingMounted(
            kn_id="vis_kn", capability=tool_ref("box_analytics", "tool_abc_classify")
        ),
    )
    wait_until(lambda: abc in search_refs(mesh, "vis_kn", query="ABC 分类"), timeout=10)
    timings["mounted"] = time.monotonic() - started
    started = time.monotonic()
    publish(
        mesh,
        ev.ToolStateChanged(owner_id="box_analytics", tool_id="tool_abc_classify", enabled=False),
    )
    wait_until(lambda: abc not in search_refs(mesh, "vis_kn", query="ABC 分类"), timeout=10)
    timings["disabled"] = time.monotonic() - started
    started = time.monotonic()
    publish(
        mesh,
        ev.ToolStateChanged(owner_id="box_analytics", tool_id="tool_abc_classify", enabled=True),
    )
    wait_until(lambda: abc in search_refs(mesh, "vis_kn"), timeout=10)
    timings["enabled"] = time.monotonic() - started
    print("visibility seconds:", timings)
    assert abc not in search_refs(mesh)  # still only mounted on vis_kn


# -- permissions ------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [{}, {"query": "汇率"}, {"types": ["skill"]}])
def test_sub_resource_grants_do_not_stand_in_for_network_view_detail(
    mesh: RunningMesh, body: dict[str, Any]
) -> None:
    data = refused(search(mesh, account="subonly", **body), 403, "network_permission_denied")
    assert "view_detail" in data["message"] and "supply_chain" in data["message"]
    assert data["details"]["missing_permission"] == "view_detail"
    assert data["details"]["resource"] == "knowledge_network:supply_chain"
    zh = refused(
        search(mesh, account="subonly", headers={"Accept-Language": "zh-CN"}, **body),
        403,
        "network_permission_denied",
    )
    assert "知识网络 supply_chain 本身" in zh["message"] and "view_detail" in zh["message"]


def test_view_detail_on_the_network_is_enough_to_search(mesh: RunningMesh) -> None:
    assert search_refs(mesh, account="viewer") == VISIBLE
    assert search_refs(mesh, account="analyst") == VISIBLE
    refused(search(mesh, "no_such_network"), 404, "not_found")
    # dev has no grant on rr networks' siblings it was not given: a private net with viewer only
    publish(mesh, *network("viewer_only_kn", grants={"viewer": ("view_detail",)}))
    wait_until(lambda: search(mesh, "viewer_only_kn", account="viewer").status_code == 200)
    refused(search(mesh, "viewer_only_kn"), 403, "network_permission_denied")


def test_execute_skill_does_not_exist_unless_enabled(mesh: RunningMesh) -> None:
    response = mesh.call("execute_skill", {"kn_id": "supply_chain", "skill_id": "skill_fx_report"})
    refused(response, 404, "unknown_tool")


# -- membership without the index ---------------------------------------------------------------


def test_index_outage_keeps_membership_but_refuses_query_and_metadata_types(
    mesh: RunningMesh,
) -> None:
    publish(mesh, *network("late_kn", refs=[tool_ref("box_analytics", "tool_supplier_score")]))
    wait_until(lambda: search_refs(mesh, "late_kn"))
    mesh.stop("capability-index")
    try:
        assert search_refs(mesh) == VISIBLE
        body = refused(search(mesh, query="汇率"), 503, "capability_index_unavailable")
        assert body["message"]
        refused(search(mesh, metadata_types=["openapi"]), 503, "capability_index_unavailable")
        refused(
            search(mesh, metadata_types=["function"], types=["function"]),
            503,
            "capability_index_unavailable",
        )
        # mounted while the index is down: listed at once, names from the catalogue
        publish(
            mesh,
            ev.BindingMounted(
                kn_id="late_kn", capability=tool_ref("box_analytics", "tool_abc_classify")
            ),
        )
        listed = wait_until(
            lambda: len(entries(search(mesh, "late_kn"))) == 2 and entries(search(mesh, "late_kn"))
        )
        abc = listed[1]
        assert (abc["capability_id"], abc["name"]) == ("tool_abc_classify", "ABC 分类")
        assert abc["description"] and abc["input_schema"]["required"] == ["values"]
    finally:
        mesh.start("capability-index")
    assert search_refs(mesh, query="汇率")
    assert ("function", "box_analytics", "tool_abc_classify") in search_refs(
        mesh, "late_kn", query="ABC 分类"
    )


# -- provenance ------------------------------------------------------------------------------------


def test_search_is_ad_hoc_without_context_and_managed_with_one(mesh: RunningMesh) -> None:
    plain = search(mesh, query="汇率")
    assert refs(plain) and "bkn-receipt-id" not in plain.headers
    context = start_interaction(mesh)
    managed = search(mesh, query="汇率", bkn_context=context)
    assert refs(managed) == refs(plain)
    assert managed.headers["bkn-operation-id"] and managed.headers["bkn-receipt-id"]
    assert refs(search(mesh, query="汇率", bkn_context={})) == refs(plain)
    refused(
        search(mesh, query="汇率", bkn_context={"conversation_id": context["conversation_id"]}),
        400,
        "invalid_bkn_context",
    )
