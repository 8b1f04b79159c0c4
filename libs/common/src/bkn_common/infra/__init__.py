"""Clients of the infrastructure and the settings that reach it: Kafka, Redis, the mesh's signed
HTTP, OpenTelemetry spans and Prometheus metrics, dead letters, token buckets. Imports
bkn_common.contracts and events, never bkn_common.framework."""
