"""gateway settings (env prefix GATEWAY_, plus the shared infra names and EXECUTE_SKILL_ENABLED)."""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import SettingsConfigDict

from bkn_common.infra.settings import ServiceSettings


class GatewaySettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="GATEWAY_", extra="ignore", populate_by_name=True)

    service_name: str = "gateway"
    port: int = 30779
    public_url: str | None = None
    """The external base URL that /mcp/info advertises (unset: the request's own)."""
    identity_file: str = ".run/identity.yaml"
    """YAML file of accounts, their AppKey digests and roles."""
    jwt_issuer: str | None = None
    """The OAuth issuer a Bearer JWT must name (unset: JWTs are refused)."""
    jwt_audience: str | None = None
    """The audience a Bearer JWT must name."""
    jwt_public_key_file: str | None = None
    """PEM public key that verifies JWTs (or GATEWAY_JWT_JWKS_URL)."""
    jwt_jwks_url: str | None = None
    """A JWKS URL whose keys verify JWTs."""
    jwt_role_claim: str = "roles"
    """The access-token claim that carries roles (dotted for a nested one: realm_access.roles)."""
    jwt_operator_values: list[str] = Field(default_factory=lambda: ["operator"])
    """Values of that claim that make the caller an operator (reads every account's traces)."""
    console_session_seconds: int = Field(8 * 3600, ge=60)
    """How long a console login (its session cookie) lasts."""
    capability_index_url: str = "http://127.0.0.1:30781"
    """capability-index's internal base URL."""
    tool_executor_url: str = "http://127.0.0.1:30782"
    """tool-executor's internal base URL."""
    trace_recorder_url: str = "http://127.0.0.1:30783"
    """trace-recorder's internal base URL."""
    ontology_query_url: str = "http://127.0.0.1:30784"
    """ontology-query's internal base URL."""
    knowledge_base_url: str = "http://127.0.0.1:30785"
    """knowledge-base's internal base URL."""
    internal_timeout_seconds: float = 30.0
    """How long the gateway waits for an internal service's answer."""
    internal_keepalive_seconds: float = Field(60.0, gt=0)
    """How long an idle connection to an internal service stays in the pool: less than the
    services keep it open (``HTTP_KEEPALIVE_SECONDS``, 75), so the gateway closes it first and
    never sends a call on a connection the service is closing (a 503 for a healthy service)."""
    access_cache_seconds: float = 1.0
    """How long a network-permission answer from ontology-query is reused."""
    idempotency_ttl_seconds: int = 24 * 3600
    """How long an invocation id's outcome is kept in Redis for retries."""
    allowed_origins: list[str] = Field(default_factory=list)
    """Browser origins allowed by CORS (JSON list; empty: none)."""
    execute_skill_enabled: bool = Field(
        False, validation_alias=AliasChoices("EXECUTE_SKILL_ENABLED", "execute_skill_enabled")
    )
    mcp_conformance_fixtures: bool = False  # test_* fixture tools for the MCP conformance suite only
    permission_request_path_template: str | None = None
    """The Studio path of a permission request, offered with a network-permission refusal (unset: no link)."""
    permission_request_disabled: bool = True
    """``true`` never offers the permission-request link."""
    # token buckets per account and per account and tool (docs/operations.md#rate-limits)
    rate_limit_enabled: bool = False
    rate_limit_account_per_second: float = Field(20.0, gt=0)
    """Calls per second an account may make (token bucket refill)."""
    rate_limit_account_burst: int = Field(40, ge=1)
    """Calls an account may make at once (bucket size)."""
    rate_limit_tool_per_second: float = Field(5.0, gt=0)
    """Calls per second an account may make to one tool."""
    rate_limit_tool_burst: int = Field(10, ge=1)
    """Calls an account may make to one tool at once."""
