"""Poseidon parameters of circomlib, generated here from the reference Grain LFSR.

circomlib's constants come from the Poseidon authors' ``generate_parameters_grain.sage``
run as ``1 0 254 t 8 R_P r`` (prime field, x^5 S-box, 254-bit field, width t, 8 full
rounds, R_P partial rounds). This module reimplements that generator: the 80-bit
Grain state seeded with those parameters, 160 warm-up clocks, the self-shrinking
output (a pair of bits ``(1, b)`` yields ``b``, ``(0, _)`` yields nothing), round
constants as 254-bit big-endian draws rejected when ``>= r``, then the MDS matrix as
the Cauchy matrix ``M[i][j] = 1 / (x_i + y_j)`` of ``2t`` further draws (reduced mod r).
Tests check the output against circomlibjs's ``poseidon_constants.json``. The widths
the statements use ship generated (``poseidon_constants.bin``, written by
``python -m zkbluff.gadgets.poseidon_params``), so no process runs the LFSR for them.
"""
from __future__ import annotations

import struct
from functools import lru_cache
from pathlib import Path

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


Params = tuple[tuple[int, ...], tuple[tuple[int, ...], ...], int]

#: the widths whose constants ship in :data:`DATA_FILE` (every width the registry's
#: statements use, and a little more); other widths are generated on first use
SHIPPED_WIDTHS = range(2, 10)
DATA_FILE = Path(__file__).with_name("poseidon_constants.bin")
_MAGIC = b"zkbpos1\n"


@lru_cache(maxsize=None)
def params(t: int) -> Params:
    """``(round_constants, mds, partial_rounds)`` for state width ``t`` (2..17): read from
    the generated :data:`DATA_FILE` for the shipped widths (``tests/gadgets/test_gadgets.py``
    regenerates them and compares), else computed by :func:`generate`."""
    if not 2 <= t <= len(N_ROUNDS_P) + 1:
        raise ValueError(f"Poseidon width t must be 2..{len(N_ROUNDS_P) + 1}, got {t}")
    shipped = _shipped().get(t)
    return shipped if shipped is not None else generate(t)


@lru_cache(maxsize=1)
def _shipped() -> dict[int, Params]:
    try:
        data = DATA_FILE.read_bytes()
    except OSError:
        return {}
    if data[:8] != _MAGIC:
        return {}
    out, pos = {}, 8
    while pos < len(data):
        t, n_c = struct.unpack_from("<II", data, pos)
        pos += 8
        vals = [int.from_bytes(data[i: i + 32], "little") for i in range(pos, pos + 32 * (n_c + t * t), 32)]
        pos += 32 * (n_c + t * t)
        if not 2 <= t <= len(N_ROUNDS_P) + 1 or n_c != (N_ROUNDS_F + N_ROUNDS_P[t - 2]) * t or pos > len(data):
            return {}  # not this module's file: generate instead
        mds = vals[n_c:]
        out[t] = (tuple(vals[:n_c]), tuple(tuple(mds[i * t: (i + 1) * t]) for i in range(t)), N_ROUNDS_P[t - 2])
    return out


def data_file_bytes(widths=SHIPPED_WIDTHS) -> bytes:
    """The bytes of :data:`DATA_FILE`, generated: per width ``u32 t, u32 n`` then the ``n``
    round constants and the ``t x t`` MDS matrix, 32-byte little-endian each."""
    parts = [_MAGIC]
    for t in widths:
        constants, mds, _ = generate(t)
        parts.append(struct.pack("<II", t, len(constants)))
        parts.extend(v.to_bytes(32, "little") for v in (*constants, *(x for row in mds for x in row)))
    return b"".join(parts)


def generate(t: int) -> Params:
    """The parameters of width ``t`` from the Grain LFSR (tens of ms a width)."""
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


if __name__ == "__main__":  # regenerate the shipped data
    DATA_FILE.write_bytes(data_file_bytes())
    print(f"wrote {DATA_FILE} ({DATA_FILE.stat().st_size} bytes)")
