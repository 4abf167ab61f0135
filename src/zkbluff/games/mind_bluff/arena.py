"""Fast bot-against-bot series on the pure rules, without cryptography: a native
:class:`~zkbluff.games.mind_bluff.bowl.Bowl` stands in for the proven referee, and an
injected random generator for the fair draw (game 3's coin and start). For measuring
policies and for the rules tests; never a stand-in for the prover in end-to-end tests."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Optional, Protocol, Sequence

from zkbluff.games.mind_bluff.bot import Move, SeatView, seat_legal
from zkbluff.games.mind_bluff.bowl import Bowl
from zkbluff.games.mind_bluff.rules import (
    GAME3_STARTS, MAX_GAMES, OPEN_START, AllDoneVerdict, Claim, Consent, DoubtVerdict, Eat, EatVerdict,
    MindBluffRules, Phase, Reveal, RevealEntropy, StartGame, fixed_first_player,
)


class Policy(Protocol):
    def act(self, view: SeatView) -> Move: ...


@dataclass(frozen=True)
class SeriesRecord:
    """A finished series: the winner, each game's hidden start and each game's choices
    (the truth the arena held), for tests and the review."""

    winner: int
    starts: tuple[int, ...]
    choices: tuple[tuple[int, ...], ...]
    rules: MindBluffRules


def view_for(rules: MindBluffRules, seat: int, my_choices: tuple[int, ...]) -> SeatView:
    state = rules.public_state()
    return SeatView(seat, state, my_choices, seat_legal(rules.legal_actions(seat), state, seat, my_choices))


def play_series(policies: Sequence[Policy], seed: int = 0, humans: tuple[bool, bool] = (False, False),
                max_moves: int = 5000,
                on_step: Optional[Callable[[MindBluffRules, Optional[Bowl]], None]] = None) -> SeriesRecord:
    """Play one series to the end. ``on_step(rules, bowl)`` is called after every action
    (tests check invariants there)."""
    rng = random.Random(seed)
    rules = MindBluffRules(humans)
    bowl: Optional[Bowl] = None
    starts: list[int] = []
    choices: list[list[int]] = []
    mine: list[list[int]] = [[], []]
    for _ in range(max_moves):
        if rules.over:
            assert rules.series_winner is not None
            return SeriesRecord(rules.series_winner, tuple(starts), tuple(tuple(c) for c in choices), rules)
        phase = rules.phase
        if phase == Phase.START:
            game = rules.next_game_number
            first = fixed_first_player(game)
            if first is None:
                first = rng.randrange(2)
            start = rng.choice(GAME3_STARTS) if game == MAX_GAMES else OPEN_START
            bowl = Bowl(start)
            starts.append(start)
            choices.append([])
            mine = [[], []]
            rules.apply(None, StartGame(game, first))
        elif phase == Phase.EAT_VERDICT:
            assert bowl is not None
            rules.apply(None, EatVerdict(bowl.ate_last))
        elif phase == Phase.DOUBT_VERDICT:
            assert bowl is not None and rules.claim is not None
            rules.apply(None, DoubtVerdict(bowl.truthful(rules.claim.amount)))
        elif phase == Phase.ALL_DONE_VERDICT:
            assert bowl is not None
            rules.apply(None, AllDoneVerdict(bowl.exactly_one()))
        elif phase == Phase.REVEAL:  # the truth as data (no salts: nothing is committed here)
            rules.apply(None, Reveal(rules.game, starts[-1], (), tuple(choices[-1]), (), "", "", ""))
        elif phase == Phase.DRAW:
            rules.apply(rules.to_move, RevealEntropy(""))
        elif phase == Phase.NEXT_GAME:
            seat = rules.to_move
            rules.apply(seat, Consent())
        else:
            seat = rules.to_move
            assert seat is not None and bowl is not None
            move = policies[seat].act(view_for(rules, seat, tuple(mine[seat])))
            if isinstance(move.action, Claim) and rules.debts[seat] > 0 and move.action.amount != mine[seat][-1]:
                raise AssertionError("a policy broke its honesty debt (the proof would not exist)")
            rules.apply(seat, move.action)
            if isinstance(move.action, Eat):
                assert move.choice is not None
                bowl.eat(move.choice)
                mine[seat].append(move.choice)
                choices[-1].append(move.choice)
        if on_step is not None:
            on_step(rules, bowl)
    raise RuntimeError("the series did not end")


def win_rate(make_a: Callable[[int], Policy], make_b: Callable[[int], Policy], series: int = 100,
             seed: int = 0) -> dict[str, float]:
    """Policy A against policy B over ``series`` series, A taking P1 half the time."""
    wins = 0
    for i in range(series):
        a, b = make_a(seed * 100003 + 2 * i), make_b(seed * 100003 + 2 * i + 1)
        seat_a = i % 2
        pols = [a, b] if seat_a == 0 else [b, a]
        if play_series(pols, seed=seed * 7919 + i).winner == seat_a:
            wins += 1
    return {"series": series, "wins": wins, "losses": series - wins, "rate": wins / series}
