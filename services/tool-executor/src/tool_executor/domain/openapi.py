"""Building an HTTP request from a registered OpenAPI operation and flat arguments.

Arguments are flat: a key naming a path, query or header parameter goes there; with a
request body schema, the remaining keys form the JSON body (or ``body`` holds it whole).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from bkn_common.contracts import events as ev
from bkn_common.domain.capability_view import TRANSPORT_HEADERS


@dataclass(frozen=True)
class HttpRequestPlan:
    method: str
    url: str
    params: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    json_body: Any = None


class MissingParameters(ValueError):
    def __init__(self, names: list[str]) -> None:
        super().__init__(", ".join(names))
        self.names = names


def plan_request(server_url: str, op: ev.OpenApiOperation, arguments: dict[str, Any]) -> HttpRequestPlan:
    remaining = dict(arguments)
    path = op.path
    params: dict[str, Any] = {}
    headers: dict[str, str] = {}
    missing = []
    for param in op.parameters:
        if param.location == "header" and param.name.lower() in TRANSPORT_HEADERS:
            remaining.pop(param.name, None)
            continue
        if param.name not in remaining:
            if param.required:
                missing.append(param.name)
            continue
        value = remaining.pop(param.name)
        if param.location == "path":
            path = path.replace("{" + param.name + "}", quote(str(value), safe=""))
        elif param.location == "query":
            params[param.name] = value
        elif param.location == "header":
            headers[param.name] = str(value)
    if missing:
        raise MissingParameters(missing)
    body: Any = None
    if op.request_body_schema is not None:
        body = remaining.pop("body") if set(remaining) == {"body"} else remaining
    return HttpRequestPlan(op.method, server_url.rstrip("/") + path, params, headers, body)
