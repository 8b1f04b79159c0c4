"""clctl: apply network bundles, show and create topics."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from bkn_common.kafka import EventPublisher, ensure_topics, make_broker
from bkn_common.topics import ALL_TOPICS
from clctl.bundle import BundleError, bundle_events, load_bundle
from clctl.settings import ClctlSettings

app = typer.Typer(help="Operate the Context Loader mesh.", no_args_is_help=True)


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
    settings = ClctlSettings()
    asyncio.run(_publish(settings, events))
    typer.echo(f"applied {file}: {len(events)} events published")


async def _publish(settings: ClctlSettings, events: list) -> None:  # type: ignore[type-arg]
    await ensure_topics(settings.kafka_bootstrap_servers, settings.topic_prefix)
    broker = make_broker(settings)
    await broker.start()
    try:
        await EventPublisher(broker, settings.topic_prefix).publish_many(events)
    finally:
        await broker.stop()


@app.command()
def topics(
    create: Annotated[bool, typer.Option(help="Create the topics that do not exist.")] = False,
) -> None:
    """Print the topic catalogue (and optionally create the topics)."""
    settings = ClctlSettings()
    typer.echo(f"{'topic':34} {'parts':>5}  {'cleanup':8} key / events")
    for spec in ALL_TOPICS:
        name = spec.full_name(settings.topic_prefix)
        events = ", ".join(e.type for e in spec.events) or "(dead letters)"
        typer.echo(f"{name:34} {spec.partitions:>5}  {spec.cleanup_policy:8} {spec.key}")
        typer.echo(f"{'':51}{events}")
    if create:
        created = asyncio.run(ensure_topics(settings.kafka_bootstrap_servers, settings.topic_prefix))
        typer.echo(f"created: {', '.join(created) or 'none (all exist)'}")


def main() -> None:
    app()
