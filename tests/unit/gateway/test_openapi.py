"""The REST contract: docs/openapi.json is what the code generates, and it covers every tool."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from fastapi.testclient import TestClient

from gateway.entrypoints.openapi import DOCUMENT_PATH, openapi_document, render, router, snapshot_document
from gateway.entrypoints.rest import PREFIX
from gateway.service_layer.catalog import build_registry
from gateway.settings import GatewaySettings
from tests.support.refs import assert_refs_resolve

SNAPSHOT = Path(__file__).resolve().parents[3] / "docs" / "openapi.json"
REGENERATE = ".venv/bin/python -m gateway.entrypoints.openapi > docs/openapi.json"


def test_snapshot_matches_the_code() -> None:
    generated = snapshot_document()
    stored = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    if stored != generated:
        diff = difflib.unified_diff(
            SNAPSHOT.read_text(encoding="utf-8").splitlines(), render(generated).splitlines(),
            "docs/openapi.json", "generated", lineterm="", n=1,
        )
        excerpt = "\n".join(list(diff)[:40])
        raise AssertionError(
            f"docs/openapi.json is stale; regenerate it from the repo root with\n"
            f"    {REGENERATE}\nand commit it. First differences:\n{excerpt}"
        )


def test_every_registered_tool_is_an_operation_with_its_input_model() -> None:
    registry = build_registry(GatewaySettings(execute_skill_enabled=True))
    document = openapi_document(registry)
    assert any(t.name == "execute_skill" for t in registry.all())
    tool_paths = {p for p in document["paths"] if p.startswith(f"{PREFIX}/kn/")}
    assert tool_paths == {f"{PREFIX}/kn/{t.name}" for t in registry.all()}
    schemas = document["components"]["schemas"]
    for tool in registry.all():
        operation = document["paths"][f"{PREFIX}/kn/{tool.name}"]["post"]
        assert operation["operationId"] == tool.name
        ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        body = schemas[ref.rsplit("/", 1)[1]]
        fields = {f.alias or name for name, f in tool.input_model.model_fields.items()}
        assert set(body.get("properties", {})) == fields, tool.name
        parameters = [document["components"]["parameters"][p["$ref"].rsplit("/", 1)[1]]
                      for p in operation["parameters"]]
        assert {p["name"] for p in parameters} >= {"kn_id", "response_format"}
        for status, response in operation["responses"].items():
            if status != "200":
                error = document["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
                assert error["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorEnvelope")


def test_security_scheme_and_envelope() -> None:
    document = snapshot_document()
    assert document["openapi"].startswith("3.1")
    assert document["security"] == [{"bearer": []}]
    scheme = document["components"]["securitySchemes"]["bearer"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    envelope = document["components"]["schemas"]["ErrorEnvelope"]
    assert set(envelope["required"]) == {"code", "message"}


def test_every_reference_resolves() -> None:
    document = openapi_document(build_registry(GatewaySettings(execute_skill_enabled=True)))
    assert_refs_resolve(document)


def test_the_gateway_serves_the_document_of_its_own_registry() -> None:
    from fastapi import FastAPI

    registry = build_registry(GatewaySettings(execute_skill_enabled=True))
    app = FastAPI()
    app.include_router(router(registry))
    with TestClient(app) as client:
        response = client.get(DOCUMENT_PATH)
    assert response.status_code == 200
    assert response.json() == openapi_document(registry)
    assert f"{PREFIX}/kn/execute_skill" in response.json()["paths"]


def test_the_operator_read_api_is_in_the_document() -> None:
    from gateway.entrypoints import observability

    api = observability.router(None, None)  # type: ignore[arg-type]
    served = {getattr(r, "path", "") for r in api.routes}
    documented = {p for p in snapshot_document()["paths"] if p.startswith(observability.PREFIX)}
    assert served == documented and len(served) == 11
