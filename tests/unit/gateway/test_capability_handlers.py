"""search_capabilities, execute_tool and the skill and data tools on fakes of their ports:
which service answers, the lifecycle gate and its one re-recall, and the index outage."""

from __future__ import annotations

from typing import Any

import pytest

from bkn_common.contracts.errors import ApiError, ErrorCode
from gateway.domain import search_messages as msg
from gateway.domain.context import BknContext
from gateway.domain.inputs.capabilities import ExecuteToolInput, SearchCapabilitiesInput
from gateway.domain.inputs.data import ListResourcesInput, RunSqlInput
from gateway.domain.inputs.skills import ListSkillsInput
from gateway.service_layer import capabilities, data, skills
from tests.unit.gateway.fakes import FakeServices, context, deps

SEARCH = "/internal/v1/search"
INDEX_DOWN = ApiError(ErrorCode.DEPENDENCY_UNAVAILABLE, 503, details={"dependency": "capability-index"})


def tool(n: int, *, passing: bool = True) -> dict[str, Any]:
    return {"capability_type": "function", "capability_id": f"t{n}", "owner_id": "box", "name": f"tool {n}",
            "bound": True, "gate_passed": passing, "input_schema": {"type": "object"}}


def fail(error: ApiError) -> Any:
    def answer(body: Any) -> Any:
        raise error
    return answer


def granted(*permissions: str) -> FakeServices:
    fake = FakeServices()
    fake.grant(*permissions)
    return fake


async def test_a_listing_answers_from_the_bindings_while_the_index_is_down() -> None:
    fake = granted("view_detail")
    fake.tool_executor.on("POST", "/internal/v1/capabilities/mounted", {
        "items": [{"capability_type": "skill", "capability_id": "s1", "owner_id": None}, tool(2)],
        "passing_total": 2, "mounted_total": 2, "filtered_total": 0})
    fake.capability_index.on("POST", "/internal/v1/describe", fail(INDEX_DOWN))
    result = await capabilities.search_capabilities(deps(fake), context(), SearchCapabilitiesInput(kn_id="kn"))
    assert result == {"total_matched": 2, "capabilities": [
        {"capability_type": "skill", "capability_id": "s1", "name": "s1", "description": ""},
        {"capability_type": "function", "capability_id": "t2", "owner_id": "box", "name": "tool 2",
         "description": "", "input_schema": {"type": "object"}}]}


async def test_a_ranked_search_needs_the_index() -> None:
    fake = granted("view_detail")
    fake.capability_index.on("POST", SEARCH, fail(INDEX_DOWN))
    with pytest.raises(ApiError) as refused:
        await capabilities.search_capabilities(deps(fake), context(), SearchCapabilitiesInput(kn_id="kn", query="x"))
    assert (refused.value.code, refused.value.status) == ("capability_index_unavailable", 503)
    assert refused.value.details == {"dependency": "capability-index"}


def ranked(items: list[dict[str, Any]], total: int) -> Any:
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        page = items[: body["limit"]]
        return {"total_matched": total, "mounted": total, "hits": [dict(i) for i in page],
                "resolved": {"items": page}}
    return answer


async def test_gated_hits_are_dropped_and_recalled_once() -> None:
    fake = granted("view_detail")
    items = [tool(1, passing=False), tool(2), tool(3, passing=False), tool(4), tool(5), tool(6)]
    fake.capability_index.on("POST", SEARCH, ranked(items, total=len(items)))
    result = await capabilities.search_capabilities(deps(fake), context(), SearchCapabilitiesInput(
        kn_id="kn", query="tool", limit=2))
    assert [c["capability_id"] for c in result["capabilities"]] == ["t2", "t4"]
    assert [c.json["limit"] for c in fake.capability_index.calls] == [2, 6]  # one re-recall, 3 x limit
    assert result["truncated"] is True and result["total_matched"] == 4
    assert result["message"] == msg.message(msg.TRUNCATED, "en-US", total=4, limit=2)


async def test_when_every_hit_is_gated_the_message_says_publish_state() -> None:
    fake = granted("view_detail")
    fake.capability_index.on("POST", SEARCH, ranked([tool(1, passing=False)], total=1))
    result = await capabilities.search_capabilities(deps(fake), context("alice", "zh-CN"), SearchCapabilitiesInput(
        kn_id="kn", query="tool"))
    assert result["capabilities"] == [] and result["message"] == msg.message(msg.LIFECYCLE_ONLY, "zh-CN")


async def test_execute_tool_needs_execute_and_carries_the_provenance() -> None:
    fake = granted("view_detail")
    args = ExecuteToolInput(kn_id="kn", toolbox_id="box", tool_id="t1", arguments={"a": 1})
    with pytest.raises(ApiError) as refused:
        await capabilities.execute_tool(deps(fake), context(), args)
    assert refused.value.status == 403 and fake.tool_executor.calls == []
    fake.grant("execute")
    fake.tool_executor.on("POST", "/internal/v1/execute", {"outcome": "succeeded", "body": {"ok": True}})
    ctx = context()
    ctx.bkn, ctx.operation_id, ctx.receipt_id = BknContext("conv", "int"), "op_1", "rcpt_1"
    assert (await capabilities.execute_tool(deps(fake), ctx, args))["body"] == {"ok": True}
    [call] = fake.tool_executor.calls
    assert call.account == "alice"
    assert {k: call.json[k] for k in ("operation_id", "receipt_id", "conversation_id", "interaction_id")} == {
        "operation_id": "op_1", "receipt_id": "rcpt_1", "conversation_id": "conv", "interaction_id": "int"}


async def test_list_skills_filters_and_pages_the_mounted_skills() -> None:
    fake = granted("view_detail")
    mounted = [{"skill_id": f"sk{n}", "name": f"Report {n}" if n % 2 else f"Chart {n}",
                "category": "ops" if n < 4 else "bi"} for n in range(1, 8)]
    fake.tool_executor.on("POST", "/internal/v1/skills/list", {"skills": mounted})
    page = await skills.list_skills(deps(fake), context(), ListSkillsInput(
        kn_id="kn", name="REPORT", page=2, page_size=2))
    assert [s["skill_id"] for s in page["skills"]] == ["sk5", "sk7"] and page["total"] == 4
    ops = await skills.list_skills(deps(fake), context(), ListSkillsInput(kn_id="kn", category="ops"))
    assert [s["skill_id"] for s in ops["skills"]] == ["sk1", "sk2", "sk3"]


async def test_data_tools_check_the_network_only_when_one_is_named() -> None:
    fake = granted()  # no permission on any network
    fake.ontology_query.on("POST", "/internal/v1/data/resources/list", {"items": []})
    fake.ontology_query.on("POST", "/internal/v1/data/sql", lambda body: {"echo": body})
    assert await data.list_resources(deps(fake), context(), ListResourcesInput()) == {"items": []}
    with pytest.raises(ApiError) as refused:
        await data.list_resources(deps(fake), context(), ListResourcesInput(kn_id="kn"))
    assert refused.value.status == 403
    sql = RunSqlInput.model_validate({"sql": "SELECT 1"})
    answered = await data.run_sql(deps(fake), context(), sql)
    assert answered["echo"] == sql.model_dump(exclude_none=True)
    assert fake.ontology_query.calls[-1].timeout == sql.query_timeout + data.TIMEOUT_MARGIN_SECONDS
