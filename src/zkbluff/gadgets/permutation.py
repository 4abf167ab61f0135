"""Permutation arguments: a committed list of small values is a permutation of ``0..n-1``.

The argument is a grand product against a Fiat–Shamir challenge: for a challenge
``gamma`` that the prover cannot choose after the values,
``prod (gamma - v_i) = prod_{k<n} (gamma - k)`` holds for a multiset ``{v_i}`` other
than ``{0..n-1}`` only when ``gamma`` is a root of a nonzero polynomial of degree
``<= n``: probability ``n / r`` per try (Schwartz–Zippel).

The challenge is the Poseidon hash of the values themselves, packed: each value is
range-checked to ``bits`` bits so the packing into field elements is injective, and the
packs (at most 252 bits each) are hashed in-circuit. The values are fixed before the
challenge because the challenge is a function of them, and nothing outside the circuit
has to recompute it: a verifier that knows nothing of this protocol cannot be fooled by
a prover-chosen challenge.
"""
from __future__ import annotations

from typing import Sequence

from zkbluff.circuit.builder import LC, ConstraintSystem, LCLike
from zkbluff.gadgets.basic import from_bits, to_bits
from zkbluff.gadgets.poseidon import constraint_count as poseidon_count
from zkbluff.gadgets.poseidon import poseidon

#: bits per packed field element (below the 254-bit field, so packing is injective)
PACK_BITS = 252


def values_per_pack(bits: int) -> int:
    return PACK_BITS // bits


def grand_product(cs: ConstraintSystem, values: Sequence[LCLike], challenge: LCLike,
                  name: str = "grand_product") -> LC:
    """``prod_i (challenge - values[i])``. ``len(values) - 1`` constraints (0 for one value)."""
    if not values:
        return LC.constant(1)
    gamma = LC.of(challenge)
    with cs.namespace(name):
        acc = gamma - values[0]
        for i, v in enumerate(values[1:], start=1):
            acc = cs.mul(acc, gamma - v, f"factor_{i}")
    return acc


def permutation_challenge(cs: ConstraintSystem, values: Sequence[LCLike], bits: int,
                          name: str = "challenge") -> LC:
    """The challenge ``Poseidon(pack_0, pack_1, ...)`` of ``values``, each constrained to
    ``0 <= v < 2^bits`` and packed little-endian, ``PACK_BITS // bits`` values a pack.
    ``len(values) * (bits + 1)`` range constraints plus one Poseidon of the packs
    (:func:`challenge_constraint_count`)."""
    per = values_per_pack(bits)
    with cs.namespace(name):
        all_bits: list[list[LC]] = [to_bits(cs, v, bits, f"range_{i}") for i, v in enumerate(values)]
        packs = [from_bits([b for vb in all_bits[k: k + per] for b in vb]) for k in range(0, len(values), per)]
        return poseidon(cs, packs, "hash")


def challenge_constraint_count(n: int, bits: int) -> int:
    """Constraints :func:`permutation_challenge` adds for ``n`` values of ``bits`` bits."""
    per = values_per_pack(bits)
    return n * (bits + 1) + poseidon_count(-(-n // per))


def enforce_permutation_of_range(cs: ConstraintSystem, values: Sequence[LCLike], challenge: LCLike,
                                 name: str = "permutation") -> None:
    """Constrain ``values`` to be a permutation of ``0..n-1`` (n = len(values)), given a
    ``challenge`` fixed by the values (see :func:`permutation_challenge`; soundness error
    ``n / r``): ``prod (challenge - v_i) = prod_{k<n} (challenge - k)``. The left product's
    last factor is folded into the equality: ``2n - 2`` constraints."""
    n = len(values)
    if n < 2:
        raise ValueError("enforce_permutation_of_range: needs at least two values")
    with cs.namespace(name):
        left = grand_product(cs, values[:-1], challenge, "values")
        right = grand_product(cs, list(range(n)), challenge, "range")
        cs.enforce(left, LC.of(challenge) - values[-1], right, "equal")
