"""zkbluff: provably fair bluff games on Groth16 over BN254."""
from __future__ import annotations

__version__ = "0.1.0"

from zkbluff import errors  # noqa: F401
from zkbluff.errors import (  # noqa: F401,E402  (the typed errors, where a user looks for them)
    CommitmentMismatch, IllegalMove, InvalidProof, MalformedInput, TranscriptError, UnsatisfiedConstraint,
    ZkbluffError,
)
