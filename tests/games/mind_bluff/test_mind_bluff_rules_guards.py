"""Mind Bluff's rules, guard by guard (issue 21's mutation testing): every refusal with its
whole message (what was got, what was expected), every bound at both ends, the result's
words, the presentation pauses the events carry. Each test fails if its check is deleted,
inverted or moved by one. Pure rules, no proofs."""
from __future__ import annotations

import pytest

from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.games.engine.rules import NO_SEAT
from zkbluff.games.mind_bluff.rules import (
    PACING, AllDone, AllDoneVerdict, Believe, Claim, Consent, Doubt, DoubtVerdict, Eat, EatVerdict, EventKind,
    GAME3_STARTS, MAX_CLAIM, MAX_EAT, MAX_GAMES, MIN_CLAIM, MIN_EAT, OPEN_START, WINS_NEEDED, MindBluffRules, Phase,
    Reveal, RevealEntropy, StartGame, TimeOut, action_from_data, fixed_first_player,
)

from rules_guard_helpers import refused, says

P1, P2 = 0, 1


def started(game: int = 1, first: int = P1, humans=(True, True)) -> MindBluffRules:
    r = MindBluffRules(humans)
    r.apply(NO_SEAT, StartGame(game, first))
    return r


def reveal(r: MindBluffRules) -> None:
    r.apply(NO_SEAT, Reveal(r.game, 30, (), (), (), "", "", ""))


def both_consent(r: MindBluffRules) -> None:
    """After a game (or the series): both seats agree to go on, P1 first."""
    r.apply(P1, Consent())
    r.apply(P2, Consent())


def end_game(r: MindBluffRules, winner: int) -> None:
    """The seat to move calls All done: right (it wins) or wrong (the other wins)."""
    caller = r.to_move
    r.apply(caller, AllDone())
    r.apply(NO_SEAT, AllDoneVerdict(caller == winner))
    reveal(r)


# ---------------------------------------------------------------- construction and action kinds

@pytest.mark.parametrize("humans", [(True,), [True, True], (1, True), (True, True, True), "TT"])
def test_humans_is_a_pair_of_booleans(humans):
    with pytest.raises(MalformedInput, match=says(f"humans: expected a pair of booleans, got {humans!r}")):
        MindBluffRules(humans)


def test_an_unknown_action_kind_names_the_known_ones():
    with pytest.raises(MalformedInput, match=r"^unknown Mind Bluff action 'nap'; expected one of \['all_done', "):
        action_from_data("nap", {})
    assert action_from_data("eat", {"sealed": "x"}) == Eat("x")


def test_a_foreign_action_is_refused():
    r = started()

    class Nap:
        kind = "nap"

    with pytest.raises(IllegalMove, match=says("nap: not a Mind Bluff action")):
        r.apply(P1, Nap())  # type: ignore[arg-type]


# ---------------------------------------------------------------- starting games

def test_the_first_players_of_games_one_and_two_are_fixed_and_game_three_has_none():
    assert [fixed_first_player(g) for g in (1, 2, 3)] == [P1, P2, None]


@pytest.mark.parametrize("action, message", [
    (StartGame(2, P1), "start_game: game 2, expected game 1"),
    (StartGame(0, P1), "start_game: game 0, expected game 1"),
    (StartGame(True, P1), "start_game: game True, expected game 1"),
    (StartGame(1, 2), "start_game: first must be seat 0 or 1, got 2"),
    (StartGame(1, True), "start_game: first must be seat 0 or 1, got True"),
    (StartGame(1, P2), "start_game: game 1 is opened by P1, not P2"),
])
def test_a_start_names_what_it_got_and_what_is_expected(action, message):
    refused(MindBluffRules(), NO_SEAT, action, message)


def test_game_two_is_opened_by_p2_and_game_three_by_either_seat():
    r = started()
    end_game(r, P1)
    for s in (P1, P2):
        r.apply(s, Consent())
    refused(r, NO_SEAT, StartGame(2, P1), "start_game: game 2 is opened by P2, not P1")
    r.apply(NO_SEAT, StartGame(2, P2))
    end_game(r, P2)
    for s in (P1, P2):
        r.apply(s, Consent())
    assert r.phase == Phase.DRAW and r.to_move == P1
    r.apply(P1, RevealEntropy("a"))
    assert r.to_move == P2
    r.apply(P2, RevealEntropy("b"))
    assert r.legal_actions(NO_SEAT) == [StartGame(3, P1), StartGame(3, P2)]
    r.apply(NO_SEAT, StartGame(3, P2))
    assert r.public_state().start is None and r.to_move == P2


# ---------------------------------------------------------------- turns, claims, answers

def test_an_action_out_of_its_phase_names_what_the_table_waits_for():
    r = started()
    refused(r, P1, Believe(), "believe: not allowed now (the table waits for turn by P1)")
    r.apply(P1, Eat())
    refused(r, P1, Claim(1, False), "claim: not allowed now (the table waits for eat_verdict by the referee)")
    r.apply(NO_SEAT, EatVerdict(False))
    refused(r, P1, AllDone(), "all_done: unavailable after eating (claim what you ate)")


def test_out_of_turn_names_both_seats():
    r = started()
    refused(r, P2, Eat(), "eat: out of turn (P1 is to move, not P2)")
    refused(r, NO_SEAT, Eat(), "eat: out of turn (P1 is to move, not the referee)")
    refused(r, 5, Eat(), "eat: out of turn (P1 is to move, not seat 5)")


def claiming(debt_for: int | None = None) -> MindBluffRules:
    """P1 to claim after surviving an eat; with ``debt_for`` = P1, P1 owes one honest claim."""
    r = started()
    if debt_for == P1:  # P1's claim doubted and found a bluff: P1 owes one
        r.apply(P1, Eat())
        r.apply(NO_SEAT, EatVerdict(False))
        r.apply(P1, Claim(2, False))
        r.apply(P2, Doubt())
        r.apply(NO_SEAT, DoubtVerdict(False))
        r.apply(P2, Eat())
        r.apply(NO_SEAT, EatVerdict(False))
        r.apply(P2, Claim(1, False))
        r.apply(P1, Believe())
        assert r.public_state().debts == (1, 0)
    r.apply(P1, Eat())
    r.apply(NO_SEAT, EatVerdict(False))
    return r


@pytest.mark.parametrize("amount", [0, 4, True, 2.0])
def test_a_claim_is_one_to_three(amount):
    refused(claiming(), P1, Claim(amount, False), f"claim: the amount must be 1..3, got {amount!r}")


def test_a_claim_may_be_one_or_three():
    for amount in (1, 3):
        r = claiming()
        r.apply(P1, Claim(amount, False))
        assert r.public_state().claim.amount == amount


def test_proven_equal_is_a_bool_and_matches_the_debt():
    refused(claiming(), P1, Claim(2, 1), "claim: proven_equal must be a bool, got 1")
    refused(claiming(), P1, Claim(2, True), "claim: P1 owes no honest claim; a free claim carries no proof")
    r = claiming(debt_for=P1)
    refused(r, P1, Claim(2, False),
            "claim: P1 owes 1 honest claim(s): the claim must be proven equal to the committed choice")
    assert r.legal_actions(P1) == [Claim(1, True), Claim(2, True), Claim(3, True)]
    r.apply(P1, Claim(2, True))
    assert r.public_state().debts == (0, 0) and r.public_state().claim.forced_honest


def test_a_doubt_pauses_play_and_a_verdict_turns_to_the_challenger():
    r = claiming()
    r.apply(P1, Claim(3, False))
    r.apply(P2, Doubt())
    assert r.public_state().events[-1].kind == EventKind.DOUBTED and r.public_state().events[-1].hold_s == 4.5
    r.apply(NO_SEAT, DoubtVerdict(True))
    assert r.public_state().debts == (0, 1) and r.to_move == P2 and r.phase == Phase.TURN


def test_all_done_holds_the_result_back_and_game_three_opens_on_the_coin_animation():
    r = started()
    r.apply(P1, AllDone())
    r.apply(NO_SEAT, AllDoneVerdict(False))
    ev = r.public_state().games[-1].events
    assert [e.hold_s for e in ev if e.kind == EventKind.ALL_DONE_RESULT] == [3.6]
    assert ev[0].kind == EventKind.GAME_STARTED and ev[0].hold_s == 0.0 and ev[0].start == 30


# ---------------------------------------------------------------- reveals, entropies, consents

def test_a_reveal_names_the_game_it_reveals():
    r = started()
    r.apply(P1, AllDone())
    r.apply(NO_SEAT, AllDoneVerdict(True))
    refused(r, NO_SEAT, Reveal(2, 30, (), (), (), "", "", ""), "reveal: game 2, expected game 1's")
    refused(r, P1, Consent(), "consent: not allowed now (the table waits for reveal by the referee)")
    reveal(r)
    assert r.phase == Phase.NEXT_GAME


def test_draw_entropy_is_a_string_named_in_forty_characters():
    r = started()
    end_game(r, P1)
    both_consent(r)
    r.apply(NO_SEAT, StartGame(2, P2))
    end_game(r, P2)
    both_consent(r)
    assert r.phase == Phase.DRAW
    refused(r, P1, RevealEntropy(7), "reveal_entropy: the entropy must be a string, got 7")
    long = b"x" * 60
    refused(r, P1, RevealEntropy(long), f"reveal_entropy: the entropy must be a string, got {repr(long)[:40]}")
    refused(r, P2, RevealEntropy("b"), "reveal_entropy: out of turn (P1 is to move, not P2)")


def test_only_a_human_seat_consents_once():
    r = started(humans=(True, False))
    end_game(r, P1)
    assert r.phase == Phase.NEXT_GAME
    refused(r, NO_SEAT, Consent(), "consent: only a seat consents, not the referee")
    refused(r, 2, Consent(), "consent: only a seat consents, not seat 2")
    refused(r, P2, Consent(), "consent: seat 1 is a bot; only human seats consent")
    r2 = started()
    end_game(r2, P1)
    r2.apply(P1, Consent())
    refused(r2, P1, Consent(), "consent: seat 0 has already consented")


# ---------------------------------------------------------------- the clock

def test_only_the_referees_clock_times_out_the_seat_the_table_waits_for():
    r = started()
    refused(r, P1, TimeOut(P1), "timeout: only the referee's clock times a seat out, not P1")
    refused(r, NO_SEAT, TimeOut(P2), "timeout: seat 1 is not the seat the table waits for (P1)")
    refused(r, NO_SEAT, TimeOut(True), "timeout: seat True is not the seat the table waits for (P1)")  # True == 1
    r.apply(P1, Eat())
    refused(r, NO_SEAT, TimeOut(P1), "timeout: the table waits for eat_verdict by the referee, no seat's time runs")


def test_a_timed_out_seat_loses_the_series_in_words():
    r = started()
    r.apply(NO_SEAT, TimeOut(P1))
    res = r.result()
    assert res.reason == "P2 won the series: P1 let its time run out (games 0–0)"
    assert res.placements == (2, 1) and res.scores == (0, 0)


def test_the_series_result_names_the_winner_and_the_games():
    r = started()
    end_game(r, P2)
    both_consent(r)
    r.apply(NO_SEAT, StartGame(2, P2))
    assert r.result() is None
    end_game(r, P2)
    res = r.result()
    assert res.reason == "P2 won the series 2–0" and res.placements == (2, 1) and res.scores == (0, 2)


def test_the_pauses_are_the_seeds():
    """Seed 001: Doubt pauses play 4.5 s, the claimant's voice about 1.25 s after it; game 3's
    coin animation 10 s; All done withholds the result about 3.6 s and closes at about 8 s;
    one seat's voice about 0.7 s after a game ends."""
    assert (PACING.doubt_hold_s, PACING.doubt_voice_s, PACING.coin_animation_s, PACING.all_done_suspense_s,
            PACING.all_done_close_s, PACING.end_voice_s) == (4.5, 1.25, 10.0, 3.6, 8.0, 0.7)


def test_the_pauses_and_the_records_cannot_be_changed_by_a_ui():
    import dataclasses
    with pytest.raises(dataclasses.FrozenInstanceError):
        PACING.doubt_hold_s = 0.0  # type: ignore[misc]
    r = started()
    end_game(r, P1)
    record = r.public_state().games[0]
    assert record.winner == P1 and record.first == P1 and record.game == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.winner = P2  # type: ignore[misc]


def test_a_fresh_series_owes_nothing_and_counts_turns_one_by_one():
    s = MindBluffRules().public_state()
    assert (s.debts, s.wins, s.turn, s.game, s.claim, s.series_winner) == ((0, 0), (0, 0), 0, 0, None, None)
    r = started()
    r.apply(P1, Eat())
    r.apply(NO_SEAT, EatVerdict(False))
    r.apply(P1, Claim(2, False))
    r.apply(P2, Believe())
    assert r.public_state().turn == 1
    r.apply(P2, AllDone())
    assert r.public_state().turn == 2 and r.public_state().events[-1].turn == 2


def test_the_next_game_waits_for_the_lowest_seat_still_to_consent():
    r = started()
    end_game(r, P2)
    assert r.phase == Phase.NEXT_GAME and r.to_move == P1
    r.apply(P1, Consent())
    assert r.to_move == P2


def test_a_timeout_after_a_won_game_gives_the_games_as_scores():
    r = started()
    end_game(r, P1)
    both_consent(r)
    r.apply(NO_SEAT, StartGame(2, P2))
    r.apply(NO_SEAT, TimeOut(P2))
    res = r.result()
    assert res.scores == (1, 0) and res.reason == "P1 won the series: P2 let its time run out (games 1–0)"


def test_the_seeds_numbers():
    """Seed 001: games 1 and 2 start at 30; game 3 at 29, 30 or 31 (uniform, secret); an eat
    and a claim are 1, 2 or 3; first to two wins, at most three games."""
    assert (OPEN_START, GAME3_STARTS, (MIN_EAT, MAX_EAT), (MIN_CLAIM, MAX_CLAIM), WINS_NEEDED, MAX_GAMES) == \
        (30, (29, 30, 31), (1, 3), (1, 3), 2, 3)


def test_both_seats_are_human_unless_told_otherwise():
    assert MindBluffRules().public_state().humans == (True, True)
    assert MindBluffRules((False, True)).public_state().humans == (False, True)


def test_a_plain_event_is_neither_forced_honest_nor_paused_and_the_views_are_frozen():
    import dataclasses
    r = started()
    r.apply(P1, Eat())
    s = r.public_state()
    ate = s.events[-1]
    assert ate.kind == EventKind.ATE and ate.forced_honest is False and ate.hold_s == 0.0 and ate.amount is None
    r.apply(NO_SEAT, EatVerdict(False))
    r.apply(P1, Claim(2, False))
    s = r.public_state()
    for frozen, name in ((s.events[-1], "seat"), (s.claim, "amount"), (s, "turn")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(frozen, name, 3)


def test_only_all_done_in_the_claim_phase_is_unavailable_after_eating():
    r = started()
    r.apply(P1, Eat())
    r.apply(NO_SEAT, EatVerdict(False))
    refused(r, P1, Eat(), "eat: not allowed now (the table waits for claim by P1)")
    r.apply(P1, Claim(1, False))
    refused(r, P2, AllDone(), "all_done: not allowed now (the table waits for respond by P2)")


def test_every_verdict_and_the_clock_leave_a_public_event():
    r = started()
    r.apply(P1, Eat())
    r.apply(NO_SEAT, EatVerdict(False))
    r.apply(P1, Claim(1, False))
    r.apply(P2, Believe())
    r.apply(P2, Eat())
    r.apply(NO_SEAT, EatVerdict(True))
    kinds = [e.kind for e in r.public_state().games[0].events]
    assert kinds == [EventKind.GAME_STARTED, EventKind.ATE, EventKind.SURVIVED, EventKind.CLAIMED,
                     EventKind.BELIEVED, EventKind.ATE, EventKind.ATE_LAST, EventKind.GAME_ENDED]
    assert [e.seat for e in r.public_state().games[0].events][-2:] == [P2, P1]  # P2 ate the last; P1 won
    reveal(r)
    r.apply(P1, Consent())
    r.apply(NO_SEAT, TimeOut(P2))
    last = r.public_state().events[-1]
    assert last.kind == EventKind.TIMED_OUT and last.seat == P2


def test_the_listed_reveal_names_the_ended_game_and_carries_no_truth():
    """legal_actions lists the referee's reveal as a template: the game it must name, and
    empty fields (start 0, no salts, choices or review) for the referee to fill in."""
    r = started()
    r.apply(P1, AllDone())
    r.apply(NO_SEAT, AllDoneVerdict(True))
    assert r.legal_actions(NO_SEAT) == [Reveal(1, 0, (), (), (), "", "", "")]
