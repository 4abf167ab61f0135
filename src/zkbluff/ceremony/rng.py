"""The deterministic randomness of snarkjs ceremonies, bit for bit.

Verifiers recompute two things from public data, so these must match snarkjs 0.7.6
(ffjavascript 0.3.1) exactly:

* ``hash_to_g2(h)``: the G2 point a proof of knowledge pairs against. A ChaCha20
  block generator (key = the first 32 bytes of ``h`` as eight big-endian u32 words,
  nonce and counter zero, counter in word 12 carrying into 13..15) draws x in Fq2
  (two Fq draws), one bit ``greatest``, retries until x^3 + b is a square, takes the
  root whose sign equals ``greatest``, and multiplies by G2's cofactor.
* a beacon's secrets: ``SHA-256`` iterated 2^e times on the beacon value, the result
  seeding the same ChaCha generator, from which the contribution's scalars (and its
  G1 base points) are drawn in snarkjs's order.

An Fq or Fr draw takes 64-bit words (high u32 first), masks to the modulus's bit
length and retries while >= the modulus; the value is then read, as ffjavascript
does, as a Montgomery representation: the element is ``v / 2^256``.
"""
from __future__ import annotations

import hashlib
import struct

from zkbluff.curve import B1, B2, G2Affine, fq2_add, fq2_mul, fq2_sqrt, get_backend
from zkbluff.ceremony.encoding import fq2_negative, fq_negative
from zkbluff.errors import MalformedInput
from zkbluff.field import p, r

_M32 = 0xFFFFFFFF
#: G2's cofactor as snarkjs's bn128 curve states it (2p - r)
G2_COFACTOR = 0x30644E72E131A029B85045B68181585E06CEECDA572A2489345F2299C0F9FA8D
_P_INV_MONT = pow((1 << 256) % p, -1, p)
_R_INV_MONT = pow((1 << 256) % r, -1, r)
assert G2_COFACTOR == 2 * p - r


def _rotl(x: int, n: int) -> int:
    return ((x << n) | (x >> (32 - n))) & _M32


def _quarter(s: list[int], a: int, b: int, c: int, d: int) -> None:
    s[a] = (s[a] + s[b]) & _M32; s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & _M32; s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & _M32; s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & _M32; s[b] = _rotl(s[b] ^ s[c], 7)


class ChaCha:
    """ffjavascript's ChaCha20 word generator."""

    def __init__(self, seed: list[int]):
        if len(seed) != 8:
            raise ValueError("ChaCha seed: expected 8 words")
        self.state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574] + [w & _M32 for w in seed] + [0, 0, 0, 0]
        self.buf: list[int] = []
        self.idx = 16

    @classmethod
    def from_hash(cls, h: bytes) -> "ChaCha":
        return cls(list(struct.unpack(">8I", h[:32])))

    def _block(self) -> None:
        x = list(self.state)
        for _ in range(10):
            _quarter(x, 0, 4, 8, 12); _quarter(x, 1, 5, 9, 13); _quarter(x, 2, 6, 10, 14); _quarter(x, 3, 7, 11, 15)
            _quarter(x, 0, 5, 10, 15); _quarter(x, 1, 6, 11, 12); _quarter(x, 2, 7, 8, 13); _quarter(x, 3, 4, 9, 14)
        self.buf = [(a + b) & _M32 for a, b in zip(x, self.state)]
        self.idx = 0
        for i in range(12, 16):
            self.state[i] = (self.state[i] + 1) & _M32
            if self.state[i]:
                break

    def u32(self) -> int:
        if self.idx == 16:
            self._block()
        v = self.buf[self.idx]
        self.idx += 1
        return v

    def u64(self) -> int:
        hi = self.u32()
        return (hi << 32) | self.u32()

    def bool(self) -> bool:
        return bool(self.u32() & 1)

    def _raw_below(self, modulus: int) -> int:
        mask = (1 << modulus.bit_length()) - 1
        while True:
            v = 0
            for i in range(4):
                v += self.u64() << (64 * i)
            v &= mask
            if v < modulus:
                return v

    def fr(self) -> int:
        """An Fr draw (ffjavascript ``Fr.fromRng``), as the element it denotes."""
        return self._raw_below(r) * _R_INV_MONT % r

    def fq(self) -> int:
        return self._raw_below(p) * _P_INV_MONT % p

    def g1(self) -> tuple[int, int]:
        """``G1.fromRng``: a point of G1 (whose cofactor is 1)."""
        while True:
            x = self.fq()
            greatest = self.bool()
            y2 = (x * x * x + B1) % p
            y = pow(y2, (p + 1) // 4, p)
            if y * y % p == y2:
                break
        if greatest ^ fq_negative(y):
            y = (-y) % p
        return (x, y)

    def g2(self) -> G2Affine:
        """``G2.fromRng``: a point on the twist, times G2's cofactor."""
        while True:
            x = (self.fq(), self.fq())
            greatest = self.bool()
            y2 = fq2_add(fq2_mul(fq2_mul(x, x), x), B2)
            y = fq2_sqrt(y2)
            if y is not None:
                break
        if greatest ^ fq2_negative(y):
            y = ((-y[0]) % p, (-y[1]) % p)
        # the point is on the twist, not yet in G2: the scalar must not be reduced mod r
        return get_backend().g2_mul_unreduced((x, y), G2_COFACTOR)


def hash_to_g2(h: bytes) -> G2Affine:
    """snarkjs's ``hashToG2``: the G2 point a 64-byte transcript hash names."""
    return ChaCha.from_hash(h).g2()


MIN_BEACON_EXP, MAX_BEACON_EXP = 10, 63


def check_beacon(beacon: bytes, iterations_exp: int) -> None:
    if not 1 <= len(beacon) <= 255:
        raise MalformedInput(f"beacon: expected 1 to 255 bytes, got {len(beacon)}")
    if not MIN_BEACON_EXP <= iterations_exp <= MAX_BEACON_EXP:
        raise MalformedInput(f"beacon: iterations exponent must be {MIN_BEACON_EXP}..{MAX_BEACON_EXP}, "
                             f"got {iterations_exp}")


def beacon_rng(beacon: bytes, iterations_exp: int) -> ChaCha:
    """``rngFromBeaconParams``: SHA-256 applied 2^e times to the beacon value."""
    check_beacon(beacon, iterations_exp)
    h = bytes(beacon)
    sha = hashlib.sha256
    for _ in range(1 << iterations_exp):
        h = sha(h).digest()
    return ChaCha.from_hash(h)
