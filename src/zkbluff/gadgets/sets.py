"""Card sets as bit vectors: ``bits[i] = 1`` iff card i is in the set.

All inputs are vectors of bits the caller has already constrained boolean.
"""
from __future__ import annotations

from typing import Sequence

from zkbluff.circuit.builder import LC, ConstraintSystem, LCLike


def _same_length(a: Sequence, b: Sequence, what: str) -> None:
    if len(a) != len(b):
        raise ValueError(f"{what}: sets of {len(a)} and {len(b)} bits")


def enforce_subset(cs: ConstraintSystem, a: Sequence[LCLike], b: Sequence[LCLike], name: str = "subset") -> None:
    """Constrain ``a ⊆ b``: ``a_i * (1 - b_i) = 0`` for each i. n constraints."""
    _same_length(a, b, name)
    with cs.namespace(name):
        for i, (x, y) in enumerate(zip(a, b)):
            cs.enforce(x, 1 - LC.of(y), 0, f"bit_{i}")


def enforce_disjoint(cs: ConstraintSystem, a: Sequence[LCLike], b: Sequence[LCLike], name: str = "disjoint") -> None:
    """Constrain ``a ∩ b = ∅``: ``a_i * b_i = 0``. n constraints."""
    _same_length(a, b, name)
    with cs.namespace(name):
        for i, (x, y) in enumerate(zip(a, b)):
            cs.enforce(x, y, 0, f"bit_{i}")


def union_disjoint(a: Sequence[LCLike], b: Sequence[LCLike]) -> list[LC]:
    """``a ∪ b`` as ``a_i + b_i`` — valid only for disjoint sets, which the caller
    must enforce (see :func:`enforce_disjoint`). 0 constraints."""
    _same_length(a, b, "union_disjoint")
    return [LC.of(x) + y for x, y in zip(a, b)]


def difference_of_subset(a: Sequence[LCLike], b: Sequence[LCLike]) -> list[LC]:
    """``a \\ b`` as ``a_i - b_i`` — valid only when ``b ⊆ a``, which the caller must
    enforce (see :func:`enforce_subset`). 0 constraints."""
    _same_length(a, b, "difference_of_subset")
    return [LC.of(x) - y for x, y in zip(a, b)]


def intersection(cs: ConstraintSystem, a: Sequence[LCLike], b: Sequence[LCLike], name: str = "intersection") -> list[LC]:
    """``a ∩ b`` bit by bit: ``a_i * b_i``. n constraints."""
    _same_length(a, b, name)
    with cs.namespace(name):
        return [cs.mul(x, y, f"bit_{i}") for i, (x, y) in enumerate(zip(a, b))]


def union(cs: ConstraintSystem, a: Sequence[LCLike], b: Sequence[LCLike], name: str = "union") -> list[LC]:
    """``a ∪ b`` for any sets: ``a_i + b_i - a_i b_i``. n constraints."""
    return [LC.of(x) + y - m for x, y, m in zip(a, b, intersection(cs, a, b, name))]


def difference(cs: ConstraintSystem, a: Sequence[LCLike], b: Sequence[LCLike], name: str = "difference") -> list[LC]:
    """``a \\ b`` for any sets: ``a_i - a_i b_i``. n constraints."""
    return [LC.of(x) - m for x, m in zip(a, intersection(cs, a, b, name))]


def count_outside(cs: ConstraintSystem, a: Sequence[LCLike], mask: Sequence[LCLike], name: str = "outside") -> LC:
    """How many members of ``a`` lie outside ``mask``: ``sum a_i (1 - m_i)``.
    n constraints (0 for positions where the mask is a constant)."""
    _same_length(a, mask, name)
    acc = LC.constant(0)
    with cs.namespace(name):
        for i, (x, m) in enumerate(zip(a, mask)):
            acc = acc + cs.mul(x, 1 - LC.of(m), f"bit_{i}")
    return acc
