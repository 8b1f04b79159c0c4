"""Schemathesis against the gateway's own OpenAPI document, on a private mesh with the dev key.

Every operation gets a bounded, derandomized set of generated requests (schema-valid and
schema-breaking bodies, parameters and headers). The checks: no 5xx, every status and content
type documented, every body (2xx and every refusal) matching its schema, bad input refused
with a 4xx. Not checked: that schema-valid data is accepted, because valid-shaped ids of
networks, tools and skills that do not exist are rightly refused (404/403 in the envelope).
"""

from __future__ import annotations

from typing import Any

import httpx
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance
from schemathesis.config import SchemathesisConfig

from gateway.entrypoints.openapi import DOCUMENT_PATH, snapshot_document
from tests.support.mesh import RunningMesh

MAX_EXAMPLES = 6  # per operation: ~25 operations stay well under two minutes on a loaded machine


# fuzzing only (the coverage phase alone sends hundreds of requests per operation); the document
# is the snapshot, which the first test shows is what the mesh serves
CONFIG = SchemathesisConfig.from_dict({"phases": {"coverage": {"enabled": False}},
                                       "generation": {"deterministic": True}})
# The knowledge-base tools refuse in seed 002's envelope ({"error": {"code", "message"}}), not
# the mesh envelope this document promises; found by this test, left to the knowledge-base
# owners: excluded here, and test_mcp_fuzz's strict xfail turns green once they agree.
KB_TOOLS = ("search_files", "read_file", "list_tree", "get_file", "read_related", "expand_graph")
schema = schemathesis.openapi.from_dict(snapshot_document(), config=CONFIG).exclude(
    operation_id=list(KB_TOOLS))


def test_the_gateway_serves_the_generated_document(mesh: RunningMesh) -> None:
    served = httpx.get(mesh.gateway + DOCUMENT_PATH, timeout=30)
    assert served.status_code == 200
    assert served.json() == snapshot_document()


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck), print_blob=True)
def test_every_rest_operation_holds_its_contract(case: Any, mesh: RunningMesh) -> None:
    case.call_and_validate(
        base_url=mesh.gateway,
        headers={"Authorization": f"Bearer {mesh.keys['dev']}", "Accept-Language": "en-US"},
        excluded_checks=[positive_data_acceptance],
        timeout=60,
    )
