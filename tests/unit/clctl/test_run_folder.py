"""clctl finds the dev mesh's run folder and fills only what the environment left unset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clctl.cli import app
from clctl.run_folder import (
    RunFolderUnreadable,
    find_run_folder,
    locate,
    read_run_folder,
    service_base_url,
    with_run_folder,
)
from clctl.settings import ClctlSettings

ENV = ("MESH_INTERNAL_SECRET", "KAFKA_BOOTSTRAP_SERVERS", "TOPIC_PREFIX", "CLCTL_RUN_DIR")


@pytest.fixture(autouse=True)
def _silent_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


def make_run_folder(root: Path, secret: str = "s3cret-from-run") -> Path:
    run = root / ".run"
    run.mkdir(parents=True)
    (run / "mesh_internal_secret").write_text(secret + "\n")
    (run / "endpoints.json").write_text(json.dumps({
        "gateway_url": "http://127.0.0.1:30779", "app_key": "bak_x",
        "services": {"trace_recorder": "http://127.0.0.1:30783/"},
        "kafka_bootstrap_servers": "127.0.0.1:19092", "topic_prefix": "dev.",
    }))
    return run


def test_found_by_walking_up_from_a_subfolder(tmp_path: Path) -> None:
    run = make_run_folder(tmp_path)
    deep = tmp_path / "services" / "gateway" / "src"
    deep.mkdir(parents=True)
    found = find_run_folder(deep)
    assert found is not None and found.path == run
    assert found.mesh_secret() == "s3cret-from-run"
    assert found.service_url("trace-recorder") == "http://127.0.0.1:30783/"


def test_a_run_folder_without_endpoints_is_not_found_by_the_walk(tmp_path: Path) -> None:
    (tmp_path / ".run").mkdir()
    (tmp_path / ".run" / "mesh_internal_secret").write_text("x")
    assert find_run_folder(tmp_path) is None


def test_the_folder_fills_what_the_environment_left_unset(tmp_path: Path) -> None:
    folder = read_run_folder(make_run_folder(tmp_path))
    settings = with_run_folder(ClctlSettings(), folder)
    assert settings.mesh_internal_secret is not None
    assert settings.mesh_internal_secret.get_secret_value() == "s3cret-from-run"
    assert settings.kafka_bootstrap_servers == "127.0.0.1:19092"
    assert settings.topic_prefix == "dev."


def test_the_environment_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = read_run_folder(make_run_folder(tmp_path))
    monkeypatch.setenv("MESH_INTERNAL_SECRET", "from-env")
    monkeypatch.setenv("TOPIC_PREFIX", "")
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", "kafka:9092")
    settings = with_run_folder(ClctlSettings(), folder)
    assert settings.mesh_internal_secret is not None
    assert settings.mesh_internal_secret.get_secret_value() == "from-env"
    assert (settings.topic_prefix, settings.kafka_bootstrap_servers) == ("", "kafka:9092")


def test_explicit_and_env_run_dirs_come_before_the_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    walked = make_run_folder(tmp_path / "checkout")
    named = make_run_folder(tmp_path / "elsewhere", secret="named")
    cwd = tmp_path / "checkout"
    found = locate(ClctlSettings(), None, cwd)
    assert found is not None and found.path == walked
    monkeypatch.setenv("CLCTL_RUN_DIR", str(named))
    found = locate(ClctlSettings(), None, cwd)
    assert found is not None and found.mesh_secret() == "named"
    found = locate(ClctlSettings(), walked, cwd)
    assert found is not None and found.path == walked
    with pytest.raises(RunFolderUnreadable):
        locate(ClctlSettings(), tmp_path / "missing", cwd)


def test_service_urls_prefer_the_flag_then_the_folder_then_the_default(tmp_path: Path) -> None:
    folder = read_run_folder(make_run_folder(tmp_path))
    assert service_base_url("trace-recorder", "http://x:1/", folder, "http://d") == "http://x:1"
    assert service_base_url("trace-recorder", None, folder, "http://d") == "http://127.0.0.1:30783"
    assert service_base_url("ontology-query", None, folder, "http://d") == "http://d"
    assert service_base_url("trace-recorder", None, None, "http://d") == "http://d"


def test_a_named_run_folder_that_is_not_there_stops_clctl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["--run-dir", str(tmp_path / "nope"), "topics"])
    assert result.exit_code == 2
    assert "is not a folder" in result.output
