"""Helpers shared by the ontology tool tests: the demo data as a reference, reading responses."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import httpx
import yaml

KN = "supply_chain"
DEMO = Path(__file__).resolve().parents[3] / "examples" / "supply_chain"
ZH = {"Accept-Language": "zh-CN"}
EN = {"Accept-Language": "en-US"}


@cache
def _instances() -> dict[str, Any]:
    data: dict[str, Any] = yaml.load((DEMO / "instances.yaml").read_text(), Loader=yaml.CSafeLoader)
    return data


def demo_rows(ot_id: str) -> list[dict[str, Any]]:
    """The demo bundle's instances of ``ot_id`` (the reference the answers are checked against)."""
    return list(_instances()["objects"][ot_id])


def demo_links(rt_id: str) -> list[tuple[str, str]]:
    return [(s, t) for s, t in _instances()["relations"][rt_id]]


def leaf(field: str, operation: str, value: Any = None) -> dict[str, Any]:
    if value is None:
        return {"field": field, "operation": operation}
    return {"field": field, "operation": operation, "value": value, "value_from": "const"}


def ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


def refused(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    return body
