"""The operator read API's part of the published OpenAPI document (``entrypoints.openapi``)."""

from __future__ import annotations

from typing import Any

from gateway.entrypoints.observability import PREFIX

Doc = dict[str, Any]
TAG = {"name": "observability", "description": "The operator read API: traces of managed turns, "
       "projections and dead letters (read only; an account reads its own interactions, the "
       "operator role reads every account's)."}
ERRORS = ("400", "401", "403", "404", "503")
FILTERS: tuple[tuple[str, str], ...] = (
    ("account", "Only this account's records (an account without the operator role: its own only)."),
    ("agent", "Only this agent name."),
    ("kn_id", "Only interactions with an execution on this knowledge network."),
    ("tool", "Only interactions that called this tool (trace tool name or executed tool id)."),
    ("outcome", "Only interactions finished with this outcome (completed, failed, cancelled, handed_off)."),
    ("evidence_status", "Only interactions with this evidence status."),
    ("since", "Started at or after this ISO 8601 instant."),
    ("until", "Started before this ISO 8601 instant."),
    ("cursor", "The `next_cursor` of the previous page."),
)


def _query(name: str, description: str, schema: Doc | None = None) -> Doc:
    return {"name": name, "in": "query", "required": False, "description": description,
            "schema": schema or {"type": "string", "minLength": 1, "maxLength": 200}}


def _path(name: str, description: str) -> Doc:
    return {"name": name, "in": "path", "required": True, "description": description,
            "schema": {"type": "string"}}


def _get(operation_id: str, summary: str, parameters: list[Doc], success: str) -> Doc:
    return {"get": {
        "operationId": operation_id, "summary": summary, "tags": ["observability"],
        "parameters": parameters,
        "responses": {"200": {"description": success,
                              "content": {"application/json": {"schema": {"type": "object"}}}},
                      **{code: {"$ref": f"#/components/responses/Error{code}"} for code in ERRORS}},
    }}


def observability_paths() -> Doc:
    listing = [_query(n, d) for n, d in FILTERS] + [
        _query("limit", "Page size.", {"type": "integer", "minimum": 1, "maximum": 200, "default": 50})]
    interaction = [_path("interaction_id", "An interaction id (int_...).")]
    page = "`{items, next_cursor}`, newest first; `next_cursor` is null on the last page."
    return {
        f"{PREFIX}/interactions": _get("listInteractions", "Interactions, filtered", listing, page),
        f"{PREFIX}/conversations": _get("listConversations", "Conversations with a matching interaction",
                                        listing, page),
        f"{PREFIX}/conversations/{{conversation_id}}": _get(
            "getConversation", "One conversation and its interactions",
            [_path("conversation_id", "A conversation id (conv_...).")], "The conversation."),
        f"{PREFIX}/interactions/{{interaction_id}}": _get(
            "getInteraction", "One interaction whole", interaction,
            "The interaction: question, answer, statuses, operations in begin order with their "
            "receipts and evidence, spans and `span_tree`."),
        f"{PREFIX}/interactions/{{interaction_id}}/operations": _get(
            "listInteractionOperations", "The interaction's operations in begin order", interaction,
            "`{interaction_id, items}`."),
        f"{PREFIX}/interactions/{{interaction_id}}/evidence-chain": _get(
            "getInteractionEvidenceChain", "Interaction → operation → receipt → evidence", interaction,
            "The evidence chain."),
        f"{PREFIX}/interactions/{{interaction_id}}/bundle": _get(
            "getInteractionBundle", "The interaction's export bundle (from trace-recorder)", interaction,
            "The bundle, verifiable offline with the deployment's public keys."),
        f"{PREFIX}/operations/{{operation_id}}": _get(
            "getOperation", "One operation", [_path("operation_id", "An operation id (op_...).")],
            "The operation with its receipts, evidence and `account`."),
        f"{PREFIX}/receipts/{{receipt_id}}": _get(
            "getReceipt", "One execution receipt", [_path("receipt_id", "An execution receipt id.")],
            "The receipt and the `account` of its interaction."),
        f"{PREFIX}/dead-letters": _get(
            "listDeadLetters", "Dead-lettered records per consumer (operator role)",
            [_query("limit", "Newest records per topic.", {"type": "integer", "minimum": 0, "maximum": 200,
                                                           "default": 20})],
            "`{items}`: consumer, topic, count since start, records (reason, source offset, first bytes)."),
        f"{PREFIX}/projections": _get(
            "listProjections", "Each service's projection: lag, caught up, last checkpoint (operator role)",
            [], "`{items}`: service, lag, caught_up, last_checkpoint_at, checkpoint (how the start "
                "restored), replay_command."),
    }
