"""The error envelope: one shape for every refusal, on REST, MCP and internal calls.

``{"code": ..., "message": ..., "details": ..., "request_id": ...}`` where ``code`` is stable
(programs branch on it) and ``message`` is rendered in zh-CN or en-US by ``Accept-Language``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from bkn_common.contracts.i18n import Language, register_messages, render_message


class ErrorEnvelope(BaseModel):
    """The documented error body."""

    model_config = ConfigDict(extra="allow")

    code: str
    message: str
    details: Any | None = None
    request_id: str | None = None


class ApiError(Exception):
    """A refusal carrying a stable code, an HTTP status and message parameters.

    ``extra`` holds additional top-level envelope fields (``required_action``,
    ``permission_guidance``) that sit beside ``code`` and ``details``.
    """

    def __init__(
        self,
        code: str,
        status: int = 400,
        *,
        params: Mapping[str, object] | None = None,
        details: Any = None,
        extra: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(code)
        self.code = code
        self.status = status
        self.params = dict(params or {})
        self.details = details
        self.extra = dict(extra or {})
        self.headers = dict(headers or {})  # HTTP response headers of a REST refusal (Retry-After)

    def envelope(self, language: Language, request_id: str | None = None) -> ErrorEnvelope:
        """Render this error for a caller speaking ``language``."""
        return ErrorEnvelope(
            code=self.code,
            message=render_message(self.code, language, self.params),
            details=self.details,
            request_id=request_id,
            **self.extra,
        )

    def render(self, language: Language, request_id: str | None = None) -> dict[str, Any]:
        """The JSON body of this refusal (an API with another envelope overrides this)."""
        return self.envelope(language, request_id).model_dump(mode="json", exclude_none=True)

    def __repr__(self) -> str:
        return f"ApiError({self.code!r}, {self.status}, params={self.params!r})"


class ErrorCode:
    """Codes shared by every service (services register their own in their domain)."""

    UNAUTHENTICATED = "unauthenticated"
    INTERNAL_UNAUTHENTICATED = "internal_unauthenticated"
    PERMISSION_DENIED = "permission_denied"
    NETWORK_PERMISSION_DENIED = "network_permission_denied"
    INVALID_REQUEST = "invalid_request"
    NOT_FOUND = "not_found"
    ROUTE_NOT_FOUND = "route_not_found"  # no such path on this service (not: no such resource)
    METHOD_NOT_ALLOWED = "method_not_allowed"  # the path exists, not with this method (Allow says)
    UNKNOWN_TOOL = "unknown_tool"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    DEPENDENCY_UNAVAILABLE = "dependency_unavailable"
    UPSTREAM_UNAVAILABLE = "upstream_unavailable"
    IDEMPOTENCY_CONFLICT = "idempotency_conflict"
    INTERNAL = "internal_error"


register_messages(
    {
        ErrorCode.UNAUTHENTICATED: {
            "zh-CN": "未认证：请在 Authorization 头中提供有效的 Bearer 令牌（OAuth 访问令牌或 bak_ AppKey）。{reason}",
            "en-US": "Not authenticated: send a valid Bearer token (OAuth access token or bak_ AppKey) in the Authorization header. {reason}",
        },
        ErrorCode.INTERNAL_UNAUTHENTICATED: {
            "zh-CN": "内部接口拒绝访问：请求没有有效的网格服务凭证（{reason}）；/internal/ 接口只接受网格内服务签名的调用。",
            "en-US": "Internal API refused: the request carries no valid mesh service credential ({reason}); /internal/ APIs accept only calls signed by a mesh service.",
        },
        ErrorCode.PERMISSION_DENIED: {
            "zh-CN": "权限不足：{reason}",
            "en-US": "Permission denied: {reason}",
        },
        ErrorCode.NETWORK_PERMISSION_DENIED: {
            "zh-CN": "缺少知识网络 {kn_id} 本身的 {permission} 权限；对象类、工具或 Skill 等子资源上的授权不能代替网络权限。请联系管理员授予该网络的 {permission} 权限。",
            "en-US": "Missing the {permission} permission on knowledge network {kn_id} itself; grants on sub-resources such as object types, tools or skills do not count. Ask an administrator to grant {permission} on the network.",
        },
        ErrorCode.INVALID_REQUEST: {
            "zh-CN": "请求参数不合法：{reason}",
            "en-US": "Invalid request: {reason}",
        },
        ErrorCode.NOT_FOUND: {
            "zh-CN": "未找到：{reason}",
            "en-US": "Not found: {reason}",
        },
        ErrorCode.ROUTE_NOT_FOUND: {
            "zh-CN": "没有这个接口：{method} {path} 不是本服务的路径，请核对 URL。",
            "en-US": "No such endpoint: {method} {path} is not a path of this service; check the URL.",
        },
        ErrorCode.METHOD_NOT_ALLOWED: {
            "zh-CN": "{path} 不接受 {method} 方法；可用的方法：{allowed}。",
            "en-US": "{path} does not accept {method}; the methods it accepts: {allowed}.",
        },
        ErrorCode.UNKNOWN_TOOL: {
            "zh-CN": "未知工具 {tool}：该工具不存在或未在此端点发布。",
            "en-US": "Unknown tool {tool}: it does not exist or is not published on this endpoint.",
        },
        ErrorCode.PAYLOAD_TOO_LARGE: {
            "zh-CN": "内容过大：{reason}",
            "en-US": "Payload too large: {reason}",
        },
        ErrorCode.DEPENDENCY_UNAVAILABLE: {
            "zh-CN": "依赖服务暂不可用（{dependency}），请稍后重试。",
            "en-US": "A dependency is unavailable ({dependency}); retry later.",
        },
        ErrorCode.UPSTREAM_UNAVAILABLE: {
            "zh-CN": "上游工具不可达：{reason}",
            "en-US": "The upstream tool could not be reached: {reason}",
        },
        ErrorCode.IDEMPOTENCY_CONFLICT: {
            "zh-CN": "幂等冲突：同一调用 ID 已用于不同的输入；请为新的调用使用新的 ID。",
            "en-US": "Idempotency conflict: this invocation id was already used with different input; use a new id for a new call.",
        },
        ErrorCode.INTERNAL: {
            "zh-CN": "服务内部错误，请稍后重试；如持续出现请提供 request_id 联系管理员。",
            "en-US": "Internal error; retry later, and quote the request_id to an administrator if it persists.",
        },
    }
)


def network_permission_error(kn_id: str, permission: str) -> ApiError:
    """403 naming the missing network-level permission."""
    return ApiError(
        ErrorCode.NETWORK_PERMISSION_DENIED,
        403,
        params={"kn_id": kn_id, "permission": permission},
        details={"missing_permission": permission, "resource": f"knowledge_network:{kn_id}"},
    )
