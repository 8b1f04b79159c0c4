"""run_sql's guard: one read-only SELECT in the MySQL dialect, checked on its parse tree.

Tables are named by placeholders ``{{.<resource_id>}}`` (the dot is optional). Each is swapped
for a private identifier before parsing (sqlglot cannot parse ``{{…}}``); after parsing, every
table of the tree must be one of those identifiers, so nothing else — another schema, a table
function such as ``read_csv``, a system view — can be named. The statement must be a single
``SELECT`` (no ``WITH``, no ``UNION`` / ``INTERSECT`` / ``EXCEPT``, as upstream), every function
must be on an allowlist of common scalar and aggregate functions, and ``INTO``, locks and
session variables are refused. The checked tree is rendered in DuckDB's dialect with each
placeholder replaced by its resource's table; no text reaches the engine any other way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

_PLACEHOLDER = re.compile(r"\{\{\s*\.?\s*([^{}\s]*)\s*\}\}")
_RESOURCE_ID = re.compile(r"^[A-Za-z0-9_\-]+$")
_LITERAL_IDS = frozenset({"resource_id", ".resource_id", "resourceid"})
_MARK = "__bkn_resource_"

ALLOWED_FUNCTIONS = frozenset({
    # aggregates
    "Count", "Sum", "Avg", "Min", "Max", "CountIf", "Stddev", "StddevPop", "StddevSamp",
    "Variance", "VariancePop", "GroupConcat", "ApproxDistinct", "AnyValue",
    # conditionals and casts
    "If", "Case", "Coalesce", "Nullif", "Cast", "TryCast", "Greatest", "Least",
    # numbers
    "Round", "Abs", "Floor", "Ceil", "Mod", "Pow", "Sqrt", "Ln", "Log", "Exp", "Sign",
    # strings
    "Lower", "Upper", "Length", "Concat", "ConcatWs", "Substring", "Trim", "Left", "Right",
    "Replace", "Lpad", "Rpad", "StrPosition",
    # dates (the demo's times are ISO-8601 strings)
    "Year", "Month", "Day", "Quarter", "Week", "DateTrunc", "TimestampTrunc", "TimeToStr",
    "StrToTime", "TsOrDsToTimestamp", "TsOrDsToDate", "Date", "DateAdd", "DateSub", "DateDiff",
    "Extract", "CurrentDate", "CurrentTimestamp",
})
_FORBIDDEN_NODES: dict[type[exp.Expression], str] = {
    exp.Into: "SELECT ... INTO",
    exp.Lock: "FOR UPDATE / FOR SHARE",
    exp.Parameter: "session variables",
    exp.SessionParameter: "session variables",
    exp.Placeholder: "bind placeholders",
}


@dataclass(frozen=True)
class SqlRefused(Exception):
    """A refusal with the code a program branches on and the message parameters."""

    code: str
    status: int
    params: Mapping[str, Any]
    details: Mapping[str, Any]


@dataclass(frozen=True)
class CheckedQuery:
    """A statement that passed every check: the resources it reads and its rendering."""

    resource_ids: tuple[str, ...]
    _tree: exp.Expr
    _marks: Mapping[str, str]

    def render(self, table_of: Callable[[str], str]) -> str:
        """The statement in DuckDB's dialect, each placeholder replaced by ``table_of(id)``."""
        tree = self._tree.copy()
        for table in list(tree.find_all(exp.Table)):
            resource_id = self._marks[table.name]
            table.set("this", exp.to_identifier(table_of(resource_id), quoted=True))
        return tree.sql(dialect="duckdb")


def refused(code: str, status: int = 400, **params: Any) -> SqlRefused:
    return SqlRefused(code, status, params, dict(params))


def check_sql(sql: str) -> CheckedQuery:
    """Parse ``sql`` (MySQL dialect) and check it; raise :class:`SqlRefused` on any problem."""
    marks: dict[str, str] = {}

    def mark(match: re.Match[str]) -> str:
        resource_id = match.group(1)
        if resource_id.casefold() in _LITERAL_IDS or resource_id.startswith("<"):
            raise refused("sql_placeholder_literal", placeholder=match.group(0))
        if not _RESOURCE_ID.match(resource_id):
            raise refused("sql_placeholder_invalid", placeholder=match.group(0))
        name = f"{_MARK}{len(marks)}"
        marks[name] = resource_id
        return f"`{name}`"

    text = _PLACEHOLDER.sub(mark, sql)
    if "{{" in text or "}}" in text:
        raise refused("sql_placeholder_invalid", placeholder=_around(text, text.find("{{")))
    statements = _parse(text)
    if len(statements) != 1:
        raise refused("sql_multiple_statements", count=len(statements))
    tree = statements[0]
    _check_statement(tree)
    used: list[str] = []
    for table in tree.find_all(exp.Table):
        name = table.name
        if not isinstance(table.this, exp.Identifier) or name not in marks or table.db or table.catalog:
            raise refused("sql_table_not_placeholder", table=table.sql(dialect="mysql") or "?")
        used.append(marks[name])
    if not used:
        raise refused("sql_no_resource")
    return CheckedQuery(tuple(dict.fromkeys(used)), tree, marks)


def _parse(text: str) -> list[exp.Expr]:
    try:
        parsed = sqlglot.parse(text, read="mysql")
    except ParseError as exc:
        first = exc.errors[0] if exc.errors else {}
        raise refused("sql_syntax_error", line=first.get("line"), column=first.get("col"),
                      reason=str(first.get("description") or exc).splitlines()[0]) from exc
    except TokenError as exc:
        raise refused("sql_syntax_error", line=None, column=None,
                      reason=str(exc).splitlines()[0]) from exc
    return [s for s in parsed if s is not None]


def _check_statement(tree: exp.Expr) -> None:
    if isinstance(tree, exp.SetOperation):
        raise refused("sql_set_operation_not_supported", operation=tree.key.upper())
    if not isinstance(tree, exp.Select):
        word = tree.this.sql() if isinstance(tree, exp.Alias) else tree.key  # INSTALL x → Alias
        raise refused("sql_not_select", statement=str(word).split(" ")[0].upper())
    for node in tree.walk():
        if isinstance(node, exp.With):
            raise refused("sql_with_not_supported")
        if isinstance(node, exp.SetOperation):
            raise refused("sql_set_operation_not_supported", operation=node.key.upper())
        for kind, what in _FORBIDDEN_NODES.items():
            if isinstance(node, kind):
                raise refused("sql_construct_not_allowed", construct=what)
        if isinstance(node, exp.Func) and (
            isinstance(node, exp.Anonymous) or type(node).__name__ not in ALLOWED_FUNCTIONS
        ):
            raise refused("sql_function_not_allowed", function=_function_name(node))


def _function_name(node: exp.Func) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.name).upper()
    return node.sql_name()


def _around(text: str, index: int) -> str:
    return text[max(index, 0): max(index, 0) + 40]
