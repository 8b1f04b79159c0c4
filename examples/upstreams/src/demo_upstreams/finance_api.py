"""The demo network's "finance" upstream: a small, deterministic FastAPI OpenAPI service.

Business operations (stable ``operationId``s, published at ``/openapi.json``):

==============  ======  ============================  ==========================================
operationId     method  path                          parameters
==============  ======  ============================  ==========================================
fx_convert      POST    /fx/convert                   body ``{amount, from, to, date?}``
settle_order    POST    /orders/{order_id}/settle     path ``order_id``, query ``currency``,
                                                      header ``X-Settlement-Channel`` (optional),
                                                      body ``{amount}``
get_rates       GET     /rates                        query ``base`` (optional, default CNY)
get_invoice     GET     /invoices/{invoice_id}        path ``invoice_id``
slow_op         POST    /_test/slow                   body ``{seconds}`` (sleep, capped at 10 s)
==============  ======  ============================  ==========================================

The tool's own errors use the body ``{"error": <code>, "message": ..., ...}`` (not the
mesh's envelope) so callers can tell a pass-through upstream error from a mesh refusal:
``unsupported_currency`` (422) and ``invoice_not_found`` (404).

Every business operation increments a per-operation counter when its handler runs (also
when it answers with its own error; request-validation 422s from FastAPI never reach the
handler and are not counted). ``GET /_stats`` returns ``{operation_id: count}`` for all
five operations, ``POST /_stats/reset`` zeroes them. ``GET /healthz`` is a liveness probe.

For the fault run (``bench/faults.py``): ``fx_convert`` and ``settle_order`` also record each
execution under the caller's ``X-OpenBKN-Client-Invocation-Id`` and ``X-BKN-Receipt-Id``
headers (tool-executor sends both); ``GET /_stats/executions`` returns
``{"by_invocation": {id: {"count": n, "receipts": [...]}}, "receipts": {receipt_id: n}}``.
``POST /_test/delay`` with ``{"seconds": s}`` makes those two operations sleep ``s`` seconds
(capped at 60) after they executed, so a caller's timeout passes; ``0`` restores them.
The internal routes are left out of the OpenAPI document.

Run: ``demo-finance-api --host 127.0.0.1 --port 30791``.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import hashlib
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any, Literal

import uvicorn
from fastapi import Body, FastAPI, Header, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from demo_upstreams._stats import CallCounter

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 30791

OPERATION_IDS: tuple[str, ...] = (
    "fx_convert",
    "settle_order",
    "get_rates",
    "get_invoice",
    "slow_op",
)

#: Value of one unit of each currency in CNY. Fixed on purpose: every answer is reproducible.
CNY_PER_UNIT: dict[str, Decimal] = {
    "CNY": Decimal("1"),
    "USD": Decimal("7.20"),
    "EUR": Decimal("7.80"),
    "JPY": Decimal("0.048"),
    "HKD": Decimal("0.92"),
}
SUPPORTED_CURRENCIES: tuple[str, ...] = tuple(CNY_PER_UNIT)

#: The as-of date of the rate table (echoed when the caller gives no ``date``).
RATES_AS_OF = dt.date(2025, 1, 2)

#: Upper bound of ``POST /_test/slow``.
MAX_SLOW_SECONDS = 10.0

_RATE_QUANTUM = Decimal("0.000001")
_CENT = Decimal("0.01")
_TAX_RATE = Decimal("0.06")


# --------------------------------------------------------------------------------------
# Errors of the tool itself
# --------------------------------------------------------------------------------------


class UpstreamError(Exception):
    """An error answered by this service with its own JSON body ``{"error": code, ...}``."""

    def __init__(self, status_code: int, code: str, message: str, **fields: Any) -> None:
        super().__init__(code)
        self.status_code = status_code
        self.body: dict[str, Any] = {"error": code, "message": message, **fields}


class ErrorBody(BaseModel):
    """The finance service's own error body."""

    model_config = ConfigDict(extra="allow")

    error: str = Field(description="错误码，如 unsupported_currency / invoice_not_found")
    message: str = Field(description="错误说明")


def normalize_currency(value: str, field: str) -> str:
    """Upper-case a currency code; unknown codes raise ``unsupported_currency`` (422)."""
    code = value.strip().upper()
    if code not in CNY_PER_UNIT:
        raise UpstreamError(
            422,
            "unsupported_currency",
            f"不支持的币种：{value}（支持 {', '.join(SUPPORTED_CURRENCIES)}）",
            field=field,
            currency=value,
            supported=list(SUPPORTED_CURRENCIES),
        )
    return code


def fx_rate(source: str, target: str) -> Decimal:
    """Units of ``target`` per one unit of ``source``, rounded to 6 decimals."""
    return (CNY_PER_UNIT[source] / CNY_PER_UNIT[target]).quantize(_RATE_QUANTUM, ROUND_HALF_UP)


def _money(value: Decimal) -> Decimal:
    return value.quantize(_CENT, ROUND_HALF_UP)


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("|".join(parts).encode("utf-8")).digest()


# --------------------------------------------------------------------------------------
# Schemas
# --------------------------------------------------------------------------------------


class FxConvertRequest(BaseModel):
    """汇率换算请求。"""

    model_config = ConfigDict(validate_by_name=True, validate_by_alias=True)

    amount: float = Field(ge=0, description="待换算金额", examples=[100])
    from_: str = Field(
        alias="from",
        description="源币种：CNY、USD、EUR、JPY、HKD",
        examples=["USD"],
        min_length=1,
        max_length=8,
    )
    to: str = Field(
        description="目标币种：CNY、USD、EUR、JPY、HKD",
        examples=["CNY"],
        min_length=1,
        max_length=8,
    )
    date: dt.date | None = Field(
        default=None,
        description="汇率日期（YYYY-MM-DD，可选；汇率表固定，仅回显）",
    )


class FxConvertResponse(BaseModel):
    """汇率换算结果。"""

    model_config = ConfigDict(validate_by_name=True, validate_by_alias=True)

    amount: float = Field(description="原金额")
    from_: str = Field(alias="from", description="源币种")
    to: str = Field(description="目标币种")
    rate: float = Field(description="汇率：1 单位源币种折合的目标币种数量（6 位小数）")
    converted: float = Field(description="换算后金额（2 位小数，= amount × rate）")
    date: str = Field(description="汇率日期")


class SettleRequest(BaseModel):
    """订单结算请求。"""

    amount: float = Field(gt=0, description="结算金额（以 currency 计）", examples=[1999.5])


class SettleResponse(BaseModel):
    """订单结算结果。"""

    order_id: str = Field(description="订单号")
    status: Literal["settled"] = Field(description="结算状态")
    amount: float = Field(description="结算金额")
    currency: str = Field(description="结算币种")
    amount_cny: float = Field(description="折合人民币金额")
    channel: str | None = Field(
        description="结算渠道（来自 X-Settlement-Channel 头，未提供为 null）"
    )
    settlement_id: str = Field(description="结算流水号（由订单号、金额、币种确定）")


class RatesResponse(BaseModel):
    """汇率表。"""

    base: str = Field(description="基准币种")
    date: str = Field(description="汇率表日期")
    rates: dict[str, float] = Field(description="1 单位基准币种折合各币种的数量")


class InvoiceLine(BaseModel):
    sku: str = Field(description="商品编码")
    description: str = Field(description="品名")
    quantity: int = Field(description="数量")
    unit_price: float = Field(description="单价")
    line_total: float = Field(description="行金额 = 数量 × 单价")


class Invoice(BaseModel):
    """发票（确定性生成：同一发票号总是返回同一张发票）。"""

    invoice_id: str = Field(description="发票号")
    order_id: str = Field(description="关联订单号")
    customer: str = Field(description="客户名称")
    currency: str = Field(description="币种")
    issue_date: str = Field(description="开票日期")
    due_date: str = Field(description="到期日（开票后 30 天）")
    status: Literal["paid", "unpaid"] = Field(description="付款状态")
    lines: list[InvoiceLine] = Field(description="发票明细")
    subtotal: float = Field(description="不含税合计 = 各行金额之和")
    tax_rate: float = Field(description="税率")
    tax: float = Field(description="税额 = subtotal × tax_rate（2 位小数）")
    total: float = Field(description="价税合计 = subtotal + tax")


class SlowRequest(BaseModel):
    seconds: float = Field(ge=0, description="休眠秒数（超过 10 秒按 10 秒处理）", examples=[2])


class SlowResponse(BaseModel):
    requested: float = Field(description="请求的休眠秒数")
    slept: float = Field(description="实际休眠秒数（≤ 10）")


# --------------------------------------------------------------------------------------
# Deterministic business logic
# --------------------------------------------------------------------------------------

_CUSTOMERS: Sequence[str] = (
    "华东精密制造有限公司",
    "深圳前海国际贸易有限公司",
    "北京云图数据科技有限公司",
    "成都天府物流集团",
    "Acme Trading Ltd.",
    "Pacific Components Inc.",
)
_PRODUCTS: Sequence[str] = (
    "工业传感器",
    "伺服电机",
    "控制主板",
    "液压阀组",
    "数据采集终端",
    "Lithium battery pack",
)


def make_invoice(invoice_id: str) -> Invoice:
    """Build the (fake but internally consistent) invoice ``invoice_id``.

    Ids must look like ``INV-<letters/digits/dashes>``; anything else is ``invoice_not_found``.
    """
    body = invoice_id[4:] if invoice_id.upper().startswith("INV-") else ""
    if not body or not all(ch.isascii() and (ch.isalnum() or ch == "-") for ch in body):
        raise UpstreamError(
            404,
            "invoice_not_found",
            f"发票不存在：{invoice_id}",
            invoice_id=invoice_id,
        )
    h = _digest("invoice", invoice_id)
    currency = SUPPORTED_CURRENCIES[h[0] % len(SUPPORTED_CURRENCIES)]
    lines: list[InvoiceLine] = []
    subtotal = Decimal("0")
    for i in range(1 + h[1] % 3):
        quantity = 1 + h[2 + i] % 10
        unit_price = _money(Decimal(100 + int.from_bytes(h[5 + 2 * i : 7 + 2 * i], "big") % 9900))
        unit_price += Decimal(h[11 + i] % 100) / 100
        line_total = _money(unit_price * quantity)
        subtotal += line_total
        lines.append(
            InvoiceLine(
                sku=f"SKU-{int.from_bytes(h[14 + i : 16 + i], 'big') % 10000:04d}",
                description=_PRODUCTS[h[17 + i] % len(_PRODUCTS)],
                quantity=quantity,
                unit_price=float(unit_price),
                line_total=float(line_total),
            )
        )
    tax = _money(subtotal * _TAX_RATE)
    issue = dt.date(2025, 1, 1) + dt.timedelta(days=int.from_bytes(h[20:22], "big") % 180)
    return Invoice(
        invoice_id=invoice_id,
        order_id=f"ORD-{int.from_bytes(h[22:26], 'big') % 10**8:08d}",
        customer=_CUSTOMERS[h[26] % len(_CUSTOMERS)],
        currency=currency,
        issue_date=issue.isoformat(),
        due_date=(issue + dt.timedelta(days=30)).isoformat(),
        status="paid" if h[27] % 2 == 0 else "unpaid",
        lines=lines,
        subtotal=float(subtotal),
        tax_rate=float(_TAX_RATE),
        tax=float(tax),
        total=float(subtotal + tax),
    )


# --------------------------------------------------------------------------------------
# The application
# --------------------------------------------------------------------------------------

_ERROR_422: dict[int | str, dict[str, Any]] = {
    422: {"model": ErrorBody, "description": "不支持的币种（unsupported_currency）或参数校验失败"}
}


MAX_DELAY_SECONDS = 60.0


class ExecutionLedger:
    """Executions by client invocation id and by receipt id (from the caller's headers), and
    the test-only delay every recorded operation sleeps after executing."""

    def __init__(self) -> None:
        self.by_invocation: dict[str, dict[str, Any]] = {}
        self.receipts: dict[str, int] = {}
        self.delay_seconds = 0.0

    async def record(self, request: Request) -> None:
        invocation = request.headers.get("x-openbkn-client-invocation-id")
        receipt = request.headers.get("x-bkn-receipt-id")
        if invocation:
            entry = self.by_invocation.setdefault(invocation, {"count": 0, "receipts": []})
            entry["count"] += 1
            if receipt:
                entry["receipts"].append(receipt)
        if receipt:
            self.receipts[receipt] = self.receipts.get(receipt, 0) + 1
        if self.delay_seconds:
            await asyncio.sleep(self.delay_seconds)

    def snapshot(self) -> dict[str, Any]:
        return {"by_invocation": self.by_invocation, "receipts": self.receipts}


class DelayRequest(BaseModel):
    seconds: float = Field(ge=0, le=MAX_DELAY_SECONDS)


def create_app(counter: CallCounter | None = None) -> FastAPI:
    """Build a fresh finance app with its own invocation counter (``app.state.counter``)."""
    calls = counter if counter is not None else CallCounter(OPERATION_IDS)
    ledger = ExecutionLedger()
    app = FastAPI(
        title="finance",
        version="1.0.0",
        description=(
            "演示网络的财务服务：汇率换算、订单结算、汇率表与发票查询。"
            "所有结果均为确定性数据，便于测试。"
        ),
    )
    app.state.counter = calls

    @app.exception_handler(UpstreamError)
    async def _upstream_error(_request: Request, exc: UpstreamError) -> JSONResponse:
        return JSONResponse(status_code=exc.status_code, content=exc.body)

    @app.post(
        "/fx/convert",
        operation_id="fx_convert",
        summary="汇率换算",
        description="按固定汇率表把金额从一种货币换算为另一种货币（CNY、USD、EUR、JPY、HKD）。",
        response_model=FxConvertResponse,
        responses=_ERROR_422,
        tags=["fx"],
    )
    async def fx_convert(body: FxConvertRequest, request: Request) -> FxConvertResponse:
        calls.increment("fx_convert")
        await ledger.record(request)
        source = normalize_currency(body.from_, "from")
        target = normalize_currency(body.to, "to")
        rate = fx_rate(source, target)
        amount = Decimal(str(body.amount))
        return FxConvertResponse(
            amount=body.amount,
            from_=source,
            to=target,
            rate=float(rate),
            converted=float(_money(amount * rate)),
            date=(body.date or RATES_AS_OF).isoformat(),
        )

    @app.post(
        "/orders/{order_id}/settle",
        operation_id="settle_order",
        summary="订单结算",
        description="以指定币种结算订单；可通过 X-Settlement-Channel 头指定结算渠道。",
        response_model=SettleResponse,
        responses=_ERROR_422,
        tags=["orders"],
    )
    async def settle_order(
        order_id: Annotated[str, Path(description="订单号", examples=["ORD-20250101-001"])],
        currency: Annotated[str, Query(description="结算币种：CNY、USD、EUR、JPY、HKD")],
        body: Annotated[SettleRequest, Body()],
        request: Request,
        x_settlement_channel: Annotated[
            str | None,
            Header(alias="X-Settlement-Channel", description="结算渠道（可选），如 alipay、swift"),
        ] = None,
    ) -> SettleResponse:
        calls.increment("settle_order")
        await ledger.record(request)
        code = normalize_currency(currency, "currency")
        amount = Decimal(str(body.amount))
        digest = _digest("settle", order_id, str(amount), code).hex()
        return SettleResponse(
            order_id=order_id,
            status="settled",
            amount=body.amount,
            currency=code,
            amount_cny=float(_money(amount * CNY_PER_UNIT[code])),
            channel=x_settlement_channel,
            settlement_id=f"STL-{digest[:12].upper()}",
        )

    @app.get(
        "/rates",
        operation_id="get_rates",
        summary="查询汇率表",
        description="返回以 base 为基准的固定汇率表（1 单位 base 折合各币种的数量）。",
        response_model=RatesResponse,
        responses=_ERROR_422,
        tags=["fx"],
    )
    async def get_rates(
        base: Annotated[str, Query(description="基准币种，默认 CNY")] = "CNY",
    ) -> RatesResponse:
        calls.increment("get_rates")
        code = normalize_currency(base, "base")
        return RatesResponse(
            base=code,
            date=RATES_AS_OF.isoformat(),
            rates={target: float(fx_rate(code, target)) for target in SUPPORTED_CURRENCIES},
        )

    @app.get(
        "/invoices/{invoice_id}",
        operation_id="get_invoice",
        summary="查询发票",
        description=(
            "按发票号查询发票（发票号形如 INV-2025-0001；其他格式返回 404 invoice_not_found）。"
        ),
        response_model=Invoice,
        responses={404: {"model": ErrorBody, "description": "发票不存在（invoice_not_found）"}},
        tags=["invoices"],
    )
    async def get_invoice(
        invoice_id: Annotated[str, Path(description="发票号", examples=["INV-2025-0001"])],
    ) -> Invoice:
        calls.increment("get_invoice")
        return make_invoice(invoice_id)

    @app.post(
        "/_test/slow",
        operation_id="slow_op",
        summary="慢操作（测试用）",
        description="休眠指定秒数后返回，用于超时测试；最长 10 秒。",
        response_model=SlowResponse,
        tags=["test"],
    )
    async def slow_op(body: SlowRequest) -> SlowResponse:
        calls.increment("slow_op")
        seconds = min(body.seconds, MAX_SLOW_SECONDS)
        await asyncio.sleep(seconds)
        return SlowResponse(requested=body.seconds, slept=seconds)

    @app.get("/_stats", include_in_schema=False)
    async def get_stats() -> dict[str, int]:
        return calls.snapshot()

    @app.post("/_stats/reset", include_in_schema=False)
    async def reset_stats() -> dict[str, int]:
        return calls.reset()

    @app.get("/_stats/executions", include_in_schema=False)
    async def get_executions() -> dict[str, Any]:
        return ledger.snapshot()

    @app.post("/_test/delay", include_in_schema=False)
    async def set_delay(body: DelayRequest) -> dict[str, float]:
        ledger.delay_seconds = body.seconds
        return {"seconds": ledger.delay_seconds}

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok", "service": "finance"}

    return app


def main(argv: Sequence[str] | None = None) -> None:
    """Console script ``demo-finance-api``."""
    parser = argparse.ArgumentParser(
        prog="demo-finance-api", description="Demo finance OpenAPI upstream"
    )
    parser.add_argument("--host", default=DEFAULT_HOST)
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args(argv)
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level=args.log_level)


if __name__ == "__main__":
    main()
