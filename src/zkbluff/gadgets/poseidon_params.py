"""Poseidon parameters of circomlib, generated here from the reference Grain LFSR.

circomlib's constants come from the Poseidon authors' ``generate_parameters_grain.sage``
run as ``1 0 254 t 8 R_P r`` (prime field, x^5 S-box, 254-bit field, width t, 8 full
rounds, R_P partial rounds). This module reimplements that generator: the 80-bit
Grain state seeded with those parameters, 160 warm-up clocks, the self-shrinking
output (a pair of bits ``(1, b)`` yields ``b``, ``(0, _)`` yields nothing), round
constants as 254-bit big-endian draws rejected when ``>= r``, then the MDS matrix as
the Cauchy matrix ``M[i][j] = 1 / (x_i + y_j)`` of ``2t`` further draws (reduced mod r).
Tests check the output against circomlibjs's ``poseidon_constants.json``.
"""
from __future__ import annotations

from functools import lru_cache

from zkbluff.field import r

N_ROUNDS_F = 8
#: partial rounds per width t = 2..17 (circomlib; inputs 1..16)
N_ROUNDS_P = [56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68]
FIELD_BITS = 254


class _Grain:
    def __init__(self, t: int, r_f: int, r_p: int):
        bits: list[int] = []

        def push(value: int, width: int) -> None:
            bits.extend((value >> (width - 1 - i)) & 1 for i in range(width))

        push(1, 2)  # field: prime
        push(0, 4)  # S-box: x^alpha
        push(FIELD_BITS, 12)
        push(t, 12)
        push(r_f, 10)
        push(r_p, 10)
        bits.extend([1] * 30)
        assert len(bits) == 80
        self.s = bits
        for _ in range(160):
            self._clock()

    def _clock(self) -> int:
        s = self.s
        b = s[62] ^ s[51] ^ s[38] ^ s[23] ^ s[13] ^ s[0]
        s.pop(0)
        s.append(b)
        return b

    def bit(self) -> int:
        while True:
            first = self._clock()
            second = self._clock()
            if first == 1:
                return second

    def integer(self, n_bits: int) -> int:
        v = 0
        for _ in range(n_bits):
            v = (v << 1) | self.bit()
        return v


@lru_cache(maxsize=None)
def params(t: int) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...], int]:
    """``(round_constants, mds, partial_rounds)`` for state width ``t`` (2..17)."""
    if not 2 <= t <= len(N_ROUNDS_P) + 1:
        raise ValueError(f"Poseidon width t must be 2..{len(N_ROUNDS_P) + 1}, got {t}")
    r_p = N_ROUNDS_P[t - 2]
    g = _Grain(t, N_ROUNDS_F, r_p)
    constants = []
    while len(constants) < (N_ROUNDS_F + r_p) * t:
        v = g.integer(FIELD_BITS)
        if v < r:
            constants.append(v)
    while True:
        xy = [g.integer(FIELD_BITS) % r for _ in range(2 * t)]
        if len(set(xy)) != 2 * t:
            continue
        xs, ys = xy[:t], xy[t:]
        if any((x + y) % r == 0 for x in xs for y in ys):
            continue
        mds = tuple(tuple(pow(x + y, -1, r) for y in ys) for x in xs)
        return tuple(constants), mds, r_p
