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
    max_operations_per_interaction: int = 128
    idempotency_ttl_seconds: int = 7 * 24 * 3600
    host_mapping_ttl_seconds: int = 90 * 24 * 3600
    max_result_bytes: int = 256 * 1024
    publish_timeout_seconds: float = 10.0
    lock_timeout_seconds: float = 5.0
    pending_timeout_seconds: int = 120
    in_flight_seconds: int = 30
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
