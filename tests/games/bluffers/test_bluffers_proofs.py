"""Whole Bluffers matches with real Groth16 proofs on mcl: every play, automatic move and
pull share is proven by the seat and verified against the public inputs the verifier's
ledger holds; reveals open their commitments. Forged clicks, wrong reveals and proofs
for the wrong thing are rejected. (Deals are not proven here: the 20-card deal statement
belongs to the deal issue; the ledger takes the deal's published hand commitments.)"""
import random

import pytest

from zkbluff.errors import CommitmentMismatch, InvalidProof, MalformedInput, UnsatisfiedConstraint
from zkbluff.games.bluffers.bot import Dealer, HouseBot, RandomBot, View
from zkbluff.games.bluffers.proofs import PICK_ID, PLAY_ID, SHARE_ID, STATEMENTS, ProofLedger, SeatSecrets, mask_of
from zkbluff.games.bluffers.rules import (
    NO_SEAT, BluffersRules, CallBluff, Phase, Reveal, Share, check_invariants, pull_fires,
)
from zkbluff.gadgets.native import commit
from zkbluff.groth16 import prove, setup_insecure_seeded_for_tests, verify
from zkbluff.protocol.context import context_value
from zkbluff.statements import get_statement
from zkbluff.statements.revolver import RevolverSeed


@pytest.fixture(scope="module")
def keys(mcl):
    return {k: setup_insecure_seeded_for_tests(get_statement(k).build()[0], k, backend=mcl) for k in STATEMENTS}


class ProvenTable:
    """Seats prove, the ledger says what must be proven, the verifier checks, the rules apply."""

    def __init__(self, n: int, rng: random.Random, keys, mcl):
        self.rng, self.keys, self.mcl = rng, keys, mcl
        self.rules = BluffersRules(n)
        self.ledger = ProofLedger(self.rules)
        self.dealer = Dealer(self.rules, rng)
        self.seats = [SeatSecrets(i, RevolverSeed(rng.getrandbits(253), rng.getrandbits(250)),
                                  salt=lambda: rng.getrandbits(250)) for i in range(n)]
        self.line = 0
        self.proofs: dict[str, int] = {}

    def context(self) -> int:
        return context_value("bluffers-test", self.line, f"prev-{self.line - 1}")

    def verify_move(self, seat, move) -> None:
        obligations = self.ledger.obligations(seat, move.action, move.data)
        assert [o.statement for o in obligations] == [s for s, _ in move.proofs]
        for (statement, inputs), ob in zip(move.proofs, obligations):
            stmt = get_statement(statement)
            system, witness = stmt.build(inputs)
            proof = prove(self.keys[statement], witness, backend=self.mcl)
            expected = [{**ob.publics, "context": self.context()}[name] for name in stmt.public]
            verify(self.keys[statement].vk, expected, proof, backend=self.mcl)
            self.proofs[statement] = self.proofs.get(statement, 0) + 1

    def apply(self, seat, move) -> None:
        self.line += 1
        self.rules.check(seat, move.action)  # the rules first, then the proofs
        self.verify_move(seat, move)
        if isinstance(move.action, Reveal):
            self.ledger.check_reveal(seat, move.action, move.data)
        self.rules.apply(seat, move.action)
        self.ledger.after(seat, move.action, move.data)
        check_invariants(self.rules.public_state())

    def play(self, policies, timeout_rate: float = 0.0) -> None:
        from zkbluff.games.bluffers.proofs import Move

        n = self.rules.n_seats
        for i in range(n):
            self.apply(i, self.seats[i].commit_seed())
        while not self.rules.over:
            snap = self.rules.public_state()
            if snap.phase == Phase.DEAL:
                deal = self.dealer.deal()
                salts = [self.rng.getrandbits(250) for _ in range(n)]
                for i in range(n):
                    if snap.alive[i]:
                        self.seats[i].receive(mask_of(self.dealer.hands[i]), salts[i])
                self.apply(NO_SEAT, Move(deal, {}))
                self.ledger.on_deal([commit(mask_of(self.dealer.hands[i]), salts[i]) if snap.alive[i] else None
                                     for i in range(n)])
            elif snap.phase == Phase.TURN:
                seat = snap.to_move
                sec = self.seats[seat]
                if self.rng.random() < timeout_rate:
                    forced = self.rules.must_call(seat)
                    move = sec.auto_move("timeout", forced, context_value("bluffers-test", self.line + 1,
                                                                          f"prev-{self.line}"))
                    self.apply(seat, move)
                    if not forced:
                        (card,) = [c for c in self.dealer.hands[seat] if not sec.hand >> c & 1]
                        self.dealer.record_play(seat, (card,))
                    continue
                view = View(seat, snap, tuple(self.dealer.hands[seat]), tuple(self.dealer.played[seat]),
                            tuple((s, len(p)) for s, p in self.dealer.plays))
                decision = policies[seat].decide(view, self.rules.legal_actions(seat), self.rng)
                if decision.call:
                    self.apply(seat, Move(CallBluff(), {}))
                else:
                    ctx = context_value("bluffers-test", self.line + 1, f"prev-{self.line}")
                    self.apply(seat, sec.play_cards(decision.cards, ctx))
                    self.dealer.record_play(seat, decision.cards)
            elif snap.phase == Phase.REVEAL:
                self.apply(snap.to_move, self.seats[snap.to_move].reveal())
            elif snap.phase == Phase.PULL:
                ctx = context_value("bluffers-test", self.line + 1, f"prev-{self.line}")
                self.apply(snap.to_move, self.seats[snap.to_move].share(snap.puller, snap.chambers[snap.puller], ctx))


@pytest.mark.parametrize("n", [2, pytest.param(3, marks=pytest.mark.slow), pytest.param(4, marks=pytest.mark.slow)])
def test_whole_match_with_real_proofs(n, keys, mcl):
    table = ProvenTable(n, random.Random(500 + n), keys, mcl)
    table.play([HouseBot() if i % 2 else RandomBot() for i in range(n)], timeout_rate=0.3)
    result = table.rules.result()
    assert sorted(result.placements) == list(range(1, n + 1))
    assert all(table.proofs.get(k, 0) > 0 for k in (PLAY_ID, PICK_ID, SHARE_ID)), table.proofs


def table_at_pull(keys, mcl, fire: bool):
    """A two-seat table whose first pull is about to be made (seat 1 calls a true King)."""
    rng = random.Random(11)
    while True:
        t = ProvenTable(2, rng, keys, mcl)
        shares = [t.seats[i].seed.share(1, 0) for i in range(2)]
        if pull_fires(shares, 0) == fire:
            return t


def run_to_pull(t: ProvenTable):
    from zkbluff.games.bluffers.proofs import Move
    from zkbluff.games.bluffers.rules import KING, Deal

    for i in range(2):
        t.apply(i, t.seats[i].commit_seed())
    hands = [[0, 1, 6, 7, 12], [2, 8, 13, 18, 14]]
    salts = [5, 6]
    for i in range(2):
        t.seats[i].receive(mask_of(hands[i]), salts[i])
    t.apply(NO_SEAT, Move(Deal(KING), {}))
    t.ledger.on_deal([commit(mask_of(h), s) for h, s in zip(hands, salts)])
    ctx = context_value("bluffers-test", t.line + 1, f"prev-{t.line}")
    t.apply(0, t.seats[0].play_cards((0, 1), ctx))  # two real Kings
    t.apply(1, Move(CallBluff(), {}))
    return t


def test_a_forged_click_is_rejected_by_the_verifier(keys, mcl):
    t = run_to_pull(table_at_pull(keys, mcl, fire=True))
    t.apply(0, t.seats[0].reveal())
    assert t.rules.public_state().puller == 1
    honest = t.seats[1].share(1, 0, context_value("bluffers-test", t.line + 1, f"prev-{t.line}"))
    forged_value = honest.action.value + 1
    assert not pull_fires([forged_value, t.seats[0].seed.share(1, 0)], 0)  # it would be a click
    forged = type(honest)(Share(forged_value), {}, honest.proofs)
    before = t.rules.public_state()
    t.line += 1
    with pytest.raises(InvalidProof):
        t.verify_move(1, forged)
    assert t.rules.public_state() == before
    t.line -= 1
    t.apply(1, honest)
    t.apply(0, t.seats[0].share(1, 0, context_value("bluffers-test", t.line + 1, f"prev-{t.line}")))
    assert t.rules.public_state().fired[1] and t.rules.over  # the honest bang


def test_a_click_is_a_click(keys, mcl):
    t = run_to_pull(table_at_pull(keys, mcl, fire=False))
    t.apply(0, t.seats[0].reveal())
    for seat in (1, 0):
        t.apply(seat, t.seats[seat].share(1, 0, context_value("bluffers-test", t.line + 1, f"prev-{t.line}")))
    snap = t.rules.public_state()
    assert snap.last_pull.fired is False and snap.chambers == (0, 1) and snap.phase == Phase.DEAL


def test_a_reveal_that_does_not_open_the_play_is_rejected(keys, mcl):
    t = run_to_pull(table_at_pull(keys, mcl, fire=False))
    honest = t.seats[0].reveal()
    for cards, salt in (((0, 18), honest.data["play_salt"]), ((0, 1), honest.data["play_salt"] + 1)):
        with pytest.raises(CommitmentMismatch):
            t.ledger.check_reveal(0, Reveal(cards), {"play_salt": salt})
    with pytest.raises(MalformedInput):
        t.ledger.check_reveal(0, honest.action, {})
    t.ledger.check_reveal(0, honest.action, honest.data)  # the twin


def test_a_play_proof_for_another_count_or_hand_is_rejected(keys, mcl):
    t = table_at_pull(keys, mcl, fire=False)
    from zkbluff.games.bluffers.proofs import Move
    from zkbluff.games.bluffers.rules import KING, Deal, Play

    for i in range(2):
        t.apply(i, t.seats[i].commit_seed())
    t.seats[0].receive(mask_of([0, 1, 6, 7, 12]), 5)
    t.seats[1].receive(mask_of([2, 8, 13, 18, 14]), 6)
    t.apply(NO_SEAT, Move(Deal(KING), {}))
    t.ledger.on_deal([commit(mask_of([0, 1, 6, 7, 12]), 5), commit(mask_of([2, 8, 13, 18, 14]), 6)])
    ctx = context_value("bluffers-test", t.line + 1, f"prev-{t.line}")
    move = t.seats[0].play_cards((0, 1), ctx)
    t.line += 1
    with pytest.raises(InvalidProof):  # claims three cards with a two-card proof
        t.verify_move(0, type(move)(Play(3), move.data, move.proofs))
    with pytest.raises(InvalidProof):  # another seat's hand commitment
        t.ledger.hand_commitments[0], saved = t.ledger.hand_commitments[1], t.ledger.hand_commitments[0]
        t.verify_move(0, move)
    t.ledger.hand_commitments[0] = saved
    t.verify_move(0, move)  # the twin
    with pytest.raises(MalformedInput):
        t.ledger.obligations(0, Play(2), {"play_commitment": 1})


def test_a_timeout_card_must_be_the_seeds_pick(keys, mcl):
    """The automatic move's card is the seat's pick: another card of the hand, even with a
    valid play proof, fails the pick proof."""
    t = table_at_pull(keys, mcl, fire=False)
    from zkbluff.games.bluffers.proofs import Move
    from zkbluff.games.bluffers.rules import KING, AutoMove, Deal

    for i in range(2):
        t.apply(i, t.seats[i].commit_seed())
    hand = [0, 1, 6, 7, 12]
    t.seats[0].receive(mask_of(hand), 5)
    t.seats[1].receive(mask_of([2, 8, 13, 18, 14]), 6)
    t.apply(NO_SEAT, Move(Deal(KING), {}))
    t.ledger.on_deal([commit(mask_of(hand), 5), commit(mask_of([2, 8, 13, 18, 14]), 6)])
    ctx = context_value("bluffers-test", t.line + 1, f"prev-{t.line}")
    sec = t.seats[0]
    saved = (sec.hand, sec.hand_salt)
    honest = sec.auto_move("timeout", False, ctx)
    picked = next(c for c in hand if not sec.hand >> c & 1)
    sec.hand, sec.hand_salt = saved
    other = next(c for c in hand if c != picked)
    cheat = sec.play_cards((other,), ctx)  # a valid play proof of another card
    pick_inputs = {**honest.proofs[1][1], "play_salt": cheat.proofs[0][1]["play_salt"]}
    t.line += 1
    with pytest.raises(InvalidProof):  # the verifier: the pick proof is for another play
        t.verify_move(0, type(cheat)(AutoMove("timeout"), cheat.data, (cheat.proofs[0], (PICK_ID, pick_inputs))))
    with pytest.raises(UnsatisfiedConstraint, match="play_opens"):  # the prover: no such proof exists
        get_statement(PICK_ID).build({**pick_inputs, "play_commitment": cheat.data["play_commitment"]})
    t.verify_move(0, honest)  # the twin
    assert PLAY_ID in dict(honest.proofs) and SHARE_ID not in dict(honest.proofs)
