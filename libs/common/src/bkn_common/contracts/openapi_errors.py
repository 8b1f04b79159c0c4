"""The Developer OpenAPI error envelope (seed 002), used by the knowledge-base API.

``{"error": {"code", "message", "httpStatus", "details"}, "requestId"}`` with upper-case codes
(``NOT_FOUND``, ``VALIDATION_ERROR``, ...). :class:`OpenApiError` is an :class:`ApiError`
that renders this shape; :func:`as_openapi_error` translates the mesh's own refusals (an
authentication failure, a bad ``bkn_context``) into it, so one API speaks one envelope.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.contracts.i18n import Language, register_messages, render_message


class OpenApiCode:
    UNAUTHORIZED = "UNAUTHORIZED"
    FORBIDDEN = "FORBIDDEN"
    NOT_FOUND = "NOT_FOUND"
    CONFLICT = "CONFLICT"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    VALIDATION_ERROR = "VALIDATION_ERROR"
    RATE_LIMITED = "RATE_LIMITED"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    SEARCH_TIMEOUT = "SEARCH_TIMEOUT"
    SEARCH_UNAVAILABLE = "SEARCH_UNAVAILABLE"
    SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE"


STATUS = {
    OpenApiCode.UNAUTHORIZED: 401, OpenApiCode.FORBIDDEN: 403, OpenApiCode.NOT_FOUND: 404,
    OpenApiCode.CONFLICT: 409, OpenApiCode.PAYLOAD_TOO_LARGE: 413,
    OpenApiCode.VALIDATION_ERROR: 422, OpenApiCode.RATE_LIMITED: 429,
    OpenApiCode.INTERNAL_ERROR: 500, OpenApiCode.SEARCH_TIMEOUT: 504,
    OpenApiCode.SEARCH_UNAVAILABLE: 503, OpenApiCode.SERVICE_UNAVAILABLE: 503,
}

register_messages({
    OpenApiCode.UNAUTHORIZED: {"zh-CN": "未认证：请提供有效的 Bearer 令牌。{reason}",
                               "en-US": "Not authenticated: send a valid Bearer token. {reason}"},
    OpenApiCode.FORBIDDEN: {"zh-CN": "无权执行此操作：{reason}", "en-US": "Not allowed: {reason}"},
    OpenApiCode.NOT_FOUND: {"zh-CN": "未找到：{reason}", "en-US": "Not found: {reason}"},
    OpenApiCode.CONFLICT: {"zh-CN": "冲突：{reason}", "en-US": "Conflict: {reason}"},
    OpenApiCode.PAYLOAD_TOO_LARGE: {"zh-CN": "内容过大：{reason}", "en-US": "Payload too large: {reason}"},
    OpenApiCode.VALIDATION_ERROR: {"zh-CN": "请求参数不合法：{reason}", "en-US": "Invalid request: {reason}"},
    OpenApiCode.RATE_LIMITED: {
        "zh-CN": "请求过于频繁，请在 {retry_after} 秒后重试。",
        "en-US": "Too many requests; retry after {retry_after} seconds.",
    },
    OpenApiCode.INTERNAL_ERROR: {"zh-CN": "服务内部错误，请稍后重试。", "en-US": "Internal error; retry later."},
    OpenApiCode.SEARCH_TIMEOUT: {
        "zh-CN": "搜索在 {seconds} 秒的期限内未完成；这不是空结果，请稍后重试或缩短问题。",
        "en-US": ("The search did not finish within its {seconds} s deadline; this is not an empty "
                  "result. Retry later or shorten the question."),
    },
    OpenApiCode.SEARCH_UNAVAILABLE: {
        "zh-CN": "搜索暂不可用（{reason}）；这不是空结果，请稍后重试。",
        "en-US": "Search is unavailable ({reason}); this is not an empty result. Retry later.",
    },
    OpenApiCode.SERVICE_UNAVAILABLE: {
        "zh-CN": "知识库服务暂不可用（{reason}），请稍后重试。",
        "en-US": "The knowledge-base service is unavailable ({reason}); retry later.",
    },
})


class OpenApiError(ApiError):
    """A refusal in the Developer OpenAPI envelope."""

    def __init__(
        self,
        code: str,
        *,
        params: Mapping[str, object] | None = None,
        details: Mapping[str, Any] | None = None,
        status: int | None = None,
        message: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(code, status or STATUS.get(code, 400), params=params,
                         details=dict(details or {}), headers=headers)
        self.message = message
        self.template = code

    def localized(self, template: str, **params: object) -> OpenApiError:
        """Use the message template ``template`` (a registered key) with ``params``."""
        self.template, self.params = template, dict(params)
        return self

    def render(self, language: Language, request_id: str | None = None) -> dict[str, Any]:
        message = self.message or render_message(self.template, language, self.params)
        return {
            "error": {"code": self.code, "message": message.strip(), "httpStatus": self.status,
                      "details": self.details or {}},
            "requestId": request_id or "",
        }

    @classmethod
    def from_body(cls, status: int, body: Mapping[str, Any]) -> OpenApiError:
        """An envelope another service rendered, relayed as it is (its message kept)."""
        error = body.get("error") if isinstance(body.get("error"), Mapping) else {}
        assert isinstance(error, Mapping)
        return cls(str(error.get("code", OpenApiCode.INTERNAL_ERROR)), status=status,
                   details=error.get("details") or {}, message=str(error.get("message", "")))


_MESH_CODES = {
    ErrorCode.UNAUTHENTICATED: OpenApiCode.UNAUTHORIZED,
    ErrorCode.PERMISSION_DENIED: OpenApiCode.FORBIDDEN,
    ErrorCode.NETWORK_PERMISSION_DENIED: OpenApiCode.FORBIDDEN,
    ErrorCode.INVALID_REQUEST: OpenApiCode.VALIDATION_ERROR,
    ErrorCode.NOT_FOUND: OpenApiCode.NOT_FOUND,
    ErrorCode.ROUTE_NOT_FOUND: OpenApiCode.NOT_FOUND,
    ErrorCode.UNKNOWN_TOOL: OpenApiCode.NOT_FOUND,
    ErrorCode.PAYLOAD_TOO_LARGE: OpenApiCode.PAYLOAD_TOO_LARGE,
    ErrorCode.DEPENDENCY_UNAVAILABLE: OpenApiCode.SERVICE_UNAVAILABLE,
    ErrorCode.IDEMPOTENCY_CONFLICT: OpenApiCode.CONFLICT,
    ErrorCode.INTERNAL: OpenApiCode.INTERNAL_ERROR,
}


def as_openapi_error(error: ApiError, language: Language) -> OpenApiError:
    """``error`` in the OpenAPI envelope, its response headers (``Allow``, ``Retry-After``) kept.
    A mesh code without an OpenAPI twin (for example ``conversation_required``) keeps its own
    code and message so the agent can act on it."""
    if isinstance(error, OpenApiError):
        return error
    code = _MESH_CODES.get(error.code)
    details: dict[str, Any] = {}
    if isinstance(error.details, Mapping):
        details.update(error.details)
    elif error.details is not None:
        details["problems"] = error.details
    details.update(error.extra)
    message = render_message(error.code, language, error.params)
    if code is None:
        return OpenApiError(error.code, status=error.status, details=details, message=message,
                            headers=error.headers)
    details.setdefault("meshCode", error.code)
    return OpenApiError(code, status=error.status if code != OpenApiCode.VALIDATION_ERROR else 422,
                        details=details, message=message, headers=error.headers)
