"""Skills over the real mesh (EXECUTE_SKILL_ENABLED=true): list, read, read a file, run.

Besides the demo skills, the module publishes a big skill (a 50,000-character SKILL.md, a
45,000-character file, a file over 5 MiB, a noisy entry script) and mounts it on supply_chain,
plus a skill that is registered but never mounted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from bkn_common.contracts import events as ev
from tests.integration.capabilities.helpers import (
    ok,
    publish,
    refused,
    search_refs,
    skill_ref,
    start_interaction,
    wait_until,
)
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh

NOISY = """import sys
if len(sys.argv) > 1 and sys.argv[1] == "fail":
    sys.stderr.write("E" * 20000)
    sys.exit(3)
sys.stdout.write("O" * 20000)
sys.stderr.write("W" * 9000)
"""
BIG = ev.SkillUpserted(
    id="skill_big",
    name="大文件技能",
    description="用于验证截断与大小限制的技能",
    entry="python run.py",
    files={
        "SKILL.md": "# 大\n" + "甲" * 50_000,
        "data/long.md": "乙" * 45_000,
        "data/huge.txt": "x" * (5 * 1024 * 1024 + 1),
        "run.py": NOISY,
    },
)
HIDDEN = ev.SkillUpserted(
    id="skill_unmounted",
    name="未挂载",
    description="registered, never mounted",
    entry="python main.py",
    files={"main.py": "print('hi')\n", "README.md": "hi"},
)


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    with running_mesh(
        infra, tmp_path_factory.mktemp("cap_skills"), extra_env={"EXECUTE_SKILL_ENABLED": "true"}
    ) as running:
        publish(
            running,
            BIG,
            HIDDEN,
            ev.BindingMounted(kn_id="supply_chain", capability=skill_ref("skill_big")),
        )
        wait_until(
            lambda: ("skill", None, "skill_big") in search_refs(running, types=["skill"]),
            timeout=30,
        )
        wait_until(lambda: call(running, "list_skills", {}).json().get("total") == 3, timeout=30)
        yield running


@pytest.fixture(scope="module")
def context(mesh: RunningMesh) -> dict[str, str]:
    return start_interaction(mesh)


def call(
    mesh: RunningMesh, tool: str, body: dict[str, Any], account: str = "dev"
) -> httpx.Response:
    return mesh.call(tool, {"kn_id": "supply_chain", **body}, account)


def run_skill(
    mesh: RunningMesh,
    context: dict[str, str] | None,
    skill_id: str,
    args: list[str],
    account: str = "dev",
) -> httpx.Response:
    body: dict[str, Any] = {"skill_id": skill_id, "args": args}
    if context is not None:
        body["bkn_context"] = context
    return call(mesh, "execute_skill", body, account)


def test_list_skills_lists_the_mounted_skills_in_binding_order(mesh: RunningMesh) -> None:
    data = ok(call(mesh, "list_skills", {}))
    assert [s["skill_id"] for s in data["skills"]] == [
        "skill_fx_report",
        "skill_supplier_audit",
        "skill_big",
    ]
    assert data["total"] == 3
    fx = data["skills"][0]
    assert fx["name"] == "汇率月报" and fx["entry"] == "python main.py"
    assert fx["files"] == ["README.md", "main.py", "templates/report.md"]


def test_get_skill_content_reads_the_main_document(mesh: RunningMesh) -> None:
    data = ok(call(mesh, "get_skill_content", {"skill_id": "skill_fx_report"}))
    assert data["content_file"] == "README.md" and data["content"].startswith("# 汇率月报")
    assert data["truncated"] is False and "templates/report.md" in data["files"]


def test_content_over_40000_characters_is_truncated_and_marked(mesh: RunningMesh) -> None:
    data = ok(call(mesh, "get_skill_content", {"skill_id": "skill_big"}))
    assert data["content_file"] == "SKILL.md"
    assert len(data["content"]) == 40_000 and data["truncated"] is True
    long = ok(call(mesh, "read_skill_file", {"skill_id": "skill_big", "path": "data/long.md"}))
    assert len(long["content"]) == 40_000 and long["truncated"] is True
    assert long["size_bytes"] == len(("乙" * 45_000).encode())


def test_a_file_over_5_mib_is_a_413(mesh: RunningMesh) -> None:
    body = refused(
        call(mesh, "read_skill_file", {"skill_id": "skill_big", "path": "data/huge.txt"}),
        413,
        "payload_too_large",
    )
    assert body["details"]["limit_bytes"] == 5 * 1024 * 1024
    assert body["details"]["size_bytes"] == 5 * 1024 * 1024 + 1


def test_read_skill_file_reads_inside_the_skill_folder(mesh: RunningMesh) -> None:
    data = ok(
        call(
            mesh, "read_skill_file", {"skill_id": "skill_fx_report", "path": "templates/report.md"}
        )
    )
    assert data["content"].startswith("# $month 汇率月报") and data["truncated"] is False
    again = ok(
        call(
            mesh,
            "read_skill_file",
            {"skill_id": "skill_fx_report", "path": "./templates/report.md"},
        )
    )
    assert again["content"] == data["content"]
    refused(
        call(mesh, "read_skill_file", {"skill_id": "skill_fx_report", "path": "templates/none.md"}),
        404,
        "skill_file_not_found",
    )


@pytest.mark.parametrize(
    "path",
    [
        "../supplier_audit/files/audit.py",
        "/etc/passwd",
        "templates/../../main.py",
        "..\\..\\etc\\passwd",
        "templates/../..",
    ],
)
def test_path_traversal_is_refused(mesh: RunningMesh, path: str) -> None:
    body = refused(
        call(mesh, "read_skill_file", {"skill_id": "skill_fx_report", "path": path}),
        400,
        "path_traversal",
    )
    assert "path" in body["message"].lower() or "路径" in body["message"]


def test_execute_skill_runs_the_entry_command(mesh: RunningMesh, context: dict[str, str]) -> None:
    args = [json.dumps({"month": "2025-01", "currencies": ["USD"], "format": "json"})]
    data = ok(run_skill(mesh, context, "skill_fx_report", args))
    assert data["exit_code"] == 0 and data["timed_out"] is False
    assert "USD" in data["stdout"]


def test_a_non_zero_exit_is_a_200_with_the_exit_code(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    data = ok(run_skill(mesh, context, "skill_fx_report", [json.dumps({"month": "1999-01"})]))
    assert data["exit_code"] == 2 and data["stderr"]
    failed = ok(run_skill(mesh, context, "skill_big", ["fail"]))
    assert failed["exit_code"] == 3
    assert len(failed["stderr"]) == 8000 and failed["stderr_truncated"] is True


def test_stdout_and_stderr_are_capped_at_8000_characters(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    data = ok(run_skill(mesh, context, "skill_big", []))
    assert data["exit_code"] == 0
    assert data["stdout"] == "O" * 8000 and data["stdout_truncated"] is True
    assert data["stderr"] == "W" * 8000 and data["stderr_truncated"] is True


def test_execute_skill_needs_a_managed_context(mesh: RunningMesh) -> None:
    body = refused(run_skill(mesh, None, "skill_fx_report", []), 400, "conversation_required")
    assert body["required_action"] == "create_conversation"


def test_unmounted_skills_can_be_neither_read_nor_run(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    assert "skill_unmounted" not in [
        s["skill_id"] for s in ok(call(mesh, "list_skills", {}))["skills"]
    ]
    assert ("skill", None, "skill_unmounted") not in search_refs(
        mesh, query="registered never mounted"
    )
    for tool, extra in (("get_skill_content", {}), ("read_skill_file", {"path": "main.py"})):
        refused(call(mesh, tool, {"skill_id": "skill_unmounted", **extra}), 404, "skill_not_found")
    refused(run_skill(mesh, context, "skill_unmounted", []), 404, "skill_not_found")
    # mounted on another network only
    refused(
        mesh.call("get_skill_content", {"kn_id": "other_network", "skill_id": "skill_fx_report"}),
        404,
        "skill_not_found",
    )


@pytest.mark.parametrize(
    ("tool", "extra"),
    [
        ("list_skills", {}),
        ("get_skill_content", {"skill_id": "skill_fx_report"}),
        ("read_skill_file", {"skill_id": "skill_fx_report", "path": "README.md"}),
    ],
)
def test_reading_skills_needs_view_detail_on_the_network(
    mesh: RunningMesh, tool: str, extra: dict[str, Any]
) -> None:
    # subonly holds a grant on skill_fx_report itself: it does not count
    body = refused(call(mesh, tool, extra, "subonly"), 403, "network_permission_denied")
    assert "view_detail" in body["message"]
    ok(call(mesh, tool, extra, "viewer"))


def test_running_skills_needs_view_detail_on_the_network(mesh: RunningMesh) -> None:
    body = refused(
        run_skill(
            mesh, start_interaction(mesh, "subonly"), "skill_fx_report", [], account="subonly"
        ),
        403,
        "network_permission_denied",
    )
    assert "view_detail" in body["message"]
    viewer = run_skill(
        mesh, start_interaction(mesh, "viewer"), "skill_fx_report", [], account="viewer"
    )
    assert ok(viewer)["exit_code"] == 0
