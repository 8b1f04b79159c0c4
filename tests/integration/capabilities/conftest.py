"""Capability tests (meshes come from tests/support/mesh.py, each on a free block of ports)."""

from __future__ import annotations
