"""Where and how to reach Kafka: bootstrap servers plus TLS and SASL, as client options.

Every Kafka client of the mesh (FastStream brokers, aiokafka producers, consumers and admin
clients) is built from one :class:`KafkaConnection`, so ``KAFKA_SECURITY_PROTOCOL`` and friends
(see :class:`~bkn_common.infra.settings.ServiceSettings`) reach all of them.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiokafka.helpers import create_ssl_context

from bkn_common.infra.settings import ServiceSettings

if TYPE_CHECKING:  # FastStream is imported only where a broker is made (see bkn_common.infra.kafka)
    from faststream.security import BaseSecurity


@dataclass(frozen=True)
class KafkaConnection:
    """Bootstrap servers and security; a bare string of servers means PLAINTEXT."""

    bootstrap_servers: str
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str = "PLAIN"
    sasl_username: str | None = None
    sasl_password: str | None = field(default=None, repr=False)
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None

    @classmethod
    def from_settings(cls, settings: ServiceSettings) -> KafkaConnection:
        password = settings.kafka_sasl_password
        return cls(
            bootstrap_servers=settings.kafka_bootstrap_servers,
            security_protocol=settings.kafka_security_protocol,
            sasl_mechanism=settings.kafka_sasl_mechanism,
            sasl_username=settings.kafka_sasl_username,
            sasl_password=password.get_secret_value() if password else None,
            ssl_cafile=settings.kafka_ssl_cafile,
            ssl_certfile=settings.kafka_ssl_certfile,
            ssl_keyfile=settings.kafka_ssl_keyfile,
        )

    @property
    def uses_tls(self) -> bool:
        return self.security_protocol in ("SSL", "SASL_SSL")

    @property
    def uses_sasl(self) -> bool:
        return self.security_protocol in ("SASL_PLAINTEXT", "SASL_SSL")

    def ssl_context(self) -> ssl.SSLContext | None:
        """A verifying TLS context (the CA file, else the system CAs; the client pair if set)."""
        if not self.uses_tls:
            return None
        context: ssl.SSLContext = create_ssl_context(
            cafile=self.ssl_cafile, certfile=self.ssl_certfile, keyfile=self.ssl_keyfile
        )
        return context

    def client_options(self) -> dict[str, Any]:
        """Keyword arguments for ``AIOKafkaProducer``/``AIOKafkaConsumer``/``AIOKafkaAdminClient``."""
        options: dict[str, Any] = {
            "bootstrap_servers": self.bootstrap_servers,
            "security_protocol": self.security_protocol,
        }
        if self.uses_tls:
            options["ssl_context"] = self.ssl_context()
        if self.uses_sasl:
            options["sasl_mechanism"] = self.sasl_mechanism
            options["sasl_plain_username"] = self.sasl_username
            options["sasl_plain_password"] = self.sasl_password
        return options

    def faststream_security(self) -> BaseSecurity | None:
        """The same settings as FastStream's ``security=`` object (None for PLAINTEXT)."""
        from faststream.security import BaseSecurity, SASLPlaintext, SASLScram256, SASLScram512

        sasl = {"PLAIN": SASLPlaintext, "SCRAM-SHA-256": SASLScram256, "SCRAM-SHA-512": SASLScram512}
        if self.uses_sasl:
            return sasl[self.sasl_mechanism](
                self.sasl_username or "", self.sasl_password or "",
                ssl_context=self.ssl_context(), use_ssl=self.uses_tls,
            )
        if self.uses_tls:
            return BaseSecurity(ssl_context=self.ssl_context(), use_ssl=True)
        return None


def kafka_connection(target: str | KafkaConnection | ServiceSettings) -> KafkaConnection:
    """Normalise what callers hold (bare servers, a connection, or settings) to a connection."""
    if isinstance(target, KafkaConnection):
        return target
    if isinstance(target, ServiceSettings):
        return KafkaConnection.from_settings(target)
    return KafkaConnection(bootstrap_servers=target)
