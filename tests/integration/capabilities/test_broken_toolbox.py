"""One toolbox whose schemas cannot be built is skipped; every other capability is returned.

A broken record cannot travel through Kafka (the decoder validates every event), so this
drives both views in-process with a catalogue record that was corrupted after validation:
the execution factory's (tool-executor's listing and ``resolve``) and capability-index's
(ranked hits resolved in the same answer).
"""

from __future__ import annotations

from datetime import UTC, datetime

from bkn_common.contracts import events as ev
from capability_index.service_layer.projection import CapabilityIndex
from tool_executor.service_layer.catalog_view import list_mounted, resolve
from tool_executor.service_layer.projection import FactoryState


def _record(event: ev.Event) -> ev.EventRecord:
    return ev.EventRecord(event=event, event_id="x", occurred_at=datetime.now(UTC))


def _apply(state: FactoryState | CapabilityIndex, *events: ev.Event) -> None:
    for event in events:
        state.apply(_record(event))


def _ref(owner: str, tool: str) -> ev.CapabilityRef:
    return ev.CapabilityRef(capability_type="function", capability_id=tool, owner_id=owner)


def test_a_broken_toolbox_is_skipped_and_the_rest_is_returned() -> None:
    good_op = ev.OpenApiOperation(
        method="GET",
        path="/rates",
        parameters=(ev.OpenApiParameter(name="base", location="query"),),
    )
    good = ev.ToolboxUpserted(
        id="box_good",
        name="good",
        kind="openapi",
        server_url="http://x",
        tools=(ev.ToolSpec(id="t1", name="t1", openapi=good_op),),
    )
    broken_op = ev.OpenApiOperation.model_construct(
        method="GET", path="/x", parameters=None, request_body_schema=None
    )
    broken_tool = ev.ToolSpec.model_construct(
        id="t2",
        name="t2",
        description="",
        use_rule="",
        openapi=broken_op,
        function=None,
        input_schema=None,
    )
    broken = ev.ToolboxUpserted.model_construct(
        id="box_broken",
        name="broken",
        description="",
        kind="openapi",
        server_url="http://y",
        timeout_seconds=10.0,
        tools=(broken_tool,),
    )
    skill = ev.SkillUpserted(
        id="s1", name="skill one", entry="python main.py", files={"main.py": ""}
    )
    refs = [
        _ref("box_broken", "t2"),
        _ref("box_good", "t1"),
        ev.CapabilityRef(capability_type="skill", capability_id="s1"),
    ]
    events: list[ev.Event] = [good, broken, skill, ev.BindingsReplaced(kn_id="kn", capabilities=tuple(refs))]
    for owner, tool in (("box_good", "t1"), ("box_broken", "t2")):
        events += [
            ev.OwnerStateChanged(owner_kind="toolbox", owner_id=owner, state="published"),
            ev.ToolStateChanged(owner_id=owner, tool_id=tool, enabled=True),
        ]
    state, index = FactoryState(), CapabilityIndex()
    _apply(state, *events)
    _apply(index, *(e for e in events if e is not broken))
    index.catalog.apply(_record(broken))  # its text cannot be indexed either: only the state has it

    listed = list_mounted(state, "kn", types=None, owner_id=None, limit=20)
    assert [i["capability_id"] for i in listed["items"]] == ["t1", "s1"]
    assert listed["skipped_owners"] == ["box_broken"]
    assert listed["passing_total"] == 2 and listed["mounted_total"] == 3
    assert listed["items"][0]["input_schema"]["parameters"][0]["name"] == "base"

    gated = resolve(state, "kn", refs)
    assert [i["capability_id"] for i in gated["items"]] == ["t1", "s1"]

    ranked = index.resolve("kn", refs)
    assert ranked["items"] == gated["items"] and ranked["skipped_owners"] == ["box_broken"]
