"""circomlib-compatible Poseidon in-circuit, and the salted commitment built on it."""
from __future__ import annotations

from typing import Sequence

from zkbluff.circuit.builder import LC, VLC, ConstraintSystem, LCLike, WitnessSystem
from zkbluff.field import r
from zkbluff.gadgets.poseidon_params import N_ROUNDS_F, params


def _sbox(cs: ConstraintSystem, x: LC, name: str) -> LC:
    """``x^5``: x2 = x*x, x4 = x2*x2, x5 = x4*x. 3 constraints."""
    x2 = cs.mul(x, x, name + "/x2")
    x4 = cs.mul(x2, x2, name + "/x4")
    return cs.mul(x4, x, name + "/x5")


def constraint_count(n_inputs: int) -> int:
    """Constraints :func:`poseidon` adds for ``n_inputs`` inputs: 3 per S-box,
    ``t`` S-boxes in each of the 8 full rounds and one in each partial round, less the
    first round's S-box on the capacity element, which is a constant and folds."""
    t = n_inputs + 1
    _, _, r_p = params(t)
    return 3 * (N_ROUNDS_F * t + r_p) - 3


def poseidon(cs: ConstraintSystem, inputs: Sequence[LCLike], name: str = "poseidon") -> LC:
    """Poseidon of 1..16 inputs with circomlib's parameters; equals
    :func:`zkbluff.gadgets.native.poseidon`. Adds :func:`constraint_count` constraints
    (240 for two inputs, as circomlib's Poseidon(2)); the round constants and the MDS mixing are linear (free)."""
    t = len(inputs) + 1
    C, M, r_p = params(t)
    if type(cs) is WitnessSystem:
        return _poseidon_values(cs, inputs, C, M, r_p)
    state = [LC.constant(0)] + [LC.of(x) for x in inputs]
    half = N_ROUNDS_F // 2
    with cs.namespace(name):
        for rnd in range(N_ROUNDS_F + r_p):
            state = [s + C[rnd * t + i] for i, s in enumerate(state)]
            if rnd < half or rnd >= half + r_p:
                state = [_sbox(cs, s, f"r{rnd}_{i}") for i, s in enumerate(state)]
            else:
                state[0] = _sbox(cs, state[0], f"r{rnd}_0")
            mixed = []
            for i in range(t):
                acc = LC.constant(0)
                for j in range(t):
                    acc = acc + state[j] * M[i][j]
                mixed.append(acc)
            state = mixed
    return state[0]


def _poseidon_values(cs: WitnessSystem, inputs: Sequence[LCLike], C, M, r_p: int) -> LC:
    """:func:`poseidon` in the lean witness pass: the same wires and constraint count as
    the gadget (an S-box on a constant folds, as ``cs.mul`` folds it), on plain ints.
    ``tests/statements/test_lean_witness.py`` checks it equals the full pass on every statement."""
    t = len(inputs) + 1
    vals, consts = [0], [True]
    for x in inputs:
        if isinstance(x, LC):
            vals.append(x.value % r)  # type: ignore[operator]
            consts.append(x.is_constant())
        else:
            vals.append(int(x) % r)
            consts.append(True)
    half = N_ROUNDS_F // 2
    wire = cs.product_wire

    def sbox(x: int, const: bool) -> int:
        x2 = x * x % r
        x4 = x2 * x2 % r
        x5 = x4 * x % r
        if not const:
            wire(x2)
            wire(x4)
            wire(x5)
        return x5

    for rnd in range(N_ROUNDS_F + r_p):
        base = rnd * t
        vals = [(v + C[base + i]) % r for i, v in enumerate(vals)]
        if rnd < half or rnd >= half + r_p:
            vals = [sbox(v, c) for v, c in zip(vals, consts)]
        else:
            vals[0] = sbox(vals[0], consts[0])
        all_const = all(consts)
        vals = [sum(v * m for v, m in zip(vals, row)) % r for row in M]
        consts = [all_const] * t
    return VLC(vals[0], consts[0])


def commit(cs: ConstraintSystem, value: LCLike, salt: LCLike, name: str = "commit") -> LC:
    """The salted commitment ``Poseidon(value, salt)``. 240 constraints."""
    return poseidon(cs, [value, salt], name)
