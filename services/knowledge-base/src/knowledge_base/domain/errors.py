"""The knowledge-base API's refusals, in the Developer OpenAPI envelope (seed 002)."""

from __future__ import annotations

from typing import Any

from bkn_common.contracts.i18n import register_messages
from bkn_common.contracts.openapi_errors import OpenApiCode, OpenApiError

STALE_CURSOR = "stale_cursor"
INVALID_CURSOR = "invalid_cursor"
RESTART_HINT = "restart_without_cursor"

register_messages({
    "kb.base_not_found": {
        "zh-CN": "未找到知识库 {kb_id}（不存在，或当前账号不可读）。",
        "en-US": "Knowledge base {kb_id} was not found (it does not exist or this account may not read it).",
    },
    "kb.file_not_found": {
        "zh-CN": "未找到请求的文件 {ref}。",
        "en-US": "The requested file {ref} was not found.",
    },
    "kb.stale_cursor": {
        "zh-CN": "游标已失效（{reason}）；请不带游标重新开始。",
        "en-US": "The cursor is no longer valid ({reason}); restart without a cursor.",
    },
    "kb.too_large": {
        "zh-CN": "文件 {path} 有 {size} 字节，超过读取上限 {limit} 字节。",
        "en-US": "File {path} has {size} bytes, over the read limit of {limit} bytes.",
    },
    "kb.not_processed": {
        "zh-CN": "文件 {path} 尚未处理完成（generatedOutputStatus=unavailable），请稍后重试。",
        "en-US": "File {path} is not processed yet (generatedOutputStatus=unavailable); retry shortly.",
    },
})


def validation(reason: str, **details: Any) -> OpenApiError:
    return OpenApiError(OpenApiCode.VALIDATION_ERROR, params={"reason": reason}, details=details)


def base_not_found(kb_id: str) -> OpenApiError:
    """A base that does not exist and one the caller may not read look the same (no leak)."""
    return OpenApiError(OpenApiCode.NOT_FOUND,
                        details={"resource": "knowledge_base", "knowledgeBaseId": kb_id}).localized(
        "kb.base_not_found", kb_id=kb_id)


def file_not_found(ref: str) -> OpenApiError:
    return OpenApiError(OpenApiCode.NOT_FOUND, details={"resource": "file", "ref": ref}).localized(
        "kb.file_not_found", ref=ref)


def stale_cursor(reason: str) -> OpenApiError:
    return OpenApiError(
        OpenApiCode.VALIDATION_ERROR,
        details={"field": "cursor", "reason": STALE_CURSOR, "retryHint": RESTART_HINT},
    ).localized("kb.stale_cursor", reason=reason)


def invalid_cursor() -> OpenApiError:
    return OpenApiError(
        OpenApiCode.VALIDATION_ERROR,
        details={"field": "cursor", "reason": INVALID_CURSOR, "retryHint": RESTART_HINT},
    ).localized("kb.stale_cursor", reason="unreadable cursor")


def too_large(path: str, size: int, limit: int) -> OpenApiError:
    return OpenApiError(OpenApiCode.PAYLOAD_TOO_LARGE,
                        details={"path": path, "sizeBytes": size, "limitBytes": limit}).localized(
        "kb.too_large", path=path, size=size, limit=limit)


def not_processed(path: str) -> OpenApiError:
    return OpenApiError(OpenApiCode.CONFLICT, details={"path": path,
                                                       "generatedOutputStatus": "unavailable"}).localized(
        "kb.not_processed", path=path)
