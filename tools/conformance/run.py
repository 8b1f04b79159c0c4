"""``make conformance``: the official MCP conformance suite against a private copy of the mesh.

Installs Node 22 and the suite (pinned) under .cache/conformance, starts the mesh on its own
ports with the suite's two fixture tools enabled, puts the auth-adding proxy in front of the
gateway (the suite sends no credentials), runs every active server scenario with the
baseline of expected failures, and stops everything it started.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import devmesh  # noqa: E402

CACHE = ROOT / ".cache" / "conformance"
SUITE_VERSION = "0.1.16"
NODE_VERSION = "22.23.3"


def install() -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    if not (CACHE / "package.json").exists():
        (CACHE / "package.json").write_text(json.dumps({"name": "conformance-runner", "private": True}))
    suite = CACHE / "node_modules" / "@modelcontextprotocol" / "conformance" / "package.json"
    if not suite.exists() or json.loads(suite.read_text())["version"] != SUITE_VERSION:
        subprocess.run(["npm", "i", "--silent", f"node@{NODE_VERSION}",
                        f"@modelcontextprotocol/conformance@{SUITE_VERSION}"], cwd=CACHE, check=True)


def main() -> int:
    install()
    layout = devmesh.MeshLayout(
        run_dir=ROOT / ".run" / "conformance", base_port=devmesh.free_port_block(), topic_prefix="conformance.",
        extra_env={"GATEWAY_MCP_CONFORMANCE_FIXTURES": "true"},
    )
    started_infra = not devmesh.infra_running()
    devmesh.infra("start")
    proxy = None
    proxy_port = layout.base_port + devmesh.PORT_BLOCK - 1  # the block's last port: free, unused by the mesh
    try:
        key = devmesh.up(layout, with_infra=False, bundles=devmesh.DEMO_BUNDLES)
        proxy = subprocess.Popen([sys.executable, str(ROOT / "tools/conformance/auth_proxy.py"),
                                  "--target", layout.gateway_url, "--port", str(proxy_port), "--key", key])
        for _ in range(50):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{proxy_port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        node = CACHE / "node_modules" / ".bin" / "node"
        cli = CACHE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
        url = f"http://127.0.0.1:{proxy_port}/api/agent-retrieval/v1/mcp"
        result = subprocess.run([str(node), str(cli), "server", "--url", url,
                                 "--expected-failures", str(ROOT / "tools/conformance/baseline.yml"),
                                 "-o", str(ROOT / ".run" / "conformance" / "results")])
        return result.returncode
    finally:
        if proxy is not None:
            proxy.terminate()
        devmesh.down(layout, with_infra=started_infra)  # leave infrastructure it found running


if __name__ == "__main__":
    raise SystemExit(main())
