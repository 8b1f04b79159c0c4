"""Shared library of the Context Loader mesh.

Public surface: settings base, error envelope, language negotiation, event contracts, topic
catalogue, Kafka/Redis/telemetry wiring, projections, HTTP plumbing and the TOON encoder.
Import submodules (``bkn_common.contracts.events``, ``bkn_common.contracts.topics``, ...) for the details.
"""
