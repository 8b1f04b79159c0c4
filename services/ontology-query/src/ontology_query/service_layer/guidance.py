"""``permission_guidance``: what a caller is missing on an object type, and what to do next.

Shape (seed 003)::

    {"message": "...",                       # in the request language, ready to show
     "resource": {"type": "object_type", "id": "<kn>/<ot>", "kn_id": ..., "ot_id": ...,
                  "name": ...},              # name only when the caller may view the type
     "shortfalls": [{"scope": "grant", "operations": [...]}
                    | {"scope": "property_grants", "properties": [...], "rules": {...}}
                    | {"scope": "row_filter"}],
     "request_permission_url": "..."}        # only with a configured request flow, a user
                                             # caller and a viewable type definition

The gateway decides whether a request flow applies (deployment switch, user account) and
passes the route template and, behind an ingress, the external origin; this module renders.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from bkn_common.contracts.i18n import Language
from ontology_query.service_layer.type_policy import (
    MASK,
    READ_OPERATION,
    ObjectTypePolicy,
    PropertyRule,
)


def _grant() -> dict[str, Any]:
    return {"scope": "grant", "operations": [READ_OPERATION]}


@dataclass(frozen=True)
class PermissionRequest:
    """Where the Studio permission-request dialog lives (``{kn_id}``/``{ot_id}`` placeholders)."""

    path_template: str
    base_url: str | None = None


def denied_guidance(
    policy: ObjectTypePolicy,
    *,
    language: Language,
    name: str | None,
    request: PermissionRequest | None,
) -> dict[str, Any]:
    """Guidance for a refused query: the read operation is not granted at all."""
    return _guidance(policy, [_grant()], language=language, name=name, request=request,
                     refused=True)


def narrowed_guidance(
    policy: ObjectTypePolicy,
    *,
    language: Language,
    name: str | None,
    hidden: Mapping[str, PropertyRule],
    request: PermissionRequest | None,
) -> dict[str, Any] | None:
    """Guidance for a result with hidden values, a row filter, or (in an exploration) objects
    of a type the caller may not read left out; ``None`` when unaffected."""
    if not policy.readable:
        return _guidance(policy, [_grant()], language=language, name=name, request=request)
    shortfalls: list[dict[str, Any]] = []
    if hidden:
        names = sorted(hidden)
        shortfalls.append({
            "scope": "property_grants", "properties": names,
            "rules": {k: hidden[k] for k in names},
        })  # fmt: skip
    if policy.row_filter is not None:
        shortfalls.append({"scope": "row_filter"})
    if not shortfalls:
        return None
    return _guidance(policy, shortfalls, language=language, name=name, request=request)


def _guidance(
    policy: ObjectTypePolicy,
    shortfalls: list[dict[str, Any]],
    *,
    language: Language,
    name: str | None,
    request: PermissionRequest | None,
    refused: bool = False,
) -> dict[str, Any]:
    viewable = policy.may_view_definition and name is not None
    resource: dict[str, Any] = {
        "type": "object_type",
        "id": f"{policy.kn_id}/{policy.ot_id}",
        "kn_id": policy.kn_id,
        "ot_id": policy.ot_id,
    }
    if viewable:
        resource["name"] = name
    url = _request_url(policy, shortfalls, language, name, request) if viewable else None
    body: dict[str, Any] = {
        "message": _message(policy, shortfalls, language, name if viewable else None, url,
                            refused),
        "resource": resource,
        "shortfalls": shortfalls,
    }
    if url is not None:
        body["request_permission_url"] = url
    return body


def _label(policy: ObjectTypePolicy, name: str | None, language: Language) -> str:
    ref = f"{policy.kn_id}/{policy.ot_id}"
    if name is None:
        return f" {ref} " if language == "zh-CN" else ref
    return f"「{name}」（{ref}）" if language == "zh-CN" else f"{name} ({ref})"


_SENTENCES: dict[str, dict[Language, str]] = {
    "grant": {
        "zh-CN": "你没有对象类{label}的实例查看权限（未授予 {ops} 操作），本次查询被拒绝。",
        "en-US": "You may not read instances of object type {label} (operation {ops} is not "
                 "granted), so the query was refused.",
    },
    "grant_omitted": {
        "zh-CN": "你没有对象类{label}的实例查看权限（未授予 {ops} 操作），结果中不含该类对象。",
        "en-US": "You may not read instances of object type {label} (operation {ops} is not "
                 "granted), so the result leaves them out.",
    },
    "row_filter": {
        "zh-CN": "你对对象类{label}的行访问范围受限，结果只包含你有权查看的行，可能不完整。",
        "en-US": "Your row access to object type {label} is limited: the result holds only the "
                 "rows you may see and may be incomplete.",
    },
    "next_with_link": {
        "zh-CN": "如需完整访问，请打开 request_permission_url 提交权限申请，"
                 "等待管理员授权后再重新发起本次查询。",
        "en-US": "To get full access, open request_permission_url to submit a permission "
                 "request, wait for an administrator to approve it, then run the query again.",
    },
    "next_without_link": {
        "zh-CN": "如需完整访问，请联系管理员授予相应权限。",
        "en-US": "To get full access, ask an administrator to grant the missing permission.",
    },
}  # fmt: skip


def _message(
    policy: ObjectTypePolicy,
    shortfalls: list[dict[str, Any]],
    language: Language,
    name: str | None,
    url: str | None,
    refused: bool,
) -> str:
    label = _label(policy, name, language)
    parts: list[str] = []
    for shortfall in shortfalls:
        scope = shortfall["scope"]
        if scope == "property_grants":
            parts.append(_property_sentence(label, shortfall["rules"], language == "zh-CN"))
        else:
            key = "grant_omitted" if scope == "grant" and not refused else scope
            ops = ", ".join(shortfall.get("operations", ()))
            parts.append(_SENTENCES[key][language].format(label=label, ops=ops))
    parts.append(_SENTENCES["next_with_link" if url else "next_without_link"][language])
    return "".join(parts) if language == "zh-CN" else " ".join(parts)


def _property_sentence(label: str, rules: Mapping[str, PropertyRule], zh: bool) -> str:
    masked = [k for k, v in rules.items() if v == "masked"]
    name_only = [k for k, v in rules.items() if v == "name_only"]
    if zh:
        clauses = []
        if masked:
            clauses.append(f"{'、'.join(masked)} 已脱敏（值显示为 {MASK}）")
        if name_only:
            clauses.append(f"{'、'.join(name_only)} 只可见字段名（值为空）")
        return f"对象类{label}中，{'；'.join(clauses)}，结果里这些字段不是原始值。"
    clauses_en = []
    if masked:
        clauses_en.append(f"{', '.join(masked)} {'is' if len(masked) == 1 else 'are'} masked "
                          f"(shown as {MASK})")
    if name_only:
        clauses_en.append(f"{', '.join(name_only)} {'shows' if len(name_only) == 1 else 'show'} "
                          "the field name only (value null)")
    return (f"In object type {label}, {'; '.join(clauses_en)}: these fields do not carry "
            "their original values.")


class _Placeholders(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _request_url(
    policy: ObjectTypePolicy,
    shortfalls: list[dict[str, Any]],
    language: Language,
    name: str | None,
    request: PermissionRequest | None,
) -> str | None:
    if request is None or not request.path_template:
        return None
    path = request.path_template.format_map(
        _Placeholders(kn_id=quote(policy.kn_id, safe=""), ot_id=quote(policy.ot_id, safe=""))
    )
    if not path.startswith("/"):
        path = "/" + path
    params: list[str] = []
    for shortfall in shortfalls:
        if shortfall["scope"] == "grant":
            params.append("operations=" + quote(",".join(shortfall["operations"]), safe=","))
        elif shortfall["scope"] == "property_grants":
            params.append("properties=" + quote(",".join(shortfall["properties"]), safe=","))
    label = name or policy.ot_id
    reason = (
        f"智能体查询对象类「{label}」时需要相应权限" if language == "zh-CN"
        else f"An agent query on object type {label} needs this access"
    )
    params += ["reason=" + quote(reason, safe=""), "source=agent"]
    separator = "&" if "?" in path else "?"
    url = path + separator + "&".join(params)
    return (request.base_url.rstrip("/") + url) if request.base_url else url
