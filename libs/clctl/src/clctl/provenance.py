"""``clctl trace export|verify`` and ``clctl keys export``: provenance anyone can verify offline.

``trace export`` and ``keys export`` ask trace-recorder's internal API (signed with
``MESH_INTERNAL_SECRET``; on the dev mesh the secret and the URL come from the run folder).
``trace verify`` needs no network and no mesh: the bundle and the public keys are all it
reads (``bkn_common.provenance.bundle``).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from rich.console import Console
from rich.table import Table

from bkn_common.infra.mesh_auth import MeshSecretMissing, signer_from
from bkn_common.infra.mesh_client import MeshAuth
from bkn_common.provenance.bundle import verify_bundle
from bkn_common.provenance.keys import ROLES, KeyringError, KeySet, load_keyring, new_key
from clctl.run_folder import RunFolder, RunFolderUnreadable, mesh_settings, service_base_url
from clctl.settings import ClctlSettings

TRACE_RECORDER_URL = "http://127.0.0.1:30783"

trace_app = typer.Typer(help="Export and verify an interaction's provenance.", no_args_is_help=True)
keys_app = typer.Typer(help="The deployment's public signing keys.", no_args_is_help=True)


def mesh() -> tuple[ClctlSettings, RunFolder | None]:
    """The settings completed from the run folder; an unreadable one stops clctl (exit 2)."""
    try:
        return mesh_settings()
    except RunFolderUnreadable as exc:
        typer.echo(f"run folder: {exc}", err=True)
        raise typer.Exit(2) from exc


def _trace_recorder(url: str | None) -> httpx.Client:
    settings, folder = mesh()
    try:
        auth = MeshAuth(signer_from(settings))
    except MeshSecretMissing as exc:
        typer.echo(f"cannot reach trace-recorder: {exc}", err=True)
        raise typer.Exit(2) from exc
    base = service_base_url("trace-recorder", url, folder, TRACE_RECORDER_URL)
    return httpx.Client(base_url=base, timeout=60, auth=auth)


def _get(client: httpx.Client, path: str) -> Any:
    try:
        response = client.get(path)
    except httpx.HTTPError as exc:
        typer.echo(f"trace-recorder at {client.base_url} did not answer: {exc}", err=True)
        raise typer.Exit(2) from exc
    if response.status_code != 200:
        typer.echo(f"trace-recorder answered {response.status_code}: {response.text[:500]}", err=True)
        raise typer.Exit(1)
    return response.json()


def _write(document: Any, output: Path | None) -> None:
    text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


Url = Annotated[str | None, typer.Option("--url", help="trace-recorder's base URL (default: the "
                                                        "run folder's, else http://127.0.0.1:30783).")]
Output = Annotated[Path | None, typer.Option("-o", "--output", help="File (default stdout).")]


@trace_app.command("export")
def export(
    interaction_id: Annotated[str, typer.Argument(help="The interaction to export.")],
    output: Output = None,
    url: Url = None,
) -> None:
    """Write one interaction's bundle: records, chain, signed heads, spans, key ids."""
    with _trace_recorder(url) as client:
        bundle = _get(client, f"/internal/v1/interactions/{interaction_id}/bundle")
    _write(bundle, output)
    if output is not None:
        typer.echo(f"exported {interaction_id}: {len(bundle.get('records', []))} records, "
                   f"{len(bundle.get('chain', {}).get('heads', []))} signed head(s) -> {output}", err=True)


@trace_app.command("verify")
def verify(
    bundle_file: Annotated[Path, typer.Argument(help="A bundle from clctl trace export.")],
    keys: Annotated[Path, typer.Option("--keys", help="The deployment's public keys (JWKS, from "
                                                       "clctl keys export).")],
) -> None:
    """Check a bundle offline: every hash, every signature, the chain. Exit 0 only when all holds."""
    try:
        bundle = json.loads(bundle_file.read_text(encoding="utf-8"))
        keyset = KeySet.from_jwks(json.loads(keys.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyringError) as exc:
        typer.echo(f"cannot read: {exc}", err=True)
        raise typer.Exit(2) from exc
    report = verify_bundle(bundle if isinstance(bundle, dict) else {}, keyset)
    table = Table("record", "check", "result", title=f"interaction {bundle.get('interaction_id', '?')}")
    for row in report.rows:
        table.add_row(row.record, row.check, ("ok" if row.ok else "FAILED") + (f": {row.detail}" if row.detail else ""))
    Console(width=200).print(table)
    broken = report.first_broken
    if broken is None and report.ok:
        typer.echo(f"verdict: VERIFIED ({len(report.rows)} checks hold)")
        return
    typer.echo(f"verdict: NOT VERIFIED: {broken.detail if broken else 'nothing to check'}")
    raise typer.Exit(1)


@keys_app.command("export")
def keys_export(
    output: Output = None,
    url: Url = None,
    keyring: Annotated[Path | None, typer.Option(
        "--keyring", help="Read this keyring file (e.g. the mounted Secret) instead of asking "
                          "trace-recorder; only public parts are printed.")] = None,
) -> None:
    """Print the deployment's public keys as a JSON Web Key Set (what verify --keys reads)."""
    if keyring is not None:
        try:
            jwks = load_keyring(keyring).public.jwks()
        except KeyringError as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(2) from exc
    else:
        with _trace_recorder(url) as client:
            jwks = _get(client, "/internal/v1/provenance/keys")
    _write(jwks, output)


@keys_app.command("new")
def keys_new(
    output: Annotated[Path, typer.Option("-o", "--output", help="The keyring file to write (or extend).")],
    role: Annotated[list[str] | None, typer.Option("--role", help="receipt or seal (repeat; default both).")] = None,
    valid_from: Annotated[str | None, typer.Option(
        help="ISO time the new keys start signing (a rotation: publish the public keys first).")] = None,
) -> None:
    """Make a keyring (PROVENANCE_KEYS_FILE) or add fresh keys to one (a rotation). The file
    holds private keys: keep it in a Secret (mode 0600 here)."""
    roles = [r for r in ROLES if r in (role or ROLES)]
    if role and len(roles) != len(set(role)):
        raise typer.BadParameter(f"--role is one of {', '.join(ROLES)}")
    start = datetime.fromisoformat(valid_from) if valid_from else None
    document: dict[str, Any] = {"keys": []}
    if output.exists():
        try:
            load_keyring(output)
            document = json.loads(output.read_text(encoding="utf-8"))
        except (KeyringError, ValueError) as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(2) from exc
    added = [new_key(r, start) for r in roles]
    document["keys"] = [*document["keys"], *added]
    output.touch(mode=0o600, exist_ok=True)
    output.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    for key in added:
        typer.echo(f"added {key['bkn_role']} key {key['kid']} -> {output}", err=True)
