"""Point encodings of snarkjs's ceremony files (the ffjavascript conventions).

* **LEM** (in ``.ptau`` and ``.zkey`` sections): affine coordinates in Montgomery form
  (times 2^256 mod q), 32-byte little-endian each; G2 as ``x0 x1 y0 y1``; the point at
  infinity is all zeros.
* **U** (uncompressed, what the transcript hashes see): big-endian standard form;
  G1 ``x || y``; G2 ``x1 || x0 || y1 || y0``; infinity all zeros. (The same bytes as
  the Ethereum precompile layout of :mod:`zkbluff.curve.codec`.)
* **C** (compressed, hashed into a phase-1 response): the U encoding of x, with bit
  0x80 of the first byte set when y is "negative" (y > (q-1)/2; in Fq2 the sign of
  the imaginary part, or of the real part when that is zero); infinity is 0x40 then
  zeros.

Decoding LEM checks coordinates are below q and the point is on its curve; the G2
subgroup check is the caller's (it needs the backend, see :func:`check_g2_subgroup`).
"""
from __future__ import annotations

from typing import Sequence

from zkbluff.curve import G1Affine, G2Affine, g1_is_on_curve, g2_is_on_curve, get_backend
from zkbluff.errors import MalformedInput
from zkbluff.field import p

G1_SIZE = 64
G2_SIZE = 128
_R = (1 << 256) % p
_R_INV = pow(_R, -1, p)
_HALF = (p - 1) // 2


def _fq_lem(x: int) -> bytes:
    return (x * _R % p).to_bytes(32, "little")


def _fq_from_lem(b: bytes, what: str) -> int:
    v = int.from_bytes(b, "little")
    if v >= p:
        raise MalformedInput(f"{what}: coordinate {v} is not below q")
    return v * _R_INV % p


def g1_to_lem(P: G1Affine) -> bytes:
    return bytes(64) if P is None else _fq_lem(P[0]) + _fq_lem(P[1])


def g2_to_lem(Q: G2Affine) -> bytes:
    if Q is None:
        return bytes(128)
    (x0, x1), (y0, y1) = Q
    return _fq_lem(x0) + _fq_lem(x1) + _fq_lem(y0) + _fq_lem(y1)


def g1_from_lem(b: bytes, what: str = "G1 point") -> G1Affine:
    if len(b) != 64:
        raise MalformedInput(f"{what}: expected 64 bytes, got {len(b)}")
    if b == bytes(64):
        return None
    P = (_fq_from_lem(b[:32], what), _fq_from_lem(b[32:], what))
    if not g1_is_on_curve(P):
        raise MalformedInput(f"{what}: point not on the curve y^2 = x^3 + 3")
    return P


def g2_from_lem(b: bytes, what: str = "G2 point") -> G2Affine:
    if len(b) != 128:
        raise MalformedInput(f"{what}: expected 128 bytes, got {len(b)}")
    if b == bytes(128):
        return None
    c = [_fq_from_lem(b[32 * i: 32 * i + 32], what) for i in range(4)]
    Q = ((c[0], c[1]), (c[2], c[3]))
    if not g2_is_on_curve(Q):
        raise MalformedInput(f"{what}: point not on the twist y^2 = x^3 + 3/(9+u)")
    return Q


def g1_list_from_lem(b: bytes, n: int, what: str) -> list[G1Affine]:
    if len(b) != 64 * n:
        raise MalformedInput(f"{what}: expected {n} G1 points ({64 * n} bytes), got {len(b)} bytes")
    return [g1_from_lem(b[64 * i: 64 * i + 64], f"{what}[{i}]") for i in range(n)]


def g2_list_from_lem(b: bytes, n: int, what: str) -> list[G2Affine]:
    if len(b) != 128 * n:
        raise MalformedInput(f"{what}: expected {n} G2 points ({128 * n} bytes), got {len(b)} bytes")
    return [g2_from_lem(b[128 * i: 128 * i + 128], f"{what}[{i}]") for i in range(n)]


def check_g2_subgroup(points: Sequence[G2Affine], what: str) -> None:
    """Raise :class:`MalformedInput` for a G2 point outside the order-r subgroup."""
    i = get_backend().g2_first_outside_subgroup(points)
    if i < len(points):
        raise MalformedInput(f"{what}[{i}]: on the twist but not in the order-r subgroup G2")


def g1_u(P: G1Affine) -> bytes:
    return bytes(64) if P is None else P[0].to_bytes(32, "big") + P[1].to_bytes(32, "big")


def g2_u(Q: G2Affine) -> bytes:
    if Q is None:
        return bytes(128)
    (x0, x1), (y0, y1) = Q
    return x1.to_bytes(32, "big") + x0.to_bytes(32, "big") + y1.to_bytes(32, "big") + y0.to_bytes(32, "big")


def fq_negative(y: int) -> bool:
    return y > _HALF


def fq2_negative(y: tuple[int, int]) -> bool:
    return fq_negative(y[1]) if y[1] else fq_negative(y[0])


def g1_c(P: G1Affine) -> bytes:
    if P is None:
        return b"\x40" + bytes(31)
    out = bytearray(P[0].to_bytes(32, "big"))
    if fq_negative(P[1]):
        out[0] |= 0x80
    return bytes(out)


def g2_c(Q: G2Affine) -> bytes:
    if Q is None:
        return b"\x40" + bytes(63)
    (x0, x1), y = Q
    out = bytearray(x1.to_bytes(32, "big") + x0.to_bytes(32, "big"))
    if fq2_negative(y):
        out[0] |= 0x80
    return bytes(out)
