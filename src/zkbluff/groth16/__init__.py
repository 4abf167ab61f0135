"""Groth16 over BN254, interchangeable with snarkjs.

(The prover imports its thread pool when it first proves, so a verifier starts without it.)
"""
from zkbluff.groth16.keys import Proof, ProvingKey, VerifyingKey, public_from_json, public_to_json  # noqa: F401
from zkbluff.groth16.prove import prove  # noqa: F401
from zkbluff.groth16.setup import setup, setup_insecure_seeded_for_tests  # noqa: F401
from zkbluff.errors import InvalidProof, MalformedInput  # noqa: F401  (what verify raises)
from zkbluff.groth16.verify import batch_verify, batch_verify_keys, verify  # noqa: F401
