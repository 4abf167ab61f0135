"""Liar's Dice bots: each sees only its seat's observation (its own dice, the public state)
and returns an intent. The house bot weighs each bid by the chance it is true given its own
dice (the others' dice binomial: a face shows with probability 1/6, or 1/3 with ones wild);
the random bot bids a random small raise or calls at random. Measured: NOTES.md."""
from __future__ import annotations

import random
from math import comb
from typing import Any, Optional

from zkbluff.games.liars_dice.moves import BidIntent, CountIntent, DudoIntent, Observation
from zkbluff.games.liars_dice.rules import FACES, Bid, Dudo, Phase, State


def chance_at_least(need: int, n: int, p: float) -> float:
    """P(X >= need) for X ~ Binomial(n, p)."""
    if need <= 0:
        return 1.0
    if need > n:
        return 0.0
    return sum(comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(need, n + 1))


def chance_true(state: State, dice: tuple[int, ...], quantity: int, face: int) -> float:
    """The chance a bid of ``quantity`` x ``face`` is true, seen from a seat holding ``dice``."""
    wild = state.wild and face != 1
    mine = sum(1 for d in dice if d == face or (wild and d == 1))
    unknown = state.in_play - len(dice)
    return chance_at_least(quantity - mine, unknown, (2 if wild else 1) / FACES)


class HouseBot:
    """Calls when the last bid is more likely false than the best raise is true; else makes
    the raise most likely true (the smallest such, a little noise among near-equals)."""

    def __init__(self, seed: Optional[int] = None):
        self.rng = random.Random(seed)

    def act(self, obs: Observation) -> Any:
        s = obs.state
        if s.phase is Phase.COUNT:
            return CountIntent()
        bids = [a for a in obs.legal if isinstance(a, Bid)]
        best, best_p = None, -1.0
        for b in bids[:4 * FACES]:  # the raises within four quantities
            p = chance_true(s, obs.dice, b.quantity, b.face) + self.rng.uniform(0, 0.03)
            if p > best_p:
                best, best_p = b, p
        if s.bid is not None and any(isinstance(a, Dudo) for a in obs.legal):
            doubt = 1.0 - chance_true(s, obs.dice, s.bid[0], s.bid[1])
            if best is None or doubt > best_p:
                return DudoIntent()
        assert best is not None
        return BidIntent(best.quantity, best.face)


class RandomBot:
    """A random legal action: a call one time in three when it may, else one of the next
    twelve raises."""

    def __init__(self, seed: Optional[int] = None):
        self.rng = random.Random(seed)

    def act(self, obs: Observation) -> Any:
        if obs.state.phase is Phase.COUNT:
            return CountIntent()
        bids = [a for a in obs.legal if isinstance(a, Bid)]
        if any(isinstance(a, Dudo) for a in obs.legal) and (not bids or self.rng.random() < 1 / 3):
            return DudoIntent()
        b = self.rng.choice(bids[:12])
        return BidIntent(b.quantity, b.face)
