"""The limits and timeouts trace-recorder's handlers apply: the one list of them.

The settings inherit these fields (each read from ``TRACE_RECORDER_<NAME>``) and hand the
handlers a frozen :class:`Policy`; tests build a :class:`Policy` directly.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class PolicyFields(BaseModel):
    capture_enabled: bool = True
    """``TRACE_RECORDER_CAPTURE_ENABLED=false`` keeps ids but records no operations."""
    lease_seconds: int = 300
    """How long an interaction's active lease lasts without activity."""
    max_operations_per_interaction: int = 128
    """Operations one interaction may record; more are refused."""
    idempotency_ttl_seconds: int = 7 * 24 * 3600
    """How long an operation's begin and complete answers are kept for retries."""
    host_mapping_ttl_seconds: int = 90 * 24 * 3600
    """How long a host conversation key keeps pointing at its conversation."""
    max_result_bytes: int = 256 * 1024
    """A recorded result larger than this is kept as its hash only (``omitted``)."""
    publish_timeout_seconds: float = 10.0
    """How long a lifecycle call waits for Kafka to take its records."""
    lock_timeout_seconds: float = 5.0
    """How long a lifecycle call waits for the per-interaction lock."""
    pending_timeout_seconds: int = 120
    """After this long a begun, never completed operation counts as abandoned."""
    in_flight_seconds: int = 30
    """How long a begun operation's claim blocks a second begin with the same key."""
    finish_wait_seconds: float = 10.0
    """How long finish waits for the interaction's operations still completing (any replica);
    keep it below the gateway's ``GATEWAY_INTERNAL_TIMEOUT_SECONDS``."""
    pending_record_delay_seconds: float = 2.0
    """How long a begun operation's pending record waits before it is published: an
    operation completed by then never needs it (its final record carries ``begun_at``), one
    record and one Kafka round trip less per call. It waits in Redis, written with the begin
    claim, and reaches the log (then the view) when it falls due, at a replica's start or at
    a clean stop (:mod:`~trace_recorder.service_layer.deferred`). 0 publishes it at once,
    before begin answers."""


class Policy(PolicyFields):
    """What the handlers are given (frozen: a policy does not change under them)."""

    model_config = ConfigDict(frozen=True)

    @classmethod
    def of(cls, fields: PolicyFields) -> Policy:
        """The policy part of ``fields`` (the settings)."""
        return cls.model_validate({name: getattr(fields, name) for name in PolicyFields.model_fields})
