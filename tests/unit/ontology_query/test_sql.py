"""run_sql on the real embedded engine (DuckDB): the guard's refusals, answers, grants, caps,
the timeout, the engine's own lock-down, and a hypothesis fuzz of what reaches the engine."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest
import sqlglot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlglot import exp

from bkn_common.contracts.errors import ApiError
from ontology_query.adapters.duckdb_engine import DuckDbEngine
from ontology_query.domain.sql_guard import ALLOWED_FUNCTIONS, check_sql
from ontology_query.service_layer.data_ports import QueryResult, TableSpec
from ontology_query.service_layer.data_tools import SqlRequest, SqlRunner
from tests.unit.ontology_query.sql_support import ORDERS, SUPPLIERS, data_state, resource

JOIN = ("SELECT s.region, COUNT(*) AS n, SUM(o.amount) AS total FROM {{.res_orders}} o "
        "JOIN {{res_suppliers}} s ON o.supplier_code = s.supplier_code "
        "GROUP BY s.region HAVING COUNT(*) > 0 ORDER BY s.region")


class RecordingEngine:
    """The real engine, recording every statement that reaches it and its timeout."""

    def __init__(self, engine: DuckDbEngine) -> None:
        self.engine = engine
        self.seen: list[tuple[str, float]] = []

    def set_tables(self, tables: Mapping[str, TableSpec]) -> None:
        self.engine.set_tables(tables)

    def unavailable(self, names: Sequence[str]) -> dict[str, str]:
        return self.engine.unavailable(names)

    def query(self, sql: str, *, timeout_seconds: float, max_rows: int) -> QueryResult:
        self.seen.append((sql, timeout_seconds))
        return self.engine.query(sql, timeout_seconds=timeout_seconds, max_rows=max_rows)

    def close(self) -> None:
        self.engine.close()


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SqlRunner, RecordingEngine]]:
    folder = tmp_path_factory.mktemp("sql")
    engine = RecordingEngine(DuckDbEngine(str(folder / "engine")))
    yield SqlRunner(data_state(folder), engine, max_rows=3), engine
    engine.close()


def run(runner: SqlRunner, sql: str, account: str = "dev", **kw: Any) -> dict[str, Any]:
    return asyncio.run(runner.run(account, SqlRequest(sql, **kw)))


def refusal(runner: SqlRunner, sql: str, account: str = "dev", **kw: Any) -> ApiError:
    with pytest.raises(ApiError) as caught:
        run(runner, sql, account, **kw)
    return caught.value


def test_a_join_with_group_by_answers_columns_and_entries(rig: Any) -> None:
    runner, _ = rig
    answer = run(runner, JOIN)
    regions = {r for _, r in SUPPLIERS}
    expected = {region: [a for _, s, a in ORDERS if dict(SUPPLIERS)[s] == region]
                for region in regions}
    assert [c["name"] for c in answer["columns"]] == ["region", "n", "total"]
    assert answer["entries"] == [{"region": r, "n": len(v), "total": sum(v)}
                                 for r, v in sorted(expected.items())]
    assert answer["truncated"] is False and answer["total_count"] == 2


def test_mysql_dialect_backquotes_and_double_quoted_strings(rig: Any) -> None:
    runner, _ = rig
    answer = run(runner, 'SELECT `order_id` FROM {{.res_orders}} WHERE `supplier_code` = "s2"')
    assert answer["entries"] == [{"order_id": "o3"}]


def test_rows_past_the_cap_are_cut_and_marked(rig: Any) -> None:
    runner, _ = rig
    answer = run(runner, "SELECT * FROM {{.res_orders}} ORDER BY order_id")
    assert len(answer["entries"]) == 3 and answer["truncated"] is True


@pytest.mark.parametrize(("sql", "code", "status"), [
    ("SELECT 1 FROM {{.res_orders}}; SELECT 2 FROM {{.res_orders}}", "sql_multiple_statements", 400),
    ("DELETE FROM {{.res_orders}}", "sql_not_select", 400),
    ("INSERT INTO {{.res_orders}} VALUES ('x', 'y', 1)", "sql_not_select", 400),
    ("DROP TABLE {{.res_orders}}", "sql_not_select", 400),
    ("INSTALL httpfs", "sql_not_select", 400),
    ("PRAGMA version", "sql_not_select", 400),
    ("WITH t AS (SELECT 1) SELECT * FROM {{.res_orders}}", "sql_with_not_supported", 400),
    ("SELECT order_id FROM {{.res_orders}} UNION SELECT supplier_code FROM {{.res_suppliers}}",
     "sql_set_operation_not_supported", 400),
    ("SELECT * FROM {{.resource_id}}", "sql_placeholder_literal", 400),
    ("SELECT * FROM {{.<RESOURCE_ID>}}", "sql_placeholder_literal", 400),
    ("SELECT * FROM {{.res orders}}", "sql_placeholder_invalid", 400),
    ("SELECT * FROM {{.res_nope}}", "data_resource_not_found", 404),
    ("SELECT * FROM res_orders", "sql_table_not_placeholder", 400),
    ("SELECT * FROM read_csv('/etc/passwd')", "sql_function_not_allowed", 400),
    ("SELECT getenv('HOME') FROM {{.res_orders}}", "sql_function_not_allowed", 400),
    ("SELECT 1", "sql_no_resource", 400),
    ("SELECT @v FROM {{.res_orders}}", "sql_construct_not_allowed", 400),
    ("SELECT * FROM {{.res_orders}} o JOIN {{.res_elsewhere}} e ON o.supplier_code = "
     "e.supplier_code", "sql_cross_catalog", 400),
    ("SELECT * FROM {{.res_off}}", "data_resource_unavailable", 409),
    ("SELECT no_such_column FROM {{.res_orders}}", "sql_execution_error", 400),
])
def test_refusals_carry_precise_codes(rig: Any, sql: str, code: str, status: int) -> None:
    runner, engine = rig
    before = len(engine.seen)
    error = refusal(runner, sql)
    assert (error.code, error.status) == (code, status)
    if code != "sql_execution_error":
        assert len(engine.seen) == before  # refused before the engine


def test_a_syntax_error_names_its_position(rig: Any) -> None:
    error = refusal(rig[0], "SELECT order_id FROM {{.res_orders}} WHERE")
    assert error.code == "sql_syntax_error" and error.details["line"] == 1
    assert error.details["column"] == len("SELECT order_id FROM `__bkn_resource_0` WHERE")


def test_a_resource_without_grant_is_403_naming_it(rig: Any) -> None:
    runner, _ = rig
    assert run(runner, "SELECT COUNT(*) AS n FROM {{.res_orders}}", "analyst")["entries"] == [
        {"n": len(ORDERS)}]
    error = refusal(runner, JOIN, "analyst")
    assert (error.code, error.status, error.details) == (
        "data_resource_forbidden", 403, {"resource_id": "res_suppliers"})
    assert refusal(runner, JOIN, "stranger").status == 403


def test_resource_type_must_match_the_connector(rig: Any) -> None:
    runner, _ = rig
    assert run(runner, "SELECT 1 AS one FROM {{.res_orders}} LIMIT 1", resource_type="mysql")
    assert refusal(runner, "SELECT 1 FROM {{.res_orders}}",
                   resource_type="postgresql").code == "sql_resource_type_mismatch"


def test_the_timeout_interrupts_a_long_query(rig: Any) -> None:
    runner, engine = rig
    # 4 rows joined 20 times: 4**20 (about 1.1e12) rows to filter, far beyond a second on any
    # machine (15 joins, 1.1e9 rows, finished in 0.8 s on a quiet one)
    aliases = [f"t{i}" for i in range(20)]
    heavy = ("SELECT COUNT(*) FROM " + ", ".join(f"{{{{.res_orders}}}} {a}" for a in aliases)
             + " WHERE " + " + ".join(f"{a}.amount" for a in aliases) + " > 0")
    error = refusal(runner, heavy, query_timeout=1)
    assert (error.code, error.status) == ("sql_query_timeout", 504)
    assert engine.seen[-1][1] == 1
    assert run(runner, "SELECT COUNT(*) AS n FROM {{.res_orders}}")["entries"] == [{"n": 4}]


def test_the_engine_itself_is_read_only_and_reads_no_files(rig: Any, tmp_path: Path) -> None:
    _, recording = rig
    engine = recording.engine
    secret = tmp_path / "secret.csv"
    secret.write_text("a\nTOP-SECRET\n")
    for statement in (
        f"SELECT * FROM read_csv('{secret}')",
        f"COPY (SELECT 1) TO '{tmp_path / 'out.csv'}'",
        f"ATTACH '{tmp_path / 'other.duckdb'}' AS other",
        "CREATE TABLE t (a INTEGER)",
        "INSERT INTO res_orders VALUES ('x', 'y', 1)",
        "INSTALL httpfs",
        "LOAD httpfs",
        "SET enable_external_access = true",
    ):
        with pytest.raises(Exception) as caught:
            engine.query(statement, timeout_seconds=5, max_rows=10)
        assert "TOP-SECRET" not in str(caught.value)
    assert not (tmp_path / "out.csv").exists() and not (tmp_path / "other.duckdb").exists()


# -- fuzz -----------------------------------------------------------------------------------

TOKENS = [
    "SELECT", "FROM", "WHERE", "GROUP BY", "HAVING", "ORDER BY", "LIMIT", "JOIN", "ON", "AND",
    "OR", "NOT", "AS", "*", ",", "(", ")", ";", "=", ">", "1", "'s1'", '"s2"', "`amount`",
    "amount", "order_id", "supplier_code", "region", "COUNT(*)", "SUM(amount)", "o", "s",
    "{{.res_orders}}", "{{res_suppliers}}", "{{.resource_id}}", "{{.res_nope}}", "{{", "}}",
    "read_csv('/etc/passwd')", "glob('*')", "getenv('HOME')", "current_setting('threads')",
    "duckdb_settings()", "information_schema.tables", "range(100000000)", "COPY", "TO",
    "'/tmp/fuzz-out'", "ATTACH", "INSTALL", "LOAD", "httpfs", "PRAGMA", "SET", "CREATE TABLE",
    "INSERT INTO", "VALUES", "DROP TABLE", "DELETE", "UPDATE", "WITH", "UNION", "@x", "INTO",
    "OUTFILE", "--", "/*", "*/", "\n",
]
VALID = st.builds(
    lambda cols, cond, limit: f"SELECT {cols} FROM {{{{.res_orders}}}} o {cond} LIMIT {limit}",
    st.sampled_from(["*", "order_id", "COUNT(*) AS n", "o.supplier_code, SUM(o.amount) AS t"]),
    st.sampled_from(["", "WHERE amount > 1", "WHERE supplier_code = \"s1\"",
                     "WHERE order_id IN (SELECT order_id FROM {{res_orders}})"]),
    st.integers(0, 5),
).map(lambda q: q.replace("SUM(o.amount) AS t LIMIT", "SUM(o.amount) AS t GROUP BY 1 LIMIT"))
SQL = st.one_of(st.lists(st.sampled_from(TOKENS), max_size=14).map(" ".join), VALID, st.text())
FORBIDDEN = (exp.Insert, exp.Update, exp.Delete, exp.Create, exp.Drop, exp.Copy, exp.Command,
             exp.Pragma, exp.Set, exp.Attach, exp.Install, exp.Into, exp.With, exp.SetOperation)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(sql=SQL)
def test_fuzz_nothing_unchecked_reaches_the_engine(rig: Any, sql: str) -> None:
    runner, engine = rig
    before = len(engine.seen)
    try:
        run(runner, sql, query_timeout=2)
    except ApiError as error:
        assert error.status in (400, 403, 404, 409, 504), error.code
    reached = engine.seen[before:]
    assert len(reached) <= 1
    for statement, timeout in reached:
        assert timeout == 2  # every statement runs under the request's interrupting timer
        assert statement == check_sql(sql).render(lambda rid: rid)  # the guard's rendering only
        [tree] = sqlglot.parse(statement, read="duckdb")
        assert isinstance(tree, exp.Select)
        assert not any(isinstance(node, FORBIDDEN) for node in tree.walk())
        assert {t.name for t in tree.find_all(exp.Table)} <= {"res_orders", "res_suppliers"}
        assert all(type(f).__name__ in ALLOWED_FUNCTIONS for f in tree.find_all(exp.Func)
                   if not isinstance(f, exp.Anonymous))
    assert not Path("/tmp/fuzz-out").exists()
    counted = engine.engine.query("SELECT COUNT(*) FROM res_orders", timeout_seconds=5, max_rows=1)
    assert counted.rows == ((len(ORDERS),),)  # nothing was written


def test_duckdb_is_pinned_and_extensions_are_off(rig: Any) -> None:
    engine = rig[1].engine
    settings_rows = engine.query(
        "SELECT name, value FROM duckdb_settings() WHERE name IN ('enable_external_access', "
        "'autoload_known_extensions', 'autoinstall_known_extensions', 'lock_configuration')",
        timeout_seconds=5, max_rows=10).rows
    assert dict(settings_rows) == {"enable_external_access": "false",
                                   "autoload_known_extensions": "false",
                                   "autoinstall_known_extensions": "false",
                                   "lock_configuration": "true"}
    assert duckdb.__version__ == "2.0.1"


def test_a_table_whose_file_does_not_load_is_409_and_the_others_still_answer(
    tmp_path: Path,
) -> None:
    state = data_state(tmp_path)
    broken = tmp_path / "broken.csv"
    broken.write_text("only_one_column\nx\n")
    state.data.apply(resource("res_broken", "erp", str(broken),
                              [("a", "varchar"), ("b", "bigint")]))
    engine = DuckDbEngine(str(tmp_path / "engine"))
    runner = SqlRunner(state, engine, max_rows=10)
    try:
        error = refusal(runner, "SELECT * FROM {{.res_broken}}")
        assert (error.code, error.status, error.details["resource_id"]) == (
            "data_resource_unavailable", 409, "res_broken")
        assert run(runner, "SELECT COUNT(*) AS n FROM {{.res_orders}}")["entries"] == [
            {"n": len(ORDERS)}]
    finally:
        engine.close()
