"""The Cheat policies of :mod:`zkbluff.games.cheat.bot` as engine bots: ``act(observation)``
returns an intent, or ``None`` when the bot lets a calling window pass. A bot follows the
public events in its observation (and nothing else) to keep its knowledge current."""
from __future__ import annotations

import random
from typing import Any, Optional

from zkbluff.games.cheat.bot import HouseBot, Policy, RandomBot
from zkbluff.games.cheat.match import Stage
from zkbluff.games.cheat.moves import CallBluff, CheatObservation, PassTurn, PlayCards, Proceed
from zkbluff.games.cheat.rules import Deal, Phase, Play


class _EngineBot:
    policy: Policy

    def __init__(self, seed: Any = None):
        self.rng = random.Random(seed)
        self.policy = self._policy()
        self.seen = 0

    def _policy(self) -> Policy:
        raise NotImplementedError

    def _follow(self, obs: CheatObservation) -> None:
        hand = frozenset(obs.hand)
        for seat, action, before, after in obs.history[self.seen:]:
            if isinstance(action, Deal):
                self.policy.new_hand(obs.seat, hand, after)
            else:
                self.policy.observe(seat, action, before, after, hand)
        self.seen = len(obs.history)

    def act(self, obs: CheatObservation) -> Optional[Any]:
        self._follow(obs)
        t, s = obs.table, obs.state
        if t.to_move == obs.seat and (t.stage != Stage.RULES or s.phase in (Phase.TURNOVER, Phase.PICKUP)):
            return Proceed()
        hand = frozenset(obs.hand)
        if s.phase == Phase.WINDOW:
            if s.pile and s.pile[-1][0] != obs.seat and self.policy.wants_call(s, hand):
                return CallBluff(s.play_no)
            return None
        if s.phase == Phase.PLAY and t.to_move == obs.seat:
            action, cards = self.policy.choose_play(s, hand, list(obs.legal))
            if isinstance(action, Play):
                return PlayCards(action.rank, tuple(cards))
            return PassTurn()
        return None


class CheatEngineBot(_EngineBot):
    """The house bot (:class:`~zkbluff.games.cheat.bot.HouseBot`)."""

    def _policy(self) -> Policy:
        return HouseBot(self.rng)


class RandomEngineBot(_EngineBot):
    """Uniform over the legal choices (:class:`~zkbluff.games.cheat.bot.RandomBot`)."""

    def _policy(self) -> Policy:
        return RandomBot(self.rng)
