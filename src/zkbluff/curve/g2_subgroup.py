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
from zkbluff.field import p

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
