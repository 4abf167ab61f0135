"""The house-blind deal's step 5: a seat binds its Poseidon hand commitment to exactly the
cards opened to it (docs/house-blind-deal.md, "Binding the hand commitment").

The seat sends its hand commitment with

1. a commit-carrying Groth16 proof of ``card.hand_binding.v1`` (:mod:`zkbluff.groth16.committed`):
   the commitment is ``Poseidon(mask(c_1..c_m), salt)`` with the ``c_i`` distinct and in range,
   and ``D = sum c_i K_i + blind K_blind`` commits to the same ``c_i``;
2. a sigma proof (Schnorr over several bases, Fiat–Shamir, bound to the deal's context) of
   ``x, c_1..c_m, blind`` with ``h = x G``, ``D = sum c_i K_i + blind K_blind`` and, for its
   ``i``-th position ``p_i`` in deck order, ``B_p − sum_{j≠k} D_{j,p} − G = x A_p + c_i G``: the
   card opened to it there is ``(c_i + 1) G``.

Every equation is linear in the secrets, so a verifier folds the sigma proofs of every seat
into one MSM (:class:`~zkbluff.protocol.elgamal.Terms`). A failure is
:class:`~zkbluff.errors.InvalidShare` with check ``hand.binding`` naming the seat.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

from zkbluff.curve import Backend, G1Affine, get_backend
from zkbluff.errors import InvalidProof, InvalidShare, MalformedInput
from zkbluff.field import r
from zkbluff.groth16.committed import (
    CommittedProof, commitment_bases, committed_batch_holds, prove_committed, verify_committed,
)
from zkbluff.groth16.keys import ProvingKey, VerifyingKey
from zkbluff.protocol.elgamal import (
    G, Deck, Point, ProofContext, Randomness, SeatKey, Terms, challenge, finite, hex_list, point_bytes,
    point_from_hex,
    point_hex, random_scalars, scalar_from_hex, scalar_hex,
)
from zkbluff.protocol.house_blind import DealRecord, step_context
from zkbluff.statements.base import Statement

CHECK = "hand.binding"
STEP = "hand"
_TAG = b"hand-binding"


@dataclass(frozen=True)
class Target:
    """One of the seat's positions: its final ciphertext ``(A, B)`` and the other seats'
    shares ``D_j`` of it (so ``B − sum D_j = x A + M``)."""

    position: int
    A: Point
    B: Point
    shares: tuple[Point, ...]

    def encode(self) -> bytes:
        return (self.position.to_bytes(2, "big") + point_bytes(self.A) + point_bytes(self.B)
                + len(self.shares).to_bytes(1, "big") + b"".join(map(point_bytes, self.shares)))


def targets(record: DealRecord, deck: Deck, seat: int) -> list[Target]:
    """The seat's positions in deck order, each with every other seat's share of it (from the
    record, whose shares :func:`~zkbluff.protocol.house_blind.verify_deal` checked)."""
    mine = record.layout.positions_of(seat)
    got: dict[int, list[Point]] = {pos: [] for pos in mine}
    for j, (shares, _prev) in enumerate(record.shares):
        for s in shares:
            if s.card in got and s.seat == j != seat:
                got[s.card].append(s.D)
    return [Target(pos, deck.A[pos], deck.B[pos], tuple(got[pos])) for pos in mine]


def context_scalar(ctx: ProofContext) -> int:
    """The ``context`` public input of the binding statement for this deal step."""
    return int.from_bytes(hashlib.sha512(b"zkbluff:hand-binding:context:" + ctx.encode()).digest(), "big") % r


@dataclass(frozen=True)
class BindingSigma:
    """The sigma proof: commitments ``T_h = w_x G``, ``T_D = sum w_i K_i + w_b K_blind``,
    ``T_i = w_x A_i + w_i G``; responses ``z = w + e * secret``."""

    T_h: Point
    T_D: Point
    T: tuple[Point, ...]
    z_x: int
    z_c: tuple[int, ...]
    z_blind: int

    def to_json(self) -> dict:
        return {"Th": point_hex(self.T_h), "TD": point_hex(self.T_D), "T": [point_hex(P) for P in self.T],
                "zx": scalar_hex(self.z_x), "zc": [scalar_hex(z) for z in self.z_c], "zb": scalar_hex(self.z_blind)}

    @classmethod
    def from_json(cls, obj: object, m: int) -> "BindingSigma":
        if not isinstance(obj, dict) or set(obj) != {"Th", "TD", "T", "zx", "zc", "zb"}:
            raise MalformedInput("hand binding: expected an object with fields Th, TD, T, zx, zc, zb")
        return cls(point_from_hex(obj["Th"], "Th"), point_from_hex(obj["TD"], "TD"),
                   tuple(point_from_hex(s, f"T[{i}]") for i, s in enumerate(hex_list(obj["T"], m, "T"))),
                   scalar_from_hex(obj["zx"], "zx"),
                   tuple(scalar_from_hex(s, f"zc[{i}]") for i, s in enumerate(hex_list(obj["zc"], m, "zc"))),
                   scalar_from_hex(obj["zb"], "zb"))


@dataclass(frozen=True)
class HandMessage:
    """A seat's ``hand`` message: its hand commitment, the committed proof, the sigma proof."""

    hand_commitment: int
    proof: CommittedProof
    sigma: BindingSigma

    def to_json(self) -> dict:
        return {"hand_commitment": str(self.hand_commitment), "proof": self.proof.to_json(),
                "sigma": self.sigma.to_json()}

    @classmethod
    def from_json(cls, obj: object, m: int) -> "HandMessage":
        if not isinstance(obj, dict) or set(obj) != {"hand_commitment", "proof", "sigma"}:
            raise MalformedInput("hand message: expected an object with fields hand_commitment, proof, sigma")
        hc = obj["hand_commitment"]
        if not isinstance(hc, str) or not hc.isdigit() or len(hc) > 78 or int(hc) >= r:
            raise MalformedInput("hand message: hand_commitment must be a decimal below r")
        return cls(int(hc), CommittedProof.from_json(obj["proof"]), BindingSigma.from_json(obj["sigma"], m))


def _challenge(ctx: ProofContext, vk: VerifyingKey, hand_commitment: int, h: Point, D: Point,
               tgts: Sequence[Target], T_h: Point, T_D: Point, T: Sequence[Point]) -> int:
    parts = [bytes.fromhex(vk.fingerprint()), hand_commitment.to_bytes(32, "big"), point_bytes(h), point_bytes(D),
             *(t.encode() for t in tgts), point_bytes(T_h), point_bytes(T_D), *map(point_bytes, T)]
    return challenge(_TAG, ctx, parts)


def prove_sigma(key: SeatKey, h: Point, cards: Sequence[int], blind: int, vk: VerifyingKey, D: G1Affine,
                tgts: Sequence[Target], hand_commitment: int, ctx: ProofContext,
                rng: Optional[Randomness] = None, backend: Optional[Backend] = None) -> BindingSigma:
    """The sigma proof for ``cards`` (the ``i``-th at ``tgts[i]``) and ``blind`` under ``D``."""
    be = backend or get_backend()
    (D,) = finite([D])
    m = len(cards)
    if len(tgts) != m:
        raise MalformedInput(f"hand binding: {m} cards for {len(tgts)} positions")
    bases = finite(commitment_bases(vk, m + 1))
    w = random_scalars(m + 2, rng)
    wx, wc, wb = w[0], w[1:m + 1], w[m + 1]
    T_h, T_D, *T = finite([*be.g1_mul_many(G, [wx]), be.g1_msm(bases, [*wc, wb]),
                           *be.g1_msm_many([([t.A, G], [wx, wi]) for t, wi in zip(tgts, wc)])])
    e = _challenge(ctx, vk, hand_commitment, h, D, tgts, T_h, T_D, T)
    return BindingSigma(T_h, T_D, tuple(T), (wx + e * key.x) % r,
                        tuple((wi + e * c) % r for wi, c in zip(wc, cards)), (wb + e * blind) % r)


def add_sigma_terms(terms: Terms, sigma: BindingSigma, h: Point, vk: VerifyingKey, D: G1Affine,
                    tgts: Sequence[Target], hand_commitment: int, ctx: ProofContext) -> None:
    """The sigma proof's ``m + 2`` equations, each with its own random weight, into ``terms``."""
    if D is None:
        raise MalformedInput("hand binding: D is the point at infinity")
    m = len(tgts)
    if len(sigma.T) != m or len(sigma.z_c) != m:
        raise MalformedInput(f"hand binding: the sigma proof answers {len(sigma.T)} positions, expected {m}")
    bases = finite(commitment_bases(vk, m + 1))
    e = _challenge(ctx, vk, hand_commitment, h, D, tgts, sigma.T_h, sigma.T_D, sigma.T)
    w = Terms.weights(m + 2)
    # z_x G = T_h + e h
    terms.add_many([G, sigma.T_h, h], [w[0] * sigma.z_x, -w[0], -w[0] * e])
    # sum z_i K_i + z_b K_blind = T_D + e D
    terms.add_many([*bases, sigma.T_D, D], [*(w[1] * z for z in sigma.z_c), w[1] * sigma.z_blind, -w[1], -w[1] * e])
    # z_x A + z_i G = T_i + e (B − sum D_j − G)
    for i, t in enumerate(tgts):
        wi = w[2 + i]
        terms.add_many([t.A, G, sigma.T[i], t.B, *t.shares],
                       [wi * sigma.z_x, wi * (sigma.z_c[i] + e), -wi, -wi * e, *([wi * e] * len(t.shares))])


def hand_context(record: DealRecord, seat: int, prev_hash: str) -> ProofContext:
    return step_context(record.match_id, record.round_no, seat, STEP, prev_hash)


def hand_message(key: SeatKey, h: Point, seat: int, record: DealRecord, deck: Deck, cards: Mapping[int, int],
                 hand_salt: int, statement: Statement, pk: ProvingKey, prev_hash: str,
                 rng: Optional[Randomness] = None, backend: Optional[Backend] = None,
                 timings: Optional[dict] = None) -> HandMessage:
    """Seat ``seat``'s hand message for its opened ``cards`` (``{position: card}``, as
    :meth:`~zkbluff.protocol.house_blind.HouseBlindSeat.open_hand` returns them)."""
    import time

    be = backend or get_backend()
    tgts = targets(record, deck, seat)
    ordered = [cards[t.position] for t in tgts]
    ctx = hand_context(record, seat, prev_hash)
    (blind,) = random_scalars(1, rng)
    inputs = {**{f"card{i}": c for i, c in enumerate(ordered)}, "blind": blind, "hand_salt": hand_salt,
              "context": context_scalar(ctx)}
    t0, c0 = time.perf_counter(), time.process_time()
    full = statement.complete(inputs)
    cp = prove_committed(pk, statement.witness(inputs), len(statement.committed), be)
    t1, c1 = time.perf_counter(), time.process_time()
    sigma = prove_sigma(key, h, ordered, blind, pk.vk, cp.d, tgts, full["hand_commitment"], ctx, rng, be)
    if timings is not None:  # wall seconds, and process CPU seconds (every thread)
        timings.update(groth16=t1 - t0, sigma=time.perf_counter() - t1, groth16_cpu=c1 - c0,
                       sigma_cpu=time.process_time() - c1)
    return HandMessage(full["hand_commitment"], cp, sigma)


def verify_hands(record: DealRecord, deck: Deck, hands: Mapping[int, tuple[HandMessage, str]],
                 vk: VerifyingKey, n_committed: int, backend: Optional[Backend] = None) -> None:
    """Check every seat's hand message (``{seat: (message, prev_hash)}``) against a deal that
    :func:`~zkbluff.protocol.house_blind.verify_deal` accepted (``deck`` its final deck): the
    sigma proofs of every seat in one MSM and their pairings in one multi-pairing; if either
    fails, each seat alone in seat order (its pairing, then its sigma proof). The first failure raises
    :class:`InvalidShare` with check ``hand.binding`` naming the seat."""
    be = backend or get_backend()
    keys = [k.h for k, _prev in record.keys]
    m = n_committed - 1
    terms = Terms()
    per_seat = []
    for seat in sorted(hands):
        msg, prev = hands[seat]
        tgts = targets(record, deck, seat)
        if len(tgts) != m:
            raise InvalidShare(f"seat {seat} holds {len(tgts)} positions; the binding key is for {m} cards",
                               seat=seat, check=CHECK)
        ctx = hand_context(record, seat, prev)
        per_seat.append((seat, msg, tgts, ctx))
        add_sigma_terms(terms, msg.sigma, keys[seat], vk, msg.proof.d, tgts, msg.hand_commitment, ctx)
    if committed_batch_holds(vk, [([msg.hand_commitment, context_scalar(ctx)], msg.proof)
                                  for _seat, msg, _t, ctx in per_seat], n_committed, be) and terms.holds(be):
        return
    for seat, msg, tgts, ctx in per_seat:
        try:
            verify_committed(vk, [msg.hand_commitment, context_scalar(ctx)], msg.proof, n_committed, be)
        except InvalidProof:
            raise InvalidShare(f"seat {seat}: its hand proof does not verify for its hand commitment and D",
                               seat=seat, check=CHECK) from None
        one = Terms()
        add_sigma_terms(one, msg.sigma, keys[seat], vk, msg.proof.d, tgts, msg.hand_commitment, ctx)
        if not one.holds(be):
            raise InvalidShare(f"seat {seat}: its hand commitment's cards are not the cards opened to it "
                               f"(the sigma proof fails)", seat=seat, check=CHECK)
    raise InvalidShare("hand binding: the batch failed but no seat's proof does", check=CHECK)  # pragma: no cover
