"""The chart's PostgreSQL wiring drives a real run: trace-recorder as a two-replica StatefulSet on
a real PostgreSQL (URL from values, password from the chart's Secret, its own schema), each
replica with its pod index, started from the rendered manifests like every other workload
(tests/helm/loopback.py). Both replicas become ready and a managed interaction started through
the gateway lands in the schema's tables."""

from __future__ import annotations

import json
import secrets
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import devmesh
import psycopg
import pytest
import yaml

from bkn_common.contracts.topics import projection_topics
from tests.helm.chart import documents, render
from tests.helm.loopback import Pod, Rendered, get, loopback_values, running_chart, wait_until
from tests.support.infra import real_infra, real_postgres

pytestmark = pytest.mark.integration


def without_password(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    netloc = (parts.username or "") + "@" + (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme.replace("postgres://", "postgresql://"), netloc, parts.path, parts.query, "")), \
        parts.password or ""


@pytest.fixture(scope="module")
def chart_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Rendered, dict[str, Pod], str, str]]:
    with real_infra() as infra, real_postgres() as database:
        url, password = without_password(database)
        schema = f"helm_{uuid.uuid4().hex[:10]}"
        base, dev_key = devmesh.free_port_block(), "bak_" + secrets.token_urlsafe(32)
        values: dict[str, Any] = loopback_values(infra, base, dev_key)
        values["traceRecorder"] = {**values["traceRecorder"], "store": "postgresql", "replicas": 2}
        values["postgresql"] = {"url": url, "password": password, "schema": schema}
        path = tmp_path_factory.mktemp("values") / "loopback-postgresql.yaml"
        path.write_text(yaml.safe_dump(values))
        chart = Rendered(documents(render(path)), dev_key, base)
        try:
            with running_chart(chart, tmp_path_factory.mktemp("pods")) as pods:
                yield chart, pods, database, schema
        finally:
            with psycopg.connect(database, autocommit=True) as connection:
                connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def test_both_replicas_own_their_share_of_the_partitions(chart_run: tuple[Rendered, dict[str, Pod], str, str]) -> None:
    _, pods, _, _ = chart_run
    replicas = {name: pod for name, pod in pods.items() if name.startswith("cl-context-loader-trace-recorder-")}
    assert sorted(pod.env["TRACE_RECORDER_REPLICA_INDEX"] for pod in replicas.values()) == ["0", "1"]
    for pod in replicas.values():
        assert pod.env["TRACE_RECORDER_REPLICA_COUNT"] == "2"
        assert pod.env["TRACE_RECORDER_STORE"] == "postgresql"
        assert "@" in pod.env["TRACE_RECORDER_DATABASE_URL"] and ":" not in urlsplit(
            pod.env["TRACE_RECORDER_DATABASE_URL"]).netloc.split("@")[0]
    # running_chart waited for every /readyz; what is left to show is the split itself: replica i
    # consumes the partitions p % 2 == i of every projected topic (read from its progress report,
    # which /readyz carries whether or not one Kafka ping just missed on a loaded machine)
    owned = {pod.env["TRACE_RECORDER_REPLICA_INDEX"]: json.loads(get(f"http://127.0.0.1:{pod.port}/readyz")[1])
             ["progress"]["kafka_projection"]["partitions"] for pod in replicas.values()}
    topics = projection_topics("trace-recorder")
    assert owned == {str(i): sum(len(range(i, topic.partitions, 2)) for topic in topics) for i in (0, 1)}


def test_a_managed_interaction_lands_in_the_schema(chart_run: tuple[Rendered, dict[str, Pod], str, str]) -> None:
    chart, _, database, schema = chart_run
    url = f"http://127.0.0.1:{chart.port('gateway')}/api/agent-retrieval/v1/kn/bkn_start_interaction"
    answer: dict[str, Any] = {}
    body = {"question": "chart on postgresql", "agent_name": "helm-tests", "conversation_mode": "new"}

    def started() -> bool:
        status, reply = get(url, chart.dev_key, body)
        if status == 200:
            answer.update(json.loads(reply))
        return bool(answer)

    wait_until("bkn_start_interaction", started, {}, timeout=180)
    interaction = answer["interaction_id"]

    def stored() -> bool:
        with psycopg.connect(database) as connection:
            row = connection.execute(f'SELECT count(*) FROM "{schema}".interactions WHERE interaction_id = %s',
                                     (interaction,)).fetchone()
        return bool(row and row[0])

    wait_until(f"interaction {interaction} in {schema}.interactions", stored, {}, timeout=180)
