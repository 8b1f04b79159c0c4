"""The demo network's "logistics" upstream: an MCP server built with the official ``mcp`` SDK.

Transport: Streamable HTTP at ``/mcp`` (stateless, JSON responses by default), served by
``MCPServer.streamable_http_app()``; the same Starlette app also has the plain HTTP routes
``GET /_stats`` (``{tool_name: count}``), ``POST /_stats/reset`` and ``GET /healthz``.

Tools (all results are deterministic functions of the arguments):

* ``track_shipment(shipment_id: str)`` → carrier, status, current location. The id must start
  with a known carrier prefix (``SF``, ``JD``, ``YT``, ``ZT``, case-insensitive); otherwise the
  call returns an MCP tool error result (``isError: true``, no ``structuredContent``) whose only
  text block is exactly the JSON ``{"error": "unknown_shipment_prefix", "message": ..., ...}``.
* ``estimate_delivery(origin: str, destination: str, weight_kg: float)`` → days and cost (CNY).

Each tool call that reaches the tool body increments the tool's counter (also when the tool
answers with its own error; calls rejected by the SDK's argument validation are not counted).

Run: ``demo-logistics-mcp --host 127.0.0.1 --port 30792``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any, Literal

import uvicorn
from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from demo_upstreams._stats import CallCounter

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 30792
MCP_PATH = "/mcp"

TOOL_NAMES: tuple[str, ...] = ("track_shipment", "estimate_delivery")

#: Known carrier prefixes of shipment ids.
CARRIERS: dict[str, str] = {
    "SF": "顺丰速运",
    "JD": "京东物流",
    "YT": "圆通速递",
    "ZT": "中通快递",
}

StatusCode = Literal["picked_up", "in_transit", "out_for_delivery", "delivered"]

_STATUSES: Sequence[tuple[StatusCode, str]] = (
    ("picked_up", "已揽收"),
    ("in_transit", "运输中"),
    ("out_for_delivery", "派送中"),
    ("delivered", "已签收"),
)
_HUBS: Sequence[str] = (
    "北京顺义转运中心",
    "上海青浦转运中心",
    "广州白云转运中心",
    "深圳宝安转运中心",
    "杭州萧山转运中心",
    "成都双流转运中心",
    "武汉东西湖转运中心",
    "西安临潼转运中心",
)
_CENT = Decimal("0.01")


class ShipmentStatus(BaseModel):
    """运单状态。"""

    shipment_id: str = Field(description="运单号")
    carrier: str = Field(description="承运商")
    status: StatusCode = Field(description="状态码")
    status_label: str = Field(description="状态（中文）")
    location: str = Field(description="当前位置")
    updated_at: str = Field(description="最近更新时间（ISO 8601）")


class DeliveryEstimate(BaseModel):
    """时效与运费估算。"""

    origin: str = Field(description="始发地")
    destination: str = Field(description="目的地")
    weight_kg: float = Field(description="重量（千克）")
    service: Literal["same_city", "standard"] = Field(description="服务类型")
    days: int = Field(description="预计送达天数")
    cost: float = Field(description="运费")
    currency: Literal["CNY"] = Field(description="运费币种")


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("|".join(parts).encode("utf-8")).digest()


class ToolFailure(Exception):
    """The tool's own error; reported as an MCP tool error result (``isError: true``)."""

    def __init__(self, code: str, message: str, **fields: Any) -> None:
        super().__init__(code)
        self.body: dict[str, Any] = {"error": code, "message": message, **fields}


def tool_result(model: BaseModel) -> CallToolResult:
    """A successful result: ``structuredContent`` plus the same JSON as one text block."""
    return CallToolResult(
        content=[TextContent(type="text", text=model.model_dump_json(indent=2))],
        structured_content=model.model_dump(mode="json"),
    )


def error_result(failure: ToolFailure) -> CallToolResult:
    """An ``isError`` result whose single text block is exactly the JSON error body."""
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(failure.body, ensure_ascii=False))],
        is_error=True,
    )


def shipment_status(shipment_id: str) -> ShipmentStatus:
    """Deterministic tracking answer for ``shipment_id`` (``ToolFailure`` on a bad prefix)."""
    normalized = shipment_id.strip().upper()
    carrier = CARRIERS.get(normalized[:2])
    if carrier is None or len(normalized) <= 2:
        raise ToolFailure(
            "unknown_shipment_prefix",
            f"无法识别的运单号：{shipment_id}（应以 {'、'.join(CARRIERS)} 开头）",
            shipment_id=shipment_id,
            supported_prefixes=list(CARRIERS),
        )
    h = _digest("shipment", normalized)
    status, label = _STATUSES[h[0] % len(_STATUSES)]
    updated = dt.datetime(2025, 1, 1, tzinfo=dt.UTC) + dt.timedelta(
        minutes=int.from_bytes(h[1:4], "big") % (180 * 24 * 60)
    )
    return ShipmentStatus(
        shipment_id=normalized,
        carrier=carrier,
        status=status,
        status_label=label,
        location=_HUBS[h[4] % len(_HUBS)],
        updated_at=updated.isoformat(),
    )


def delivery_estimate(origin: str, destination: str, weight_kg: float) -> DeliveryEstimate:
    """Deterministic, symmetric estimate of days and cost (CNY) for a parcel."""
    a, b = origin.strip(), destination.strip()
    weight = Decimal(str(weight_kg))
    extra_kg = max(Decimal("0"), weight - 1)
    if a.casefold() == b.casefold():
        days, base, per_kg = 1, Decimal("8"), Decimal("1")
        service: Literal["same_city", "standard"] = "same_city"
    else:
        low, high = sorted((a.casefold(), b.casefold()))
        tier = _digest("route", low, high)[0] % 4
        days, base, per_kg = 2 + tier, Decimal(12 + 5 * tier), Decimal(2 + tier)
        service = "standard"
    cost = (base + extra_kg * per_kg).quantize(_CENT, ROUND_HALF_UP)
    return DeliveryEstimate(
        origin=a,
        destination=b,
        weight_kg=weight_kg,
        service=service,
        days=days,
        cost=float(cost),
        currency="CNY",
    )


def build_server(counter: CallCounter) -> MCPServer[Any]:
    """The ``logistics`` MCPServer with both tools and the plain HTTP routes registered."""
    server: MCPServer[Any] = MCPServer(
        "logistics",
        title="物流服务",
        description="演示网络的物流服务：运单跟踪与时效运费估算。",
        version="1.0.0",
        instructions="track_shipment 查询运单状态；estimate_delivery 估算送达天数与运费。",
        log_level="WARNING",
    )
    read_only = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

    async def track_shipment(
        shipment_id: Annotated[
            str, Field(description="运单号，以承运商前缀开头：SF、JD、YT、ZT，如 SF1234567890")
        ],
    ) -> Annotated[CallToolResult, ShipmentStatus]:
        """查询运单的当前状态与位置（结果由运单号确定）。未知前缀返回工具错误。"""
        counter.increment("track_shipment")
        try:
            return tool_result(shipment_status(shipment_id))
        except ToolFailure as failure:
            return error_result(failure)

    async def estimate_delivery(
        origin: Annotated[str, Field(description="始发城市，如 上海", min_length=1)],
        destination: Annotated[str, Field(description="目的城市，如 成都", min_length=1)],
        weight_kg: Annotated[
            float, Field(description="包裹重量（千克），0 < weight ≤ 1000", gt=0, le=1000)
        ],
    ) -> Annotated[CallToolResult, DeliveryEstimate]:
        """估算包裹从始发地到目的地的送达天数与运费（人民币）。"""
        counter.increment("estimate_delivery")
        return tool_result(delivery_estimate(origin, destination, weight_kg))

    server.add_tool(track_shipment, title="运单跟踪", annotations=read_only)
    server.add_tool(estimate_delivery, title="时效运费估算", annotations=read_only)

    async def get_stats(_request: Request) -> Response:
        return JSONResponse(counter.snapshot())

    async def reset_stats(_request: Request) -> Response:
        return JSONResponse(counter.reset())

    async def healthz(_request: Request) -> Response:
        return JSONResponse({"status": "ok", "service": "logistics"})

    server.custom_route("/_stats", methods=["GET"], include_in_schema=False)(get_stats)
    server.custom_route("/_stats/reset", methods=["POST"], include_in_schema=False)(reset_stats)
    server.custom_route("/healthz", methods=["GET"], include_in_schema=False)(healthz)
    return server


def create_app(
    counter: CallCounter | None = None,
    *,
    stateless: bool = True,
    json_response: bool = True,
) -> Starlette:
    """Build a fresh ASGI app (MCP at ``/mcp`` + ``/_stats`` + ``/healthz``).

    Every call builds a new MCPServer and session manager (a manager runs only once), so
    tests can start as many servers as they like. The counter is ``app.state.counter``.
    DNS-rebinding protection (Host/Origin allow-list) is off: the mesh reaches this demo
    upstream under arbitrary service host names.
    """
    calls = counter if counter is not None else CallCounter(TOOL_NAMES)
    server = build_server(calls)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=stateless,
        json_response=json_response,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    app.state.counter = calls
    app.state.mcp_server = server
    return app


def main(argv: Sequence[str] | None = None) -> None:
    """Console script ``demo-logistics-mcp``."""
    parser = argparse.ArgumentParser(
        prog="demo-logistics-mcp",
        description="Demo logistics MCP upstream (Streamable HTTP at /mcp)",
    )
    parser.add_argument("--host", default=DEFAULT_HOST)
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--log-level", default="warning")
    parser.add_argument(
        "--stateful", action="store_true", help="keep MCP sessions (default: stateless)"
    )
    parser.add_argument(
        "--sse", action="store_true", help="answer POSTs with SSE streams (default: JSON)"
    )
    args = parser.parse_args(argv)
    app = create_app(stateless=not args.stateful, json_response=not args.sse)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)


if __name__ == "__main__":
    main()
