"""The gateway's REST contract as an OpenAPI 3.1 document, generated from the tool registry.

Every tool the registry holds is one ``POST /api/agent-retrieval/v1/kn/<tool>`` operation: its
request body is the tool's pydantic input model (the same model the MCP input schema comes
from), ``kn_id`` / ``response_format`` are query parameters, the 200 body is the tool's output
schema, and every refusal is the error envelope of ``bkn_common.contracts.errors``. A tool added to the
registry appears here without further work. ``GET /api/agent-retrieval/v1/openapi.json`` serves
the document; ``docs/openapi.json`` is it for the default settings, snapshot-tested::

    python -m gateway.entrypoints.openapi > docs/openapi.json
"""

from __future__ import annotations

import json
from importlib.metadata import version
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from bkn_common.contracts.errors import ErrorEnvelope
from bkn_common.domain.toon import TOON_MEDIA_TYPE
from gateway.domain.context import HOST_CONVERSATION_HEADER, INVOCATION_HEADER, RESPONSE_FORMATS
from gateway.domain.inputs.base import localized_schema
from gateway.entrypoints.observability_openapi import TAG, observability_paths
from gateway.entrypoints.rest import PREFIX
from gateway.service_layer.catalog import build_registry
from gateway.service_layer.registry import ToolDefinition, ToolRegistry
from gateway.settings import GatewaySettings

Doc = dict[str, Any]

DOCUMENT_PATH = f"{PREFIX}/openapi.json"
SCHEMAS = "#/components/schemas/"
ENVELOPE = "ErrorEnvelope"
SECURITY = "bearer"

ERRORS: dict[str, str] = {
    "400": "Invalid request (`invalid_request`, `invalid_invocation_id`, ...): a body, parameter or header is refused.",
    "401": "Not authenticated (code `unauthenticated`): no or no valid Bearer credential.",
    "403": "Permission denied (`permission_denied`, `network_permission_denied`).",
    "404": "Not found (`unknown_tool`, `not_found`).",
    "409": "Conflict (`idempotency_conflict`, `receipt_pending`): the invocation id is in use or pending.",
    "413": "Payload too large (`payload_too_large`).",
    "429": "Rate limited (`rate_limited`): retry after `Retry-After` seconds.",
    "4XX": "Any other refusal, in the same envelope.",
    "502": "The upstream behind a tool failed (`upstream_unavailable`).",
    "503": "A dependency of the gateway is unavailable (`dependency_unavailable`); retry later.",
    "504": "A dependency did not answer in time; retry later.",
}  # fmt: skip
"""Every status a refusal may carry; each body is the error envelope."""

RECEIPT_HEADERS: dict[str, str] = {
    "bkn-receipt-id": "The execution receipt of a managed execution.",
    "bkn-operation-id": "The trace operation the call was recorded under.",
    "bkn-receipt-status": "Whether the receipt is final or provisional.",
    "bkn-evidence-durability": "How durable the recorded evidence is.",
    "bkn-trace-recorded": "`false` when the call ran but its trace could not be recorded.",
    "bkn-trace-code": "Why the trace was not recorded.",
}


def snapshot_document() -> Doc:
    """docs/openapi.json: the document of the default catalogue (EXECUTE_SKILL_ENABLED adds
    ``execute_skill`` to the document a gateway serves)."""
    settings = GatewaySettings(execute_skill_enabled=False, mcp_conformance_fixtures=False)
    return openapi_document(build_registry(settings))


def _error_response(description: str) -> Doc:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": SCHEMAS + ENVELOPE}}}}


def _parameters() -> list[Doc]:
    return [
        {"name": "kn_id", "in": "query", "required": False,
         "description": "Knowledge network id; used when the body has no `kn_id`.",
         "schema": {"type": "string", "minLength": 1}},
        {"name": "response_format", "in": "query", "required": False,
         "description": "`json` (default) or `toon` (a compact text encoding of the same data).",
         "schema": {"type": "string", "enum": list(RESPONSE_FORMATS), "default": "json"}},
        {"name": "Accept-Language", "in": "header", "required": False,
         "description": "`zh-CN` (default) or `en-US`: the language of error messages.",
         "schema": {"type": "string"}},
        {"name": INVOCATION_HEADER, "in": "header", "required": False,
         "description": "A client invocation id (1-256 visible ASCII characters): a repeated "
                        "call with the same id runs the tool at most once and answers the same.",
         "schema": {"type": "string", "minLength": 1, "maxLength": 256, "pattern": "^[!-~]+$"}},
        {"name": HOST_CONVERSATION_HEADER, "in": "header", "required": False,
         "description": "The host's conversation key, recorded with the trace.",
         "schema": {"type": "string"}},
    ]


def _operation(tool: ToolDefinition) -> Doc:
    model = tool.input_model.__name__
    success: Doc = {
        "description": "The tool's result (`execute_tool`: the upstream tool's raw response).",
        "headers": {name: {"$ref": f"#/components/headers/{name}"} for name in RECEIPT_HEADERS},
        "content": {
            "application/json": {"schema": tool.output_schema if tool.rest_body is None else {}},
            TOON_MEDIA_TYPE: {"schema": {"type": "string"}},
        },
    }
    return {
        "operationId": tool.name,
        "summary": tool.name,
        "description": tool.describe("en-US"),
        "x-description-zh-CN": tool.describe("zh-CN"),
        "x-tool-kind": tool.kind,
        "x-on-mcp": tool.on_mcp,
        "tags": [tool.kind],
        "parameters": [{"$ref": f"#/components/parameters/{p['name']}"} for p in _parameters()],
        "requestBody": {"required": True,
                        "content": {"application/json": {"schema": {"$ref": SCHEMAS + model}}}},
        "responses": {"200": success, **{code: {"$ref": f"#/components/responses/Error{code}"} for code in ERRORS}},
    }


def _schemas(tools: list[ToolDefinition]) -> Doc:
    models: dict[str, type[BaseModel]] = {}
    for tool in tools:
        known = models.setdefault(tool.input_model.__name__, tool.input_model)
        if known is not tool.input_model:
            raise ValueError(f"two input models are both named {known.__name__}")
    schemas: Doc = {}
    for name, model in sorted(models.items()):
        schema = localized_schema(model, "en-US")
        defs = schema.pop("$defs", {})
        for def_name, definition in defs.items():
            schemas.setdefault(def_name, definition)
        schemas[name] = schema
    _, envelope = models_json_schema([(ErrorEnvelope, "validation")], ref_template=SCHEMAS + "{model}")
    schemas.update(envelope.get("$defs", {}))
    return json.loads(json.dumps(schemas).replace('"#/$defs/', f'"{SCHEMAS}'))  # type: ignore[no-any-return]


def openapi_document(registry: ToolRegistry) -> Doc:
    """The OpenAPI 3.1 document of every REST tool in ``registry``, in a stable order."""
    tools = sorted(registry.all(), key=lambda t: t.name)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Context Loader agent retrieval REST API",
            "version": version("gateway"),
            "description": "Every tool of the Context Loader mesh as a REST call: `POST "
                           f"{PREFIX}/kn/<tool>` with the tool's arguments as the JSON body. "
                           "Refusals share one error envelope: `code` (stable, for programs), "
                           "`message` (zh-CN or en-US by Accept-Language), `details`, "
                           "`request_id`.",
        },
        "servers": [{"url": "/"}],
        "security": [{SECURITY: []}],
        "tags": [{"name": kind, "description": text} for kind, text in (
            ("read", "Reads: no side effects."),
            ("execution", "Executions: side effects, recorded with an execution receipt."),
            ("lifecycle", "Managed interactions: start and finish a turn."),
        )] + [TAG],
        "paths": {**{f"{PREFIX}/kn/{tool.name}": {"post": _operation(tool)} for tool in tools},
                  **observability_paths()},
        "components": {
            "schemas": _schemas(tools),
            "parameters": {p["name"]: p for p in _parameters()},
            "responses": {f"Error{code}": _error_response(text) for code, text in ERRORS.items()},
            "headers": {name: {"description": text, "schema": {"type": "string"}}
                        for name, text in RECEIPT_HEADERS.items()},
            "securitySchemes": {SECURITY: {
                "type": "http", "scheme": "bearer", "bearerFormat": "AppKey (bak_...) or JWT",
                "description": "An AppKey (`bak_...`) or an OAuth access token (JWT) of the "
                               "account the call runs for.",
            }},
        },
    }


def router(registry: ToolRegistry) -> APIRouter:
    api = APIRouter()
    document = openapi_document(registry)

    @api.get(DOCUMENT_PATH, include_in_schema=False)
    async def openapi_json() -> JSONResponse:
        return JSONResponse(document)

    return api


def render(document: Doc) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def main() -> None:
    print(render(snapshot_document()), end="")


if __name__ == "__main__":
    main()
