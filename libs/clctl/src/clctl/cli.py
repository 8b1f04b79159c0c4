"""clctl: apply network bundles, show and create topics."""

from __future__ import annotations

import asyncio
import sys
from contextlib import nullcontext
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, TextIO

import httpx
import typer
from rich.console import Console
from rich.progress import Progress

from bkn_common.contracts.topics import ALL_TOPICS
from bkn_common.framework import rebuildable
from bkn_common.framework.digest import differing_keys, state_digest
from bkn_common.framework.rebuildable import Rebuildable
from bkn_common.infra.kafka import EventPublisher, ensure_topics, make_broker
from bkn_common.infra.kafka_connection import KafkaConnection
from bkn_common.infra.mesh_auth import MeshSecretMissing, signer_from
from bkn_common.infra.mesh_client import MeshAuth
from clctl.bundle.loader import BundleError, load_bundle
from clctl.bundle.to_events import bundle_events
from clctl.kb import (
    KnowledgeBaseRefused,
    LatestApplies,
    apply_events,
    check_identity,
    folder_progress,
    load_folder,
    report_lines,
)
from clctl.provenance import keys_app, mesh, trace_app
from clctl.replay import StartAt, dump, rebuild
from clctl.replay_view import replay_columns, summary_table
from clctl.run_folder import RunFolder, chosen, service_base_url
from clctl.settings import ClctlSettings

app = typer.Typer(help="Operate the Context Loader mesh.", no_args_is_help=True)
kb_app = typer.Typer(help="Knowledge bases over Markdown files.", no_args_is_help=True)
app.add_typer(kb_app, name="kb")
app.add_typer(trace_app, name="trace")
app.add_typer(keys_app, name="keys")


@app.callback()
def _options(
    run_dir: Annotated[Path | None, typer.Option(
        "--run-dir", help="The dev mesh's run folder (default: CLCTL_RUN_DIR, else the first "
                          ".run/ with endpoints.json here or above).")] = None,
) -> None:
    chosen[0] = run_dir


def _mesh() -> tuple[ClctlSettings, RunFolder | None]:
    """The settings, completed from the dev mesh's run folder where the environment is silent."""
    return mesh()


def _settings() -> ClctlSettings:
    return _mesh()[0]


@app.command()
def apply(
    file: Annotated[Path, typer.Option("-f", "--file", help="Bundle file or folder.")],
    dry_run: Annotated[bool, typer.Option(help="Validate only; publish nothing.")] = False,
) -> None:
    """Validate a network bundle as a whole, then publish its events."""
    try:
        bundle = load_bundle(file)
    except BundleError as exc:
        typer.echo(f"bundle refused ({len(exc.problems)} problem(s)); nothing was published:", err=True)
        for problem in exc.problems:
            typer.echo(f"  {problem}", err=True)
        raise typer.Exit(2) from exc
    events = bundle_events(bundle)
    if dry_run:
        typer.echo(f"bundle valid: {len(events)} events (dry run, nothing published)")
        return
    settings = _settings()
    asyncio.run(_publish(settings, events))
    typer.echo(f"applied {file}: {len(events)} events published")


async def _publish(settings: ClctlSettings, events: list) -> None:  # type: ignore[type-arg]
    await ensure_topics(KafkaConnection.from_settings(settings), settings.topic_prefix)
    broker = make_broker(settings)
    await broker.start()
    try:
        await EventPublisher(broker, settings.topic_prefix).publish_many(events)
    finally:
        await broker.stop()


@kb_app.command("apply")
def kb_apply(
    folder: Annotated[Path, typer.Argument(help="The knowledge base folder (Markdown files, any layout).")],
    kb: Annotated[str, typer.Option("--kb", help="Knowledge base id.")],
    name: Annotated[str, typer.Option(help="Display name (default: kept, or the id).")] = "",
    reader: Annotated[list[str] | None, typer.Option("--reader", help="Account that may read it (repeat).")] = None,
    max_file_bytes: Annotated[int | None, typer.Option(help="Size limit per file.")] = None,
    dry_run: Annotated[bool, typer.Option(help="Validate only; publish nothing.")] = False,
    strict: Annotated[bool, typer.Option(help="Refuse the whole folder on any warning (curated bases, CI).")] = False,
    link_root: Annotated[str, typer.Option(help="URL prefix a site serves the folder under: /x links after it "
                                                "resolve from the base root.")] = "",
) -> None:
    """Publish a knowledge base folder: warnings for single files and links, then its events."""
    settings = _settings()
    readers = list(reader or [])
    try:
        check_identity(kb, readers)
        with folder_progress() as progress:
            loaded = load_folder(folder, max_file_bytes or settings.kb_max_file_bytes, strict=strict,
                                 link_root=link_root, progress=progress)
    except KnowledgeBaseRefused as exc:
        typer.echo(f"knowledge base refused ({len(exc.problems)} problem(s)); nothing was published:", err=True)
        for problem in exc.problems:
            typer.echo(f"  {problem}", err=True)
        raise typer.Exit(2) from exc
    for line in report_lines(loaded):
        typer.echo(line)
    if dry_run:
        typer.echo(f"knowledge base valid: {len(loaded.files)} files (dry run, nothing published)")
        return
    events = asyncio.run(_kb_publish(settings, kb, name, readers, loaded))
    applied = events[-1]
    typer.echo(f"applied {kb}: {len(loaded.files)} files, {len(events) - 1} file events, "
               f"activeContentRevision {getattr(applied, 'content_revision', '?')}")


async def _kb_publish(settings: ClctlSettings, kb: str, name: str, readers: list[str], loaded: object) -> list:  # type: ignore[type-arg]
    await ensure_topics(KafkaConnection.from_settings(settings), settings.topic_prefix)
    store = LatestApplies()
    target = Rebuildable("knowledge-base", lambda: nullcontext(store), "")
    await rebuild(KafkaConnection.from_settings(settings), settings.topic_prefix, target, store, StartAt())
    events = apply_events(kb, name, readers, loaded, store.applies.get(kb))  # type: ignore[arg-type]
    broker = make_broker(settings)
    await broker.start()
    try:
        publisher = EventPublisher(broker, settings.topic_prefix)
        await publisher.publish_many(events[:-1])
        await publisher.publish(events[-1])
    finally:
        await broker.stop()
    return events


@app.command()
def topics(
    create: Annotated[bool, typer.Option(help="Create the topics that do not exist.")] = False,
) -> None:
    """Print the topic catalogue (and optionally create the topics)."""
    settings = _settings()
    typer.echo(f"{'topic':34} {'parts':>5}  {'cleanup':8} key / events")
    for spec in ALL_TOPICS:
        name = spec.full_name(settings.topic_prefix)
        events = ", ".join(e.type for e in spec.events) or "(dead letters)"
        typer.echo(f"{name:34} {spec.partitions:>5}  {spec.cleanup_policy:8} {spec.key}")
        typer.echo(f"{'':51}{events}")
    if create:
        created = asyncio.run(ensure_topics(KafkaConnection.from_settings(settings), settings.topic_prefix))
        typer.echo(f"created: {', '.join(created) or 'none (all exist)'}")


def _start(offset: int | None, since: str | None) -> StartAt:
    if offset is not None and since is not None:
        raise typer.BadParameter("give --offset or --since, not both")
    return StartAt(offset=offset, since=datetime.fromisoformat(since) if since else None)


@app.command()
def replay(
    service: Annotated[str, typer.Argument(help="A service with a bkn.replay entry point.")],
    offset: Annotated[int | None, typer.Option(help="Start every partition at this offset.")] = None,
    since: Annotated[str | None, typer.Option(help="Start at this ISO time.")] = None,
    verify: Annotated[bool, typer.Option(help="Compare with the live service's state.")] = False,
    live_url: Annotated[str | None, typer.Option(help="The live service's base URL.")] = None,
) -> None:
    """Rebuild a service's derived state from its topics into a fresh store.

    Installed services: those registering a ``bkn.replay`` entry point."""
    try:
        target = rebuildable.load(service)
    except LookupError as exc:
        raise typer.BadParameter(str(exc)) from exc
    settings, folder = _mesh()
    console = Console()
    with target.open_store() as store:
        with Progress(*replay_columns(), console=console, transient=False) as bar:
            task = bar.add_task(f"replaying {service}", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            report = asyncio.run(rebuild(
                KafkaConnection.from_settings(settings), settings.topic_prefix, target, store,
                _start(offset, since), progress,
            ))
        snapshot = store.snapshot()
    rebuilt = state_digest(snapshot)
    typer.echo(f"rebuilt {service}: {report.applied} events applied, {report.poison} poison skipped")
    live: dict[str, Any] | None = None
    base = service_base_url(service, live_url, folder, target.default_url)
    if verify:
        with _live_client(settings, base) as client:
            live = client.get("/internal/v1/state/digest").raise_for_status().json()
    console.print(summary_table(service, rebuilt, live))
    if live is None:
        return
    differing = [
        name for name in sorted(set(rebuilt["sections"]) | set(live["sections"]))
        if rebuilt["sections"].get(name) != live["sections"].get(name)
    ]
    if not differing:
        typer.echo(f"verify: identical to the live state ({rebuilt['sha256'][:16]})")
        return
    with _live_client(settings, base) as client:
        for name in differing:
            live_section = client.get("/internal/v1/state/snapshot", params={"section": name}).json()
            keys = differing_keys(snapshot.get(name), live_section)
            typer.echo(f"verify: section {name} differs (rebuilt {rebuilt['sections'].get(name, {}).get('count')}, "
                       f"live {live['sections'].get(name, {}).get('count')}): {', '.join(keys) or '(values)'}")
    raise typer.Exit(1)


def _live_client(settings: ClctlSettings, base: str) -> httpx.Client:
    """A client of the live service's /internal/ API, signed with MESH_INTERNAL_SECRET (from
    the environment, else the dev mesh's run folder)."""
    try:
        auth = MeshAuth(signer_from(settings))
    except MeshSecretMissing as exc:
        typer.echo(f"cannot verify: {exc}", err=True)
        raise typer.Exit(2) from exc
    return httpx.Client(base_url=base, timeout=60, auth=auth)


@app.command()
def migrate(
    service: Annotated[str, typer.Argument(help="A service with a bkn.migrate entry point.")],
) -> None:
    """Run a service's store schema migrations (the service also runs them at start).

    The service reads its own settings (e.g. TRACE_RECORDER_STORE, TRACE_RECORDER_DATABASE_URL)."""
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group="bkn.migrate") if ep.name == service]
    if not found:
        names = sorted({ep.name for ep in entry_points(group="bkn.migrate")})
        raise typer.BadParameter(f"no bkn.migrate entry point named {service!r}; installed: {', '.join(names)}")
    try:
        typer.echo(found[0].load()())
    except Exception as exc:  # a newer schema, an unreachable database: say it, exit non-zero
        typer.echo(f"migrate {service} failed: {exc}", err=True)
        raise typer.Exit(1) from exc


@app.command("dump")
def dump_topic(
    topic: Annotated[str, typer.Argument(help="Topic name without the prefix (see clctl topics).")],
    offset: Annotated[int | None, typer.Option(help="First offset (every partition).")] = None,
    since: Annotated[str | None, typer.Option(help="First record time (ISO).")] = None,
    until_offset: Annotated[int | None, typer.Option(help="Stop before this offset.")] = None,
    until: Annotated[str | None, typer.Option(help="Stop after this ISO time.")] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="File (default stdout).")] = None,
) -> None:
    """Export a topic range as JSON lines (key, headers, offsets, decoded value)."""
    settings = _settings()
    out = output.open("w", encoding="utf-8") if output else sys.stdout
    try:
        count = asyncio.run(dump(
            KafkaConnection.from_settings(settings), f"{settings.topic_prefix}{topic}", _start(offset, since),
            until_offset, datetime.fromisoformat(until) if until else None,
            lambda line: _write_line(out, line),
        ))
    finally:
        if output:
            out.close()
    typer.echo(f"dumped {count} records", err=True)


def _write_line(out: TextIO, line: str) -> None:
    out.write(line + "\n")


def main() -> None:
    app()
