"""The dev mesh's run folder, so clctl works on a ``make up`` mesh with no environment set.

``scripts/devmesh.py`` keeps what a mesh on one machine needs in a run folder (``.run/`` of
the checkout): ``mesh_internal_secret`` (the mesh's ``MESH_INTERNAL_SECRET``) and
``endpoints.json`` (the gateway, each service's base URL, Kafka and the topic prefix). clctl
looks for it at ``--run-dir`` or ``CLCTL_RUN_DIR`` when given, else walks up from the current
folder to the first folder holding ``.run/endpoints.json``. What the environment sets always
wins: the folder only fills what is missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from clctl.settings import ClctlSettings

ENDPOINTS = "endpoints.json"
MESH_SECRET = "mesh_internal_secret"


class RunFolderUnreadable(RuntimeError):
    """A run folder was named (or found) but its files cannot be read."""


@dataclass(frozen=True)
class RunFolder:
    path: Path
    endpoints: dict[str, Any] = field(default_factory=dict)

    def mesh_secret(self) -> str | None:
        secret_file = self.path / MESH_SECRET
        try:
            secret = secret_file.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise RunFolderUnreadable(f"cannot read {secret_file}: {exc}") from exc
        return secret or None

    def service_url(self, service: str) -> str | None:
        """The base URL of ``service`` (``trace-recorder`` or ``trace_recorder``), if listed."""
        services = self.endpoints.get("services")
        if not isinstance(services, dict):
            return None
        url = services.get(service.replace("-", "_"))
        return url if isinstance(url, str) and url else None

    def file(self, name: str) -> Path | None:
        """A file of the folder (e.g. ``provenance_keys.json``) if it exists."""
        candidate = self.path / name
        return candidate if candidate.is_file() else None


def read_run_folder(path: Path) -> RunFolder:
    """The run folder at ``path`` (its ``endpoints.json`` may be missing: a mesh not up yet)."""
    if not path.is_dir():
        raise RunFolderUnreadable(f"{path} is not a folder")
    endpoints_file = path / ENDPOINTS
    endpoints: dict[str, Any] = {}
    if endpoints_file.is_file():
        try:
            loaded = json.loads(endpoints_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RunFolderUnreadable(f"cannot read {endpoints_file}: {exc}") from exc
        if isinstance(loaded, dict):
            endpoints = loaded
    return RunFolder(path, endpoints)


def find_run_folder(start: Path) -> RunFolder | None:
    """The first ``.run/`` holding ``endpoints.json`` in ``start`` or a folder above it."""
    for folder in (start, *start.parents):
        candidate = folder / ".run"
        if (candidate / ENDPOINTS).is_file():
            return read_run_folder(candidate)
    return None


def locate(settings: ClctlSettings, explicit: Path | None = None, cwd: Path | None = None) -> RunFolder | None:
    """``explicit`` (``--run-dir``), else ``CLCTL_RUN_DIR``, else the walk up from ``cwd``."""
    if explicit is not None:
        return read_run_folder(explicit)
    if settings.run_dir:
        return read_run_folder(Path(settings.run_dir))
    return find_run_folder((cwd or Path.cwd()).resolve())


def with_run_folder(settings: ClctlSettings, folder: RunFolder | None) -> ClctlSettings:
    """``settings`` with what the environment left unset taken from ``folder``: the mesh
    secret, Kafka's address and the topic prefix."""
    if folder is None:
        return settings
    update: dict[str, Any] = {}
    if settings.mesh_internal_secret is None:
        secret = folder.mesh_secret()
        if secret:
            update["mesh_internal_secret"] = SecretStr(secret)
    given = settings.model_fields_set
    kafka = folder.endpoints.get("kafka_bootstrap_servers")
    if "kafka_bootstrap_servers" not in given and isinstance(kafka, str) and kafka:
        update["kafka_bootstrap_servers"] = kafka
    prefix = folder.endpoints.get("topic_prefix")
    if "topic_prefix" not in given and isinstance(prefix, str):
        update["topic_prefix"] = prefix
    return settings.model_copy(update=update) if update else settings


def service_base_url(service: str, given: str | None, folder: RunFolder | None, default: str) -> str:
    """A live service's URL: ``--live-url``/``--url``, else the run folder's, else ``default``."""
    url = given or (folder.service_url(service) if folder else None) or default
    return url.rstrip("/")


chosen: list[Path | None] = [None]
"""The ``--run-dir`` of this invocation (set by the CLI's callback)."""


def mesh_settings(explicit: Path | None = None) -> tuple[ClctlSettings, RunFolder | None]:
    """clctl's settings completed from the run folder (raises :class:`RunFolderUnreadable`)."""
    settings = ClctlSettings()
    folder = locate(settings, explicit or chosen[0])
    return with_run_folder(settings, folder), folder
