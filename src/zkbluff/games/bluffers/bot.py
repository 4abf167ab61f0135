"""Bluffers bots and a pure-rules arena.

A bot sees what its seat may see: the public :class:`Snapshot`, its own hand (card ids)
and the public events so far. :class:`HouseBot` knows that jokers count as the table card,
counts the cards it has seen this round (its hand, its own plays, the claims of others),
and weighs its own revolver's risk (``1 / chambers left``) before calling.
:class:`RandomBot` picks uniformly among the legal moves.

The arena (:func:`play_match`, :func:`arena`) plays whole matches on the rules alone: an
omniscient dealer holds the cards, and the pull shares are random numbers (the same
distribution as the proven shares). It is for measuring policies and for the rules tests,
never a stand-in for the prover.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from math import comb
from typing import Callable, Optional, Protocol

from zkbluff.games.bluffers.rules import (
    CHAMBERS, DECK, HAND_SIZE, JOKERS, MAX_PLAY, POINTS, TABLE_CARDS, AutoMove,
    BluffersRules, CallBluff, CommitSeed, Deal, Phase, Play, Reveal, Share, Snapshot, check_invariants,
    counts_as_table_card,
)
from zkbluff.games.engine.rules import NO_SEAT, Action

MATCHING_IN_DECK = 6 + len(JOKERS)  # each table card: 6 of its rank and the 2 jokers


@dataclass(frozen=True)
class Decision:
    """A bot's move on its turn: play these cards (ids from its hand) or call bluff."""
    call: bool
    cards: tuple[int, ...] = ()


@dataclass(frozen=True)
class View:
    """What a seat knows when it moves."""
    seat: int
    public: Snapshot
    hand: tuple[int, ...]
    played_this_round: tuple[int, ...]         # its own face-down cards this round
    claims_this_round: tuple[tuple[int, int], ...]  # (seat, count) of every play this round, in order


class Policy(Protocol):
    name: str

    def decide(self, view: View, legal: list[Action], rng: random.Random) -> Decision: ...


class RandomBot:
    """Uniform over the legal moves; the cards of a play uniform over the hand."""
    name = "random"

    def decide(self, view: View, legal: list[Action], rng: random.Random) -> Decision:
        move = rng.choice(legal)
        if isinstance(move, CallBluff):
            return Decision(True)
        assert isinstance(move, Play)
        return Decision(False, tuple(rng.sample(view.hand, move.count)))


def _hypergeom_at_least(total: int, good: int, drawn: int, k: int) -> float:
    """P(at least k good among ``drawn`` drawn without replacement from ``total`` with ``good``)."""
    if drawn > total or total <= 0:
        return 0.0
    den = comb(total, drawn)
    return sum(comb(good, i) * comb(total - good, drawn - i) for i in range(k, min(good, drawn) + 1)) / den


class HouseBot:
    """The house policy. On its turn, with table card ``t``:

    - forced (the only player with cards): call;
    - estimate ``p_lie`` for the last play of ``c`` cards by seat X: the matching cards it
      cannot see are ``8 - (its own matching cards, in hand and played)``; the cards it
      cannot see are ``20 - (hand + its plays)``. If the claims of others this round exceed
      the unseen matching cards, the play is surely a lie; otherwise ``p_lie = 1 - P(X
      held >= c matching)`` (hypergeometric over X's hand before the play, less what the
      earlier accepted claims of others took);
    - its own risk is ``1 / (6 - chamber)``, the caller's stake if the play was true; the
      liar's risk is the stake if it was a lie. With a truthful play available it calls
      when ``p_lie * their_risk > (1 - p_lie) * my_risk * caution``; with only a bluff
      available, a bluff is caught about ``CAUGHT`` of the time, so it calls when
      ``(1 - p_lie) * my_risk < CAUGHT * my_risk``, i.e. ``p_lie > 1 - CAUGHT``;
    - plays up to 3 matching cards (jokers count, played after the real ones) when it has
      them; else bluffs with a single card.
    """
    name = "house"
    CAUGHT = 0.45
    CAUTION = 1.3

    def p_lie(self, view: View) -> float:
        s = view.public
        assert s.last_play is not None and s.table_card is not None
        t = s.table_card
        mine = view.hand + view.played_this_round
        my_matching = sum(counts_as_table_card(c, t) for c in mine)
        unseen = DECK.size - len(mine)
        unseen_matching = MATCHING_IN_DECK - my_matching
        claims = [(seat, k) for seat, k in view.claims_this_round if seat != view.seat]
        claimed = sum(k for _, k in claims)
        if claimed > unseen_matching:
            return 1.0
        x, c = s.last_play.seat, s.last_play.count
        earlier_by_x = sum(k for seat, k in claims[:-1] if seat == x)
        held_before = s.hand_sizes[x] + c
        # other players' earlier claims, believed at half weight, took matching cards away
        taken = sum(k for seat, k in claims[:-1] if seat != x) // 2
        good = max(0, unseen_matching - taken - earlier_by_x)
        total = max(held_before, unseen - sum(k for _, k in claims[:-1]))
        return 1.0 - _hypergeom_at_least(total, min(good, total), held_before, c)

    def decide(self, view: View, legal: list[Action], rng: random.Random) -> Decision:
        s = view.public
        t = s.table_card
        assert t is not None
        can_call = any(isinstance(a, CallBluff) for a in legal)
        can_play = any(isinstance(a, Play) for a in legal)
        if not can_play:
            return Decision(True)
        matching = [c for c in view.hand if counts_as_table_card(c, t)]
        if can_call:
            p = self.p_lie(view)
            my_risk = 1 / (CHAMBERS - s.chambers[view.seat])
            assert s.last_play is not None
            their_risk = 1 / (CHAMBERS - s.chambers[s.last_play.seat])
            if p >= 0.999:
                return Decision(True)
            if matching:
                if p * their_risk > (1 - p) * my_risk * self.CAUTION:
                    return Decision(True)
            elif p > 1 - self.CAUGHT:
                return Decision(True)
        if matching:
            matching.sort(key=lambda c: (c in JOKERS, c))
            return Decision(False, tuple(matching[:MAX_PLAY]))
        return Decision(False, (rng.choice(view.hand),))


# ---------------------------------------------------------------- arena

@dataclass
class MatchLog:
    """What a match left behind: the result and every (seat, action) applied."""
    places: tuple[int, ...]
    scores: tuple[int, ...]
    events: list[tuple[Optional[int], Action]] = field(default_factory=list)
    rounds: int = 0


class Dealer:
    """The arena's omniscient dealer: holds every hand and the face-down plays, deals from
    a seeded generator, opens called plays, picks timeout cards and draws pull shares."""

    def __init__(self, rules: BluffersRules, rng: random.Random):
        self.rules, self.rng = rules, rng
        n = rules.n_seats
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.played: list[list[int]] = [[] for _ in range(n)]
        self.plays: list[tuple[int, tuple[int, ...]]] = []  # this round
        self.undealt: list[int] = list(range(DECK.size))

    def deal(self) -> Deal:
        deck = list(range(DECK.size))
        self.rng.shuffle(deck)
        n = self.rules.n_seats
        alive = self.rules.public_state().alive
        self.hands = [[] for _ in range(n)]
        self.played = [[] for _ in range(n)]
        self.plays = []
        for i in range(n):
            if alive[i]:
                self.hands[i], deck = sorted(deck[:HAND_SIZE]), deck[HAND_SIZE:]
        self.undealt = deck
        return Deal(self.rng.choice(TABLE_CARDS))

    def record_play(self, seat: int, cards: tuple[int, ...]) -> None:
        for c in cards:
            self.hands[seat].remove(c)
        self.played[seat] += cards
        self.plays.append((seat, cards))

    def check_cards(self) -> None:
        """No card in two places; the 20 conserved; public hand sizes and pile agree."""
        snap = self.rules.public_state()
        if snap.phase not in (Phase.TURN, Phase.REVEAL, Phase.PULL):
            return
        places = [c for h in self.hands for c in h] + [c for _, p in self.plays for c in p] + self.undealt
        assert sorted(places) == list(range(DECK.size)), "a card is in two places or missing"
        assert [len(h) for h in self.hands] == list(snap.hand_sizes)
        assert sum(len(p) for _, p in self.plays) == snap.pile
        assert len(self.undealt) == snap.undealt


def view_of(rules: BluffersRules, dealer: Dealer, seat: int) -> View:
    return View(seat, rules.public_state(), tuple(dealer.hands[seat]), tuple(dealer.played[seat]),
                tuple((s, len(p)) for s, p in dealer.plays))


def play_match(policies: list[Policy], rng: random.Random, *,
               on_event: Optional[Callable[[BluffersRules, Dealer], None]] = None,
               share: Optional[Callable[[int, int, int], int]] = None,
               timeout_rate: float = 0.0, drop_rate: float = 0.0, leave_rate: float = 0.0) -> MatchLog:
    """Play one match to the end. ``share(seat, revolver, pull)`` gives each pull share
    (default: random 253-bit numbers). ``timeout_rate``/``drop_rate``/``leave_rate`` inject
    clock timeouts, disconnects (with later reconnects) and Leave Table. ``on_event`` runs
    after every applied action (the tests check invariants there)."""
    from zkbluff.games.bluffers.rules import Disconnect, LeaveTable, Reconnect

    n = len(policies)
    rules = BluffersRules(n)
    dealer = Dealer(rules, rng)
    log = MatchLog((), ())

    def apply(seat: Optional[int], action: Action, cards: tuple[int, ...] = ()) -> None:
        rules.apply(seat, action)
        if cards:
            dealer.record_play(seat, cards)  # type: ignore[arg-type]
        log.events.append((seat, action))
        if on_event:
            on_event(rules, dealer)

    for seat in range(n):
        apply(seat, CommitSeed(rng.getrandbits(253)))
    steps = 0
    while not rules.over:
        steps += 1
        assert steps < 10_000, "the match does not end"
        snap = rules.public_state()
        # the connection layer: drops, rejoins and leaves happen between moves
        if drop_rate and rng.random() < drop_rate:
            i = rng.randrange(n)
            if not snap.left[i]:
                apply(NO_SEAT, Reconnect(i) if snap.dropped[i] else Disconnect(i))
                continue
        if leave_rate and rng.random() < leave_rate:
            i = rng.randrange(n)
            if not snap.left[i]:
                apply(i, LeaveTable())
                continue
        if snap.phase == Phase.DEAL:
            apply(NO_SEAT, dealer.deal())
            log.rounds += 1
        elif snap.phase == Phase.TURN:
            seat = _to_move(snap)
            assert seat is not None
            auto = rules.plays_automatically(seat)
            if auto or (timeout_rate and rng.random() < timeout_rate):
                action = AutoMove("dropped" if auto else "timeout")
                # the seat's own randomness picks one card, unless the move is the forced call
                picked = () if rules.must_call(seat) else (rng.choice(dealer.hands[seat]),)
                apply(seat, action, picked)
                continue
            decision = policies[seat].decide(view_of(rules, dealer, seat), rules.legal_actions(seat), rng)
            if decision.call:
                apply(seat, CallBluff())
            else:
                apply(seat, Play(len(decision.cards)), decision.cards)
        elif snap.phase == Phase.REVEAL:
            seat = _to_move(snap)
            last = dealer.plays[-1]
            assert last[0] == seat
            apply(seat, Reveal(tuple(last[1])))
        elif snap.phase == Phase.PULL:
            seat = _to_move(snap)
            assert snap.share_slot is not None and seat is not None
            value = share(seat, *snap.share_slot) if share else rng.getrandbits(253)
            apply(seat, Share(value))
        else:  # pragma: no cover
            raise AssertionError(f"unexpected phase {snap.phase}")
    result = rules.result()
    assert result is not None
    log.places, log.scores = result.placements, result.scores
    return log


@dataclass
class ArenaReport:
    n_seats: int
    matches: int
    # per policy name: mean place, mean points, place histogram (index 0 = 1st)
    mean_place: dict[str, float]
    mean_points: dict[str, float]
    places: dict[str, list[int]]

    def lines(self) -> list[str]:
        out = []
        for name in sorted(self.mean_place):
            out.append(f"{self.n_seats} players, {name:>6}: mean place {self.mean_place[name]:.2f}, "
                       f"mean points {self.mean_points[name]:.2f}, places {self.places[name]}")
        return out


def arena(n_seats: int, lineup: list[tuple[str, Callable[[], Policy]]], matches: int, seed: int,
          rotate: bool = True) -> ArenaReport:
    """Play ``matches`` matches of the labelled ``lineup``. With ``rotate`` the seats turn
    every match so no label keeps the first move (labels in several seats pool them);
    without it, label i always sits in seat i (seat 0 starts the first round)."""
    rng = random.Random(seed)
    hist: dict[str, list[int]] = {}
    points: dict[str, int] = {}
    counts: dict[str, int] = {}
    for m in range(matches):
        shift = m % n_seats if rotate else 0
        order = lineup[shift:] + lineup[:shift]
        log = play_match([make() for _, make in order], rng)
        for seat, (label, _) in enumerate(order):
            place = log.places[seat]
            hist.setdefault(label, [0] * n_seats)[place - 1] += 1
            points[label] = points.get(label, 0) + POINTS[n_seats][place - 1]
            counts[label] = counts.get(label, 0) + 1
    return ArenaReport(n_seats, matches,
                       {k: sum((i + 1) * c for i, c in enumerate(h)) / counts[k] for k, h in hist.items()},
                       {k: points[k] / counts[k] for k in points}, hist)


def house_against_random(n_seats: int, matches: int = 100, seed: int = 0) -> ArenaReport:
    """One house bot and ``n_seats - 1`` random bots, seats rotating."""
    return arena(n_seats, [("house", HouseBot)] + [("random", RandomBot)] * (n_seats - 1), matches, seed)


def house_against_itself(n_seats: int, matches: int = 100, seed: int = 0) -> ArenaReport:
    """House bots in every seat, reported by seat (seat 0 starts the first round)."""
    return arena(n_seats, [(f"seat{i}", HouseBot) for i in range(n_seats)], matches, seed, rotate=False)


def random_against_itself(n_seats: int, matches: int = 100, seed: int = 0) -> ArenaReport:
    return arena(n_seats, [(f"seat{i}", RandomBot) for i in range(n_seats)], matches, seed, rotate=False)


__all__ = ["Decision", "View", "RandomBot", "HouseBot", "Dealer", "play_match", "arena", "ArenaReport",
           "house_against_random", "house_against_itself", "random_against_itself", "check_invariants"]


def _to_move(snap: Snapshot) -> int:
    """The seat the table waits for (the arena calls this only when a seat is to move)."""
    assert snap.to_move is not None
    return snap.to_move
