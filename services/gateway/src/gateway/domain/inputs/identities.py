"""Instance keys (``_instance_identities``, earlier ``_instance_identity``) shared by the
logic-property and action inputs."""

from __future__ import annotations

from typing import Any

from gateway.domain.inputs.aliases import alias_text, one_of
from gateway.domain.inputs.base import ToolInput, described

MAX_INSTANCES = 100
Identities = list[dict[str, Any]] | None


def identities_field(zh: str, en: str) -> Any:
    return described(zh, en, alias="_instance_identities", default=None, max_length=MAX_INSTANCES)


def legacy_identities_field() -> Any:
    return described(*alias_text("_instance_identities"), alias="_instance_identity",
                     default=None, max_length=MAX_INSTANCES)


class WithIdentities(ToolInput):
    instance_identities: Identities
    instance_identity: Identities = legacy_identities_field()

    def identities(self) -> list[dict[str, Any]]:
        value = one_of("_instance_identities", self.instance_identities,
                       "_instance_identity", self.instance_identity)
        return list(value or [])
