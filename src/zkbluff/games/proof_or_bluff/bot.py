"""House bots for Proof or Bluff, one per table, seeing only their seat's observation
(public state, own hand, legal actions). Randomness is an injected, seeded generator, so
a match replays exactly.

Classic house bot: plays every card of the required rank it holds (truth), bluffs with
the card least useful for its coming turns when it must, sometimes adds a bluff card;
it challenges a claim that is certainly false (its own cards plus the claim exceed the
rank's cards), a last play that would otherwise end the match, and claims whose
estimated chance of being true (a hypergeometric estimate over the cards it cannot see)
is low, with a little seeded jitter so it is not predictable.

5 Up 2 Down house bot: claims its true matches, sometimes one more. It always challenges
a claim that is impossible given the board and its own cards; otherwise it weighs the
chance that the named ranks are in the claimer's two cards *given that they chose to
claim them* (a Bayes step with the claimer's bluff rate, estimated from the challenges it
has seen settled) and challenges with a probability that grows with the expected gain of
challenging over accepting, so a plausible claim is sometimes let through.
"""
from __future__ import annotations

import random
from math import comb, exp
from typing import Optional

from zkbluff.games.proof_or_bluff.moves import (
    ClassicIntent, ClassicObservation, FiveUpIntent, FiveUpObservation, PlayCards, ProveClaim,
)
from zkbluff.games.proof_or_bluff.rules import (
    DECK, FIVE_UP_BOARD, FIVE_UP_HAND, MAX_NAMES, MAX_PLAY, N_RANKS, PROVE, Accept, Challenge, Claim, Play,
    board_ranks,
)

PER_RANK = DECK.size // N_RANKS  # cards of one rank (four suits)


def _hypergeom_at_least(k: int, draws: int, good: int, total: int) -> float:
    """P(at least k good among `draws` cards drawn from `total` with `good` good ones)."""
    if k <= 0:
        return 1.0
    if good < k or draws < k or total <= 0:
        return 0.0
    draws = min(draws, total)
    denom = comb(total, draws)
    return sum(comb(good, i) * comb(total - good, draws - i) for i in range(k, min(good, draws) + 1)) / denom


class ClassicRandomBot:
    """Picks a uniformly random legal move (for plays: random cards)."""

    def __init__(self, seed: Optional[int] = None):
        self.rng = random.Random(seed)

    def act(self, obs: ClassicObservation) -> ClassicIntent:
        if obs.state.phase == PROVE:
            return ProveClaim()
        choice = self.rng.choice(obs.legal)
        if isinstance(choice, Play):
            return PlayCards(tuple(self.rng.sample(obs.hand, choice.count)))
        assert isinstance(choice, (Accept, Challenge))
        return choice


class FiveUpRandomBot:
    def __init__(self, seed: Optional[int] = None):
        self.rng = random.Random(seed)

    def act(self, obs: FiveUpObservation) -> FiveUpIntent:
        if obs.state.phase == PROVE:
            return ProveClaim()
        choice = self.rng.choice(obs.legal)
        assert isinstance(choice, (Claim, Accept, Challenge))
        return choice


class ClassicHouseBot:
    """The house's policy at the classic table."""

    def __init__(self, seed: Optional[int] = None, boldness: float = 0.25):
        self.rng = random.Random(seed)
        self.boldness = boldness

    def act(self, obs: ClassicObservation) -> ClassicIntent:
        if obs.state.phase == PROVE:
            return ProveClaim()
        if obs.legal and isinstance(obs.legal[0], Play):
            return self._play(obs)
        return self._respond(obs)

    def _play(self, obs: ClassicObservation) -> PlayCards:
        hand, rank = list(obs.hand), obs.state.required_rank
        truthful = [c for c in hand if DECK.rank_of(c) == rank][:MAX_PLAY]
        others = [c for c in hand if DECK.rank_of(c) != rank]
        # my coming turns (if plays are accepted) need ranks rank+2, rank+4, ...
        upcoming = {(rank + 2 * i) % N_RANKS for i in range(1, 4)}

        def usefulness(c: int) -> int:
            return 2 if DECK.rank_of(c) in upcoming else 0

        others.sort(key=lambda c: (usefulness(c), self.rng.random()))
        if truthful:
            play = list(truthful)
            room = MAX_PLAY - len(play)
            # going out: add the rest when it fits; else sometimes pad with one bluff card
            if len(hand) <= MAX_PLAY and self.rng.random() < 0.5:
                play = hand
            elif room and others and len(hand) > 3 and self.rng.random() < self.boldness:
                play.append(others[0])
            return PlayCards(tuple(play))
        n = 1
        if len(others) >= 4 and self.rng.random() < self.boldness:
            n = 2
        if len(hand) <= 2 and self.rng.random() < 0.4:
            n = len(hand)  # a bold try at going out
        return PlayCards(tuple(others[:n]))

    def _respond(self, obs: ClassicObservation) -> ClassicIntent:
        s = obs.state
        assert s.claim is not None
        claimant, count, rank = s.claim
        mine = sum(1 for c in obs.hand if DECK.rank_of(c) == rank)
        if mine + count > PER_RANK:
            return Challenge()  # a sure lie
        their_left = s.hand_sizes[claimant]
        if their_left == 0:
            return Challenge()  # accepting hands them the match
        unseen = DECK.size - len(obs.hand)
        their_before = their_left + count
        p_true = _hypergeom_at_least(count, their_before, PER_RANK - mine, unseen)
        # a forced bluffer: with no way to know, discount claims of many cards
        p_true = p_true ** 0.7
        threshold = 0.42 + self.rng.uniform(-0.08, 0.08)
        if s.scores[obs.seat] + 3 >= s.target and p_true < 0.6:
            threshold += 0.1  # a catch would win the match
        return Challenge() if p_true < threshold else Accept()


class FiveUpHouseBot:
    """The house's policy at 5 Up 2 Down."""

    def __init__(self, seed: Optional[int] = None, boldness: float = 0.25, temperature: float = 1.5):
        self.rng = random.Random(seed)
        self.boldness = boldness
        self.temperature = temperature
        self.lies_seen = 0  # challenges of mine settled with a lie
        self.truths_seen = 0  # ... and with a true claim
        self._pending: Optional[tuple[int, int]] = None  # (my seat, their score) when I challenged

    def bluff_rate(self) -> float:
        """The claimer's estimated bluff rate (a Beta(1, 2) prior updated by what was seen)."""
        return (self.lies_seen + 1) / (self.lies_seen + self.truths_seen + 3)

    def _learn(self, obs: FiveUpObservation) -> None:
        """The first observation after a challenge of mine shows how it was settled: the
        claimer's score went up only if the claim was true."""
        if self._pending is None or obs.state.phase == PROVE:
            return
        seat, their_before = self._pending
        if obs.state.scores[1 - seat] > their_before:
            self.truths_seen += 1
        else:
            self.lies_seen += 1
        self._pending = None

    def act(self, obs: FiveUpObservation) -> FiveUpIntent:
        s = obs.state
        if s.phase == PROVE:
            return ProveClaim()
        self._learn(obs)
        board_cards = DECK.cards(s.board)
        hand = obs.hand
        if obs.legal and isinstance(obs.legal[0], Claim):
            ranks = board_ranks(s.board)
            names = sorted(DECK.rank_of(c) for c in hand if DECK.rank_of(c) in ranks)
            if len(names) < MAX_NAMES and self.rng.random() < self.boldness:
                extra = [r for r in sorted(ranks) if r not in names or len(names) == 0]
                if extra:
                    names.append(self.rng.choice(extra))
            return Claim(tuple(sorted(names[:MAX_NAMES])))
        assert s.claim is not None
        _, named = s.claim
        unseen = DECK.size - FIVE_UP_BOARD - FIVE_UP_HAND
        p_all = 1.0
        counts: dict[int, int] = {}
        for n in named:
            counts[n] = counts.get(n, 0) + 1
        for rank, k in counts.items():
            left = PER_RANK - sum(1 for c in board_cards if DECK.rank_of(c) == rank) \
                - sum(1 for c in hand if DECK.rank_of(c) == rank)
            p_all *= _hypergeom_at_least(k, FIVE_UP_HAND, left, unseen)
        if p_all == 0.0:
            return self._challenge(obs)  # impossible from what I hold and see
        # they chose to claim: an honest player claims what they hold, a bluffer at rate b
        b = self.bluff_rate()
        p_true = p_all / (p_all + b * (1 - p_all))
        # expected score difference (mine minus theirs) of each answer
        one = len(named) == 1
        accept_ev = -(1 if one else 3)
        challenge_ev = p_true * -(2 if one else 4) + (1 - p_true) * 2 * len(named)
        gain = (challenge_ev - accept_ev) / self.temperature
        p_challenge = 1 / (1 + exp(-gain))
        return self._challenge(obs) if self.rng.random() < p_challenge else Accept()

    def _challenge(self, obs: FiveUpObservation) -> Challenge:
        self._pending = (obs.seat, obs.state.scores[1 - obs.seat])
        return Challenge()
