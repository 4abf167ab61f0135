"""Drawing cards without replacement: uniform digits from a field element, and the
j-th card still in the deck.

Together they deal a uniformly random ordered draw from a seed: a hash output ``h``
gives the mixed-radix digits ``j_0 < m_0, j_1 < m_1, ...`` of ``h mod N`` (``N`` the
product of the radices), and draw ``d`` takes the ``j_d``-th card (in id order) of
those not drawn yet. The native twins are :func:`zkbluff.gadgets.native.mixed_radix_digits`
and :func:`zkbluff.gadgets.native.pick_remaining`.
"""
from __future__ import annotations

from typing import Sequence

from zkbluff.circuit.builder import LC, ConstraintSystem, LCLike
from zkbluff.field import r
from zkbluff.gadgets.basic import alloc_boolean, enforce_bits_le_constant, from_bits
from zkbluff.gadgets.native import pick_remaining as _pick_native


def _alloc_bounded(cs: ConstraintSystem, name: str, bound: int, hint, code=None) -> LC:
    """A private value in ``[0, bound]``: ``bound.bit_length()`` boolean wires, read as
    an integer <= bound. One constraint per bit, plus one per bit below the top set bit
    of ``bound``. The value itself is the (free) weighted sum of the bits."""
    n = bound.bit_length()
    with cs.namespace(name):
        bits = [alloc_boolean(cs, f"bit_{i}", (lambda i=i: (hint() >> i) & 1) if cs.with_values else None)
                for i in range(n)]
        if cs.records_hints:  # ``code``: the value's circom expression
            for i, b in enumerate(bits):
                cs.hint(b, "({v} >> {i}) & 1", v=code, i=i)
        enforce_bits_le_constant(cs, bits, bound, "le")
    return from_bits(bits)


def mixed_radix_digits(cs: ConstraintSystem, h: LCLike, radices: Sequence[int],
                       name: str = "digits") -> list[LC]:
    """The digits of ``h mod N`` in mixed radix ``radices`` (little-endian: ``h mod N =
    j_0 + m_0 (j_1 + m_1 (j_2 + ...))``, ``N = prod(radices)``), each digit constrained to
    ``0 <= j_d < m_d``.

    Proves ``h = q N + sum_d j_d W_d`` (``W_d = m_0 ... m_{d-1}``) with every digit in
    range and the quotient ``q <= Q - 1``, where ``Q = floor((r - 1) / N)``: then
    ``q N + J <= Q N - 1 < r``, so no wrap-around admits a second decomposition and the
    digits are unique. For ``h`` uniform in Fr, the digits are exactly uniform and
    independent given ``h < Q N``; the prover cannot prove the rest (``h >= Q N``, a
    fraction below ``N / r`` of the field), where the twin raises ValueError.

    Constraints: per radix ``m > 1``, ``b = bitlen(m-1)`` boolean rows and ``b - 1``
    comparison rows; the quotient likewise with ``b = bitlen(Q-1)``; 1 to recompose
    (for the 14 draws of a 7-7 deal: 14 * 11 + 177 + 176 + 1 = 508). A radix of 1 gives
    the constant digit 0.
    """
    if not radices or any(m < 1 for m in radices):
        raise ValueError(f"mixed_radix_digits: radices must be positive, got {list(radices)}")
    n_total = 1
    for m in radices:
        n_total *= m
    q_max = (r - 1) // n_total
    if q_max < 2:
        raise ValueError(f"mixed_radix_digits: the product of the radices ({n_total.bit_length()} bits) "
                         "leaves no room in the field")
    h = LC.of(h)
    solved: dict = {}

    def solve() -> tuple[int, list[int]]:
        if "v" not in solved:
            q, rem = divmod(h.value, n_total)
            digits = []
            for m in radices:
                rem, j = divmod(rem, m)
                digits.append(j)
            solved["v"] = (q, digits)  # a q >= Q - 1 is refused by the quotient's "le" rows
        return solved["v"]

    with cs.namespace(name):
        hv = cs.hint_var("h", "{h}", h=h) if cs.records_hints else None  # type: ignore[attr-defined]
        digits: list[LC] = []
        weight = 1
        for d, m in enumerate(radices):
            code = None if hv is None else cs.code("(({h} % {n}) \\ {w}) % {m}", h=hv, n=n_total, w=weight, m=m)
            digits.append(LC.constant(0) if m == 1 else
                          _alloc_bounded(cs, f"digit_{d}", m - 1, lambda d=d: solve()[1][d], code))
            weight *= m
        q = _alloc_bounded(cs, "quotient", q_max - 1, lambda: solve()[0],
                           None if hv is None else cs.code("{h} \\ {n}", h=hv, n=n_total))
        acc = q * n_total
        weight = 1
        for j, m in zip(digits, radices):
            acc = acc + j * weight
            weight *= m
        cs.enforce_equal(acc, h, "recompose")
    return digits


def pick_remaining(cs: ConstraintSystem, remaining: Sequence[LCLike], j: LCLike, name: str = "pick") -> list[LC]:
    """The ``j``-th card (0-based, in id order) among those with ``remaining[c] = 1``, as a
    one-hot vector ``s`` (``s_c = 1`` for that card only).

    The caller guarantees every ``remaining[c]`` is a bit and ``0 <= j < n`` (``n =
    len(remaining)``); with them this proves ``s`` is the one-hot vector of the unique
    card ``c`` with ``remaining[c] = 1`` and ``P_c = j``, where ``P_c`` counts the
    remaining cards below ``c`` (so ``j`` < the number remaining, or nothing satisfies).

    ``s_c = T_{c+1} - T_c`` for step wires ``T_1..T_{n-1}`` (``T_0 = 0``, ``T_n = 1``, so
    ``sum s = 1``), and for each card ``s_c * (P_c - j + n (1 - remaining[c])) = 0``.
    The factor is an integer in ``[-(n-1), 2n]`` that is 0 only for a remaining card with
    ``P_c = j`` (a drawn card gives at least 1), so every other ``s_c`` is 0 and the
    telescoping sum forces the chosen one to 1. n constraints, n - 1 wires.
    """
    n = len(remaining)
    rem = [LC.of(x) for x in remaining]
    j = LC.of(j)
    chosen: dict = {}

    def card() -> int:
        if "c" not in chosen:
            mask = sum(1 << c for c, x in enumerate(rem) if x.value == 1)
            try:
                chosen["c"] = _pick_native(mask, j.value)
            except ValueError:
                chosen["c"] = n  # no such card: every step stays 0 and "card_{n-1}" fails
        return chosen["c"]

    with cs.namespace(name):
        if cs.records_hints:  # the card: the j-th of the remaining ones, then a step per card past it
            mask = LC.constant(0)
            for c, x in enumerate(rem):
                mask = mask + x * (1 << c)
            picked = cs.hint_var("card", "zkbluff_pick({mask}, {j}, {n})", mask=mask, j=j, n=n)  # type: ignore[attr-defined]
        steps = [LC.constant(0)]
        steps += [cs.private_unchecked(f"step_{c}", (lambda c=c: int(card() < c)) if cs.with_values else None)
                  for c in range(1, n)]
        if cs.records_hints:
            for c in range(1, n):
                cs.hint(steps[c], "{card} < {c} ? 1 : 0", card=picked, c=c)
        steps.append(LC.constant(1))
        onehot = [steps[c + 1] - steps[c] for c in range(n)]
        below = LC.constant(0)
        for c in range(n):
            cs.enforce(onehot[c], below - j + (1 - rem[c]) * n, 0, f"card_{c}")
            below = below + rem[c]
    return onehot

