"""Provenance anyone can verify offline (docs/operations.md, "Provenance you can prove").

- :mod:`.canonical`: the canonical JSON every hash and signature is computed over;
- :mod:`.keys`: Ed25519 keys of a deployment, their validity, the keyring file and JWKS;
- :mod:`.receipts`: signing and checking tool-executor's execution receipts;
- :mod:`.chain`: the hash chain over an interaction's records and its signed heads;
- :mod:`.bundle`: checking an exported bundle, record by record, with no network.
"""
