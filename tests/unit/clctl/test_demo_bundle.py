"""The demo bundles ``examples/supply_chain`` and ``examples/other_network``, and refusals.

The first half pins what the demo network contains (other tests and the end-to-end suite
rely on these ids and counts); the second half breaks a copy of the bundle in one place at a
time and checks that the problem names the right file and path and that nothing would be
published (``bundle_events`` is never reached).
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from bkn_common.contracts import events as ev
from bkn_common.contracts.event_types.network import ALL_OPERATORS
from clctl import cli
from clctl.bundle.loader import Bundle, BundleError, Problem, load_bundle
from clctl.bundle.models import InstancesDoc, SchemaDoc
from clctl.bundle.to_events import bundle_events

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SUPPLY_CHAIN = EXAMPLES / "supply_chain"
OTHER_NETWORK = EXAMPLES / "other_network"

SUPPLY_CHAIN_EVENT_COUNTS = {
    "network.upserted": 1,
    "schema.concept_group.upserted": 3,
    "schema.object_type.upserted": 7,
    "schema.relation_type.upserted": 8,
    "schema.action_type.upserted": 2,
    "catalog.toolbox.upserted": 3,
    "catalog.mcp_server.upserted": 1,
    "catalog.skill.upserted": 2,
    "data.resource.upserted": 7,
    "data.resource_grants.replaced": 2,
    "instance.object.upserted": 526,
    "instance.relation.upserted": 1170,
    "lifecycle.owner_state.changed": 4,
    "lifecycle.tool_state.changed": 12,
    "lifecycle.proxy_sync.changed": 1,
    "binding.replaced": 1,
}
OBJECT_COUNTS = {
    "supplier": 30,
    "purchase_order": 120,
    "material": 60,
    "warehouse": 8,
    "customer": 40,
    "sales_order": 150,
    "shipment": 118,
}
ISOLATED = {
    "supplier": {"S-0028", "S-0029", "S-0030"},
    "material": {"MAT-0059", "MAT-0060"},
    "warehouse": {"WH-XA01"},
    "customer": {"C-0039", "C-0040"},
}
BINDINGS = [
    ("skill", None, "skill_fx_report"),
    ("function", "box_finance", "tool_fx_convert"),
    ("function", "box_finance", "tool_settle_order"),
    ("function", "box_finance", "tool_get_rates"),
    ("function", "box_finance", "tool_get_invoice"),
    ("function", "box_finance", "tool_slow_op"),
    ("function", "box_analytics", "tool_inventory_turnover"),
    ("function", "box_analytics", "tool_supplier_score"),
    ("mcp_tool", "mcp_logistics", "track_shipment"),
    ("mcp_tool", "mcp_logistics", "estimate_delivery"),
    ("skill", None, "skill_supplier_audit"),
    ("function", "box_legacy_erp", "tool_legacy_query_stock"),
    ("function", "box_legacy_erp", "tool_legacy_sync_order"),
]


@pytest.fixture(scope="module")
def supply_chain() -> Bundle:
    return load_bundle(SUPPLY_CHAIN)


@pytest.fixture(scope="module")
def events(supply_chain: Bundle) -> list[ev.Event]:
    published: list[ev.Event] = bundle_events(supply_chain)
    return published


def of(events: list[ev.Event], cls: type[ev.Event]) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


def one(events: list[ev.Event], cls: type[ev.Event], **match: Any) -> Any:
    found = [e for e in of(events, cls) if all(getattr(e, k) == v for k, v in match.items())]
    assert len(found) == 1, (cls.__name__, match, found)
    return found[0]


# --------------------------------------------------------------------------------------
# What the supply_chain network contains
# --------------------------------------------------------------------------------------


def test_supply_chain_event_counts_by_type(events: list[ev.Event]) -> None:
    assert dict(Counter(e.type for e in events)) == SUPPLY_CHAIN_EVENT_COUNTS
    assert events[0].type == "network.upserted"
    assert events[-1].type == "binding.replaced"


def test_object_types_and_instances(events: list[ev.Event]) -> None:
    types = {e.id: e for e in of(events, ev.ObjectTypeUpserted)}
    assert set(types) == set(OBJECT_COUNTS)
    per_type = Counter(e.ot_id for e in of(events, ev.ObjectInstanceUpserted))
    assert per_type == OBJECT_COUNTS
    for ot in types.values():
        assert 4 <= len(ot.properties) <= 8, ot.id
        assert all(set(p.condition_operations) <= set(ALL_OPERATORS) for p in ot.properties)
        assert all(p.indexed for p in ot.properties if p.name in ot.primary_keys), ot.id
        assert ot.name and ot.description
    kinds = {lp.kind for lp in types["supplier"].logic_properties}
    assert kinds == {"metric", "operator"}


def test_property_values_fit_their_types(supply_chain: Bundle) -> None:
    """The loader checks Python types only; datetimes must also be zoned ISO-8601 strings."""
    (schema,) = supply_chain.of(SchemaDoc)
    (instances,) = supply_chain.of(InstancesDoc)
    for ot in schema.object_types:
        for prop in (p for p in ot.properties if p.type == "datetime"):
            for row in instances.objects[ot.id]:
                value = dt.datetime.fromisoformat(row[prop.name])
                assert value.tzinfo is not None, (ot.id, prop.name, row)


def test_logic_properties_and_actions_point_at_declared_things(
    supply_chain: Bundle, events: list[ev.Event]
) -> None:
    relation_types = {e.id for e in of(events, ev.RelationTypeUpserted)}
    tools = {(b.id, t.id) for b in of(events, ev.ToolboxUpserted) for t in b.tools}
    for ot in of(events, ev.ObjectTypeUpserted):
        for lp in ot.logic_properties:
            if lp.kind == "metric":
                assert lp.definition["relation_type"] in relation_types, lp.name
            else:
                assert (lp.definition["toolbox"], lp.definition["tool"]) in tools, lp.name
    actions = {e.id: e for e in of(events, ev.ActionTypeUpserted)}
    assert {a.mode for a in actions.values()} == {"per_instance", "once"}
    settle = actions["act_settle_po"]
    assert (settle.object_type_id, settle.toolbox_id, settle.tool_id) == (
        "purchase_order",
        "box_finance",
        "tool_settle_order",
    )


def test_relations_self_reference_and_isolated_objects(events: list[ev.Event]) -> None:
    relation_types = {e.id: e for e in of(events, ev.RelationTypeUpserted)}
    self_refs = [
        rt.id
        for rt in relation_types.values()
        if rt.source_object_type_id == rt.target_object_type_id
    ]
    assert self_refs == ["rel_supplier_parent"]
    ids = {(e.ot_id, e.id) for e in of(events, ev.ObjectInstanceUpserted)}
    assert len(ids) == sum(OBJECT_COUNTS.values())  # ids are unique per type
    linked: set[tuple[str, str]] = set()
    for rel in of(events, ev.RelationInstanceUpserted):
        rt = relation_types[rel.rt_id]
        linked.add((rt.source_object_type_id, rel.source_id))
        linked.add((rt.target_object_type_id, rel.target_id))
    assert linked <= ids
    isolated: dict[str, set[str]] = {}
    for ot_id, obj_id in ids - linked:
        isolated.setdefault(ot_id, set()).add(obj_id)
    assert isolated == ISOLATED
    parents = {
        (r.source_id, r.target_id)
        for r in of(events, ev.RelationInstanceUpserted)
        if r.rt_id == "rel_supplier_parent"
    }
    assert {("S-0004", "S-0002"), ("S-0002", "S-0001")} <= parents  # a two-hop chain


def test_generator_reproduces_committed_instances(tmp_path: Path) -> None:
    out = tmp_path / "instances.yaml"
    script = SUPPLY_CHAIN / "generate_instances.py"
    subprocess.run([sys.executable, str(script), "-o", str(out)], check=True)
    assert out.read_bytes() == (SUPPLY_CHAIN / "instances.yaml").read_bytes()


def test_finance_toolbox_matches_the_demo_finance_api(
    events: list[ev.Event], monkeypatch: pytest.MonkeyPatch
) -> None:
    box = one(events, ev.ToolboxUpserted, id="box_finance")
    assert box.kind == "openapi"
    operations = {t.id: (t.openapi.method, t.openapi.path) for t in box.tools}
    assert operations == {
        "tool_fx_convert": ("POST", "/fx/convert"),
        "tool_settle_order": ("POST", "/orders/{order_id}/settle"),
        "tool_get_rates": ("GET", "/rates"),
        "tool_get_invoice": ("GET", "/invoices/{invoice_id}"),
        "tool_slow_op": ("POST", "/_test/slow"),
    }
    tools = {t.id: t for t in box.tools}
    fx = tools["tool_fx_convert"]
    assert fx.use_rule == "只用于已结算币种，未结算单据先调 settle_order"
    assert fx.openapi.request_body_schema["required"] == ["amount", "from", "to"]
    settle = {
        (p.location, p.name): p.required for p in tools["tool_settle_order"].openapi.parameters
    }
    assert settle == {
        ("path", "order_id"): True,
        ("query", "currency"): True,
        ("header", "X-Settlement-Channel"): False,
    }
    assert all(t.description and t.use_rule for t in box.tools)

    finance_file = SUPPLY_CHAIN / "toolboxes" / "finance.yaml"
    monkeypatch.delenv("FINANCE_API_URL", raising=False)
    (default,) = bundle_events(load_bundle(finance_file))[:1]
    assert default.server_url == "http://127.0.0.1:30791"
    monkeypatch.setenv("FINANCE_API_URL", "http://finance.test:8080")
    (overridden,) = bundle_events(load_bundle(finance_file))[:1]
    assert overridden.server_url == "http://finance.test:8080"


def _handler(source: str) -> Callable[[dict[str, Any]], Any]:
    namespace: dict[str, Any] = {}
    exec(compile(source, "<tool>", "exec"), namespace)
    return namespace["handler"]  # type: ignore[no-any-return]


def test_analytics_functions_are_deterministic(events: list[ev.Event]) -> None:
    box = one(events, ev.ToolboxUpserted, id="box_analytics")
    assert box.kind == "function"
    tools = {t.id: t for t in box.tools}
    assert set(tools) == {"tool_inventory_turnover", "tool_supplier_score", "tool_abc_classify"}
    assert all(t.function and not t.function.allow_network and t.input_schema for t in box.tools)

    turnover = _handler(tools["tool_inventory_turnover"].function.source)
    assert turnover(
        {
            "cost_of_goods_sold": 1_200_000,
            "opening_inventory": 180_000,
            "closing_inventory": 220_000,
        }
    ) == {
        "average_inventory": 200000.0,
        "turnover": 6.0,
        "days_inventory_outstanding": 60.8,
        "period_days": 365,
    }
    score = _handler(tools["tool_supplier_score"].function.source)
    result = score({"on_time_rate": 0.96, "defect_rate": 0.01, "price_index": 0.95, "rating": 4.5})
    assert (result["score"], result["grade"]) == (86.9, "A")
    abc = _handler(tools["tool_abc_classify"].function.source)
    classes = abc({"values": [500, 300, 100, 50, 30, 20], "labels": list("abcdef")})
    assert [i["class"] for i in classes["items"]] == ["A", "A", "B", "B", "C", "C"]
    with pytest.raises(ValueError, match="values"):
        abc({"values": []})


def test_mcp_server_and_legacy_toolbox(events: list[ev.Event]) -> None:
    server = one(events, ev.McpServerUpserted, id="mcp_logistics")
    assert server.url.endswith("/mcp")
    assert [(t.id, t.name) for t in server.tools] == [
        ("track_shipment", "track_shipment"),
        ("estimate_delivery", "estimate_delivery"),
    ]
    estimate = server.tools[1].input_schema
    assert estimate["required"] == ["origin", "destination", "weight_kg"]
    legacy = one(events, ev.ToolboxUpserted, id="box_legacy_erp")
    assert [t.id for t in legacy.tools] == ["tool_legacy_query_stock", "tool_legacy_sync_order"]


@pytest.mark.parametrize(
    ("skill_id", "files", "argument", "expected"),
    [
        (
            "skill_fx_report",
            {"main.py", "README.md", "templates/report.md"},
            '{"month": "2025-01"}',
            "| USD | 7.200000 | 7.180000 | +0.28% |",
        ),
        (
            "skill_supplier_audit",
            {"audit.py", "README.md", "checklist.json", "templates/checklist.md"},
            '{"supplier_name": "苏州恒信精密电子有限公司", "has_business_license": true,'
            ' "certified": true, "rating": 4.2, "on_time_rate": 0.93, "defect_rate": 0.012}',
            "**得分：100 / 100　结论：通过**",
        ),
    ],
)
def test_skills_carry_their_files_and_run(
    events: list[ev.Event],
    tmp_path: Path,
    skill_id: str,
    files: set[str],
    argument: str,
    expected: str,
) -> None:
    skill = one(events, ev.SkillUpserted, id=skill_id)
    assert set(skill.files) == files
    for name, text in skill.files.items():  # run it the way a sandbox would: from its files
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    command = [sys.executable, *skill.entry.split()[1:]]
    by_argv = subprocess.run(
        [*command, argument],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    by_stdin = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, check=True, input=argument
    )
    assert expected in by_argv.stdout
    assert by_stdin.stdout == by_argv.stdout
    refused = subprocess.run(
        [*command, "[1]"], cwd=tmp_path, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert refused.returncode == 2 and "错误" in refused.stderr


def test_bindings_order_and_partial_mounting(events: list[ev.Event]) -> None:
    (bindings,) = of(events, ev.BindingsReplaced)
    assert bindings.kn_id == "supply_chain"
    mounted = [(c.capability_type, c.owner_id, c.capability_id) for c in bindings.capabilities]
    assert mounted == BINDINGS
    assert ("function", "box_analytics", "tool_abc_classify") not in mounted


def test_lifecycle_offline_toolbox_disabled_tool_and_proxy(events: list[ev.Event]) -> None:
    states = {e.owner_id: e.state for e in of(events, ev.OwnerStateChanged)}
    assert states == {
        "box_finance": "published",
        "box_analytics": "published",
        "box_legacy_erp": "offline",
        "mcp_logistics": "published",
    }
    disabled = {(e.owner_id, e.tool_id) for e in of(events, ev.ToolStateChanged) if not e.enabled}
    assert disabled == {("box_finance", "tool_get_invoice")}
    (proxy,) = of(events, ev.ProxySyncChanged)
    assert (proxy.kn_id, proxy.proxy_id, proxy.synced) == (
        "supply_chain",
        "proxy-supply-chain",
        True,
    )


def test_grants(events: list[ev.Event]) -> None:
    network = one(events, ev.NetworkUpserted, kn_id="supply_chain")
    grants = {g.account: set(g.permissions) for g in network.grants}
    assert grants == {
        "dev": {"view_detail", "execute"},
        "viewer": {"view_detail"},
        "analyst": {"view_detail"},
    }
    sub = {
        (g.resource_type, g.resource_id) for g in network.resource_grants if g.account == "subonly"
    }
    assert sub == {
        ("object_type", "supplier"),
        ("tool", "box_finance/tool_fx_convert"),
        ("skill", "skill_fx_report"),
    }
    (analyst,) = [g for g in network.resource_grants if g.account == "analyst"]
    assert (analyst.resource_type, analyst.resource_id) == ("object_type", "customer")
    assert analyst.property_grants == {"contact_phone": "masked", "credit_limit": "name_only"}
    assert analyst.row_filter == {
        "field": "region",
        "operation": "==",
        "value": "华东",
        "value_from": "const",
    }
    customer = one(events, ev.ObjectTypeUpserted, id="customer")
    assert {"region", *analyst.property_grants} <= {p.name for p in customer.properties}
    # every resource grant names something the bundle declares
    tools = {f"{b.id}/{t.id}" for b in of(events, ev.ToolboxUpserted) for t in b.tools}
    declared = {
        "object_type": {e.id for e in of(events, ev.ObjectTypeUpserted)},
        "tool": tools,
        "skill": {e.id for e in of(events, ev.SkillUpserted)},
    }
    assert all(g.resource_id in declared[g.resource_type] for g in network.resource_grants)


def test_other_network_mounts_a_tool_only_it_has(events: list[ev.Event]) -> None:
    other = bundle_events(load_bundle(OTHER_NETWORK))
    assert dict(Counter(e.type for e in other)) == {
        "network.upserted": 1,
        "schema.object_type.upserted": 2,
        "schema.relation_type.upserted": 1,
        "catalog.toolbox.upserted": 1,
        "instance.object.upserted": 5,
        "instance.relation.upserted": 3,
        "lifecycle.owner_state.changed": 1,
        "lifecycle.tool_state.changed": 1,
        "lifecycle.proxy_sync.changed": 1,
        "binding.replaced": 1,
    }
    (bindings,) = of(other, ev.BindingsReplaced)
    echo = ev.CapabilityRef(
        capability_type="function", capability_id="tool_other_echo", owner_id="box_other"
    )
    assert (bindings.kn_id, bindings.capabilities) == ("other_network", (echo,))
    (supply_bindings,) = of(events, ev.BindingsReplaced)
    assert echo not in supply_bindings.capabilities
    # the two bundles declare disjoint catalogs, so applying both never overwrites anything
    owners = {e.id for e in of(events, ev.ToolboxUpserted) + of(events, ev.McpServerUpserted)}
    assert owners.isdisjoint({e.id for e in of(other, ev.ToolboxUpserted)})
    (box,) = of(other, ev.ToolboxUpserted)
    assert _handler(box.tools[0].function.source)({"message": "你好"}) == {
        "echo": "你好",
        "length": 2,
    }
    network = one(other, ev.NetworkUpserted, kn_id="other_network")
    assert [(g.account, g.permissions) for g in network.grants] == [
        ("dev", ("view_detail", "execute"))
    ]


def test_cli_dry_run_accepts_both_bundles() -> None:
    runner = CliRunner()
    for path, count in (
        (SUPPLY_CHAIN, sum(SUPPLY_CHAIN_EVENT_COUNTS.values())),
        (OTHER_NETWORK, 17),
    ):
        result = runner.invoke(cli.app, ["apply", "-f", str(path), "--dry-run"])
        assert result.exit_code == 0, result.output
        assert f"bundle valid: {count} events" in result.stdout


# --------------------------------------------------------------------------------------
# Malformed bundles: one mistake each
# --------------------------------------------------------------------------------------


def _edit(path: Path, edit: Callable[[str], str]) -> None:
    text = path.read_text(encoding="utf-8")
    changed = edit(text)
    assert changed != text, f"edit of {path.name} changed nothing"
    path.write_text(changed, encoding="utf-8")


def _edit_yaml(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    edit(doc)
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")


def _append(text: str) -> Callable[[str], str]:
    return lambda current: current + text


def unknown_kind(root: Path) -> None:
    (root / "extra.yaml").write_text("kind: Netwrok\nid: x\nname: 多余\n", encoding="utf-8")


def unknown_kind_in_second_document(root: Path) -> None:
    (root / "extra.yaml").write_text(
        "kind: Lifecycle\n---\nkind: Bindingz\nnetwork: supply_chain\n", encoding="utf-8"
    )


def relation_to_unknown_object_type(root: Path) -> None:
    _edit_yaml(
        root / "schema.yaml",
        lambda doc: doc["relation_types"].append(
            {"id": "rel_vendor", "name": "代理商", "source": "supplier", "target": "vendor"}
        ),
    )


def binding_to_undeclared_tool(root: Path) -> None:
    _edit(
        root / "bindings.yaml",
        _append("  - {type: function, owner: box_finance, id: tool_refund}\n"),
    )


def binding_to_another_networks_toolbox(root: Path) -> None:
    _edit(
        root / "bindings.yaml",
        _append("  - {type: function, owner: box_other, id: tool_other_echo}\n"),
    )


def instance_property_of_wrong_type(root: Path) -> None:
    _edit(
        root / "instances.yaml",
        lambda text: re.sub(r'"rating": [0-9.]+', '"rating": "优"', text, count=1),
    )


def relation_to_missing_instance(root: Path) -> None:
    _edit(root / "instances.yaml", _append('    - ["S-0005", "S-9999"]\n'))


def bad_yaml(root: Path) -> None:
    _edit(root / "network.yaml", _append("grants: [\n"))


def yaml_file_inside_a_skill_folder(root: Path) -> None:
    (root / "skills/fx_report/files/config.yaml").write_text("month: 2025-01\n", encoding="utf-8")


def unknown_lifecycle_state(root: Path) -> None:
    _edit(
        root / "lifecycle.yaml",
        lambda text: text.replace("box_legacy_erp: offline", "box_legacy_erp: retired"),
    )


@pytest.mark.parametrize(
    ("break_it", "file", "path", "message"),
    [
        (unknown_kind, "extra.yaml", "kind", "unknown kind"),
        (unknown_kind_in_second_document, "extra.yaml", "document[1].kind", "unknown kind"),
        (
            relation_to_unknown_object_type,
            "schema.yaml",
            "relation_types[8].target",
            "unknown object type 'vendor'",
        ),
        (
            binding_to_undeclared_tool,
            "bindings.yaml",
            "capabilities[13].id",
            "box_finance has no tool 'tool_refund'",
        ),
        (
            binding_to_another_networks_toolbox,
            "bindings.yaml",
            "capabilities[13].owner",
            "owner 'box_other' is not declared",
        ),
        (
            instance_property_of_wrong_type,
            "instances.yaml",
            "objects.supplier[0].rating",
            "expected number",
        ),
        (
            relation_to_missing_instance,
            "instances.yaml",
            "relations.rel_supplier_parent[6][1]",
            "no supplier instance 'S-9999'",
        ),
        (bad_yaml, "network.yaml", "", "not valid YAML"),
        (
            yaml_file_inside_a_skill_folder,
            "skills/fx_report/files/config.yaml",
            "",
            "field 'kind' is required",
        ),
        (
            unknown_lifecycle_state,
            "lifecycle.yaml",
            "toolboxes.box_legacy_erp",
            "'published' or 'offline'",
        ),
    ],
    ids=lambda v: v.__name__ if callable(v) else None,
)
def test_malformed_bundle_is_refused_before_any_event(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    break_it: Callable[[Path], None],
    file: str,
    path: str,
    message: str,
) -> None:
    root = tmp_path / "supply_chain"
    shutil.copytree(SUPPLY_CHAIN, root, ignore=shutil.ignore_patterns("__pycache__"))
    break_it(root)

    raised: list[BundleError] = []

    def load(source: Path) -> Bundle:
        try:
            return load_bundle(source)
        except BundleError as exc:
            raised.append(exc)
            raise

    def never(_bundle: Bundle) -> list[ev.Event]:
        raise AssertionError("bundle_events reached for a refused bundle")

    monkeypatch.setattr(cli, "load_bundle", load)
    monkeypatch.setattr(cli, "bundle_events", never)
    result = CliRunner().invoke(cli.app, ["apply", "-f", str(root), "--dry-run"])

    assert result.exit_code == 2, result.output
    assert "nothing was published" in result.stderr
    (error,) = raised
    assert [(p.file, p.path) for p in error.problems] == [(file, path)], error.problems
    (problem,) = error.problems
    assert message in problem.message
    assert str(problem) in result.stderr


def test_missing_function_source_file_is_a_problem(tmp_path: Path) -> None:
    root = tmp_path / "other_network"
    shutil.copytree(OTHER_NETWORK, root, ignore=shutil.ignore_patterns("__pycache__"))
    _edit(
        root / "toolboxes/other.yaml",
        lambda text: text.replace("functions/echo.py", "functions/missing.py"),
    )
    with pytest.raises(BundleError) as refused:
        load_bundle(root)
    assert [p.file for p in refused.value.problems] == ["toolboxes/other.yaml"]


def test_problem_is_printable() -> None:
    problem = Problem("bindings.yaml", "capabilities[3].id", "box_finance has no tool 'x'")
    assert str(problem) == "bindings.yaml: capabilities[3].id: box_finance has no tool 'x'"
    assert str(Problem("network.yaml", "", "not valid YAML")) == (
        "network.yaml: <document>: not valid YAML"
    )


def test_the_demo_tables_are_generated_from_the_bundle() -> None:
    script = SUPPLY_CHAIN / "generate_tables.py"
    assert subprocess.run([sys.executable, str(script), "--check"]).returncode == 0


def test_every_object_type_is_backed_by_a_declared_resource(events: list[ev.Event]) -> None:
    declared = {e.id: e for e in of(events, ev.DataResourceUpserted)}
    for ot in of(events, ev.ObjectTypeUpserted):
        resource = declared[ot.data_source.id]
        columns = {c.name for c in resource.columns}
        assert {p.mapped_field or p.name for p in ot.properties} <= columns, ot.id
        assert Path(resource.source.path).is_file()
