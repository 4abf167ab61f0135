"""Bots for Proof or Bluff, seeing only their seat's observation (public state, own hand,
public history).

Classic house bot: plays every card of the required rank it holds (truth), bluffs with
the card least useful for its coming turns when it must, sometimes adds a bluff card;
it challenges a claim that is certainly false (its own cards plus the claim exceed four
of a rank), a last play that would otherwise end the match, and claims whose estimated
chance of being true (a hypergeometric estimate over the cards it cannot see) is low,
with a little seeded jitter so it is not predictable.

5 Up 2 Down house bot: claims its true matches, sometimes one more; challenges claims
whose named ranks are unlikely (or impossible) given the board and its own cards.
"""
from __future__ import annotations

import random
from math import comb
from typing import Optional

from zkbluff.games.proof_or_bluff.rules import MAX_PLAY


def _hypergeom_at_least(k: int, draws: int, good: int, total: int) -> float:
    """P(at least k good among `draws` cards drawn from `total` with `good` good ones)."""
    if k <= 0:
        return 1.0
    if good < k or draws < k or total <= 0:
        return 0.0
    draws = min(draws, total)
    denom = comb(total, draws)
    return sum(comb(good, i) * comb(total - good, draws - i) for i in range(k, min(good, draws) + 1)) / denom


class RandomBot:
    """Picks a uniformly random legal move (for plays: random cards)."""

    def __init__(self, seed: Optional[int] = None):
        self.rng = random.Random(seed)

    def act(self, obs: dict) -> tuple:
        legal = obs["legal"]
        if ("prove",) in legal:
            return ("prove",)
        choice = self.rng.choice(legal)
        if choice[0] == "play":
            return ("play", self.rng.sample(obs["hand"], choice[1]))
        return choice


class HouseBot:
    """The house's policy for both tables."""

    def __init__(self, seed: Optional[int] = None, boldness: float = 0.25):
        self.rng = random.Random(seed)
        self.boldness = boldness

    def act(self, obs: dict) -> tuple:
        legal = obs["legal"]
        if ("prove",) in legal:
            return ("prove",)
        if "board" in obs and obs.get("first_claimer") is not None:
            return self._five_up(obs, legal)
        if legal and legal[0][0] == "play":
            return self._classic_play(obs)
        return self._classic_respond(obs)

    # ------------------------------------------------------------ classic
    def _classic_play(self, obs: dict) -> tuple:
        hand, rank = list(obs["hand"]), obs["required_rank"]
        truthful = [c for c in hand if c % 13 == rank][:MAX_PLAY]
        others = [c for c in hand if c % 13 != rank]
        # my coming turns (if plays are accepted) need ranks rank+2, rank+4, ...
        upcoming = {(rank + 2 * i) % 13 for i in range(1, 4)}

        def usefulness(c: int) -> int:
            return 2 if c % 13 in upcoming else 0

        others.sort(key=lambda c: (usefulness(c), self.rng.random()))
        if truthful:
            play = list(truthful)
            room = MAX_PLAY - len(play)
            # going out: add the rest when it fits; else sometimes pad with one bluff card
            if len(hand) <= MAX_PLAY and self.rng.random() < 0.5:
                play = hand
            elif room and others and len(hand) > 3 and self.rng.random() < self.boldness:
                play.append(others[0])
            return ("play", play)
        n = 1
        if len(others) >= 4 and self.rng.random() < self.boldness:
            n = 2
        if len(hand) <= 2 and self.rng.random() < 0.4:
            n = len(hand)  # a bold try at going out
        return ("play", others[:n])

    def _classic_respond(self, obs: dict) -> tuple:
        seat = obs["seat"]
        claimant, count, rank = obs["claim"]
        mine = sum(1 for c in obs["hand"] if c % 13 == rank)
        if mine + count > 4:
            return ("challenge",)  # a sure lie
        their_left = obs["hand_sizes"][claimant]
        if their_left == 0:
            return ("challenge",)  # accepting hands them the match
        unseen = 52 - len(obs["hand"])
        their_before = their_left + count
        p_true = _hypergeom_at_least(count, their_before, 4 - mine, unseen)
        # a forced bluffer: with no way to know, discount claims of many cards
        p_true = p_true ** 0.7
        threshold = 0.42 + self.rng.uniform(-0.08, 0.08)
        if obs["scores"][seat] + 3 >= obs["target"] and p_true < 0.6:
            threshold += 0.1  # a catch would win the match
        return ("challenge",) if p_true < threshold else ("accept",)

    # ------------------------------------------------------------ 5 Up 2 Down
    def _five_up(self, obs: dict, legal: list) -> tuple:
        board = obs["board"]
        board_cards = [c for c in range(52) if board >> c & 1]
        hand = obs["hand"]
        if legal[0][0] == "claim":
            board_ranks = {c % 13 for c in board_cards}
            true_names = sorted(c % 13 for c in hand if c % 13 in board_ranks)
            names = list(true_names)
            if len(names) < 2 and self.rng.random() < self.boldness:
                extra = [r for r in sorted(board_ranks) if r not in names or len(names) == 0]
                if extra:
                    names.append(self.rng.choice(extra))
            return ("claim", tuple(sorted(names[:2])))
        claimant, names = obs["claim"]
        unseen = 52 - 5 - 2
        p_all = 1.0
        counts: dict[int, int] = {}
        for n in names:
            counts[n] = counts.get(n, 0) + 1
        for rank, k in counts.items():
            left = 4 - sum(1 for c in board_cards if c % 13 == rank) - sum(1 for c in hand if c % 13 == rank)
            p_all *= _hypergeom_at_least(k, 2, left, unseen)
        if p_all == 0.0:
            return ("challenge",)
        # EV of challenging vs accepting, from my side (their gain is my loss)
        one = len(names) == 1
        accept_ev = -(1 if one else 3)
        challenge_ev = p_all * -(2 if one else 4) + (1 - p_all) * (2 if one else 3)
        jitter = self.rng.uniform(-0.3, 0.3)
        return ("challenge",) if challenge_ev + jitter > accept_ev else ("accept",)
