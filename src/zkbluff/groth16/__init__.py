"""Groth16 over BN254, interchangeable with snarkjs.

The keys, proofs and the verifier load with the package; the prover and the setup (and
the thread pool and polynomial machinery they need) when first used, so a verifier
starts without them.
"""
from typing import TYPE_CHECKING, Any

from zkbluff.groth16.keys import Proof, ProvingKey, VerifyingKey, public_from_json, public_to_json  # noqa: F401
from zkbluff.groth16.verify import batch_verify, verify  # noqa: F401

if TYPE_CHECKING:
    from zkbluff.groth16.prove import prove  # noqa: F401
    from zkbluff.groth16.setup import setup, setup_insecure_seeded_for_tests  # noqa: F401

_LAZY = {"prove": "zkbluff.groth16.prove", "setup": "zkbluff.groth16.setup",
         "setup_insecure_seeded_for_tests": "zkbluff.groth16.setup"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
