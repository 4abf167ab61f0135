"""Groth16 with a commitment to part of the witness (LegoGroth16's commit-carrying proofs,
Campanelli–Fiore–Querol, LegoSNARK, CCS 2019; gnark's commitment extension is a relative).

A statement that declares ``m`` *committed* inputs lays them out as the last ``m`` public
wires of its constraint system, so its key is an **ordinary Groth16 key** (made by the same
setup or ceremony, snarkjs's layout, one ``IC`` point per public wire, nothing added).
What changes is the proof: instead of the committed values the verifier receives the point

    D = sum_i u_i K_i,   K_i = IC[n_disclosed + 1 + i] = [(beta A_i + alpha B_i + C_i)(tau) / gamma]_1

and checks ``e(A, B) = e(alpha, beta) e(IC_0 + sum_j x_j IC_j + D, gamma) e(C, delta)``. The
proof ``(A, B, C)`` is the prover's ordinary one (it proves the full public vector); only
``D`` is new. When one committed input is a uniform blind, ``D`` is a perfectly hiding
Pedersen commitment to the others, and ``(A, B, C)`` depend only on ``D`` and the disclosed
inputs (Groth16's simulator needs no more), so the proof discloses nothing of them.

**Binding, and what the pairing does not check.** The pairing only checks that ``D`` makes
the equation hold; a prover could fold ``t IC_j`` of a disclosed input into ``D`` (a proof of
``x_j + t`` passing as one of ``x_j``). What pins ``D`` to the committed wires is a proof of
knowledge of an opening of ``D`` **in the bases** ``K_i`` **alone**, which the caller must
always check beside the pairing (:mod:`zkbluff.protocol.hand_binding`'s sigma proof is one).
Given that, the pair is a Groth16 proof for the public vector ``(x, u)`` with ``u`` extracted
from the opening, and Groth16's knowledge soundness gives a witness for exactly those ``u``. Two
openings of one ``D`` would be a nonzero vector ``a`` with ``sum a_i k_i(tau, alpha, beta) = 0``,
where the ``k_i`` are linearly independent polynomials (every public wire has its own row
``A: w_i`` that snarkjs's layout adds, so each ``k_i`` holds a Lagrange term no other has): a
root of a known nonzero polynomial of degree at most the domain size at the phase-1 secrets,
which the q-DLOG assumption (with one honest phase-1 contributor) makes infeasible. With
snarkjs-shaped keys ``gamma = 1``, so the ``K_i`` are phase-1 values and binding does not
depend on the per-statement phase 2 (delta); soundness of the proof itself needs both, as for
every key here. The trapdoor ``(tau, alpha, beta)`` would let its holder open ``D`` to any
values; it is the trapdoor that already forges every proof, and no new secret is drawn.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from zkbluff.curve import Backend, G1Affine, g1_is_on_curve, get_backend
from zkbluff.curve.codec import g1_from_json, g1_to_json
from zkbluff.errors import InvalidProof, MalformedInput
from zkbluff.field import p, r
from zkbluff.groth16.keys import Proof, ProvingKey, VerifyingKey
from zkbluff.groth16.prove import prove
from zkbluff.groth16.verify import _validate


@dataclass(frozen=True)
class CommittedProof:
    """A Groth16 proof ``(A, B, C)`` and the commitment ``D`` to its committed inputs."""

    proof: Proof
    d: G1Affine

    def to_json(self) -> dict:
        return {"proof": self.proof.to_json(), "D": g1_to_json(self.d)}

    @classmethod
    def from_json(cls, obj: Any, backend: Optional[Backend] = None) -> "CommittedProof":
        if not isinstance(obj, dict) or set(obj) != {"proof", "D"}:
            raise MalformedInput("committed proof: expected an object with fields proof and D")
        return cls(Proof.from_json(obj["proof"], backend), g1_from_json(obj["D"], "D"))


def commitment_bases(vk: VerifyingKey, n_committed: int) -> tuple[G1Affine, ...]:
    """The bases ``K_i`` of the committed inputs: the last ``n_committed`` IC points."""
    if not 1 <= n_committed <= vk.n_public:
        raise MalformedInput(f"committed proof: {n_committed} committed inputs for a key with {vk.n_public} public")
    bases = vk.ic[len(vk.ic) - n_committed:]
    if any(K is None for K in bases) or len(set(bases)) != len(bases):
        raise MalformedInput("committed proof: the key's commitment bases must be distinct finite points")
    return bases


def prove_committed(pk: ProvingKey, witness: Sequence[int], n_committed: int,
                    backend: Optional[Backend] = None, timings: Optional[dict] = None) -> CommittedProof:
    """The ordinary proof of ``witness`` and ``D`` over its last ``n_committed`` public wires."""
    be = backend or get_backend()
    proof = prove(pk, witness, be, timings)
    n = pk.n_public
    values = list(witness[n + 1 - n_committed: n + 1])
    return CommittedProof(proof, be.g1_msm(list(commitment_bases(pk.vk, n_committed)), values))


def _check(vk: VerifyingKey, disclosed: Sequence[int], cp: CommittedProof, n_committed: int, be: Backend) -> None:
    if not isinstance(cp, CommittedProof):
        raise MalformedInput(f"committed proof: expected a CommittedProof, got {type(cp).__name__}")
    commitment_bases(vk, n_committed)
    if len(disclosed) != vk.n_public - n_committed:
        raise MalformedInput(f"committed proof: got {len(disclosed)} disclosed inputs, "
                             f"expected {vk.n_public - n_committed}")
    _validate(vk, [*disclosed, *[0] * n_committed], cp.proof, be)
    D = cp.d
    if D is None or not (isinstance(D, tuple) and len(D) == 2 and all(isinstance(v, int) and 0 <= v < p for v in D)
                         and g1_is_on_curve(D)):
        raise MalformedInput("committed proof: D is not a finite point on the curve")


def verify_committed(vk: VerifyingKey, disclosed: Sequence[int], cp: CommittedProof, n_committed: int,
                     backend: Optional[Backend] = None) -> None:
    """The pairing check with ``D`` in place of the committed inputs. Raises
    :class:`MalformedInput` (wrong counts, a point off the curve or ``D`` at infinity) or
    :class:`InvalidProof`. Not enough alone: see the module's doc (an opening of ``D`` in the
    committed bases must be proven too)."""
    if not committed_batch_holds(vk, [(disclosed, cp)], n_committed, backend):
        raise InvalidProof("the committed proof does not verify for these inputs and D")


def committed_batch_holds(vk: VerifyingKey, items: Sequence[tuple[Sequence[int], CommittedProof]], n_committed: int,
                          backend: Optional[Backend] = None) -> bool:
    """Whether every ``(disclosed, proof)`` under ``vk`` verifies, as one multi-pairing: a
    random 128-bit weight ``z`` per proof (as :func:`~zkbluff.groth16.verify.batch_verify`),
    ``prod e(-z A, B) e(sum z alpha, beta) e(sum z (vk_x + D), gamma) e(sum z C, delta) = 1``.
    Every item is validated first (:class:`MalformedInput`). A single item gets weight 1."""
    be = backend or get_backend()
    for disclosed, cp in items:
        _check(vk, disclosed, cp, n_committed, be)
    if not items:
        return True
    n_open = vk.n_public - n_committed
    zs = [1] if len(items) == 1 else [secrets.randbits(128) | 1 for _ in items]
    pairs = [(be.g1_mul(be.g1_neg(cp.proof.a), z), cp.proof.b) for z, (_d, cp) in zip(zs, items)]
    zsum = sum(zs) % r
    open_scalars = [zsum] + [sum(z * d[k] for z, (d, _cp) in zip(zs, items)) % r for k in range(n_open)]
    vk_x = be.g1_msm([*vk.ic[: n_open + 1], *(cp.d for _d, cp in items)], [*open_scalars, *zs])
    c_sum = be.g1_msm([cp.proof.c for _d, cp in items], zs)
    pairs += [(be.g1_mul(vk.alpha_g1, zsum), vk.beta_g2), (vk_x, vk.gamma_g2), (c_sum, vk.delta_g2)]
    return bool(be.pairing_product_is_one(pairs))
