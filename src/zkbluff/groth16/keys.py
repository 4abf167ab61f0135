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


#: the fields of snarkjs's verification_key.json (``vk_alphabeta_12``, a cached pairing
#: snarkjs adds, is allowed and ignored)
VK_FIELDS = frozenset({"protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "IC"})
VK_OPTIONAL = frozenset({"vk_alphabeta_12"})
#: the fields of snarkjs's proof.json
PROOF_FIELDS = frozenset({"pi_a", "pi_b", "pi_c", "protocol", "curve"})
CURVES = ("bn128", "bn254", "alt_bn128")
#: the most public inputs a key may declare: far above any registered statement's, low
#: enough that a hostile key is refused (or decoded) in well under a second
MAX_PUBLIC = 4096


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
    def from_json(cls, obj: Any, backend: Optional[Backend] = None,
                  n_public: Optional[int] = None) -> "VerifyingKey":
        """snarkjs's ``verification_key.json``. Every field, the counts and the size are
        checked before any point is decoded (a key with 300,000 IC points is refused at
        once, not after seconds of decoding): exactly the fields snarkjs writes,
        ``protocol`` groth16, a bn128 ``curve``, ``nPublic`` an int with ``len(IC) ==
        nPublic + 1``, at most :data:`MAX_PUBLIC` public inputs, and ``n_public`` (when
        the caller knows the statement's count) equal to ``nPublic``."""
        cls.check_shape(obj, n_public)
        ic_json = obj["IC"]
        vk = cls(
            alpha_g1=g1_from_json(obj["vk_alpha_1"], "vk_alpha_1"),
            beta_g2=g2_from_json(obj["vk_beta_2"], "vk_beta_2", backend=backend),
            gamma_g2=g2_from_json(obj["vk_gamma_2"], "vk_gamma_2", backend=backend),
            delta_g2=g2_from_json(obj["vk_delta_2"], "vk_delta_2", backend=backend),
            ic=tuple(g1_from_json(P, f"IC[{i}]", allow_infinity=True) for i, P in enumerate(ic_json)),
        )
        return vk

    @staticmethod
    def check_shape(obj: Any, n_public: Optional[int] = None) -> int:
        """Every check of :meth:`from_json` that decodes no point (fields, protocol, curve,
        the count and the size); returns the declared ``nPublic``. A caller holding several
        keys checks all their shapes first, then decodes (a header's keys)."""
        if not isinstance(obj, dict):
            raise MalformedInput(f"verification key: expected a JSON object, got {type(obj).__name__}")
        missing = VK_FIELDS - set(obj)
        extra = set(obj) - VK_FIELDS - VK_OPTIONAL
        if missing or extra:
            raise MalformedInput(f"verification key: fields {sorted(obj)[:12]}, expected {sorted(VK_FIELDS)}"
                                 f" (missing {sorted(missing)}, unknown {sorted(extra)[:12]})")
        if obj["protocol"] != "groth16":
            raise MalformedInput(f"verification key: expected protocol 'groth16', got {obj['protocol']!r}")
        if obj["curve"] not in CURVES:
            raise MalformedInput(f"verification key: expected curve 'bn128', got {obj['curve']!r}")
        declared, ic_json = obj["nPublic"], obj["IC"]
        if isinstance(declared, bool) or not isinstance(declared, int) or not 0 <= declared <= MAX_PUBLIC:
            raise MalformedInput(f"verification key: nPublic must be an int in [0, {MAX_PUBLIC}], got {declared!r}")
        if n_public is not None and declared != n_public:
            raise MalformedInput(f"verification key: nPublic is {declared}, the statement has {n_public} public inputs")
        if not isinstance(ic_json, list) or len(ic_json) != declared + 1:
            got = len(ic_json) if isinstance(ic_json, list) else type(ic_json).__name__
            raise MalformedInput(f"verification key: IC must list nPublic + 1 = {declared + 1} points, got {got}")
        return declared

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
        if set(obj) != PROOF_FIELDS:
            raise MalformedInput(f"proof: fields {sorted(obj)[:12]}, expected {sorted(PROOF_FIELDS)}")
        if obj["protocol"] != "groth16":
            raise MalformedInput(f"proof: expected protocol 'groth16', got {obj['protocol']!r}")
        if obj["curve"] not in CURVES:
            raise MalformedInput(f"proof: expected curve 'bn128', got {obj['curve']!r}")
        return cls(g1_from_json(obj["pi_a"], "pi_a"), g2_from_json(obj["pi_b"], "pi_b", backend=backend),
                   g1_from_json(obj["pi_c"], "pi_c"))


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
