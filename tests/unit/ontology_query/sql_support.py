"""Two small data resources in one catalog, a third in another, for the run_sql tests."""

from __future__ import annotations

from pathlib import Path

from bkn_common.contracts import events as ev
from ontology_query.service_layer.projection import OntologyState

ORDERS = [("o1", "s1", 100.0), ("o2", "s1", 50.5), ("o3", "s2", 7.25), ("o4", "s3", 1.0)]
SUPPLIERS = [("s1", "华东"), ("s2", "华北"), ("s3", "华东")]


def _csv(path: Path, header: str, rows: list[tuple[object, ...]]) -> str:
    path.write_text(header + "\n" + "\n".join(",".join(str(v) for v in r) for r in rows) + "\n")
    return str(path)


def resource(rid: str, catalog: str, path: str, columns: list[tuple[str, str]],
             status: str = "active") -> ev.DataResourceUpserted:
    return ev.DataResourceUpserted.model_validate({
        "id": rid, "name": rid, "catalog_id": catalog, "status": status,
        "columns": [{"name": n, "type": t} for n, t in columns], "source": {"path": path},
    })


def data_state(folder: Path) -> OntologyState:
    state = OntologyState()
    orders = _csv(folder / "orders.csv", "order_id,supplier_code,amount", list(ORDERS))
    suppliers = _csv(folder / "suppliers.csv", "supplier_code,region", list(SUPPLIERS))
    for event in (
        resource("res_orders", "erp", orders,
                 [("order_id", "varchar"), ("supplier_code", "varchar"), ("amount", "double")]),
        resource("res_suppliers", "erp", suppliers,
                 [("supplier_code", "varchar"), ("region", "varchar")]),
        resource("res_elsewhere", "crm", suppliers,
                 [("supplier_code", "varchar"), ("region", "varchar")]),
        resource("res_off", "erp", suppliers,
                 [("supplier_code", "varchar"), ("region", "varchar")], status="disabled"),
        ev.DataResourceGrantsReplaced(account="dev", resource_ids=("*",)),
        ev.DataResourceGrantsReplaced(account="analyst", resource_ids=("res_orders",)),
    ):
        state.data.apply(event)
    return state
