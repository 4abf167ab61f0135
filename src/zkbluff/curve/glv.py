"""GLV for BN254 G1: one scalar split and recoded once, for many points.

G1 (``y^2 = x^3 + 3`` over Fp, prime order r) has the endomorphism
``phi(x, y) = (BETA x, y) = LAMBDA (x, y)`` with BETA a cube root of unity in Fp and
LAMBDA one in Fr. A scalar k splits into ``k = k1 + k2 LAMBDA (mod r)`` with
``|k1|, |k2| < 2^128`` (Babai's rounding, by truncated fixed-point quotients, against a
short basis of the lattice ``{(a, b): a + b LAMBDA = 0 mod r}``), and each half is written in width-5 NAF
(digits odd in [-15, 15] or 0, nonzero ones at least 5 apart). :func:`digit_pairs`
gives the C kernel of ``zkbluff._points_native`` one digit string that every point
shares: ``k P = sum_i 2^i (d1_i P + d2_i phi(P))``.

Everything here is pure Python on integers and is the reference the kernel's input is
tested against (``k1 + k2 LAMBDA = k mod r`` and the digits' value for every k).
"""
from __future__ import annotations

from math import isqrt

from zkbluff.field import p, r

WINDOW = 5


def _cube_root_of_unity(q: int) -> tuple[int, int]:
    """The two nontrivial cube roots of unity mod a prime q = 1 mod 3 (roots of x^2+x+1)."""
    for g in range(2, 100):
        w = pow(g, (q - 1) // 3, q)
        if w != 1:
            return w, w * w % q
    raise AssertionError("no cube root of unity found")  # pragma: no cover


def _pair() -> tuple[int, int]:
    """(BETA, LAMBDA) with phi(G) = LAMBDA G on the generator (checked by affine
    arithmetic on integers: no backend here)."""
    gx, gy = 1, 2

    def add(P, Q):
        if P is None:
            return Q
        if Q is None:
            return P
        (x1, y1), (x2, y2) = P, Q
        if x1 == x2:
            if (y1 + y2) % p == 0:
                return None
            lam = 3 * x1 * x1 * pow(2 * y1, -1, p) % p
        else:
            lam = (y2 - y1) * pow(x2 - x1, -1, p) % p
        x3 = (lam * lam - x1 - x2) % p
        return x3, (lam * (x1 - x3) - y1) % p

    def mul(P, k):
        acc = None
        while k:
            if k & 1:
                acc = add(acc, P)
            P = add(P, P)
            k >>= 1
        return acc

    lams = _cube_root_of_unity(r)
    for beta in _cube_root_of_unity(p):
        for lam in lams:
            if mul((gx, gy), lam) == (beta * gx % p, gy):
                return beta, lam
    raise AssertionError("no matching (beta, lambda)")  # pragma: no cover


BETA, LAMBDA = _pair()


def _short_basis() -> tuple[tuple[int, int], tuple[int, int]]:
    """Two short vectors (a, b) with a + b LAMBDA = 0 mod r (extended Euclid on r and
    LAMBDA, stopped at sqrt(r): Guide to Elliptic Curve Cryptography, alg. 3.74)."""
    bound = isqrt(r)
    r0, r1, t0, t1 = r, LAMBDA, 0, 1
    while r1 >= bound:
        q = r0 // r1
        r0, r1, t0, t1 = r1, r0 - q * r1, t1, t0 - q * t1
    # r1 is the first remainder below sqrt(r); (r0, -t0) is the one before it
    v1 = (r1, -t1)
    q = r0 // r1
    r2, t2 = r0 - q * r1, t0 - q * t1
    before, after = (r0, -t0), (r2, -t2)
    v2 = before if before[0] ** 2 + before[1] ** 2 <= after[0] ** 2 + after[1] ** 2 else after
    return v1, v2


(_A1, _B1), (_A2, _B2) = _short_basis()


#: floor(2^256 B2 / r) and floor(2^256 (-B1) / r): c = (k g) >> 256 is floor(k B / r) or one
#: below it, an integer approximation of Babai's rounding that needs no division per scalar
_G1 = (_B2 << 256) // r
_G2 = (-_B1 << 256) // r


def split(k: int) -> tuple[int, int]:
    """``(k1, k2)`` with ``k1 + k2 LAMBDA = k mod r`` and both below 2^128 in absolute value.

    The same arithmetic as ``glv_split`` in src/zkbluff/_native/bn254_fp.h (the MSM's split,
    which hard-codes this basis and _G1, _G2; ``zkbluff._points_native.glv_split`` exposes
    it): the two give the same halves for every k, tested in
    tests/curve/test_glv_split_twins.py."""
    k %= r
    c1 = (k * _G1) >> 256
    c2 = (k * _G2) >> 256
    k1 = k - c1 * _A1 - c2 * _A2
    k2 = -c1 * _B1 - c2 * _B2
    return k1, k2


def wnaf(k: int, w: int = WINDOW) -> list[int]:
    """The width-w NAF of k (any sign), least significant digit first."""
    sign = -1 if k < 0 else 1
    k = abs(k)
    out = []
    full, half = 1 << w, 1 << (w - 1)
    while k:
        if k & 1:
            d = k & (full - 1)
            if d >= half:
                d -= full
            k -= d
        else:
            d = 0
        out.append(sign * d)
        k >>= 1
    return out


def digit_pairs(k: int) -> bytes:
    """The kernel's digit string for k: pairs (d1_i, d2_i) as signed bytes, most
    significant first, so that ``k = sum 2^i (d1_i + d2_i LAMBDA) mod r``."""
    k1, k2 = split(k)
    d1, d2 = wnaf(k1), wnaf(k2)
    n = max(len(d1), len(d2))
    d1 += [0] * (n - len(d1))
    d2 += [0] * (n - len(d2))
    out = bytearray()
    for i in reversed(range(n)):
        out.append(d1[i] & 0xFF)
        out.append(d2[i] & 0xFF)
    return bytes(out)


def digits_value(digits: bytes) -> int:
    """What :func:`digit_pairs`'s string stands for, mod r (the check of the recoding)."""
    acc = 0
    for i in range(0, len(digits), 2):
        d1 = digits[i] - 256 if digits[i] > 127 else digits[i]
        d2 = digits[i + 1] - 256 if digits[i + 1] > 127 else digits[i + 1]
        acc = (2 * acc + d1 + d2 * LAMBDA) % r
    return acc
