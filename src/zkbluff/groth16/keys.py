"""Groth16 keys and proofs as frozen dataclasses with the paper's names, and their
snarkjs JSON shapes (``verification_key.json``, ``proof.json``, ``public.json``)."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from zkbluff.circuit.builder import R1CS
from zkbluff.curve import Backend, G1Affine, G2Affine
from zkbluff.curve.codec import (
    g1_from_json, g1_to_json, g2_from_json, g2_to_json, parse_decimal,
)
from zkbluff.errors import MalformedInput
from zkbluff.field import r


@dataclass(frozen=True)
class VerifyingKey:
    """``[alpha]_1, [beta]_2, [gamma]_2, [delta]_2`` and ``ic[i] = [(beta A_i + alpha B_i
    + C_i)(tau) / gamma]_1`` for the constant wire and each public input."""

    alpha_g1: G1Affine
    beta_g2: G2Affine
    gamma_g2: G2Affine
    delta_g2: G2Affine
    ic: tuple[G1Affine, ...]

    @property
    def n_public(self) -> int:
        return len(self.ic) - 1

    def to_json(self) -> dict:
        return {
            "protocol": "groth16",
            "curve": "bn128",
            "nPublic": self.n_public,
            "vk_alpha_1": g1_to_json(self.alpha_g1),
            "vk_beta_2": g2_to_json(self.beta_g2),
            "vk_gamma_2": g2_to_json(self.gamma_g2),
            "vk_delta_2": g2_to_json(self.delta_g2),
            "IC": [g1_to_json(P) for P in self.ic],
        }

    @classmethod
    def from_json(cls, obj: Any, backend: Optional[Backend] = None) -> "VerifyingKey":
        if not isinstance(obj, dict):
            raise MalformedInput(f"verification key: expected a JSON object, got {type(obj).__name__}")
        if obj.get("protocol") != "groth16":
            raise MalformedInput(f"verification key: expected protocol 'groth16', got {obj.get('protocol')!r}")
        if obj.get("curve") not in ("bn128", "bn254", "alt_bn128"):
            raise MalformedInput(f"verification key: expected curve 'bn128', got {obj.get('curve')!r}")
        try:
            ic_json = obj["IC"]
            if not isinstance(ic_json, list) or not ic_json:
                raise MalformedInput("verification key: IC must be a non-empty list")
            vk = cls(
                alpha_g1=g1_from_json(obj["vk_alpha_1"], "vk_alpha_1"),
                beta_g2=g2_from_json(obj["vk_beta_2"], "vk_beta_2", backend=backend),
                gamma_g2=g2_from_json(obj["vk_gamma_2"], "vk_gamma_2", backend=backend),
                delta_g2=g2_from_json(obj["vk_delta_2"], "vk_delta_2", backend=backend),
                ic=tuple(g1_from_json(P, f"IC[{i}]", allow_infinity=True) for i, P in enumerate(ic_json)),
            )
        except KeyError as exc:
            raise MalformedInput(f"verification key: missing field {exc}") from None
        if "nPublic" in obj and obj["nPublic"] != vk.n_public:
            raise MalformedInput(f"verification key: nPublic is {obj['nPublic']} but IC has {len(vk.ic)} points")
        return vk

    def fingerprint(self) -> str:
        """SHA-256 (hex) of the canonical JSON of this key (computed once per key object: its
        fields never change, and a verifier asks for it with every proof it checks)."""
        fp = self.__dict__.get("_fingerprint")
        if fp is None:
            fp = hashlib.sha256(json.dumps(self.to_json(), sort_keys=True, separators=(",", ":")).encode()).hexdigest()
            self.__dict__["_fingerprint"] = fp  # beside the fields: not compared, not in repr
        return fp


@dataclass(frozen=True)
class Proof:
    """``(A, B, C)``: A and C in G1, B in G2."""

    a: G1Affine
    b: G2Affine
    c: G1Affine

    def to_json(self) -> dict:
        return {"pi_a": g1_to_json(self.a), "pi_b": g2_to_json(self.b), "pi_c": g1_to_json(self.c),
                "protocol": "groth16", "curve": "bn128"}

    @classmethod
    def from_json(cls, obj: Any, backend: Optional[Backend] = None) -> "Proof":
        if not isinstance(obj, dict):
            raise MalformedInput(f"proof: expected a JSON object, got {type(obj).__name__}")
        if obj.get("protocol", "groth16") != "groth16":
            raise MalformedInput(f"proof: expected protocol 'groth16', got {obj.get('protocol')!r}")
        try:
            return cls(g1_from_json(obj["pi_a"], "pi_a"), g2_from_json(obj["pi_b"], "pi_b", backend=backend),
                       g1_from_json(obj["pi_c"], "pi_c"))
        except KeyError as exc:
            raise MalformedInput(f"proof: missing field {exc}") from None


def public_to_json(values: Sequence[int]) -> list[str]:
    return [str(v) for v in values]


def public_from_json(obj: Any) -> list[int]:
    """Public inputs as decimal strings, each strictly below r (never reduced mod r)."""
    if not isinstance(obj, list):
        raise MalformedInput(f"public inputs: expected a JSON list, got {type(obj).__name__}")
    return [parse_decimal(v, f"public input {i}", r) for i, v in enumerate(obj)]


@dataclass(frozen=True, eq=False)
class ProvingKey:
    """Everything the prover needs.

    ``a_query[i] = [A_i(tau)]_1``, ``b_g1_query[i] = [B_i(tau)]_1``,
    ``b_g2_query[i] = [B_i(tau)]_2`` for every wire; ``l_query`` for the private wires
    ``[(beta A_i + alpha B_i + C_i)(tau) / delta]_1``; ``h_query[i] =
    [L_{2i+1}(tau) / delta]_1`` with L the Lagrange basis of the domain of size
    ``2 * domain_size`` (snarkjs's layout: the prover evaluates ``A B - C`` on the odd
    points and needs no division by the vanishing polynomial).
    ``coefficients`` are the entries ``(matrix, constraint, wire, value)`` of A (0) and
    B (1), including the rows snarkjs adds for the public inputs. ``system`` (when
    known) lets the prover name the constraint an unsatisfied witness breaks.
    """

    vk: VerifyingKey
    beta_g1: G1Affine
    delta_g1: G1Affine
    a_query: tuple[G1Affine, ...]
    b_g1_query: tuple[G1Affine, ...]
    b_g2_query: tuple[G2Affine, ...]
    l_query: tuple[G1Affine, ...]
    h_query: tuple[G1Affine, ...]
    domain_size: int
    coefficients: tuple[tuple[int, int, int, int], ...]
    system: Optional[R1CS] = None

    @property
    def n_wires(self) -> int:
        return len(self.a_query)

    @property
    def n_public(self) -> int:
        return self.vk.n_public
