"""Domain errors of ontology-query: a stable code, structured details, zh-CN/en-US messages.

Every refusal the domain raises is a :class:`DomainError`. ``code`` is what programs branch
on; ``details`` is JSON-safe structured data (field, operator, edge number, ``reason`` for the
sub-case, ...); ``message`` renders a human sentence in either language. The service layer
maps it onto the shared envelope::

    ApiError(err.code, 404 if err.code in NOT_FOUND_CODES else 400,
             params=err.params, details=err.details)

(each code is registered in the ``bkn_common.contracts.i18n`` catalogue with templates that print the
pre-rendered ``params``, because one code covers several sentences).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from bkn_common.contracts.i18n import Language, register_messages

_PREFIX = "OntologyQuery.KnowledgeNetwork"


class QueryErrorCode(StrEnum):
    """Codes of the query engine's refusals (``DomainError.code``), in the upstream's
    ``OntologyQuery.KnowledgeNetwork.*`` naming; ``INVALID_TYPE_PATH`` is the code the subgraph
    spec names. The envelope's generic codes are ``bkn_common.contracts.errors.ErrorCode``."""

    INVALID_TYPE_PATH = f"{_PREFIX}.InvalidParameter.TypePath"
    INVALID_PATH_LENGTH = f"{_PREFIX}.InvalidParameter.PathLength"
    INVALID_DIRECTION = f"{_PREFIX}.InvalidParameter.Direction"
    INVALID_CONDITION = f"{_PREFIX}.InvalidParameter.Condition"
    OPERATOR_NOT_ALLOWED = f"{_PREFIX}.InvalidParameter.OperatorNotAllowed"
    UNKNOWN_FIELD = f"{_PREFIX}.InvalidParameter.UnknownField"
    INVALID_SORT = f"{_PREFIX}.InvalidParameter.Sort"
    INVALID_LIMIT = f"{_PREFIX}.InvalidParameter.Limit"
    INVALID_OFFSET = f"{_PREFIX}.InvalidParameter.Offset"
    OFFSET_AND_SEARCH_AFTER = f"{_PREFIX}.InvalidParameter.OffsetAndSearchAfter"
    INVALID_CURSOR = f"{_PREFIX}.InvalidParameter.Cursor"
    UNKNOWN_OBJECT_TYPE = f"{_PREFIX}.NotFound.ObjectType"
    UNKNOWN_RELATION_TYPE = f"{_PREFIX}.NotFound.RelationType"


NOT_FOUND_CODES: frozenset[QueryErrorCode] = frozenset(
    {QueryErrorCode.UNKNOWN_OBJECT_TYPE, QueryErrorCode.UNKNOWN_RELATION_TYPE}
)

Details = Mapping[str, object]

# (code, variant) -> language -> template formatted with the error's details.
_TEMPLATES: dict[tuple[QueryErrorCode, str], dict[Language, str]] = {
    (QueryErrorCode.INVALID_TYPE_PATH, "shape"): {
        "zh-CN": "路径不合法：{object_type_count} 个对象类需要 {expected} 条关系类，"
        "当前 {relation_type_count} 条",
        "en-US": "invalid path: {object_type_count} object types need {expected} relation types, "
        "given {relation_type_count}",
    },
    (QueryErrorCode.INVALID_PATH_LENGTH, ""): {
        "zh-CN": "path_length 必须在 {min}-{max} 之间，当前为 {value}",
        "en-US": "path_length must be between {min} and {max}, got {value}",
    },
    (QueryErrorCode.INVALID_DIRECTION, ""): {
        "zh-CN": "direction 不合法：{value}，可选 {allowed}",
        "en-US": "invalid direction {value}; allowed: {allowed}",
    },
    (QueryErrorCode.INVALID_CONDITION, "shape"): {
        "zh-CN": "过滤条件不合法（{path}）：必须是对象",
        "en-US": "invalid condition at {path}: must be an object",
    },
    (QueryErrorCode.INVALID_CONDITION, "leaf"): {
        "zh-CN": "过滤条件不合法（{path}）：叶子条件需要 field 与 operation",
        "en-US": "invalid condition at {path}: a leaf condition needs field and operation",
    },
    (QueryErrorCode.INVALID_CONDITION, "sub_conditions"): {
        "zh-CN": "过滤条件不合法（{path}）：{operation} 需要非空的 sub_conditions 数组",
        "en-US": "invalid condition at {path}: {operation} needs a non-empty sub_conditions list",
    },
    (QueryErrorCode.INVALID_CONDITION, "unknown_operation"): {
        "zh-CN": "过滤条件不合法（{path}）：不支持的算子 {operation}，支持：{supported}",
        "en-US": "invalid condition at {path}: unsupported operation {operation}; "
        "supported: {supported}",
    },
    (QueryErrorCode.INVALID_CONDITION, "value_pairing"): {
        "zh-CN": "过滤条件不合法（{path}）：value 与 value_from 必须成对出现",
        "en-US": "invalid condition at {path}: value and value_from must be given together",
    },
    (QueryErrorCode.INVALID_CONDITION, "value_from"): {
        "zh-CN": "过滤条件不合法（{path}）：value_from 目前只支持 const，当前为 {value_from}",
        "en-US": "invalid condition at {path}: value_from must be const, got {value_from}",
    },
    (QueryErrorCode.INVALID_CONDITION, "value_forbidden"): {
        "zh-CN": "过滤条件不合法（{path}）：算子 {operation} 不接受 value",
        "en-US": "invalid condition at {path}: operation {operation} takes no value",
    },
    (QueryErrorCode.INVALID_CONDITION, "value_scalar"): {
        "zh-CN": "过滤条件不合法（{path}）：算子 {operation} 需要单个非空值",
        "en-US": "invalid condition at {path}: operation {operation} needs a single non-null value",
    },
    (QueryErrorCode.INVALID_CONDITION, "value_list"): {
        "zh-CN": "过滤条件不合法（{path}）：算子 {operation} 需要数组值",
        "en-US": "invalid condition at {path}: operation {operation} needs a list value",
    },
    (QueryErrorCode.INVALID_CONDITION, "value_range"): {
        "zh-CN": "过滤条件不合法（{path}）：算子 {operation} 需要 [下界, 上界]",
        "en-US": "invalid condition at {path}: operation {operation} needs [low, high]",
    },
    (QueryErrorCode.INVALID_CONDITION, "value_string"): {
        "zh-CN": "过滤条件不合法（{path}）：算子 {operation} 需要字符串值",
        "en-US": "invalid condition at {path}: operation {operation} needs a string value",
    },
    (QueryErrorCode.INVALID_CONDITION, "value_type"): {
        "zh-CN": "过滤条件不合法（{path}）：值 {value} 不符合属性 {field} 的类型 {type}",
        "en-US": "invalid condition at {path}: value {value} does not fit property {field} "
        "of type {type}",
    },
    (QueryErrorCode.INVALID_CONDITION, "regex"): {
        "zh-CN": "过滤条件不合法（{path}）：正则表达式 {value} 无法解析：{error}",
        "en-US": "invalid condition at {path}: regular expression {value} does not compile: "
        "{error}",
    },
    (QueryErrorCode.OPERATOR_NOT_ALLOWED, ""): {
        "zh-CN": "属性 {field} 不支持算子 {operation}，可用：{allowed}",
        "en-US": "operator {operation} is not allowed on property {field}; allowed: {allowed}",
    },
    (QueryErrorCode.UNKNOWN_FIELD, ""): {
        "zh-CN": "对象类 {object_type_id} 没有属性 {field}",
        "en-US": "object type {object_type_id} has no property {field}",
    },
    (QueryErrorCode.INVALID_SORT, "shape"): {
        "zh-CN": "排序不合法：sort 必须是 {{field, direction}} 对象数组，第 {index} 项不合法",
        "en-US": "invalid sort: sort must be a list of {{field, direction}} objects; "
        "item {index} is not",
    },
    (QueryErrorCode.INVALID_SORT, "direction"): {
        "zh-CN": "排序不合法：{field} 的 direction 只能是 asc 或 desc，当前为 {direction}",
        "en-US": "invalid sort: direction of {field} must be asc or desc, got {direction}",
    },
    (QueryErrorCode.INVALID_LIMIT, ""): {
        "zh-CN": "{name} 必须在 {min}-{max} 之间，当前为 {value}",
        "en-US": "{name} must be between {min} and {max}, got {value}",
    },
    (QueryErrorCode.INVALID_OFFSET, ""): {
        "zh-CN": "offset 必须是非负整数，当前为 {value}",
        "en-US": "offset must be a non-negative integer, got {value}",
    },
    (QueryErrorCode.OFFSET_AND_SEARCH_AFTER, ""): {
        "zh-CN": "offset 与 {cursor_name} 互斥，只能二选一",
        "en-US": "offset and {cursor_name} are mutually exclusive",
    },
    (QueryErrorCode.INVALID_CURSOR, "malformed"): {
        "zh-CN": "{cursor_name} 不合法：无法解析，请使用上一页返回的原值",
        "en-US": "invalid {cursor_name}: it cannot be decoded; pass back the value the previous "
        "page returned",
    },
    (QueryErrorCode.INVALID_CURSOR, "mismatch"): {
        "zh-CN": "{cursor_name} 不合法：它属于另一组查询条件或排序",
        "en-US": "invalid {cursor_name}: it belongs to a different condition or sort",
    },
    (QueryErrorCode.UNKNOWN_OBJECT_TYPE, ""): {
        "zh-CN": "对象类 {object_type_id} 不存在",
        "en-US": "object type {object_type_id} does not exist",
    },
    (QueryErrorCode.UNKNOWN_RELATION_TYPE, ""): {
        "zh-CN": "关系类 {relation_type_id} 不存在",
        "en-US": "relation type {relation_type_id} does not exist",
    },
}


class DomainError(Exception):
    """A refusal: stable ``code``, structured ``details``, messages in zh-CN and en-US."""

    def __init__(self, code: QueryErrorCode, details: Details, *, variant: str = "") -> None:
        self.code = code
        self.details: dict[str, object] = dict(details)
        if variant:
            self.details.setdefault("reason", variant)
        self.variant = variant
        super().__init__(f"{code}: {self.message('en-US')}")

    def message(self, language: Language = "en-US") -> str:
        """The human sentence for this error in ``language``."""
        templates = _TEMPLATES.get((self.code, self.variant))
        if templates is None:
            return str(self.code)
        return templates[language].format_map(_Formatted(self.details))

    @property
    def params(self) -> dict[str, str]:
        """Message parameters for ``bkn_common.contracts.errors.ApiError`` (both languages rendered)."""
        return {"message_zh": self.message("zh-CN"), "message_en": self.message("en-US")}

    def __repr__(self) -> str:
        return f"DomainError({self.code.name}, {self.details!r})"


class _Formatted(dict[str, str]):
    """Details as template arguments: sequences joined, missing keys left visible."""

    def __init__(self, details: Details) -> None:
        super().__init__({k: _display(v) for k, v in details.items()})

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _display(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(_display(v) for v in value)
    return str(value)


GivenKind = Literal["filled", "definition", "direction"]


@dataclass(frozen=True, slots=True)
class TypePathMismatch:
    """Why edge ``edge_index`` (1-based) of a path template does not fit its nodes.

    ``required`` is the pair of adjacent path nodes (from, to) the edge must join. ``given``
    is what contradicts it: the ``source/target_object_type_id`` the caller filled in
    (``filled``), the relation type's own source → target (``definition``), or the
    definition oriented by an explicit ``direction`` (``direction``).
    """

    edge_index: int
    relation_type_id: str
    required: tuple[str, str]
    given: tuple[str, str]
    given_kind: GivenKind
    path_index: int = 1

    def render(self, language: Language = "en-US") -> str:
        """Render in zh-CN or en-US.

        e.g. ``第 2 条边 r 与路径节点不一致：路径要求 a → b，当前填写 b → a``.
        """
        req = f"{self.required[0]} → {self.required[1]}"
        giv = f"{self.given[0]} → {self.given[1]}"
        if language == "zh-CN":
            lead = {
                "filled": "当前填写",
                "definition": "关系类定义为",
                "direction": "按 direction 为",
            }
            return (
                f"第 {self.edge_index} 条边 {self.relation_type_id} 与路径节点不一致："
                f"路径要求 {req}，{lead[self.given_kind]} {giv}"
            )
        lead_en = {
            "filled": "given",
            "definition": "the relation type defines",
            "direction": "the given direction implies",
        }
        return (
            f"edge {self.edge_index} {self.relation_type_id} does not match the path nodes: "
            f"the path requires {req}, {lead_en[self.given_kind]} {giv}"
        )

    def details(self) -> dict[str, object]:
        return {
            "path_index": self.path_index,
            "edge_index": self.edge_index,
            "relation_type_id": self.relation_type_id,
            "required": list(self.required),
            "given": list(self.given),
            "given_kind": self.given_kind,
        }


class TypePathError(DomainError):
    """``INVALID_TYPE_PATH`` for one edge; ``mismatch`` carries the structured reason."""

    def __init__(self, mismatch: TypePathMismatch) -> None:
        self.mismatch = mismatch
        super().__init__(QueryErrorCode.INVALID_TYPE_PATH, mismatch.details(), variant="edge")

    def message(self, language: Language = "en-US") -> str:
        return self.mismatch.render(language)


def limit_error(name: str, value: object, lo: int, hi: int) -> DomainError:
    details = {"name": name, "value": value, "min": lo, "max": hi}
    return DomainError(QueryErrorCode.INVALID_LIMIT, details)


def where(path: Sequence[str | int]) -> str:
    """A location in a condition tree, e.g. ``condition.sub_conditions[1]``."""
    return "condition" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def condition_error(path: Sequence[str | int], variant: str, **extra: object) -> DomainError:
    """``INVALID_CONDITION`` at ``path``; ``variant`` picks the sentence."""
    return DomainError(QueryErrorCode.INVALID_CONDITION, {"path": where(path), **extra}, variant=variant)


register_messages(
    {code.value: {"zh-CN": "{message_zh}", "en-US": "{message_en}"} for code in QueryErrorCode}
)
