"""G2 subgroup membership by the untwist-Frobenius-twist endomorphism psi.

BN254 is the BN curve of seed ``x = 4965661367192848881``: ``p = 36x^4 + 36x^3 + 24x^2 +
6x + 1``, ``r = 36x^4 + 36x^3 + 18x^2 + 6x + 1`` (tests/curve/test_g2_subgroup.py checks
both against zkbluff.field). Its G2 lives on the sextic twist ``y^2 = x^3 + 3/xi`` over
Fp2 = Fp[u]/(u^2 + 1), ``xi = 9 + u``, whose group has order ``r (2p - r)``: a point on the
twist need not be in G2, and a decoder must check (DESIGN.md, Errors).

``psi = untwist^-1 . Frobenius . untwist`` is ``psi(x, y) = (conj(x) gx, conj(y) gy)`` with
``gx = xi^((p-1)/3)``, ``gy = xi^((p-1)/2)``; on G2 it acts as multiplication by
``p mod r = 6x^2``. Two published criteria, each a twist point Q is in G2 **iff**:

* ``psi(Q) = [6x^2] Q`` (El Housni, Guillevic and Piellard, "Co-factor clearing and
  subgroup membership testing on pairing-friendly curves", AFRICACRYPT 2022, eprint
  2022/352): a 127-bit multiplication (:func:`in_subgroup_psi`);
* ``[x + 1]Q + psi([x]Q) + psi^2([x]Q) = psi^3([2x]Q)`` (Dai, Lin, Zhao and Zhou, "Fast
  subgroup membership testings for G1, G2 and GT on pairing-friendly curves", eprint
  2022/348; it holds for BN curves whose x is neither 4 mod 13 nor 92 mod 97, asserted
  below): a 63-bit multiplication (:func:`in_subgroup_dlzz`, and the C kernel
  ``zkbluff._msm_native.g2_first_outside_subgroup``).

Sanso and Liang, "Fast G2 subgroup check in BN254" (ethresear.ch/t/13974) apply both to
BN254. Either replaces a multiplication by the 254-bit r, and must be computed on the
whole twist (never with a split that assumes G2: MCL's ``mul`` reduces k mod r and uses
the endomorphism, so for a point outside G2 its result is not k Q, and the test would
then decide nothing). Everything here is derived from
``x`` and ``p``; the kernel takes its constants and digits from :func:`kernel_constants`
and :func:`kernel_digits`.
"""
from __future__ import annotations

from typing import Callable, Sequence

from zkbluff.curve import G2Affine, Fq2, fq2_mul, fq2_pow
from zkbluff.field import p, r

#: the BN parameter (seed) of BN254 (alt_bn128)
BN_X = 4965661367192848881
#: the eigenvalue of psi on G2: p mod r = 6 x^2
MU = 6 * BN_X * BN_X
#: the twist's non-residue xi = 9 + u
XI = (9, 1)
# where the second criterion holds (eprint 2022/348)
assert BN_X % 13 != 4 and BN_X % 97 != 92

def conj(a: Fq2) -> Fq2:
    return (a[0], -a[1] % p)


#: psi's constants, from xi and p
PSI_X = fq2_pow(XI, (p - 1) // 3)
PSI_Y = fq2_pow(XI, (p - 1) // 2)


def psi(Q: G2Affine) -> G2Affine:
    """``(conj(x) gx, conj(y) gy)``: an endomorphism of the whole twist."""
    if Q is None:
        return None
    x, y = Q
    return (fq2_mul(conj(x), PSI_X), fq2_mul(conj(y), PSI_Y))


def mu_digits(k: int) -> list[int]:
    """``k`` in non-adjacent form, least significant digit first, digits -1, 0, 1."""
    out = []
    while k:
        if k & 1:
            d = 2 - (k & 3)
            k -= d
        else:
            d = 0
        out.append(d)
        k >>= 1
    return out


def in_subgroup_psi(Q: G2Affine, backend) -> bool:
    """``psi(Q) = [6x^2]Q`` through a backend's ``g2_mul_unreduced`` (on the whole twist)."""
    return Q is None or backend.g2_mul_unreduced(Q, MU) == psi(Q)


def in_subgroup_dlzz(Q: G2Affine, backend) -> bool:
    """``[x + 1]Q + psi([x]Q) + psi^2([x]Q) = psi^3([2x]Q)`` through a backend's
    ``g2_mul_unreduced`` and ``g2_add`` (the reference of the C kernel)."""
    if Q is None:
        return True
    xq = backend.g2_mul_unreduced(Q, BN_X)
    lhs = backend.g2_add(backend.g2_add(backend.g2_add(xq, Q), psi(xq)), psi(psi(xq)))
    return lhs == psi(psi(psi(backend.g2_add(xq, xq))))


def kernel_constants(to_mont: Callable[[int], bytes]) -> bytes:
    """gx then gy, each coordinate in the kernel's Montgomery bytes (``to_mont``)."""
    return b"".join(to_mont(c) for c in (*PSI_X, *PSI_Y))


def kernel_digits() -> bytes:
    """x's signed digits, one int8 each, for the kernel."""
    return bytes(d & 0xFF for d in mu_digits(BN_X))


def first_outside(points: Sequence[G2Affine], in_subgroup: Callable[[G2Affine], bool]) -> int:
    """The index of the first point not in G2, or ``len(points)``."""
    for i, Q in enumerate(points):
        if Q is not None and not in_subgroup(Q):
            return i
    return len(points)


# ------------------------------------------------------------------ many points at once
#: the twist's cofactor ``2p - r`` (its group has order r times it) and its primes: squarefree,
#: the smallest 10069 (tests/curve/test_g2_subgroup_batch.py checks the product and primality)
COFACTOR = 2 * p - r
COFACTOR_PRIMES = (10069, 5864401, 1875725156269, 197620364512881247228717050342013327560683201906968909)
#: the bits of each random weight of a combination (batch_rounds says why so few)
BATCH_WEIGHT_BITS = 16
#: the chance of accepting a set with a point outside G2 is at most 2^-BATCH_SECURITY_BITS
BATCH_SECURITY_BITS = 128


def batch_rounds(security_bits: int = BATCH_SECURITY_BITS, weight_bits: int = BATCH_WEIGHT_BITS) -> int:
    """How many random combinations ``S = sum w_i Q_i`` (each w_i uniform on [0, 2^weight_bits),
    drawn by ``secrets`` after the points are fixed, fresh each round), all found in G2, show
    that every twist point Q_i is in G2 except with probability at most 2^-security_bits.

    Why. The twist's group has order ``r c`` with ``c = COFACTOR`` prime to r, so every point is
    ``Q = G + H`` with G in G2 and ``cH = 0``, uniquely, and S is in G2 iff ``sum w_i H_i = 0``.
    Say ``H_j != 0``. Then for some prime l of c the l-part of H_j (``(c/l) e H_j`` for the e
    with ``e c/l = 1 mod l``) is not 0; as ``l^2`` does not divide the group's order (c is
    squarefree and prime to r), the l-part of the group is cyclic of order l, generated by it,
    and ``sum w_i H_i = 0`` forces its l-part to vanish: ``w_j = a (mod l)`` for the one ``a``
    that the other weights fix. w_j is uniform on 2^b values and independent of them, so
    that has probability at most ``ceil(2^b / l) / 2^b``, and the rounds are independent.
    The bound is worst at the smallest prime, 10069: 7 / 2^16 = 2^-13.19 a round with b = 16,
    so 10 rounds give 2^-131.9. (One combination with 128-bit weights would NOT do: it still
    passes with probability about 1/10069, as a point plus one of order 10069 shows, since
    w_j mod 10069 is all that matters. Wider weights buy nothing against the small primes;
    more rounds do.)

    Each sum must be the group law's on the whole twist (the C kernel's MSM without the
    GLS split, ``g2_combination_in_subgroup``), and the test of S the exact criterion above.
    """
    b = weight_bits
    worst_num = max(-(-(1 << b) // ell) for ell in COFACTOR_PRIMES)  # ceil(2^b / l), largest at 10069
    k = 1
    while worst_num ** k << security_bits > 1 << (b * k):  # (worst_num / 2^b)^k > 2^-security_bits
        k += 1
    return k


def batch_weights(n: int, weight_bits: int = BATCH_WEIGHT_BITS) -> bytes:
    """n secret random weights below 2^weight_bits (a multiple of 8, at most 64) as the kernel
    takes them: little-endian 64-bit words."""
    import secrets

    if weight_bits % 8 or not 8 <= weight_bits <= 64:
        raise ValueError(f"weights of {weight_bits} bits: expected a multiple of 8 from 8 to 64")
    w = weight_bits // 8
    raw = secrets.token_bytes(w * n)
    out = bytearray(8 * n)
    for i in range(w):
        out[i::8] = raw[i::w]
    return bytes(out)
