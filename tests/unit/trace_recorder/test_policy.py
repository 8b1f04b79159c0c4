"""The handlers' policy is listed once: the settings read each field from the environment."""

from __future__ import annotations

import pydantic
import pytest

from trace_recorder.service_layer.policy import Policy
from trace_recorder.settings import TraceRecorderSettings


def test_the_settings_hand_over_every_policy_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACE_RECORDER_LEASE_SECONDS", "7")
    monkeypatch.setenv("TRACE_RECORDER_CAPTURE_ENABLED", "false")
    monkeypatch.setenv("TRACE_RECORDER_FINISH_WAIT_SECONDS", "2.5")
    policy = TraceRecorderSettings().policy()
    assert (policy.lease_seconds, policy.capture_enabled, policy.finish_wait_seconds) == (
        7, False, 2.5)
    assert policy.model_dump() == Policy(
        lease_seconds=7, capture_enabled=False, finish_wait_seconds=2.5).model_dump()


def test_a_policy_is_frozen() -> None:
    with pytest.raises(pydantic.ValidationError):
        Policy().lease_seconds = 1  # type: ignore[misc]
