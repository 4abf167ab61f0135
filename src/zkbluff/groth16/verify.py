"""Groth16 verification: one multi-pairing, inputs validated before any pairing.

``verify`` returns nothing on success and raises: :class:`MalformedInput` for a wrong
number of public inputs, a public input >= r, a proof point off its curve, outside its
subgroup or at infinity; :class:`InvalidProof` for a well-formed proof that fails.
"""
from __future__ import annotations

import secrets
from typing import Optional, Sequence

from zkbluff.curve import Backend, g1_is_on_curve, get_backend
from zkbluff.curve.codec import g2_check
from zkbluff.errors import InvalidProof, MalformedInput
from zkbluff.field import p, r
from zkbluff.groth16.keys import Proof, VerifyingKey


def _validate(vk: VerifyingKey, public: Sequence[int], proof: Proof, be: Backend, where: str = "") -> None:
    if not isinstance(proof, Proof):
        raise MalformedInput(f"{where}proof: expected a Proof, got {type(proof).__name__}")
    if len(public) != vk.n_public:
        raise MalformedInput(f"{where}wrong number of public inputs, got {len(public)}, expected {vk.n_public}")
    for i, x in enumerate(public):
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < r:
            raise MalformedInput(f"{where}public input {i}: expected 0 <= x < r, got {x!r}")
    for name, P in (("pi_a", proof.a), ("pi_c", proof.c)):
        if P is None:
            raise MalformedInput(f"{where}{name}: got the point at infinity, expected a finite point")
        if not (isinstance(P, tuple) and len(P) == 2 and all(isinstance(v, int) and 0 <= v < p for v in P)
                and g1_is_on_curve(P)):
            raise MalformedInput(f"{where}{name}: not a point on the curve")
    B = proof.b
    if B is not None and not (isinstance(B, tuple) and len(B) == 2 and all(
            isinstance(c, tuple) and len(c) == 2 and all(isinstance(v, int) and 0 <= v < p for v in c) for c in B)):
        raise MalformedInput(f"{where}pi_b: not a point with coordinates in Fq2")
    g2_check(B, f"{where}pi_b", False, be)


def _vk_x(vk: VerifyingKey, public: Sequence[int], be: Backend):
    return be.g1_msm(list(vk.ic), [1, *public])


def verify(vk: VerifyingKey, public: Sequence[int], proof: Proof, backend: Optional[Backend] = None) -> None:
    """Check ``e(A, B) = e(alpha, beta) e(vk_x, gamma) e(C, delta)``."""
    be = backend or get_backend()
    _validate(vk, public, proof, be)
    pairs = [(be.g1_neg(proof.a), proof.b), (vk.alpha_g1, vk.beta_g2), (_vk_x(vk, public, be), vk.gamma_g2),
             (proof.c, vk.delta_g2)]
    if not be.pairing_product_is_one(pairs):
        raise InvalidProof("the proof does not verify for these public inputs")


def _weighted_pairs(vk: VerifyingKey, items: Sequence[tuple[Sequence[int], Proof]], be: Backend,
                    where: str = "") -> list:
    """The pairs of one key's batch equation (every item validated first): a random 128-bit
    weight z_i per proof, ``e(-z_i A_i, B_i)`` for each, then ``e(sum z_i alpha, beta)``,
    ``e(sum z_i vk_x_i, gamma)`` and ``e(sum z_i C_i, delta)``."""
    for i, (public, proof) in enumerate(items):
        _validate(vk, public, proof, be, f"{where}item {i}: ")
    zs = [secrets.randbits(128) | 1 for _ in items]
    pairs = list(zip(be.g1_batch_mul([be.g1_neg(proof.a) for _, proof in items], zs), [proof.b for _, proof in items]))
    zsum = sum(zs) % r
    vkx = be.g1_msm([*vk.ic], [zsum] + [sum(z * pub[k] for z, (pub, _) in zip(zs, items)) % r
                                      for k in range(vk.n_public)])
    csum = be.g1_msm([proof.c for _, proof in items], zs)
    pairs += [(be.g1_mul(vk.alpha_g1, zsum), vk.beta_g2), (vkx, vk.gamma_g2), (csum, vk.delta_g2)]
    return pairs


def batch_verify(vk: VerifyingKey, items: Sequence[tuple[Sequence[int], Proof]],
                 backend: Optional[Backend] = None) -> None:
    """Verify many proofs under one key with one final exponentiation.

    A random 128-bit weight z_i per proof: ``prod e(-z_i A_i, B_i) * e(sum z_i alpha,
    beta) * e(sum z_i vk_x_i, gamma) * e(sum z_i C_i, delta) = 1``. If the batch fails,
    the proofs are checked one by one and :class:`InvalidProof` names the first bad index.
    """
    be = backend or get_backend()
    if not items:
        return
    if be.pairing_product_is_one(_weighted_pairs(vk, items, be)):
        return
    for i, (public, proof) in enumerate(items):
        try:
            verify(vk, public, proof, be)
        except InvalidProof:
            raise InvalidProof(f"item {i}: the proof does not verify for its public inputs", index=i) from None
    raise InvalidProof("the batch does not verify")  # fail closed (a valid batch always passes: a backend fault)


def batch_verify_keys(groups: Sequence[tuple[VerifyingKey, Sequence[tuple[Sequence[int], Proof]]]],
                      backend: Optional[Backend] = None) -> None:
    """Verify the proofs of several keys with one multi-pairing and one final
    exponentiation: the product of every key's :func:`batch_verify` equation, each proof
    with its own random 128-bit weight (so a bad proof under one key cannot be cancelled by
    another key's terms, except with probability 2^-128). Every item of every group is
    validated before any pairing (:class:`MalformedInput`, naming the group). Raises
    :class:`InvalidProof` if the product is not one, without naming the proof: a caller
    that must name it runs :func:`batch_verify` key by key."""
    be = backend or get_backend()
    pairs = [pair for g, (vk, items) in enumerate(groups) if items
             for pair in _weighted_pairs(vk, items, be, f"group {g}: ")]
    if pairs and not be.pairing_product_is_one(pairs):
        raise InvalidProof("the batch of proofs under several keys does not verify")
