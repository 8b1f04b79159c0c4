"""Object-type permissions of one caller: whether it may read instances, which properties it
sees only masked or by name, and which rows (a row filter AND-ed into every query).

Decision: network-level ``view_detail`` grants read access to every object type of the
network. Resource grants (``resource_type: object_type``) only *narrow* it, and only for the
accounts that hold them: an account with a grant on an object type needs ``view_detail``
among the grant's operations to read its instances at all; its ``property_grants`` hide raw
values (``masked`` → ``"***"``, ``name_only`` → the key with a null value) and its
``row_filter`` limits the rows. Several grants on the same type combine permissively (union
of operations, the least restrictive rule per property, OR of row filters). The type
*definition* (its name, properties, ...) stays visible to every network ``view_detail`` holder.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bkn_common.contracts.events import ResourceGrant
from bkn_common.domain.access import NetworkAccess
from ontology_query.domain.conditions import Condition, Leaf, Logical, parse_condition

READ_OPERATION = "view_detail"
MASK = "***"
PropertyRule = Literal["masked", "name_only"]
_LEAST_RESTRICTIVE: dict[PropertyRule, int] = {"masked": 0, "name_only": 1}


@dataclass(frozen=True)
class ObjectTypePolicy:
    """What one account may see of one object type."""

    kn_id: str
    ot_id: str
    readable: bool = True
    property_rules: Mapping[str, PropertyRule] = field(default_factory=dict)
    row_filter: Condition | None = None
    may_view_definition: bool = True

    @property
    def restricted(self) -> bool:
        """True when anything narrows what the account sees of this type."""
        return not self.readable or bool(self.property_rules) or self.row_filter is not None

    def hidden_properties(self, considered: Iterable[str] | None = None) -> dict[str, PropertyRule]:
        """The rules affecting ``considered`` properties (all properties when ``None``)."""
        if considered is None:
            return dict(self.property_rules)
        wanted = set(considered)
        return {k: v for k, v in self.property_rules.items() if k in wanted}

    def redact(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A rendered object (``ObjectView.to_json``) with masked / name-only values hidden."""
        if not self.property_rules:
            return obj
        for name, rule in self.property_rules.items():
            if rule == "name_only":
                obj[name] = None
            elif obj.get(name) is not None:
                obj[name] = MASK
        identity = obj.get("_instance_identity")
        if isinstance(identity, dict):
            for key in identity:
                rule_of_key = self.property_rules.get(key)
                if rule_of_key is not None and identity[key] is not None:
                    identity[key] = MASK if rule_of_key == "masked" else None
        return obj


def policy_for(access: NetworkAccess, kn_id: str, account: str, ot_id: str) -> ObjectTypePolicy:
    """The account's policy on ``ot_id`` (unrestricted when it holds no grant on the type)."""
    grants = [
        g for g in access.resource_grants(kn_id, account)
        if g.resource_type == "object_type" and g.resource_id == ot_id
    ]  # fmt: skip
    may_view = access.has(kn_id, account, READ_OPERATION)
    if not grants:
        return ObjectTypePolicy(kn_id, ot_id, may_view_definition=may_view)
    readable = [g for g in grants if READ_OPERATION in g.operations]
    if not readable:
        return ObjectTypePolicy(kn_id, ot_id, readable=False, may_view_definition=may_view)
    return ObjectTypePolicy(
        kn_id,
        ot_id,
        property_rules=_combined_rules(readable),
        row_filter=_combined_filter(readable),
        may_view_definition=may_view,
    )


def _combined_rules(grants: Sequence[ResourceGrant]) -> dict[str, PropertyRule]:
    """A property stays hidden only if every grant hides it; the mildest rule wins."""
    rules: dict[str, PropertyRule] = dict(grants[0].property_grants)
    for grant in grants[1:]:
        for name in list(rules):
            other = grant.property_grants.get(name)
            if other is None:
                del rules[name]
            elif _LEAST_RESTRICTIVE[other] < _LEAST_RESTRICTIVE[rules[name]]:
                rules[name] = other
    return rules


def _combined_filter(grants: Sequence[ResourceGrant]) -> Condition | None:
    """Rows any grant admits: no filter if one grant has none, else the OR of the filters."""
    filters: list[Condition] = []
    for grant in grants:
        parsed = parse_condition(grant.row_filter) if grant.row_filter else None
        if parsed is None:
            return None
        filters.append(parsed)
    return filters[0] if len(filters) == 1 else Logical("or", tuple(filters))


def referenced_fields(condition: object) -> set[str]:
    """Every property a (parsed or wire) condition tests."""
    parsed = condition if isinstance(condition, (Leaf, Logical)) else parse_condition(condition)
    found: set[str] = set()
    stack: list[Condition] = [parsed] if parsed is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, Leaf):
            found.add(node.field)
        else:
            stack.extend(node.sub_conditions)
    return found


def sorted_fields(sort: object) -> set[str]:
    """Every property a wire ``sort`` list names (shape errors are left to the domain)."""
    if not isinstance(sort, list):
        return set()
    return {s["field"] for s in sort if isinstance(s, dict) and isinstance(s.get("field"), str)}


def with_row_filter(condition: object, policy: ObjectTypePolicy) -> object:
    """``condition`` AND the policy's row filter (the condition unchanged when there is none)."""
    if policy.row_filter is None:
        return condition
    parsed = parse_condition(condition)
    if parsed is None:
        return policy.row_filter
    return Logical("and", (parsed, policy.row_filter))
