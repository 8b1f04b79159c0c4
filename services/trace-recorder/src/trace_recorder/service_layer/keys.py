"""The coordination keys of trace-recorder (relative: the adapter prefixes them)."""

from __future__ import annotations

import hashlib


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:40]


class Keys:
    """Coordination keys (relative; the adapter prefixes them)."""

    @staticmethod
    def lease(conversation_id: str) -> str:
        return f"lease:{conversation_id}"

    @staticmethod
    def host(account: str, host_key: str) -> str:
        return f"host:{_digest(account)}:{_digest(host_key)}"

    @staticmethod
    def invocation(kind: str, account: str, invocation_id: str) -> str:
        return f"inv:{kind}:{_digest(account)}:{_digest(invocation_id)}"

    @staticmethod
    def operation(key: str) -> str:
        return f"op:{key}"

    @staticmethod
    def op_count(interaction_id: str) -> str:
        return f"opcount:{interaction_id}"

    @staticmethod
    def deferred(operation_id: str) -> str:
        """A begun operation's pending record waiting to be published (see ``deferred``)."""
        return f"pending:{operation_id}"

    @staticmethod
    def deferred_index() -> str:
        """The deferred pending records by when they fall due."""
        return "pending-records"

    @staticmethod
    def lock(kind: str, name: str) -> str:
        return f"lock:{kind}:{name}"
