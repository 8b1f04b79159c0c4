"""Language negotiation and the error envelope."""

from __future__ import annotations

import pytest

from bkn_common.contracts.errors import ApiError, ErrorCode, network_permission_error
from bkn_common.contracts.i18n import negotiate_language


@pytest.mark.parametrize(
    ("header", "language"),
    [
        (None, "en-US"), ("", "en-US"), ("zh-CN", "zh-CN"), ("zh", "zh-CN"), ("zh-TW;q=0.9", "zh-CN"),
        ("en-US,zh;q=0.5", "en-US"), ("fr, zh;q=0.8, en;q=0.7", "zh-CN"), ("zh;q=0, en", "en-US"),
        ("de", "en-US"), ("*", "en-US"),
    ],
)
def test_accept_language(header: str | None, language: str) -> None:
    assert negotiate_language(header) == language


def test_envelope_has_stable_code_and_message_in_both_languages() -> None:
    error = network_permission_error("supply_chain", "view_detail")
    zh = error.envelope("zh-CN", "r1")
    en = error.envelope("en-US", "r1")
    assert zh.code == en.code == ErrorCode.NETWORK_PERMISSION_DENIED
    assert "view_detail" in zh.message and "supply_chain" in zh.message and "网络" in zh.message
    assert "view_detail" in en.message and "network" in en.message
    assert zh.request_id == "r1" and zh.details["missing_permission"] == "view_detail"


def test_extra_fields_sit_beside_code_and_details() -> None:
    error = ApiError("conversation_required", 400, extra={"required_action": "create_conversation"})
    body = error.envelope("en-US").model_dump(exclude_none=True)
    assert body["required_action"] == "create_conversation" and body["code"] == "conversation_required"
