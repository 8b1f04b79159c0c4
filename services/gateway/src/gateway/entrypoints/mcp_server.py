"""MCP tools/list and tools/call on the official SDK's low-level server.

Handlers only translate: a tools/call becomes a call of the shared pipeline (the same one
REST uses); its outcome becomes a CallToolResult with TOON text and JSON structuredContent.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError
from starlette.requests import Request

from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.contracts.i18n import Language, negotiate_language, render_message
from bkn_common.framework.http import request_id, validation_error
from gateway.domain.context import (
    HOST_CONVERSATION_META,
    INVOCATION_META,
    CallContext,
    ResponseFormat,
    parse_response_format,
    validate_invocation_id,
)
from gateway.entrypoints.auth import call_context
from gateway.entrypoints.mcp_catalog import (
    DescribeNativeToolInput,
    Endpoint,
    ExecuteNativeToolInput,
    SearchNativeToolsInput,
    listing,
    mcp_text,
    published_schemas,
    reachable_through_gateway,
    tool_input_schema,
)
from gateway.service_layer.deps import Deps
from gateway.service_layer.pipeline import ToolOutcome, call_tool
from gateway.service_layer.ports import Authentication

INVALID_PARAMS = -32602
GatewayInput = TypeVar(
    "GatewayInput", SearchNativeToolsInput, DescribeNativeToolInput, ExecuteNativeToolInput
)
# Fixture tools the official conformance suite calls; registered only with
# GATEWAY_MCP_CONFORMANCE_FIXTURES=true (make conformance), never by default.
CONFORMANCE_FIXTURES: dict[str, types.CallToolResult] = {
    "test_simple_text": types.CallToolResult(
        content=[types.TextContent(type="text", text="This is a simple text response for testing.")]
    ),
    "test_error_handling": types.CallToolResult(
        content=[types.TextContent(type="text", text="This tool intentionally returns an error for testing")],
        is_error=True,
    ),
}


def _request(ctx: ServerRequestContext[Any, Any]) -> Request:
    request = ctx.request
    if not isinstance(request, Request):
        raise MCPError(INVALID_PARAMS, "this server is only reachable over Streamable HTTP")
    return request


def _language(ctx: ServerRequestContext[Any, Any]) -> Language:
    request = ctx.request
    header = request.headers.get("accept-language") if isinstance(request, Request) else None
    return negotiate_language(header)


def _unknown_tool(name: str, language: Language) -> MCPError:
    message = render_message(ErrorCode.UNKNOWN_TOOL, language, {"tool": name})
    return MCPError(INVALID_PARAMS, message, {"code": ErrorCode.UNKNOWN_TOOL, "tool": name})


def _apply_meta(call: CallContext, meta: Any) -> None:
    """Hints in ``_meta`` (headers win when both are present)."""
    if not isinstance(meta, dict):
        return
    if call.invocation_id is None and meta.get(INVOCATION_META) is not None:
        call.invocation_id = validate_invocation_id(str(meta[INVOCATION_META]))
    if call.host_conversation_key is None and meta.get(HOST_CONVERSATION_META) is not None:
        call.host_conversation_key = str(meta[HOST_CONVERSATION_META])
    if call.traceparent is None and isinstance(meta.get("traceparent"), str):
        call.traceparent = meta["traceparent"]


def _success(outcome: ToolOutcome, response_format: ResponseFormat | None) -> types.CallToolResult:
    """Text content in the requested format (MCP default: TOON), JSON structuredContent."""
    structured: dict[str, Any] = dict(outcome.data)
    if outcome.receipt:
        structured["bkn_receipt"] = outcome.receipt
    if outcome.trace_marker:
        structured["bkn_trace"] = outcome.trace_marker
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=mcp_text(structured, response_format))],
        structured_content=structured,
    )


def _refusal(error: ApiError, language: Language, request_id: str) -> types.CallToolResult:
    envelope = error.render(language, request_id)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(envelope, ensure_ascii=False))],
        structured_content=envelope,
        is_error=True,
    )


def _gateway_input(model: type[GatewayInput], arguments: dict[str, Any]) -> GatewayInput:
    """A compact gateway tool's arguments, checked against the schema it publishes."""
    try:
        return model.model_validate(arguments)
    except ValidationError as exc:
        raise validation_error(list(exc.errors())) from exc


def _search_native(deps: Deps, args: SearchNativeToolsInput, language: Language) -> dict[str, Any]:
    query = (args.query or "").strip().lower()
    limit = args.limit
    terms = [t for t in re.split(r"[\s_,，]+", query) if t]
    found = []
    for tool in reachable_through_gateway(deps.registry):
        text = f"{tool.name} {tool.describe(language)} {tool.describe('en-US')}".lower()
        if not terms or any(term in text for term in terms):
            found.append({"name": tool.name, "description": tool.describe(language)})
    return {"tools": found[:limit], "total": len(found)}


def build_server(deps: Deps, authenticator: Authentication, endpoint: Endpoint) -> Server[Any]:
    listings: dict[Language, types.ListToolsResult] = {}  # the registry is fixed after start-up

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        language = _language(ctx)
        if language not in listings:
            listings[language] = _tools_result(deps, endpoint, language)
        return listings[language]

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])

    async def list_prompts(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[])

    async def call_tool_handler(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        request = _request(ctx)
        language = negotiate_language(request.headers.get("accept-language"))
        name, arguments = params.name, dict(params.arguments or {})
        if deps.settings.mcp_conformance_fixtures and name in CONFORMANCE_FIXTURES:
            return CONFORMANCE_FIXTURES[name]
        if name not in published_schemas(deps.registry, endpoint):
            raise _unknown_tool(name, language)
        try:  # an invalid hint header is refused like any other bad input
            call = call_context(request, authenticator, "mcp")
        except ApiError as error:
            return _refusal(error, language, request_id(request))
        try:
            _apply_meta(call, ctx.meta)
            call.response_format = parse_response_format(arguments.pop("response_format", None))
            if endpoint == "compact" and name == "search_native_tools":
                search = _gateway_input(SearchNativeToolsInput, arguments)
                return _success(ToolOutcome(_search_native(deps, search, language)), call.response_format)
            if endpoint == "compact" and name == "describe_native_tool":
                describe = _gateway_input(DescribeNativeToolInput, arguments)
                target = _native_target(deps, describe.name, language)
                return _success(ToolOutcome({
                    "name": target, "description": deps.registry.get(target).describe(language),  # type: ignore[union-attr]
                    "inputSchema": tool_input_schema(deps.registry.get(target), language),  # type: ignore[arg-type]
                }), call.response_format)
            if endpoint == "compact" and name == "execute_native_tool":
                execute = _gateway_input(ExecuteNativeToolInput, arguments)
                name, arguments = _native_target(deps, execute.name, language), execute.arguments
            outcome = await call_tool(deps, call, name, arguments)
            return _success(outcome, call.response_format)
        except ApiError as error:
            return _refusal(error, call.language, call.request_id)

    server: Server[Any] = Server(
        f"context-loader-{endpoint}",
        version="0.1.0",
        instructions=(
            "Start each turn with bkn_start_interaction and pass its ids in bkn_context on every "
            "business tool; finish with bkn_finish_interaction."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool_handler,
        on_list_resources=list_resources,
        on_list_prompts=list_prompts,
        get_tool_input_schema=published_schemas(deps.registry, endpoint).get,
    )
    # The SDK's default middleware opens a second SERVER span per message; the pipeline's
    # "tools/call <tool>" span already carries the same MCP/GenAI attributes plus the
    # provenance ids trace-recorder links on, and the HTTP request has its own span.
    server.middleware = []
    return server


def _tools_result(deps: Deps, endpoint: Endpoint, language: Language) -> types.ListToolsResult:
    descriptors = listing(deps.registry, endpoint, language)
    if deps.settings.mcp_conformance_fixtures:
        descriptors = [*descriptors, *(
            {"name": name, "description": f"conformance fixture {name}",
             "inputSchema": {"type": "object", "properties": {}}}
            for name in CONFORMANCE_FIXTURES
        )]
    return types.ListToolsResult(tools=[types.Tool.model_validate(d) for d in descriptors])


def _native_target(deps: Deps, name: str, language: Language) -> str:
    """A tool reachable through the compact gateway, refused exactly like an unknown tool."""
    if name not in {t.name for t in reachable_through_gateway(deps.registry)}:
        raise _unknown_tool(name, language)
    return name
