"""Mutation audit: find wires that a witness does not pin.

For a satisfying witness, change one private wire at a time; a constraint system
that pins every wire (given the public inputs) becomes unsatisfied each time. A wire
whose change leaves the system satisfied is *under-constrained*: another witness
with the same public inputs exists. Only the constraints that mention the changed
wire are re-evaluated, so the audit costs about one pass over the system.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Optional, Sequence

from zkbluff.circuit.builder import R1CS, lc_value
from zkbluff.field import r


def _index(system: R1CS) -> dict[int, list[int]]:
    idx: dict[int, list[int]] = defaultdict(list)
    for j, (a, b, c) in enumerate(system.constraints):
        for w in set(a) | set(b) | set(c):
            idx[w].append(j)
    return idx


def _satisfied(system: R1CS, witness: Sequence[int], rows: Iterable[int]) -> bool:
    for j in rows:
        a, b, c = system.constraints[j]
        if lc_value(a, witness) * lc_value(b, witness) % r != lc_value(c, witness):
            return False
    return True


def under_constrained_wires(system: R1CS, witness: Sequence[int], deltas: Sequence[int] = (1, r - 1, 2),
                            wires: Optional[Iterable[int]] = None) -> list[str]:
    """Names of the private wires whose value can be changed (by any of ``deltas``)
    while every constraint still holds. An empty list means every mutation was caught."""
    idx = _index(system)
    w = list(witness)
    found = []
    first_private = 1 + system.n_public
    for i in (wires if wires is not None else range(first_private, system.n_wires)):
        rows = idx.get(i, [])
        original = w[i]
        for d in deltas:
            w[i] = (original + d) % r
            if _satisfied(system, w, rows):
                found.append(system.wire_names[i])
                break
        w[i] = original
    return found


def unsatisfied_after(system: R1CS, witness: Sequence[int], wire: int, value: int) -> Optional[str]:
    """The name of the first constraint that fails when ``wire`` is set to ``value``
    (None if all still hold)."""
    w = list(witness)
    w[wire] = value % r
    for j in sorted(_index(system).get(wire, [])):
        a, b, c = system.constraints[j]
        if lc_value(a, w) * lc_value(b, w) % r != lc_value(c, w):
            return system.constraint_names[j]
    return None


def unconstrained_public_inputs(system: R1CS) -> list[str]:
    """Names of the public inputs that no constraint mentions (a free public signal: the
    proof would not bind it beyond snarkjs's independence rows)."""
    used: set[int] = set()
    for a, b, c in system.constraints:
        used.update(a)
        used.update(b)
        used.update(c)
    names = system.public_names or [f"public_{i}" for i in range(1, system.n_public + 1)]
    return [names[i - 1] for i in range(1, system.n_public + 1) if i not in used]
