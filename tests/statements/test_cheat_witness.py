"""Cheat's rules and statements together, without the match engine: seats hold their
hands as commitments, every play and every pick-up builds its statement's witness
against the public record (the constraints checked), every called play is opened
against its commitment, and after every event the committed hands, the pile and the
set-aside plays are the deck. A few events are proven and verified with Groth16 on mcl.
Cheating seats are refused by the constraints."""
import random

import pytest

from zkbluff.circuit import check
from zkbluff.errors import CommitmentMismatch, IllegalMove, InvalidProof, UnsatisfiedConstraint
from zkbluff.games.cheat.bot import HouseBot, RandomBot
from zkbluff.games.cheat.rules import (
    DECK, Call, CheatRules, CloseWindow, Deal, Pass, Phase, PickUp, Play, Reveal, check_conservation, deal_sizes,
)
from zkbluff.games.cheat.witness import ABSORB_KEY, PLAY_KEY, PlayOpening, SeatHand
from zkbluff.games.engine.rules import NO_SEAT
from zkbluff.groth16 import prove, setup_insecure_seeded_for_tests, verify
from zkbluff.statements import get_statement
from zkbluff.games.cheat.statements import absorb_chain_publics

PLAY = get_statement(PLAY_KEY)
ABSORB = get_statement(ABSORB_KEY)


class WitnessTable:
    """A table in one process for tests: seats' secrets and the public record side by side.
    ``prover(key, witness, public)`` is called for every statement (default: nothing)."""

    def __init__(self, policies, rng: random.Random, prover=None):
        self.n = len(policies)
        self.rules = CheatRules(self.n, hands=3)
        self.policies, self.rng = policies, rng
        self.prover = prover or (lambda key, witness, public: None)
        self.hands: list[SeatHand] = []
        self.public_hands: list[int] = []  # the record: each seat's hand commitment
        self.pile: list[tuple[int, int, PlayOpening]] = []  # public (commitment, count); the opening is the seat's
        self.aside: list[PlayOpening] = []  # never opened to anyone
        self.line = 0
        self.proofs = {"play": 0, "absorb": 0, "open": 0}

    def salt(self) -> int:
        return self.rng.getrandbits(250)

    def context(self) -> int:
        self.line += 1
        return self.line

    def act(self, seat, action) -> None:
        before = self.rules.public_state()
        self.rules.apply(seat, action)
        after = self.rules.public_state()
        if after.set_aside > before.set_aside:  # everyone passed: the plays go aside, unopened
            self.aside += [o for _, _, o in self.pile]
            self.pile = []
        for i, pol in enumerate(self.policies):
            pol.observe(seat, action, before, after, frozenset(self.hands[i].cards) if self.hands else frozenset())
        check_conservation(after)
        self.check_deck(after)

    def check_deck(self, s) -> None:
        """What the commitments hold is the deck, and the record is what the seats hold."""
        if not self.hands:
            return
        masks = [h.mask for h in self.hands] + [o.mask for _, _, o in self.pile] + [o.mask for o in self.aside]
        union = 0
        for m in masks:
            assert union & m == 0, "a card in two places"
            union |= m
        assert union == (1 << DECK.size) - 1
        assert [h.commitment for h in self.hands] == self.public_hands
        assert [n for _, n, _ in self.pile] == [n for _, n in s.pile]
        assert all(bin(o.mask).count("1") == n and o.commitment == c for c, n, o in self.pile)
        assert sum(bin(o.mask).count("1") for o in self.aside) == s.set_aside
        assert [bin(h.mask).count("1") for h in self.hands] == list(s.hand_sizes)

    def statement(self, stmt, key: str, inputs: dict, expected_public: list[int]) -> None:
        system, witness = stmt.build(inputs)
        check(system, witness)
        public = witness[1: 1 + system.n_public]
        assert public == expected_public, "the seat's statement does not match the public record"
        self.prover(key, witness, public)

    def deal(self) -> None:
        s = self.rules.public_state()
        deck = list(range(DECK.size))
        self.rng.shuffle(deck)
        sizes, start = deal_sizes(self.n, s.dealer), 0
        self.hands = []
        for size in sizes:
            self.hands.append(SeatHand.of(deck[start:start + size], self.salt()))
            start += size
        self.public_hands = [h.commitment for h in self.hands]  # card.deal.v2 proves these (another statement)
        self.pile, self.aside = [], []
        self.act(NO_SEAT, Deal(sizes))
        for i, pol in enumerate(self.policies):
            pol.new_hand(i, frozenset(self.hands[i].cards), self.rules.public_state())

    def play_hand(self, max_events: int = 5000) -> None:
        self.deal()
        for _ in range(max_events):
            s = self.rules.public_state()
            if s.phase in (Phase.DEAL, Phase.OVER):
                return
            if s.phase == Phase.PLAY:
                seat = s.to_move
                action, cards = self.policies[seat].choose_play(s, frozenset(self.hands[seat].cards),
                                                                self.rules.legal_actions(seat))
                if isinstance(action, Play):
                    ctx = self.context()
                    inputs, new_hand, opening = self.hands[seat].play(cards, self.salt(), self.salt(), ctx)
                    self.statement(PLAY, PLAY_KEY, inputs, [self.public_hands[seat], new_hand.commitment,
                                                            opening.commitment, action.count, ctx])
                    self.proofs["play"] += 1
                    self.hands[seat], self.public_hands[seat] = new_hand, new_hand.commitment
                    self.pile.append((opening.commitment, action.count, opening))
                self.act(seat, action)
            elif s.phase == Phase.WINDOW:
                others = [i for i in range(self.n) if i != s.pile[-1][0]]
                self.rng.shuffle(others)
                caller = next((i for i in others
                               if self.policies[i].wants_call(s, frozenset(self.hands[i].cards))), None)
                if caller is not None:
                    self.act(caller, Call(s.play_no))
                else:
                    self.act(NO_SEAT, CloseWindow(s.play_no))
            elif s.phase == Phase.TURNOVER:
                commitment, count, opening = self.pile[-1]
                cards = opening.check(commitment, count)  # the public turn-over
                self.proofs["open"] += 1
                self.act(s.to_move, Reveal(cards))
            elif s.phase == Phase.PICKUP:
                picker = s.to_move
                n_proofs = -(-len(self.pile) // 4)
                salts = [self.salt() for _ in range(n_proofs)]
                contexts = [self.context() for _ in range(n_proofs)]
                inputs, new_hand = self.hands[picker].pick_up(self.pile, salts, contexts)
                news = [ABSORB.public_values(inp)[1] for inp in inputs]  # what the picker publishes
                publics = absorb_chain_publics(self.public_hands[picker], news, [c for c, _, _ in self.pile], contexts)
                for inp, pub in zip(inputs, publics):
                    self.statement(ABSORB, ABSORB_KEY, inp, pub)
                    self.proofs["absorb"] += 1
                assert news[-1] == new_hand.commitment
                self.hands[picker], self.public_hands[picker] = new_hand, new_hand.commitment
                self.pile = []
                self.act(picker, PickUp(s.pile_size))
        raise AssertionError("the hand did not end")


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_a_whole_hand_with_every_hand_change_witnessed(n):
    rng = random.Random(40 + n)
    pols = [HouseBot(random.Random(i)) if i % 2 == 0 else RandomBot(random.Random(i)) for i in range(n)]
    table = WitnessTable(pols, rng)
    table.play_hand()
    s = table.rules.public_state()
    assert s.phase == Phase.DEAL and len(s.hand_penalties) == 1
    assert table.proofs["play"] > 0 and table.proofs["absorb"] > 0 and table.proofs["open"] > 0


@pytest.fixture(scope="module")
def keys(mcl):
    return {key: setup_insecure_seeded_for_tests(get_statement(key).build()[0], key, backend=mcl)
            for key in (PLAY_KEY, ABSORB_KEY)}


@pytest.mark.slow
def test_a_hand_with_real_proofs_on_mcl(mcl, keys):
    """Three seats, one hand: every play and every pick-up proven and verified; a proof
    checked against another line's public inputs fails."""
    made = []

    def prover(key, witness, public):
        proof = prove(keys[key], witness, backend=mcl)
        verify(keys[key].vk, public, proof, backend=mcl)
        made.append((key, public, proof))

    table = WitnessTable([HouseBot(random.Random(1)), RandomBot(random.Random(2)), RandomBot(random.Random(3))],
                         random.Random(11), prover)
    table.play_hand()
    assert {k for k, _, _ in made} == {PLAY_KEY, ABSORB_KEY}
    key, public, proof = next(m for m in made if m[0] == ABSORB_KEY)
    moved = list(public)
    moved[-1] += 1  # the same proof on another transcript line
    with pytest.raises(InvalidProof):
        verify(keys[key].vk, moved, proof, backend=mcl)


# ---------------------------------------------------------------- cheating seats

def test_a_seat_that_plays_a_card_it_gave_away():
    hand = SeatHand.of([1, 2, 3, 4], 10)
    _, after, _ = hand.play([2], 11, 12, 1)
    with pytest.raises(IllegalMove, match=r"\[2\] are not in this hand"):
        after.play([2], 13, 14, 2)
    # a seat that proves from its old hand is refused against the record
    stale, _, _ = hand.play([2], 13, 14, 2)
    with pytest.raises(UnsatisfiedConstraint, match="old_opens"):
        PLAY.build({**stale, "old_hand_commitment": after.commitment})


def test_a_seat_that_lies_about_its_pick_up():
    picker = SeatHand.of([0, 1], 5)
    plays = [PlayOpening(1 << 20, 7), PlayOpening((1 << 30) | (1 << 31), 8)]
    pile = [(o.commitment, bin(o.mask).count("1"), o) for o in plays]
    inputs, honest = picker.pick_up(pile, [9], [3])
    lie = SeatHand(honest.mask & ~(1 << 31), 9)  # publishes a new hand without card 31
    publics = absorb_chain_publics(picker.commitment, [lie.commitment], [c for c, _, _ in pile], [3])
    with pytest.raises(UnsatisfiedConstraint, match="new_opens"):
        ABSORB.build({**inputs[0], **dict(zip(ABSORB.public, publics[0]))})


def test_a_picker_who_claims_a_card_it_never_received():
    picker = SeatHand.of([0, 1], 5)
    real = PlayOpening(1 << 20, 7)
    with pytest.raises(CommitmentMismatch):  # "the pile's card was the Ace of spades"
        picker.pick_up([(real.commitment, 1, PlayOpening(1 << 51, 7))], [9], [3])
    inputs, _ = picker.pick_up([(real.commitment, 1, real)], [9], [3])
    forged = PlayOpening((1 << 20) | (1 << 51), 7)  # "the pile had the Ace of spades too"
    with pytest.raises(UnsatisfiedConstraint, match="play0_opens"):
        ABSORB.build({**inputs[0], "play0": forged.mask, "play0_commitment": real.commitment})


def test_a_seat_whose_opening_does_not_match_its_play():
    opening = PlayOpening((1 << 5) | (1 << 1), 99)  # a 7 and a 3
    assert opening.check(opening.commitment, 2) == (1, 5)
    with pytest.raises(CommitmentMismatch):
        PlayOpening((1 << 5) | (1 << 18), 99).check(opening.commitment, 2)  # "it was two sevens"
