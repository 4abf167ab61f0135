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
    if cs.records_hints:  # written in circom as circomlib's unoptimised rounds, not wire by wire
        cs.begin_block(_circom_block, name=cs.path(name), inputs=state[1:], t=t, r_p=r_p, row=3)  # type: ignore[attr-defined]
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
    if cs.records_hints:
        cs.end_block()  # type: ignore[attr-defined]
    return state[0]


def _circom_block(base: str, info: dict, wires: list[int], rows: list[int], render) -> tuple[dict[str, str], list[str]]:
    """:func:`poseidon` in circom (:meth:`zkbluff.circuit.circom.CircomExport.begin_block`):
    circomlib's unoptimised rounds (``poseidon_old.circom``) and its constants (those of
    ``poseidon_constants_old.circom``, written here as ``ZKBLUFF_POSEIDON_C_t``/``_M_t``), one
    ``x^2, x^4, x^5`` row of ``base`` per S-box, the constraints in the gadget's order; an
    S-box on a value known when compiling (the capacity, a constant input) folds, as
    ``cs.mul`` folds it."""
    from zkbluff.errors import MalformedInput

    t, r_p = info["t"], info["r_p"]
    n_rounds = N_ROUNDS_F + r_p
    half = N_ROUNDS_F // 2
    inputs = info["inputs"]
    live = [0] + [0 if x.is_constant() else 1 for x in inputs]
    n_sbox = sum(live) + sum(t if (rnd < half or rnd >= half + r_p) else 1 for rnd in range(1, n_rounds))
    if len(wires) != 3 * n_sbox or len(rows) != 3 * n_sbox:
        raise MalformedInput(f"poseidon {base}: {len(wires)} wires and {len(rows)} constraints, "
                             f"expected {3 * n_sbox} of each")
    p = base
    out = [f"    // {info['name']}: Poseidon of {len(inputs)} (zkbluff's gadget = circomlib's unoptimised rounds)",
           f"    signal {p}[{n_sbox}][3];  // per S-box: x^2, x^4, x^5",
           f"    var {p}_c[{t * n_rounds}] = ZKBLUFF_POSEIDON_C_{t}();",
           f"    var {p}_m[{t}][{t}] = ZKBLUFF_POSEIDON_M_{t}();",
           f"    var {p}_live[{t}] = [{', '.join(map(str, live))}];  // 0: known when compiling, its S-box folds",
           f"    var {p}_st[{t}];",
           f"    var {p}_mix[{t}];",
           f"    var {p}_k = 0;",
           f"    {p}_st[0] = 0;"]
    out += [f"    {p}_st[{i + 1}] = {render(x)};" for i, x in enumerate(inputs)]
    out += [f"    for (var rnd = 0; rnd < {n_rounds}; rnd++) {{",
            f"        for (var i = 0; i < {t}; i++) {{",
            f"            {p}_st[i] += {p}_c[rnd * {t} + i];",
            "        }",
            f"        for (var i = 0; i < {t}; i++) {{",
            f"            if (rnd < {half} || rnd >= {half + r_p} || i == 0) {{",
            f"                if (rnd > 0 || {p}_live[i] == 1) {{",
            f"                    {p}[{p}_k][0] <-- {p}_st[i] * {p}_st[i];",
            f"                    {p}_st[i] * {p}_st[i] === {p}[{p}_k][0];",
            f"                    {p}[{p}_k][1] <-- {p}[{p}_k][0] * {p}[{p}_k][0];",
            f"                    {p}[{p}_k][0] * {p}[{p}_k][0] === {p}[{p}_k][1];",
            f"                    {p}[{p}_k][2] <-- {p}[{p}_k][1] * {p}_st[i];",
            f"                    (1 * {p}[{p}_k][1]) * {p}_st[i] === {p}[{p}_k][2];",
            f"                    {p}_st[i] = 1 * {p}[{p}_k][2];",
            f"                    {p}_k++;",
            "                } else {",
            f"                    {p}_st[i] = {p}_st[i] ** 5;",
            "                }",
            "            }",
            "        }",
            f"        for (var i = 0; i < {t}; i++) {{",
            f"            {p}_mix[i] = 0;",
            f"            for (var j = 0; j < {t}; j++) {{",
            f"                {p}_mix[i] += {p}_m[i][j] * {p}_st[j];",
            "            }",
            "        }",
            f"        for (var i = 0; i < {t}; i++) {{",
            f"            {p}_st[i] = {p}_mix[i];",
            "        }",
            "    }"]
    C, M, _ = params(t)
    fns = {f"poseidon_{t}": (f"// Poseidon's round constants and MDS matrix for width {t} (circomlib's)\n"
                             f"function ZKBLUFF_POSEIDON_C_{t}() {{\n    return [{', '.join(map(str, C))}];\n}}\n"
                             f"function ZKBLUFF_POSEIDON_M_{t}() {{\n    return ["
                             + ", ".join("[" + ", ".join(map(str, row)) + "]" for row in M) + "];\n}\n")}
    return fns, out


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
