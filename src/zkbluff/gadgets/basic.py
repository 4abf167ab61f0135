"""Booleans, bits, ranges, zero/equality tests, comparisons, selection and counting.

Every gadget's docstring says what it constrains and how many constraints it adds.
``x`` arguments are linear combinations (:class:`~zkbluff.circuit.LC`) or ints.
"""
from __future__ import annotations

from typing import Sequence

from zkbluff.circuit.builder import LC, ConstraintSystem, LCLike
from zkbluff.field import r


def enforce_boolean(cs: ConstraintSystem, x: LCLike, name: str = "boolean") -> None:
    """Constrain ``x`` to 0 or 1: ``x * (x - 1) = 0``. 1 constraint."""
    x = LC.of(x)
    cs.enforce(x, x - 1, 0, name)


def alloc_boolean(cs: ConstraintSystem, name: str, value=None) -> LC:
    """A new private wire constrained to be a bit. 1 constraint."""
    b = cs.private_unchecked(name, value)
    enforce_boolean(cs, b, name + "/boolean")
    return b


def bool_and(cs: ConstraintSystem, a: LCLike, b: LCLike, name: str = "and") -> LC:
    """``a AND b`` for bits a, b: the product. 1 constraint."""
    return cs.mul(a, b, name)


def bool_or(cs: ConstraintSystem, a: LCLike, b: LCLike, name: str = "or") -> LC:
    """``a OR b = a + b - ab`` for bits. 1 constraint."""
    return LC.of(a) + b - cs.mul(a, b, name)


def bool_xor(cs: ConstraintSystem, a: LCLike, b: LCLike, name: str = "xor") -> LC:
    """``a XOR b = a + b - 2ab`` for bits. 1 constraint."""
    return LC.of(a) + b - cs.mul(a, b, name) * 2


def bool_not(a: LCLike) -> LC:
    """``1 - a`` for a bit. 0 constraints."""
    return 1 - LC.of(a)


def from_bits(bits: Sequence[LCLike]) -> LC:
    """``sum bits[i] * 2^i``. 0 constraints (the caller has constrained the bits)."""
    acc = LC.constant(0)
    for i, b in enumerate(bits):
        acc = acc + LC.of(b) * (1 << i)
    return acc


def _bit_hint(x: LC, i: int):
    return lambda: (x.value >> i) & 1


def to_bits(cs: ConstraintSystem, x: LCLike, n: int, name: str = "bits") -> list[LC]:
    """Little-endian bits of ``x``, constrained boolean and to recompose to ``x``.

    For ``n < 254`` this also proves ``x < 2^n``: n + 1 constraints. For ``n >= 254`` the
    decomposition is made *strict* (bits of ``x`` read as an integer are < r, so no
    alias ``x + r`` passes): 254 bits, plus the check against r - 1 (about 254 more).
    """
    x = LC.of(x)
    n_eff = min(n, 254)
    with cs.namespace(name):
        bits = [alloc_boolean(cs, f"bit_{i}", _bit_hint(x, i) if cs.with_values else None) for i in range(n_eff)]
        if cs.records_hints:
            for i, b in enumerate(bits):
                cs.hint(b, "({x} >> {i}) & 1", x=x, i=i)
        cs.enforce_equal(from_bits(bits), x, "recompose")
        if n >= 254:
            enforce_bits_le_constant(cs, bits, r - 1, "strict")
    return bits


def enforce_bits_le_constant(cs: ConstraintSystem, bits: Sequence[LC], c: int, name: str = "le_const") -> None:
    """Constrain the little-endian ``bits`` (already boolean) to read as an integer <= c.

    Scanning from the top: ``run`` is 1 while the bits so far equal c's; where c has a
    0, ``run * bit = 0``; where c has a 1, ``run <- run * bit``. One constraint per bit
    below the top set bit of c (and above it, each bit constrained to 0).
    """
    with cs.namespace(name):
        n = len(bits)
        run: LC = LC.constant(1)
        for i in range(n - 1, -1, -1):
            if (c >> i) & 1:
                run = cs.mul(run, bits[i], f"run_{i}")
            else:
                cs.enforce(run, bits[i], 0, f"zero_{i}")


def enforce_range(cs: ConstraintSystem, x: LCLike, n: int, name: str = "range") -> None:
    """Constrain ``0 <= x < 2^n`` (n < 254). n + 1 constraints."""
    if n >= 254:
        raise ValueError("enforce_range: n must be below 254 (every field element is below 2^254)")
    to_bits(cs, x, n, name)


def is_zero(cs: ConstraintSystem, x: LCLike, name: str = "is_zero") -> LC:
    """A bit that is 1 iff ``x == 0``. With a hinted inverse ``inv``:
    ``x * inv = 1 - out``, ``x * out = 0`` and ``inv * out = 0`` (the last pins
    ``inv = 0`` when ``x = 0``, so every wire has exactly one value). 3 constraints."""
    x = LC.of(x)
    with cs.namespace(name):
        inv = cs.private_unchecked("inv", (lambda: pow(x.value, -1, r) if x.value else 0) if cs.with_values else None)
        out = cs.private_unchecked("out", (lambda: int(x.value == 0)) if cs.with_values else None)
        if cs.records_hints:
            cs.hint(inv, "{x} != 0 ? 1 / {x} : 0", x=x)
            cs.hint(out, "{x} == 0 ? 1 : 0", x=x)
        cs.enforce(x, inv, 1 - out, "inverse")
        cs.enforce(x, out, 0, "zero_if_out")
        cs.enforce(inv, out, 0, "inv_pinned")
    return out


def is_equal(cs: ConstraintSystem, a: LCLike, b: LCLike, name: str = "is_equal") -> LC:
    """A bit that is 1 iff ``a == b``. 3 constraints."""
    return is_zero(cs, LC.of(a) - b, name)


def less_than(cs: ConstraintSystem, a: LCLike, b: LCLike, n: int, name: str = "less_than") -> LC:
    """A bit that is 1 iff ``a < b``, for a, b already known to be below 2^n (n <= 252).
    Decomposes ``a - b + 2^n`` into n + 1 bits; the top bit is ``a >= b``. n + 2 constraints."""
    if n > 252:
        raise ValueError("less_than: n must be at most 252")
    with cs.namespace(name):
        bits = to_bits(cs, LC.of(a) - b + (1 << n), n + 1, "diff")
    return 1 - bits[n]


def less_or_equal(cs: ConstraintSystem, a: LCLike, b: LCLike, n: int, name: str = "less_or_equal") -> LC:
    """A bit that is 1 iff ``a <= b`` for a, b below 2^n (n <= 251). n + 3 constraints."""
    return less_than(cs, a, LC.of(b) + 1, n + 1, name)


def select(cs: ConstraintSystem, cond: LCLike, if_true: LCLike, if_false: LCLike, name: str = "select") -> LC:
    """``cond ? if_true : if_false`` for a bit ``cond`` (the caller constrains it):
    ``if_false + cond * (if_true - if_false)``. 1 constraint."""
    return LC.of(if_false) + cs.mul(cond, LC.of(if_true) - if_false, name)


def mux(cs: ConstraintSystem, index_bits: Sequence[LCLike], options: Sequence[LCLike], name: str = "mux") -> LC:
    """``options[index]`` for an index given by little-endian constrained bits; options
    are padded with their last entry to 2^k. A tree of selects: 2^k - 1 constraints."""
    k = len(index_bits)
    if not options or len(options) > (1 << k):
        raise ValueError(f"mux: {len(options)} options for {k} index bits")
    level = [LC.of(o) for o in options] + [LC.of(options[-1])] * ((1 << k) - len(options))
    with cs.namespace(name):
        for depth, bit in enumerate(index_bits):
            level = [select(cs, bit, level[2 * i + 1], level[2 * i], f"l{depth}_{i}") for i in range(len(level) // 2)]
    return level[0]


def popcount(bits: Sequence[LCLike]) -> LC:
    """The number of ones among constrained bits: their sum. 0 constraints."""
    acc = LC.constant(0)
    for b in bits:
        acc = acc + b
    return acc
