"""get_logic_properties_values applies the caller's object-type grants like
query_object_instance (seed 003): rows outside the row filter are not visible, and the
result carries ``permission_guidance`` naming the row filter and the hidden properties."""

from __future__ import annotations

from tests.integration.actions.helpers import logic_values, objects, ok
from tests.support.mesh import RunningMesh

WINDOW = {"start_time": "2000-01-01T00:00:00+08:00", "end_time": "2100-01-01T00:00:00+08:00"}


def _customers() -> tuple[dict[str, str], dict[str, str]]:
    """One customer inside the analyst's row filter (region 华东) and one outside."""
    inside = next(c for c in objects("customer") if c["region"] == "华东")
    outside = next(c for c in objects("customer") if c["region"] != "华东")
    return {"customer_id": inside["customer_id"]}, {"customer_id": outside["customer_id"]}


def _ask(mesh: RunningMesh, account: str) -> dict[str, object]:
    inside, outside = _customers()
    return ok(
        logic_values(
            mesh,
            "customer",
            [inside, outside],
            ["sales_order_count"],
            {"sales_order_count": WINDOW},
            account=account,
        )
    )


def test_row_filter_hides_outside_instances_and_guidance_explains(mesh: RunningMesh) -> None:
    inside, outside = _customers()
    full = _ask(mesh, "dev")
    assert "permission_guidance" not in full
    dev_rows = full["datas"]
    assert isinstance(dev_rows, list)
    assert [r["_instance_identity"] for r in dev_rows] == [inside, outside]
    assert all(isinstance(r["sales_order_count"], int) for r in dev_rows)
    assert all("_error" not in r for r in dev_rows)

    body = _ask(mesh, "analyst")
    rows = body["datas"]
    assert isinstance(rows, list)
    assert rows[0] == dev_rows[0]  # visible row: the same value as an unrestricted caller
    assert rows[1]["_instance_identity"] == outside
    assert rows[1]["_error"]["code"] == "instance_not_visible"
    assert "sales_order_count" not in rows[1]

    guidance = body["permission_guidance"]
    assert isinstance(guidance, dict)
    assert guidance["resource"]["ot_id"] == "customer"
    scopes = {s["scope"]: s for s in guidance["shortfalls"]}
    assert "row_filter" in scopes
    assert scopes["property_grants"]["properties"] == ["contact_phone", "credit_limit"]
    assert guidance["message"]
