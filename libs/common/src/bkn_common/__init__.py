"""Shared library of the Context Loader mesh.

Public surface: settings base, error envelope, language negotiation, event contracts, topic
catalogue, Kafka/Redis/telemetry wiring, projections, HTTP plumbing and the TOON encoder.
Import submodules (``bkn_common.events``, ``bkn_common.topics``, ...) for the details.
"""

from bkn_common.errors import ApiError, ErrorCode, ErrorEnvelope
from bkn_common.i18n import Language, negotiate_language, register_messages, render_message
from bkn_common.settings import ServiceSettings

__all__ = [
    "ApiError",
    "ErrorCode",
    "ErrorEnvelope",
    "Language",
    "ServiceSettings",
    "negotiate_language",
    "register_messages",
    "render_message",
]
