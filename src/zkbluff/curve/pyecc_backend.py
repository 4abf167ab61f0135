"""Reference backend on py_ecc's ``optimized_bn128`` (Jacobian coordinates).

Its MSM is a bucket (Pippenger) method over py_ecc's point addition; slow, but the
reference against which the native backend is cross-checked.
"""
from __future__ import annotations

import sys
from typing import Sequence

_RECURSION_LIMIT = sys.getrecursionlimit()
from py_ecc import optimized_bn128 as bn  # noqa: E402

# py_ecc raises the interpreter's recursion limit to 100000 when imported (its own package
# __init__); nothing we call from it recurses deeply, and at that limit json.loads of a line
# nested ~100000 deep overflows the C stack (a crash, not a RecursionError) in any process
# that imported it: a hostile transcript or message could kill a verifier or a client. The
# limit goes back to what it was. (Import py_ecc through this module: ceremony/rng.py does.)
sys.setrecursionlimit(_RECURSION_LIMIT)

from zkbluff.curve import G1Affine, G2Affine, Prepared, _check_batch, _check_lengths, ifft_by_batches
from zkbluff.curve.g2_subgroup import first_outside
from zkbluff.field import r


def _g1_in(P: G1Affine):
    if P is None:
        return bn.Z1
    return (bn.FQ(P[0]), bn.FQ(P[1]), bn.FQ.one())


def _g2_in(Q: G2Affine):
    if Q is None:
        return bn.Z2
    return (bn.FQ2(list(Q[0])), bn.FQ2(list(Q[1])), bn.FQ2.one())


def _g1_out(P) -> G1Affine:
    if bn.is_inf(P):
        return None
    x, y = bn.normalize(P)
    return (int(x), int(y))


def _g2_out(Q) -> G2Affine:
    if bn.is_inf(Q):
        return None
    x, y = bn.normalize(Q)
    return ((int(x.coeffs[0]), int(x.coeffs[1])), (int(y.coeffs[0]), int(y.coeffs[1])))


def _pippenger(points: list, scalars: Sequence[int], zero):
    """Bucket method: sum of k_i P_i in about (256/c)(n + 2^c) additions."""
    pairs = [(P, k % r) for P, k in zip(points, scalars) if k % r and not bn.is_inf(P)]
    if not pairs:
        return zero
    n = len(pairs)
    c = 2 if n < 8 else max(2, n.bit_length() - 3)
    windows = (r.bit_length() + c - 1) // c
    mask = (1 << c) - 1
    total = zero
    for w in range(windows - 1, -1, -1):
        for _ in range(c):
            total = bn.double(total)
        buckets = [zero] * (mask + 1)
        shift = w * c
        for P, k in pairs:
            idx = (k >> shift) & mask
            if idx:
                buckets[idx] = bn.add(buckets[idx], P)
        running, acc = zero, zero
        for idx in range(mask, 0, -1):
            running = bn.add(running, buckets[idx])
            acc = bn.add(acc, running)
        total = bn.add(total, acc)
    return total


class PyEccBackend:
    name = "pyecc"

    # G1
    def g1_add(self, a: G1Affine, b: G1Affine) -> G1Affine:
        return _g1_out(bn.add(_g1_in(a), _g1_in(b)))

    def g1_neg(self, a: G1Affine) -> G1Affine:
        return _g1_out(bn.neg(_g1_in(a)))

    def g1_mul(self, a: G1Affine, k: int) -> G1Affine:
        return _g1_out(bn.multiply(_g1_in(a), k % r))

    def g1_prepare(self, points: Sequence[G1Affine]) -> Prepared:
        return Prepared([_g1_in(P) for P in points])

    def g1_msm(self, points, scalars: Sequence[int]) -> G1Affine:
        pts = points if isinstance(points, Prepared) else self.g1_prepare(points)
        _check_lengths(pts, scalars)
        return _g1_out(_pippenger(pts.data, scalars, bn.Z1))

    def g1_mul_many(self, base: G1Affine, scalars: Sequence[int]) -> list[G1Affine]:
        B = _g1_in(base)
        return [_g1_out(bn.multiply(B, k % r)) for k in scalars]

    def g1_batch_mul(self, points: Sequence[G1Affine], scalars: Sequence[int]) -> list[G1Affine]:
        _check_batch(points, scalars)
        return [_g1_out(bn.multiply(_g1_in(P), k % r)) for P, k in zip(points, scalars)]

    def g1_batch_add(self, a: Sequence[G1Affine], b: Sequence[G1Affine]) -> list[G1Affine]:
        _check_batch(a, b)
        return [_g1_out(bn.add(_g1_in(P), _g1_in(Q))) for P, Q in zip(a, b)]

    def g1_scale(self, points: Sequence[G1Affine], k: int) -> list[G1Affine]:
        return self.g1_batch_mul(points, [k] * len(points))

    def g1_msm_many(self, groups) -> list[G1Affine]:
        return [self.g1_msm(list(pts), list(ks)) for pts, ks in groups]

    def g1_ifft(self, points: Sequence[G1Affine]) -> list[G1Affine]:
        return ifft_by_batches(self.g1_batch_mul, self.g1_batch_add, self.g1_neg, points)

    # G2
    def g2_add(self, a: G2Affine, b: G2Affine) -> G2Affine:
        return _g2_out(bn.add(_g2_in(a), _g2_in(b)))

    def g2_neg(self, a: G2Affine) -> G2Affine:
        return _g2_out(bn.neg(_g2_in(a)))

    def g2_mul(self, a: G2Affine, k: int) -> G2Affine:
        return _g2_out(bn.multiply(_g2_in(a), k % r))

    def g2_mul_unreduced(self, a: G2Affine, k: int) -> G2Affine:
        """``k a`` with k not reduced mod r (for a twist point outside G2: its cofactor)."""
        if k < 0:
            raise ValueError(f"g2_mul_unreduced: expected k >= 0, got {k}")
        return _g2_out(bn.multiply(_g2_in(a), k))

    def g2_prepare(self, points: Sequence[G2Affine]) -> Prepared:
        return Prepared([_g2_in(Q) for Q in points])

    def g2_msm(self, points, scalars: Sequence[int]) -> G2Affine:
        pts = points if isinstance(points, Prepared) else self.g2_prepare(points)
        _check_lengths(pts, scalars)
        return _g2_out(_pippenger(pts.data, scalars, bn.Z2))

    def g2_mul_many(self, base: G2Affine, scalars: Sequence[int]) -> list[G2Affine]:
        B = _g2_in(base)
        return [_g2_out(bn.multiply(B, k % r)) for k in scalars]

    def g2_batch_mul(self, points: Sequence[G2Affine], scalars: Sequence[int]) -> list[G2Affine]:
        _check_batch(points, scalars)
        return [_g2_out(bn.multiply(_g2_in(Q), k % r)) for Q, k in zip(points, scalars)]

    def g2_batch_add(self, a: Sequence[G2Affine], b: Sequence[G2Affine]) -> list[G2Affine]:
        _check_batch(a, b)
        return [_g2_out(bn.add(_g2_in(P), _g2_in(Q))) for P, Q in zip(a, b)]

    def g2_msm_many(self, groups) -> list[G2Affine]:
        return [self.g2_msm(list(pts), list(ks)) for pts, ks in groups]

    def g2_ifft(self, points: Sequence[G2Affine]) -> list[G2Affine]:
        return ifft_by_batches(self.g2_batch_mul, self.g2_batch_add, self.g2_neg, points)

    def g2_in_subgroup(self, a: G2Affine) -> bool:
        """The slow reference: r a is the point at infinity."""
        return bn.is_inf(bn.multiply(_g2_in(a), r))

    def g2_first_outside_subgroup(self, points: Sequence[G2Affine]) -> int:
        return first_outside(points, self.g2_in_subgroup)

    # pairing
    def pairing_product_is_one(self, pairs) -> bool:
        acc = bn.FQ12.one()
        for P, Q in pairs:
            if P is None or Q is None:
                continue
            acc = acc * bn.pairing(_g2_in(Q), _g1_in(P), final_exponentiate=False)
        return bn.final_exponentiate(acc) == bn.FQ12.one()
