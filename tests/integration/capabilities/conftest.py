"""Capability tests: meshes on their own port range, so a parallel run of another integration
directory (which starts at 31000 in its own process) does not collide with these."""

from __future__ import annotations

import tests.support.mesh as mesh_support

mesh_support._next_base[0] = max(mesh_support._next_base[0], 33000)
