"""zkbluff: provably fair bluff games on Groth16 over BN254."""
from __future__ import annotations

__version__ = "0.1.0"

from zkbluff import errors  # noqa: F401
