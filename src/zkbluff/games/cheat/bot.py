"""Cheat players that see only what their seat may see, and a pure-rules arena.

A policy gets the public state, its own hand (card ids) and the public events; it
never sees another seat's cards. :class:`HouseBot` keeps, for every card it has seen
(its own, the ones it played, the ones turned over), the places it may be now; that is
enough to know a claim is a sure lie (its own cards plus what it knows is elsewhere plus
the claim make more than four of a rank: seed 004's first tip), to estimate how likely a
claim is, and to call more on last cards (the third tip). :class:`RandomBot` picks
uniformly among the legal choices.

:func:`play_table` runs a table on the rules alone (no commitments, no proofs: the
arena holds every hand and turns plays over itself), for measuring policies only.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from math import comb
from typing import Optional, Protocol, Sequence, Union

from zkbluff.games.cheat.rules import (
    DECK, MAX_PLAY, PER_RANK, Call, CheatRules, CheatState, CloseWindow, Deal, Pass, Phase, PickUp,
    Play, Reveal, check_conservation, deal_sizes, rank_of,
)
from zkbluff.games.engine.rules import NO_SEAT, Action, Result

PILE, ASIDE = "pile", "aside"
Place = Union[int, str]  # a seat, or PILE / ASIDE


class Policy(Protocol):
    def new_hand(self, seat: int, hand: frozenset[int], state: CheatState) -> None: ...

    def choose_play(self, state: CheatState, hand: frozenset[int],
                    legal: Sequence[Action]) -> tuple[Action, tuple[int, ...]]:
        """One of ``legal`` (the rules' list): a :class:`Play` with the cards it puts
        down, or ``(Pass(), ())``."""

    def wants_call(self, state: CheatState, hand: frozenset[int]) -> bool: ...

    def observe(self, seat: Optional[int], action: Action, before: CheatState, after: CheatState,
                hand: frozenset[int]) -> None:
        """Every public event, with this seat's hand after it."""


class RandomBot:
    """Uniform over the legal choices: a play or pass among ``legal_actions`` (the cards
    uniformly from the hand), and call or not with even odds in every window."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def new_hand(self, seat: int, hand: frozenset[int], state: CheatState) -> None:
        self.seat = seat

    def choose_play(self, state: CheatState, hand: frozenset[int],
                    legal: Sequence[Action]) -> tuple[Action, tuple[int, ...]]:
        a = self.rng.choice(list(legal))
        if isinstance(a, Play):
            return a, tuple(self.rng.sample(sorted(hand), a.count))
        return a, ()

    def wants_call(self, state: CheatState, hand: frozenset[int]) -> bool:
        return self.rng.random() < 0.5

    def observe(self, seat: Optional[int], action: Action, before: CheatState, after: CheatState,
                hand: frozenset[int]) -> None:
        return None


@dataclass
class HouseBot:
    """The house's Cheat player (not tuned: its few numbers are round guesses).

    Plays: opens with the rank it holds most of and plays those cards, truthfully; follows
    with its cards of the round's rank when it has any; otherwise bluffs one card (from
    its scarcest rank) when the pile is small, else passes. Never bluffs its last card.
    Calls: a sure lie always; last cards unless the claim is very likely true; an opening
    (whose rank the opener chose) never otherwise; a follower's claim when it is unlikely
    and the pile is small."""

    rng: random.Random
    seat: int = 0
    where: dict[int, set[Place]] = field(default_factory=dict)
    _played: tuple[int, ...] = ()

    # ---- knowledge
    def new_hand(self, seat: int, hand: frozenset[int], state: CheatState) -> None:
        self.seat = seat
        self.where = {c: {seat} for c in hand}

    def observe(self, seat: Optional[int], action: Action, before: CheatState, after: CheatState,
                hand: frozenset[int]) -> None:
        if isinstance(action, Play):
            if seat == self.seat:
                for c in self._played:
                    self.where[c] = {PILE}
            else:
                for places in self.where.values():
                    if seat in places:
                        places.add(PILE)
        elif isinstance(action, Reveal):
            for c in action.cards:
                self.where[c] = {PILE}
        elif isinstance(action, PickUp):
            assert seat is not None  # a pick-up is a seat's
            for places in self.where.values():
                if PILE in places:
                    places.discard(PILE)
                    places.add(seat)
        elif isinstance(action, Pass) and after.set_aside > before.set_aside:
            for places in self.where.values():
                if PILE in places:
                    places.discard(PILE)
                    places.add(ASIDE)
        for c in hand:  # what it holds it knows exactly
            self.where[c] = {self.seat}
        for c, places in self.where.items():
            if self.seat in places and c not in hand:
                places.discard(self.seat)

    def known_elsewhere(self, claimant: int, rank: Optional[int] = None) -> int:
        """Cards (of ``rank``, or any) that cannot be in ``claimant``'s last play."""
        return sum(1 for c, places in self.where.items()
                   if claimant not in places and (rank is None or rank_of(c) == rank))

    def truth_chance(self, state: CheatState) -> float:
        """How likely the last play is true: 0 for a sure lie, else the chance that a hand
        of the claimant's size, drawn from the cards it may hold, has ``count`` of the rank."""
        claimant, count = state.pile[-1]
        rank = state.rank
        assert rank is not None
        possible = PER_RANK[rank] - self.known_elsewhere(claimant, rank)
        if count > possible:
            return 0.0
        exact = [next(iter(places)) for places in self.where.values() if len(places) == 1]
        unknown_aside = state.set_aside - exact.count(ASIDE)
        unknown_earlier = state.pile_size - count - exact.count(PILE)  # earlier plays of the round
        pool = DECK.size - self.known_elsewhere(claimant) - max(0, unknown_aside) - max(0, unknown_earlier)
        possible = min(possible, pool)  # unknown aside or earlier-pile cards may be of the rank too
        held = state.hand_sizes[claimant] + count
        if held > pool:
            return 1.0
        total = comb(pool, held)
        return sum(comb(possible, i) * comb(pool - possible, held - i)
                   for i in range(count, min(possible, held) + 1)) / total

    # ---- decisions
    def wants_call(self, state: CheatState, hand: frozenset[int]) -> bool:
        chance = self.truth_chance(state)
        if chance == 0.0:
            return True
        claimant = state.pile[-1][0]
        if state.hand_sizes[claimant] == 0:
            return chance < 0.9
        if len(state.pile) == 1:  # the opener chose the rank: the chance above undersells it
            return False
        return chance < 0.25 and state.pile_size <= 8

    def choose_play(self, state: CheatState, hand: frozenset[int],
                    legal: Sequence[Action]) -> tuple[Action, tuple[int, ...]]:
        by_rank: dict[int, list[int]] = {}
        for c in sorted(hand):
            by_rank.setdefault(rank_of(c), []).append(c)
        if state.rank is None:
            rank = max(by_rank, key=lambda r: (len(by_rank[r]), -r))
            cards = tuple(by_rank[rank][:MAX_PLAY])
            return self._play(rank, cards)
        mine = by_rank.get(state.rank, [])
        if mine:
            return self._play(state.rank, tuple(mine[:MAX_PLAY]))
        if len(hand) > 1 and state.pile_size <= 6 and self.rng.random() < 0.5:
            scarce = min(by_rank, key=lambda r: (len(by_rank[r]), r))
            return self._play(state.rank, (by_rank[scarce][0],))
        return Pass(), ()

    def _play(self, rank: int, cards: tuple[int, ...]) -> tuple[Action, tuple[int, ...]]:
        self._played = cards
        return Play(rank, len(cards)), cards


# ---------------------------------------------------------------- the arena

class ArenaError(RuntimeError):
    """A table that broke an invariant or ran past its step limit (a bug, not a move)."""


@dataclass
class TableRun:
    result: Result
    hand_penalties: tuple[tuple[int, ...], ...]
    events: int


def play_table(policies: Sequence[Policy], hands: int, rng: random.Random, first_dealer: int = 0,
               max_events_per_hand: int = 20_000, check: bool = True) -> TableRun:
    """One table to the end on the rules alone. The arena deals from ``rng``, keeps every
    hand, asks the policies, turns called plays over and moves the cards; with ``check``
    it checks :func:`check_conservation` and that the cards it holds match the public
    counts after every event."""
    n = len(policies)
    rules = CheatRules(n, hands=hands, first_dealer=first_dealer)
    held: list[set[int]] = [set() for _ in range(n)]
    plays: list[tuple[int, ...]] = []  # the cards of the pile's plays
    aside: set[int] = set()
    events = 0

    def act(seat: Optional[int], action: Action) -> None:
        nonlocal events
        before = rules.public_state()
        rules.apply(seat, action)
        after = rules.public_state()
        events += 1
        if isinstance(action, Pass) and after.set_aside > before.set_aside:
            for p in plays:
                aside.update(p)
            plays.clear()
        for i, pol in enumerate(policies):
            pol.observe(seat, action, before, after, frozenset(held[i]))
        if check:
            check_conservation(after)
            if after.in_hand or after.phase == Phase.DEAL and after.hand_no:
                if [len(h) for h in held] != list(after.hand_sizes) or \
                        sum(map(len, plays)) != after.pile_size or len(aside) != after.set_aside:
                    raise ArenaError(f"cards held {[len(h) for h in held]} do not match the public counts {after}")
                every = set().union(*held, aside, *map(set, plays))
                if len(every) != DECK.size:
                    raise ArenaError("the hands, the pile and the set-aside cards are not the deck")

    while not rules.over:
        s = rules.public_state()
        if s.phase == Phase.DEAL:
            deck = list(range(DECK.size))
            rng.shuffle(deck)
            sizes = deal_sizes(n, s.dealer)
            start = 0
            for i in range(n):
                held[i] = set(deck[start:start + sizes[i]])
                start += sizes[i]
            plays.clear()
            aside.clear()
            hand_start = events
            act(NO_SEAT, Deal(sizes))
            for i, pol in enumerate(policies):
                pol.new_hand(i, frozenset(held[i]), rules.public_state())
        elif s.phase == Phase.PLAY:
            seat = s.to_move
            assert seat is not None
            action, cards = policies[seat].choose_play(s, frozenset(held[seat]), rules.legal_actions(seat))
            if isinstance(action, Play):
                if len(cards) != action.count or not set(cards) <= held[seat]:
                    raise ArenaError(f"seat {seat} played cards it does not hold: {cards}")
                held[seat] -= set(cards)
                plays.append(tuple(cards))
            act(seat, action)
        elif s.phase == Phase.WINDOW:
            others = [i for i in range(n) if i != s.pile[-1][0]]
            rng.shuffle(others)  # who is quickest
            caller = next((i for i in others if policies[i].wants_call(s, frozenset(held[i]))), None)
            if caller is not None:
                act(caller, Call(s.play_no))
            else:
                act(NO_SEAT, CloseWindow(s.play_no))
        elif s.phase == Phase.TURNOVER:
            act(s.to_move, Reveal(plays[-1]))
        elif s.phase == Phase.PICKUP:
            picker = s.to_move
            assert picker is not None
            for p in plays:
                held[picker].update(p)
            plays.clear()
            act(picker, PickUp(s.pile_size))
        if events - hand_start > max_events_per_hand:
            raise ArenaError(f"a hand ran past {max_events_per_hand} events")
    result = rules.result()
    assert result is not None
    return TableRun(result, tuple(rules.hand_penalties), events)


@dataclass(frozen=True)
class ArenaReport:
    n_seats: int
    hands: int
    house_vs_random: float  # the house bot's mean penalty per hand, the others random
    random_vs_house: float  # the random players' mean penalty per hand at those tables
    house_vs_house: float  # mean penalty per seat per hand, every seat a house bot


def arena(n_seats: int, hands: int = 100, seed: int = 0, hands_per_table: int = 5) -> ArenaReport:
    """The house bot's mean penalty per hand over ``hands`` hands against random players
    (one house bot, its seat rotating) and against itself."""
    rng = random.Random(seed)
    tables = max(1, hands // hands_per_table)
    house: list[int] = []
    rand: list[int] = []
    self_play: list[int] = []
    for t in range(tables):
        home = t % n_seats
        pols: list[Policy] = [HouseBot(random.Random(rng.random())) if i == home else RandomBot(random.Random(rng.random()))
                              for i in range(n_seats)]
        run = play_table(pols, hands_per_table, rng, first_dealer=t % n_seats)
        for hp in run.hand_penalties:
            house.append(hp[home])
            rand.extend(p for i, p in enumerate(hp) if i != home)
        pols = [HouseBot(random.Random(rng.random())) for _ in range(n_seats)]
        run = play_table(pols, hands_per_table, rng, first_dealer=t % n_seats)
        for hp in run.hand_penalties:
            self_play.extend(hp)

    def mean(xs: list[int]) -> float:
        return sum(xs) / len(xs)
    return ArenaReport(n_seats, tables * hands_per_table, mean(house), mean(rand), mean(self_play))


if __name__ == "__main__":  # python -m zkbluff.games.cheat.bot
    for n in range(3, 7):
        rep = arena(n, 100, seed=2026)
        print(f"{n} seats, {rep.hands} hands: house vs random {rep.house_vs_random:.2f} "
              f"(random players {rep.random_vs_house:.2f}); house vs house {rep.house_vs_house:.2f}")
