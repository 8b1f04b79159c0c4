"""The demo "finance" OpenAPI upstream, exercised in-process through httpx's ASGITransport."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from demo_upstreams import finance_api
from demo_upstreams.finance_api import OPERATION_IDS, create_app


@pytest.fixture
def app() -> FastAPI:
    return create_app()


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://finance.test") as c:
        yield c


async def stats(client: httpx.AsyncClient) -> dict[str, int]:
    response = await client.get("/_stats")
    assert response.status_code == 200
    body: dict[str, int] = response.json()
    return body


# ------------------------------------------------------------------ OpenAPI document


async def test_openapi_document_has_stable_operation_ids(client: httpx.AsyncClient) -> None:
    response = await client.get("/openapi.json")
    assert response.status_code == 200
    spec = response.json()
    assert spec["info"]["title"] == "finance"
    operations = {
        op["operationId"]: (method.upper(), path, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
    }
    assert {k: v[:2] for k, v in operations.items()} == {
        "fx_convert": ("POST", "/fx/convert"),
        "settle_order": ("POST", "/orders/{order_id}/settle"),
        "get_rates": ("GET", "/rates"),
        "get_invoice": ("GET", "/invoices/{invoice_id}"),
        "slow_op": ("POST", "/_test/slow"),
    }
    assert set(operations) == set(OPERATION_IDS)
    # Internal routes stay out of the document (they must not become tools).
    assert not {"/_stats", "/_stats/reset", "/healthz"} & set(spec["paths"])

    settle = operations["settle_order"][2]
    params = {(p["name"], p["in"]): p["required"] for p in settle["parameters"]}
    assert params == {
        ("order_id", "path"): True,
        ("currency", "query"): True,
        ("X-Settlement-Channel", "header"): False,
    }
    assert settle["requestBody"]["required"] is True
    rates = operations["get_rates"][2]
    assert [(p["name"], p["in"], p["required"]) for p in rates["parameters"]] == [
        ("base", "query", False)
    ]
    fx_body = spec["components"]["schemas"]["FxConvertRequest"]
    assert set(fx_body["properties"]) == {"amount", "from", "to", "date"}
    assert sorted(fx_body["required"]) == ["amount", "from", "to"]


# ------------------------------------------------------------------ fx_convert


async def test_fx_convert_uses_the_fixed_rate_table(client: httpx.AsyncClient) -> None:
    response = await client.post("/fx/convert", json={"amount": 100, "from": "USD", "to": "CNY"})
    assert response.status_code == 200
    assert response.json() == {
        "amount": 100.0,
        "from": "USD",
        "to": "CNY",
        "rate": 7.2,
        "converted": 720.0,
        "date": "2025-01-02",
    }


async def test_fx_convert_is_deterministic_case_insensitive_and_echoes_date(
    client: httpx.AsyncClient,
) -> None:
    body: dict[str, Any] = {"amount": 1000, "from": "cny", "to": "jpy", "date": "2024-12-31"}
    first = (await client.post("/fx/convert", json=body)).json()
    second = (await client.post("/fx/convert", json=body)).json()
    assert first == second
    assert first["from"] == "CNY"
    assert first["to"] == "JPY"
    assert first["date"] == "2024-12-31"
    assert first["rate"] == pytest.approx(1 / 0.048, rel=1e-6)
    assert first["converted"] == pytest.approx(round(1000 * first["rate"], 2))


async def test_fx_convert_unknown_currency_is_the_tools_own_422(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post("/fx/convert", json={"amount": 1, "from": "USD", "to": "XYZ"})
    assert response.status_code == 422
    body = response.json()
    assert body["error"] == "unsupported_currency"
    assert body["currency"] == "XYZ"
    assert body["field"] == "to"
    assert body["supported"] == ["CNY", "USD", "EUR", "JPY", "HKD"]
    assert body["message"]
    # The handler ran, so the execution is counted.
    assert (await stats(client))["fx_convert"] == 1


async def test_fx_convert_request_validation_is_not_counted(client: httpx.AsyncClient) -> None:
    response = await client.post("/fx/convert", json={"amount": "lots", "to": "CNY"})
    assert response.status_code == 422
    assert "detail" in response.json()
    assert (await stats(client))["fx_convert"] == 0


# ------------------------------------------------------------------ settle_order


async def test_settle_order_reads_path_query_header_and_body(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/orders/ORD-42/settle",
        params={"currency": "usd"},
        headers={"X-Settlement-Channel": "swift"},
        json={"amount": 250.5},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["order_id"] == "ORD-42"
    assert body["status"] == "settled"
    assert body["amount"] == 250.5
    assert body["currency"] == "USD"
    assert body["amount_cny"] == pytest.approx(1803.6)
    assert body["channel"] == "swift"
    assert body["settlement_id"].startswith("STL-")

    again = await client.post(
        "/orders/ORD-42/settle", params={"currency": "USD"}, json={"amount": 250.5}
    )
    assert again.status_code == 200
    assert again.json()["channel"] is None
    assert again.json()["settlement_id"] == body["settlement_id"]


async def test_settle_order_rejects_unknown_currency_and_missing_query(
    client: httpx.AsyncClient,
) -> None:
    bad = await client.post("/orders/ORD-1/settle", params={"currency": "BTC"}, json={"amount": 1})
    assert bad.status_code == 422
    assert bad.json()["error"] == "unsupported_currency"
    assert bad.json()["field"] == "currency"

    missing = await client.post("/orders/ORD-1/settle", json={"amount": 1})
    assert missing.status_code == 422
    assert missing.json()["detail"][0]["loc"] == ["query", "currency"]


# ------------------------------------------------------------------ get_rates / get_invoice


async def test_get_rates_defaults_to_cny_and_is_consistent(client: httpx.AsyncClient) -> None:
    cny = (await client.get("/rates")).json()
    assert cny["base"] == "CNY"
    assert set(cny["rates"]) == {"CNY", "USD", "EUR", "JPY", "HKD"}
    assert cny["rates"]["CNY"] == 1.0

    usd = await client.get("/rates", params={"base": "USD"})
    assert usd.status_code == 200
    assert usd.json()["rates"]["CNY"] == 7.2
    assert usd.json()["rates"]["USD"] == 1.0
    assert cny["rates"]["USD"] == pytest.approx(1 / 7.2, rel=1e-5)

    bad = await client.get("/rates", params={"base": "GBP"})
    assert bad.status_code == 422
    assert bad.json()["error"] == "unsupported_currency"


async def test_get_invoice_is_deterministic_and_consistent(client: httpx.AsyncClient) -> None:
    first = await client.get("/invoices/INV-2025-0001")
    assert first.status_code == 200
    invoice = first.json()
    assert invoice == (await client.get("/invoices/INV-2025-0001")).json()
    assert invoice["invoice_id"] == "INV-2025-0001"
    assert invoice["currency"] in {"CNY", "USD", "EUR", "JPY", "HKD"}
    assert 1 <= len(invoice["lines"]) <= 3
    for line in invoice["lines"]:
        assert line["line_total"] == pytest.approx(line["quantity"] * line["unit_price"])
    subtotal = sum(line["line_total"] for line in invoice["lines"])
    assert invoice["subtotal"] == pytest.approx(subtotal)
    assert invoice["tax"] == pytest.approx(round(subtotal * invoice["tax_rate"], 2), abs=0.006)
    assert invoice["total"] == pytest.approx(invoice["subtotal"] + invoice["tax"])
    assert invoice["due_date"] > invoice["issue_date"]

    other = (await client.get("/invoices/INV-2025-0002")).json()
    assert other != invoice


async def test_get_invoice_unknown_id_is_404(client: httpx.AsyncClient) -> None:
    response = await client.get("/invoices/ORDER-7")
    assert response.status_code == 404
    assert response.json()["error"] == "invoice_not_found"
    assert response.json()["invoice_id"] == "ORDER-7"


# ------------------------------------------------------------------ slow_op


async def test_slow_op_sleeps(client: httpx.AsyncClient) -> None:
    started = time.monotonic()
    response = await client.post("/_test/slow", json={"seconds": 0.2})
    assert response.status_code == 200
    assert response.json() == {"requested": 0.2, "slept": 0.2}
    assert time.monotonic() - started >= 0.19


async def test_slow_op_is_bounded(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(finance_api, "MAX_SLOW_SECONDS", 0.05)
    response = await asyncio.wait_for(client.post("/_test/slow", json={"seconds": 30}), 5)
    assert response.json() == {"requested": 30.0, "slept": 0.05}
    negative = await client.post("/_test/slow", json={"seconds": -1})
    assert negative.status_code == 422


# ------------------------------------------------------------------ stats / health


async def test_stats_count_every_business_operation_and_reset(
    client: httpx.AsyncClient,
) -> None:
    assert await stats(client) == dict.fromkeys(OPERATION_IDS, 0)
    await client.post("/fx/convert", json={"amount": 1, "from": "EUR", "to": "HKD"})
    await client.post("/fx/convert", json={"amount": 2, "from": "EUR", "to": "HKD"})
    await client.post("/orders/O-1/settle", params={"currency": "CNY"}, json={"amount": 5})
    await client.get("/rates")
    await client.get("/invoices/INV-1")
    await client.post("/_test/slow", json={"seconds": 0})
    await client.get("/healthz")
    await client.get("/openapi.json")
    assert await stats(client) == {
        "fx_convert": 2,
        "settle_order": 1,
        "get_rates": 1,
        "get_invoice": 1,
        "slow_op": 1,
    }
    reset = await client.post("/_stats/reset")
    assert reset.status_code == 200
    assert reset.json() == dict.fromkeys(OPERATION_IDS, 0)
    assert await stats(client) == dict.fromkeys(OPERATION_IDS, 0)


async def test_each_app_has_its_own_counter(client: httpx.AsyncClient) -> None:
    await client.get("/rates")
    other = create_app()
    transport = httpx.ASGITransport(app=other)
    async with httpx.AsyncClient(transport=transport, base_url="http://other.test") as c:
        assert (await stats(c))["get_rates"] == 0
    assert (await stats(client))["get_rates"] == 1


async def test_healthz(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


# ------------------------------------------------------------------ executions by invocation id


async def test_executions_are_counted_per_invocation_and_receipt(client: httpx.AsyncClient) -> None:
    body = {"amount": 1, "from": "USD", "to": "CNY"}
    for receipt in ("rcpt_a", "rcpt_b"):
        sent = await client.post("/fx/convert", json=body, headers={
            "X-OpenBKN-Client-Invocation-Id": "inv-1", "X-BKN-Receipt-Id": receipt})
        assert sent.status_code == 200
    assert (await client.post("/fx/convert", json=body)).status_code == 200  # no ids: not in the ledger
    ledger = (await client.get("/_stats/executions")).json()
    assert ledger == {"by_invocation": {"inv-1": {"count": 2, "receipts": ["rcpt_a", "rcpt_b"]}},
                      "receipts": {"rcpt_a": 1, "rcpt_b": 1}}


async def test_the_test_delay_slows_executions_after_they_ran(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(finance_api.asyncio, "sleep", sleep)
    assert (await client.post("/_test/delay", json={"seconds": 7})).json() == {"seconds": 7}
    await client.post("/fx/convert", json={"amount": 1, "from": "USD", "to": "CNY"},
                      headers={"X-OpenBKN-Client-Invocation-Id": "inv-slow"})
    assert slept == [7]
    assert (await client.get("/_stats/executions")).json()["by_invocation"]["inv-slow"]["count"] == 1
    assert (await client.post("/_test/delay", json={"seconds": 61})).status_code == 422
    await client.post("/_test/delay", json={"seconds": 0})
