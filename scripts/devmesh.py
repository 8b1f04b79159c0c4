"""Start and stop the whole mesh on one machine: infrastructure, services, demo upstreams.

Used by ``make run`` / ``make up`` / ``make down`` and by the integration tests (which start
their own copy on other ports with their own topic prefix).

    python scripts/devmesh.py up [--foreground]   # start, apply the demo, print URL and key
    python scripts/devmesh.py down                 # stop everything this project started
    python scripts/devmesh.py restart <service> [--kill]   # stop (SIGTERM, or SIGKILL) and start
                                                   # one service; prints seconds until /readyz
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Process:
    name: str
    command: list[str]
    port: int
    health_path: str = "/readyz"


@dataclass
class MeshLayout:
    """Where one copy of the mesh lives: ports, run folder, topic prefix."""

    run_dir: Path = ROOT / ".run"
    base_port: int = 30779
    topic_prefix: str = ""
    kafka: str = "127.0.0.1:9092"
    redis: str = "redis://127.0.0.1:6379/0"
    extra_env: dict[str, str] = field(default_factory=dict)

    def port(self, offset: int) -> int:
        return self.base_port + offset

    @property
    def checkpoint_dir(self) -> Path:
        return self.run_dir / "checkpoints"

    @property
    def gateway_url(self) -> str:
        return f"http://127.0.0.1:{self.port(0)}"

    def urls(self) -> dict[str, str]:
        return {
            "capability_index": f"http://127.0.0.1:{self.port(2)}",
            "tool_executor": f"http://127.0.0.1:{self.port(3)}",
            "trace_recorder": f"http://127.0.0.1:{self.port(4)}",
            "ontology_query": f"http://127.0.0.1:{self.port(5)}",
            "knowledge_base": f"http://127.0.0.1:{self.port(6)}",
            "finance_api": f"http://127.0.0.1:{self.port(12)}",
            "logistics_mcp": f"http://127.0.0.1:{self.port(13)}/mcp",
        }

    @property
    def mesh_secret(self) -> str:
        """This run folder's internal secret (every process of the mesh signs with it)."""
        return ensure_mesh_secret(self.run_dir)

    def env(self) -> dict[str, str]:
        urls = self.urls()
        env = {
            **os.environ,
            "KAFKA_BOOTSTRAP_SERVERS": self.kafka,
            "REDIS_URL": self.redis,
            "TOPIC_PREFIX": self.topic_prefix,
            "TRACE_RECORDER_REDIS_PREFIX": f"bkn:{self.topic_prefix}trace:",
            # the view's default store: one SQLite file in the run folder (extra_env may name
            # PostgreSQL instead: TRACE_RECORDER_STORE=postgresql, TRACE_RECORDER_DATABASE_URL)
            "TRACE_RECORDER_SQLITE_PATH": str(self.run_dir / "trace-recorder" / "view.sqlite3"),
            "GATEWAY_PORT": str(self.port(0)),
            "GATEWAY_IDENTITY_FILE": str(self.run_dir / "identity.yaml"),
            "GATEWAY_CAPABILITY_INDEX_URL": urls["capability_index"],
            "GATEWAY_TOOL_EXECUTOR_URL": urls["tool_executor"],
            "GATEWAY_TRACE_RECORDER_URL": urls["trace_recorder"],
            "GATEWAY_ONTOLOGY_QUERY_URL": urls["ontology_query"],
            "GATEWAY_KNOWLEDGE_BASE_URL": urls["knowledge_base"],
            "CAPABILITY_INDEX_PORT": str(self.port(2)),
            "TOOL_EXECUTOR_PORT": str(self.port(3)),
            "TRACE_RECORDER_PORT": str(self.port(4)),
            "ONTOLOGY_QUERY_PORT": str(self.port(5)),
            "KNOWLEDGE_BASE_PORT": str(self.port(6)),
            "ONTOLOGY_QUERY_DATA_DIR": str(self.run_dir / "ontology-query-data"),
            "FINANCE_API_URL": urls["finance_api"],
            "LOGISTICS_MCP_URL": urls["logistics_mcp"],
            # checkpointed stores: one file per consumer in one folder of the run
            "CAPABILITY_INDEX_CHECKPOINT_DIR": str(self.checkpoint_dir),
            "TOOL_EXECUTOR_CHECKPOINT_DIR": str(self.checkpoint_dir),
            "ONTOLOGY_QUERY_CHECKPOINT_DIR": str(self.checkpoint_dir),
            "MESH_INTERNAL_SECRET": self.mesh_secret,
            "PROVENANCE_KEYS_FILE": str(ensure_provenance_keys(self.run_dir)),
            "PYTHONUNBUFFERED": "1",
        }
        env.pop("MESH_INTERNAL_SECRET_PREVIOUS", None)
        env.update(self.extra_env)
        return env

    def services(self) -> list[Process]:
        py = str(BIN / "python")
        return [
            Process("finance-api", [str(BIN / "demo-finance-api"), "--host", "127.0.0.1",
                                    "--port", str(self.port(12))], self.port(12), "/healthz"),
            Process("logistics-mcp", [str(BIN / "demo-logistics-mcp"), "--host", "127.0.0.1",
                                      "--port", str(self.port(13))], self.port(13), "/healthz"),
            Process("ontology-query", [py, "-m", "ontology_query"], self.port(5)),
            Process("capability-index", [py, "-m", "capability_index"], self.port(2)),
            Process("tool-executor", [py, "-m", "tool_executor"], self.port(3)),
            Process("trace-recorder", [py, "-m", "trace_recorder"], self.port(4)),
            Process("knowledge-base", [py, "-m", "knowledge_base"], self.port(6)),
            Process("gateway", [py, "-m", "gateway"], self.port(0)),
        ]


PORT_BLOCK = 40
# Private meshes (tests, benchmarks, the conformance run) take 40-port blocks below the
# kernel's ephemeral range (32768+), where client sockets never take a port, and only blocks
# whose every port is free right now. Each process starts its search at a random block, so
# parallel processes (test runs, benchmarks, chart runs) rarely probe the same block at once.
FIRST_PRIVATE_BASE, LAST_PRIVATE_BASE = 20000, 32000
_next_base = [FIRST_PRIVATE_BASE
              + PORT_BLOCK * secrets.randbelow((LAST_PRIVATE_BASE - FIRST_PRIVATE_BASE) // PORT_BLOCK)]


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port_block() -> int:
    """The next base port whose whole block is free (wrapping around once)."""
    start = _next_base[0]
    bases = [*range(start, LAST_PRIVATE_BASE, PORT_BLOCK),
             *range(FIRST_PRIVATE_BASE, start, PORT_BLOCK)]
    for base in bases:
        if all(port_free(base + offset) for offset in range(PORT_BLOCK)):
            nxt = base + PORT_BLOCK
            _next_base[0] = nxt if nxt < LAST_PRIVATE_BASE else FIRST_PRIVATE_BASE
            return base
    raise RuntimeError(f"no free block of {PORT_BLOCK} ports for a private mesh")


OPERATOR_ACCOUNT = "operator"  # role operator: reads every account's traces (/console/)


def ensure_identity(run_dir: Path) -> str:
    """A dev identity file with accounts of the demo and a fresh AppKey for each (``dev``'s
    returned); the ``operator`` account has the operator role. A run folder made before the
    operator account existed gets new keys."""
    run_dir.mkdir(parents=True, exist_ok=True)
    key_file = run_dir / "dev_app_key"
    identity_file = run_dir / "identity.yaml"
    if key_file.exists() and identity_file.exists() and operator_key(run_dir):
        return key_file.read_text().strip()
    keys = {account: "bak_" + secrets.token_urlsafe(32) for account in
            ("dev", "viewer", "subonly", "analyst", "service", OPERATOR_ACCOUNT)}
    lines = ["accounts:"]
    for account, key in keys.items():
        kind = "service" if account == "service" else "user"
        digest = hashlib.sha256(key.encode()).hexdigest()
        lines += [f"  - id: {account}", f"    kind: {kind}"]
        if account == OPERATOR_ACCOUNT:
            lines.append("    roles: [operator]")
        lines += ["    app_keys:", f"      - key_id: {account}-1", f"        sha256: {digest}"]
    identity_file.write_text("\n".join(lines) + "\n")
    (run_dir / "app_keys.json").write_text(json.dumps(keys, indent=2))
    os.chmod(run_dir / "app_keys.json", 0o600)
    key_file.write_text(keys["dev"] + "\n")
    os.chmod(key_file, 0o600)
    return keys["dev"]


def operator_key(run_dir: Path) -> str | None:
    """The operator account's AppKey of the run folder (None before :func:`ensure_identity`)."""
    try:
        key = json.loads((run_dir / "app_keys.json").read_text()).get(OPERATOR_ACCOUNT)
    except (OSError, ValueError):
        return None
    return key if isinstance(key, str) else None


def ensure_mesh_secret(run_dir: Path) -> str:
    """The run folder's ``MESH_INTERNAL_SECRET``, generated once (mode 0600)."""
    secret_file = run_dir / "mesh_internal_secret"
    if secret_file.exists():
        return secret_file.read_text().strip()
    run_dir.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(32)
    try:
        fd = os.open(secret_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process of this run folder made it first
        return secret_file.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(secret + "\n")
    return secret


def ensure_provenance_keys(run_dir: Path) -> Path:
    """The run folder's keyring (``provenance_keys.json``, mode 0600): one Ed25519 key that
    signs receipts, one that seals interactions; generated once, like the mesh secret."""
    keys_file = run_dir / "provenance_keys.json"
    if keys_file.exists():
        return keys_file
    from bkn_common.provenance.keys import new_keyring

    run_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(keys_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process of this run folder made it first
        return keys_file
    with os.fdopen(fd, "w") as handle:
        handle.write(json.dumps(new_keyring(), indent=2) + "\n")
    return keys_file


def _pid_file(layout: MeshLayout, name: str) -> Path:
    return layout.run_dir / "pids" / f"{name}.pid"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:  # a zombie is not alive
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except OSError:
        return True


def start_process(layout: MeshLayout, process: Process) -> None:
    pid_file = _pid_file(layout, process.name)
    if pid_file.exists() and _alive(int(pid_file.read_text())):
        return
    (layout.run_dir / "logs").mkdir(parents=True, exist_ok=True)
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    log = open(layout.run_dir / "logs" / f"{process.name}.log", "ab")  # noqa: SIM115
    child = subprocess.Popen(
        process.command, env=layout.env(), stdout=log, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, cwd=ROOT, start_new_session=True,
    )
    pid_file.write_text(str(child.pid))


def wait_healthy(layout: MeshLayout, processes: Iterable[Process], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    for process in processes:
        url = f"http://127.0.0.1:{process.port}{process.health_path}"
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            pid_file = _pid_file(layout, process.name)
            if pid_file.exists() and not _alive(int(pid_file.read_text())):
                raise RuntimeError(f"{process.name} exited; see {layout.run_dir}/logs/{process.name}.log")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{process.name} not ready at {url}; see {layout.run_dir}/logs")
            time.sleep(0.025)  # `restart` reports seconds to green: poll finer than they matter


def stop_processes(layout: MeshLayout, names: Iterable[str], grace: float = 15) -> None:
    """SIGTERM each process group; SIGKILL what is still alive after ``grace`` seconds."""
    pids = []
    for name in names:
        pid_file = _pid_file(layout, name)
        if not pid_file.exists():
            continue
        pid = int(pid_file.read_text())
        if _alive(pid):
            try:
                os.killpg(pid, signal.SIGTERM)
            except OSError:
                os.kill(pid, signal.SIGTERM)
            pids.append(pid)
        pid_file.unlink(missing_ok=True)
    deadline = time.monotonic() + grace
    for pid in pids:
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _alive(pid):
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)


def kill_process(layout: MeshLayout, name: str) -> None:
    """SIGKILL one service's process group (a crash: nothing is flushed) and wait until it is gone."""
    pid_file = _pid_file(layout, name)
    if not pid_file.exists():
        return
    pid = int(pid_file.read_text())
    if _alive(pid):
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
        while _alive(pid):
            time.sleep(0.05)
    pid_file.unlink(missing_ok=True)


@dataclass(frozen=True)
class Restarted:
    stopped_s: float  # signal sent -> process gone
    ready_s: float  # process started -> /readyz green


def restart_process(layout: MeshLayout, name: str, *, kill: bool = False, timeout: float = 900) -> Restarted:
    """Stop one service (SIGTERM: a clean stop that writes its checkpoint; ``kill``: SIGKILL,
    a crash) and start it again; returns how long each half took."""
    process = next((p for p in layout.services() if p.name == name), None)
    if process is None:
        raise ValueError(f"unknown service {name!r}; one of {', '.join(p.name for p in layout.services())}")
    began = time.monotonic()
    if kill:
        kill_process(layout, name)
    else:  # a clean stop writes the checkpoint: give a large store time for it
        stop_processes(layout, [name], grace=120)
    stopped = time.monotonic()
    start_process(layout, process)
    wait_healthy(layout, [process], timeout=timeout)
    return Restarted(stopped - began, time.monotonic() - stopped)


def infra_running() -> bool:
    """Whether the local Kafka and Redis both answer (`status` of the scripts)."""
    return all(
        subprocess.run([str(ROOT / "scripts" / script), "status"], capture_output=True).returncode == 0
        for script in ("kafka.sh", "redis.sh")
    )


def infra(action: str) -> None:
    for script in ("kafka.sh", "redis.sh"):
        subprocess.run([str(ROOT / "scripts" / script), action], check=action == "start")


def apply_bundles(layout: MeshLayout, bundles: Iterable[str]) -> None:
    for bundle in bundles:
        subprocess.run([str(BIN / "clctl"), "apply", "-f", str(ROOT / bundle)], env=layout.env(),
                       check=True, stdout=subprocess.DEVNULL)


def wait_demo_visible(layout: MeshLayout, app_key: str, kn_id: str = "supply_chain", timeout: float = 60) -> None:
    """Wait until the gateway lists the demo network's capabilities (projections caught up)."""
    deadline = time.monotonic() + timeout
    request_body = json.dumps({"kn_id": kn_id}).encode()
    while time.monotonic() < deadline:
        request = urllib.request.Request(
            f"{layout.gateway_url}/api/agent-retrieval/v1/kn/search_capabilities",
            data=request_body, method="POST",
            headers={"Authorization": f"Bearer {app_key}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                if json.loads(response.read()).get("capabilities"):
                    return
        except (urllib.error.URLError, OSError, ValueError):
            pass
        time.sleep(0.3)
    raise RuntimeError("the demo network did not become visible through the gateway")


def apply_knowledge_bases(layout: MeshLayout, bases: Iterable[tuple[str, str, tuple[str, ...]]]) -> None:
    """``clctl kb apply`` each (folder, kb id, readers)."""
    for folder, kb_id, readers in bases:
        command = [str(BIN / "clctl"), "kb", "apply", "--kb", kb_id, str(ROOT / folder)]
        for reader in readers:
            command += ["--reader", reader]
        subprocess.run(command, env=layout.env(), check=True, stdout=subprocess.DEVNULL)


def up(layout: MeshLayout, *, with_infra: bool = True, bundles: Iterable[str] = (),
       knowledge_bases: Iterable[tuple[str, str, tuple[str, ...]]] = ()) -> str:
    if with_infra:
        infra("start")
    app_key = ensure_identity(layout.run_dir)
    subprocess.run([str(BIN / "clctl"), "topics", "--create"], env=layout.env(), check=True,
                   stdout=subprocess.DEVNULL)
    processes = layout.services()
    for process in processes:
        start_process(layout, process)
    wait_healthy(layout, processes)
    bundles = list(bundles)
    if bundles:
        apply_bundles(layout, bundles)
        wait_demo_visible(layout, app_key)
    apply_knowledge_bases(layout, knowledge_bases)
    endpoints = {"gateway_url": layout.gateway_url, "app_key": app_key,
                 "operator_key": operator_key(layout.run_dir),
                 "console_url": layout.gateway_url + "/console/"}
    # what clctl reads when its environment is silent (libs/clctl/src/clctl/run_folder.py)
    endpoints |= {"services": layout.urls(), "kafka_bootstrap_servers": layout.kafka,
                  "topic_prefix": layout.topic_prefix}
    (layout.run_dir / "endpoints.json").write_text(json.dumps(endpoints, indent=2) + "\n")
    return app_key


def down(layout: MeshLayout, *, with_infra: bool = True) -> None:
    stop_processes(layout, [p.name for p in layout.services()])
    if with_infra:
        infra("stop")


DEMO_BUNDLES = ("examples/supply_chain", "examples/other_network")
DEMO_KNOWLEDGE_BASES = (("examples/knowledge_base", "handbook", ("dev", "analyst", "service")),)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["up", "down", "restart"])
    parser.add_argument("service", nargs="?", help="restart: the service to restart")
    parser.add_argument("--foreground", action="store_true", help="stay attached; Ctrl-C stops all")
    parser.add_argument("--kill", action="store_true", help="restart: SIGKILL instead of SIGTERM")
    args = parser.parse_args()
    layout = MeshLayout(
        kafka=os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092"),
        redis=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
    )
    if args.action == "restart":
        if not args.service:
            parser.error("restart needs a service name")
        try:
            took = restart_process(layout, args.service, kill=args.kill)
        except (ValueError, RuntimeError) as exc:
            print(f"devmesh: {exc}", file=sys.stderr)
            raise SystemExit(1) from exc
        how = "killed (SIGKILL)" if args.kill else "stopped (SIGTERM)"
        print(f"{args.service}: {how} in {took.stopped_s:.2f} s; /readyz green {took.ready_s:.2f} s after start")
        return
    if args.action == "down":
        down(layout)
        print("mesh stopped")
        return
    try:
        app_key = up(layout, bundles=DEMO_BUNDLES, knowledge_bases=DEMO_KNOWLEDGE_BASES)
    except Exception as exc:
        print(f"devmesh: {exc}", file=sys.stderr)
        down(layout)
        raise SystemExit(1) from exc
    print(f"gateway:  {layout.gateway_url}")
    print(f"app key:  {app_key}   (account 'dev'; other demo keys in .run/app_keys.json)")
    print(f"console:  {layout.gateway_url}/console/   operator key: {operator_key(layout.run_dir)}")
    print(f"try:      curl -s -X POST {layout.gateway_url}/api/agent-retrieval/v1/kn/search_capabilities "
          f"-H 'Authorization: Bearer {app_key}' -H 'Content-Type: application/json' "
          "-d '{\"kn_id\":\"supply_chain\"}'")
    if not args.foreground:
        return
    print("running in the foreground; Ctrl-C stops everything")
    stop = False

    def on_signal(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    while not stop:
        time.sleep(0.5)
    down(layout)
    print("mesh stopped")


if __name__ == "__main__":
    main()
