"""Cheat's rules, guard by guard (issue 21's mutation testing): every refusal with its whole
message (what was got, what was expected), every bound at both ends, bools refused where an
int is expected. Each test fails if its check is deleted, inverted or moved by one. Pure
rules, no proofs."""
from __future__ import annotations

import pytest

from zkbluff.errors import IllegalMove
from zkbluff.games.cheat.rules import (
    DECK, Call, CheatRules, CloseWindow, Deal, Forfeit, Pass, Phase, PickUp, Play, Reveal, check_conservation,
    deal_sizes, rank_of,
)
from zkbluff.games.engine.rules import NO_SEAT

from rules_guard_helpers import refused, says

SEVEN, EIGHT = 5, 6


def dealt(n: int = 3, dealer: int = 0) -> CheatRules:
    t = CheatRules(n, first_dealer=dealer)
    t.apply(NO_SEAT, Deal(deal_sizes(n, dealer)))
    return t


def card(rank: int, k: int = 0) -> int:
    return [c for c in range(DECK.size) if rank_of(c) == rank][k]


# ---------------------------------------------------------------- the table's shape

@pytest.mark.parametrize("kwargs, message", [
    ({"n_seats": 2}, "cheat: 3..6 seats, got 2"),
    ({"n_seats": 7}, "cheat: 3..6 seats, got 7"),
    ({"n_seats": True}, "cheat: 3..6 seats, got True"),
    ({"n_seats": 4.0}, "cheat: 3..6 seats, got 4.0"),
    ({"n_seats": 4, "hands": 4}, "cheat: a table plays 3, 5, 7 hands, got 4"),
    ({"n_seats": 4, "window": 2}, "cheat: the calling window is 1, 3, 5, 7 s, got 2"),
    ({"n_seats": 4, "window": True}, "cheat: the calling window is 1, 3, 5, 7 s, got True"),
    ({"n_seats": 4, "first_dealer": 4}, "cheat: the first dealer must be a seat 0..3, got 4"),
    ({"n_seats": 4, "first_dealer": -1}, "cheat: the first dealer must be a seat 0..3, got -1"),
    ({"n_seats": 4, "first_dealer": True}, "cheat: the first dealer must be a seat 0..3, got True"),
    ({"n_seats": 4, "first_dealer": 1.0}, "cheat: the first dealer must be a seat 0..3, got 1.0"),
])
def test_a_table_shape_outside_the_rules_is_refused_with_what_is_allowed(kwargs, message):
    with pytest.raises(IllegalMove, match=says(message)):
        CheatRules(**kwargs)


@pytest.mark.parametrize("n", [3, 6])
def test_the_extreme_shapes_are_tables(n):
    t = CheatRules(n, hands=7, window=7, first_dealer=n - 1)
    assert t.public_state().dealer == n - 1
    t = CheatRules(n, hands=3, window=1, first_dealer=0)
    assert t.public_state().window == 1


# ---------------------------------------------------------------- who may act, and when

def test_an_unknown_action_or_any_action_after_the_table_is_over_is_refused():
    t = CheatRules(3, hands=3)
    with pytest.raises(IllegalMove, match="^cheat: unknown action "):
        t.apply(NO_SEAT, object())  # type: ignore[arg-type]
    for _ in range(3):
        t.apply(NO_SEAT, Deal(deal_sizes(3, t.public_state().dealer)))
        t.apply(NO_SEAT, Forfeit(0, "test"))
    assert t.over
    refused(t, NO_SEAT, Deal(deal_sizes(3, 0)), "deal: the table is over")
    refused(t, NO_SEAT, Forfeit(1, "x"), "forfeit: the table is over")


def test_an_action_out_of_its_phase_names_the_phase_and_who_the_table_waits_for():
    t = dealt(3)
    refused(t, NO_SEAT, Deal(deal_sizes(3, 0)), "deal: not allowed now (the table is in phase play, waiting for seat 1)")
    t.apply(1, Play(SEVEN, 1))
    refused(t, 2, Play(SEVEN, 1), "play: not allowed now (the table is in phase window, waiting for the table)")
    refused(t, 2, PickUp(1), "pick_up: not allowed now (the table is in phase window, waiting for the table)")


def test_the_deal_names_the_sizes_it_got_and_expected():
    t = CheatRules(3, first_dealer=2)
    refused(t, NO_SEAT, Deal((17, 17, 18)),
            "deal: hand sizes [17, 17, 18], expected [18, 17, 17] (the whole deck, dealer seat 2)")


def test_a_close_window_names_the_open_window():
    t = dealt(3)
    refused(t, NO_SEAT, CloseWindow(0), "close_window: no calling window is open (phase play)")
    t.apply(1, Play(SEVEN, 1))
    refused(t, 0, CloseWindow(1), "close_window: only the table's clock closes a window, not seat 0")
    refused(t, NO_SEAT, CloseWindow(2), "close_window: the open window is play 1's, got play 2")
    t.apply(NO_SEAT, CloseWindow(1))
    assert t.public_state().to_move == 2


# ---------------------------------------------------------------- plays

@pytest.mark.parametrize("rank, message", [
    (-1, "play: rank must be 0..12, got -1"),
    (13, "play: rank must be 0..12, got 13"),
    (True, "play: rank must be 0..12, got True"),
    (5.0, "play: rank must be 0..12, got 5.0"),
])
def test_the_opener_names_a_rank_of_the_deck(rank, message):
    t = dealt(3)
    refused(t, 1, Play(rank, 1), message)


def test_the_opener_may_name_the_first_and_the_last_rank():
    for rank in (0, 12):
        t = dealt(3)
        t.apply(1, Play(rank, 4))
        assert t.public_state().rank == rank


def test_a_follower_claims_the_rounds_rank_named_in_words():
    t = dealt(3)
    t.apply(1, Play(SEVEN, 1))
    t.apply(NO_SEAT, CloseWindow(1))
    refused(t, 2, Play(EIGHT, 1), "play: the round's rank is 7, got 8")


@pytest.mark.parametrize("count", [0, 5, True, 1.0])
def test_a_play_is_one_to_four_cards(count):
    t = dealt(3)
    refused(t, 1, Play(SEVEN, count), f"play: count must be 1..4 (seat 1 holds 18), got {count!r}")


def test_a_play_is_at_most_the_cards_held():
    """Seat 1 down to 2 cards: 1..2, and 2 is allowed."""
    t = dealt(3)
    held = t.public_state().hand_sizes[1]
    t.hand_sizes[1] = 2  # as if it had played all but two (the count check reads only the hand size)
    refused(t, 1, Play(SEVEN, 3), "play: count must be 1..2 (seat 1 holds 2), got 3")
    t.apply(1, Play(SEVEN, 2))
    assert t.public_state().hand_sizes[1] == 0 and held == 18


def test_the_opener_cannot_pass_in_words():
    t = dealt(3)
    refused(t, 1, Pass(), "pass: the opener of a round must play")


# ---------------------------------------------------------------- calls

@pytest.mark.parametrize("seat, who", [(NO_SEAT, "the table"), (3, "seat 3"), (-1, "seat -1"), (True, "seat True")])
def test_only_a_seat_of_the_table_calls(seat, who):
    t = dealt(3)
    t.apply(1, Play(SEVEN, 1))
    refused(t, seat, Call(1), f"call: only a seat 0..2 calls, got {who}")


def test_a_call_names_the_open_window_or_the_first_caller():
    t = dealt(3)
    refused(t, 0, Call(0), "call: the calling window of play 0 is closed")
    t.apply(1, Play(SEVEN, 1))
    refused(t, 0, Call(0), "call: the calling window of play 0 is closed (the open one is play 1's)")
    refused(t, 1, Call(1), "call: seat 1 cannot call its own play")
    t.apply(2, Call(1))
    refused(t, 0, Call(1), "call: seat 2 already called play 1 (the first call counts)")
    t.apply(1, Reveal((card(SEVEN),)))
    refused(t, 0, Call(1), "call: seat 2 already called play 1 (the first call counts)")


# ---------------------------------------------------------------- reveals and pick-ups

def called(count: int = 2) -> CheatRules:
    t = dealt(3)
    t.apply(1, Play(SEVEN, count))
    t.apply(2, Call(1))
    return t


@pytest.mark.parametrize("cards", [(0,), (0, 0), (0, 1, 2)])
def test_a_reveal_is_the_plays_count_of_distinct_cards(cards):
    refused(called(2), 1, Reveal(cards), f"reveal: the play was 2 distinct card(s), got {list(cards)}")


@pytest.mark.parametrize("cards, bad", [((0, 52), [52]), ((-1, 0), [-1]), ((True, 0), [True]), ((0, 1.0), [1.0])])
def test_a_reveal_is_card_ids_of_the_deck(cards, bad):
    refused(called(2), 1, Reveal(cards), f"reveal: card ids are 0..51, got {bad}")


def test_a_reveal_may_show_the_first_and_the_last_card_of_the_deck():
    t = called(2)
    t.apply(1, Reveal((0, DECK.size - 1)))
    assert t.public_state().revealed == (0, DECK.size - 1)


def test_a_pick_up_names_the_piles_size():
    t = called(2)
    t.apply(1, Reveal((card(SEVEN), card(SEVEN, 1))))  # the truth: the caller picks up
    refused(t, 2, PickUp(3), "pick_up: the pile holds 2 cards, got 3")
    refused(t, 2, PickUp(1), "pick_up: the pile holds 2 cards, got 1")


# ---------------------------------------------------------------- forfeits

@pytest.mark.parametrize("seat", [3, -1, True, 1.0])
def test_a_forfeit_names_a_seat_of_the_table(seat):
    refused(dealt(3), NO_SEAT, Forfeit(seat, "x"), f"forfeit: seat must be 0..2, got {seat!r}")


def test_only_the_referee_forfeits_a_seat_and_only_in_a_hand():
    t = CheatRules(3)
    refused(t, NO_SEAT, Forfeit(0, "x"), "forfeit: no hand is being played")
    t.apply(NO_SEAT, Deal(deal_sizes(3, 0)))
    refused(t, 0, Forfeit(0, "x"), "forfeit: only the referee declares a forfeit, not seat 0")
    t.apply(NO_SEAT, Forfeit(2, "x"))
    assert t.public_state().hand_penalties == ((0, 0, DECK.size),)


# ---------------------------------------------------------------- the invariant checker, assert by assert

def snapshots():
    """A snapshot of every phase, from one table."""
    t = CheatRules(3)
    out = {"before": t.public_state()}
    t.apply(NO_SEAT, Deal(deal_sizes(3, 0)))
    out["play"] = t.public_state()
    t.apply(1, Play(SEVEN, 2))
    out["window"] = t.public_state()
    t.apply(2, Call(1))
    out["turnover"] = t.public_state()
    t.apply(1, Reveal((card(SEVEN), card(EIGHT))))
    out["pickup"] = t.public_state()
    t.apply(1, PickUp(2))
    out["play2"] = t.public_state()
    t.apply(NO_SEAT, Forfeit(0, "x"))
    out["deal"] = t.public_state()
    return out


def test_every_phase_of_a_table_keeps_the_invariants():
    for snap in snapshots().values():
        check_conservation(snap)


@pytest.mark.parametrize("phase, change, why", [
    ("play", {"hand_sizes": (18, 17)}, "one entry per seat"),
    ("play", {"penalties": (0, 0)}, "one entry per seat"),
    ("play", {"hand_sizes": (18, -1, 35)}, "negative count"),
    ("deal", {"set_aside": -1, "hand_sizes": (17, 19, 17)}, "negative count"),
    ("window", {"pile": ((1, 0),), "hand_sizes": (17, 18, 17)}, "bad pile"),
    ("window", {"pile": ((1, 5),), "hand_sizes": (17, 13, 17)}, "bad pile"),
    ("window", {"pile": ((3, 2),)}, "bad pile"),
    ("window", {"pile": ((-1, 2),)}, "bad pile"),
    ("deal", {"penalties": (52, 0, 1)}, "penalties are the sum"),
    ("play", {"to_move": NO_SEAT}, "everyone holds cards"),
    ("play", {"hand_sizes": (0, 18, 34)}, "everyone holds cards"),
    ("play", {"rank": SEVEN}, "a rank is named exactly when"),
    ("play2", {"rank": None, "pile": ((1, 2),), "hand_sizes": (17, 18, 15)}, "a rank is named exactly when"),
    ("play2", {"passes": 2, "rank": SEVEN, "pile": ((1, 2),), "hand_sizes": (17, 18, 15)}, None),
    ("window", {"rank": None}, "needs a play"),
    ("pickup", {"pile": (), "hand_sizes": (17, 18, 17)}, "needs a play"),
    ("turnover", {"caller": None}, None),
    ("turnover", {"to_move": 2}, None),
    ("pickup", {"picker": None}, None),
    ("pickup", {"to_move": 2}, None),
    ("pickup", {"revealed": (card(SEVEN),)}, None),
    ("window", {"to_move": 0}, None),
    ("deal", {"to_move": 0}, None),
])
def test_the_invariant_checker_catches_each_broken_snapshot(phase, change, why):
    import dataclasses
    good = snapshots()[phase]
    check_conservation(good)
    with pytest.raises(AssertionError, match=why):
        check_conservation(dataclasses.replace(good, **change))


# ---------------------------------------------------------------- the public state between the moves

def test_a_fresh_table_shows_empty_hands_and_nothing_in_play():
    s = CheatRules(4).public_state()
    assert (s.hand_sizes, s.pile, s.set_aside, s.rank, s.passes, s.caller, s.picker, s.penalties) == \
        ((0, 0, 0, 0), (), 0, None, 0, None, None, (0, 0, 0, 0))
    assert s.last_play is None and s.pile_size == 0 and not s.in_hand


def test_the_last_play_is_the_newest_of_the_round():
    t = dealt(3)
    t.apply(1, Play(SEVEN, 2))
    t.apply(NO_SEAT, CloseWindow(1))
    t.apply(2, Play(SEVEN, 1))
    t.apply(NO_SEAT, CloseWindow(2))
    t.apply(0, Play(SEVEN, 4))
    s = t.public_state()
    assert s.pile == ((1, 2), (2, 1), (0, 4)) and s.last_play == (0, 4) and s.pile_size == 7


def test_a_new_round_and_a_new_hand_start_with_no_passes_and_no_call():
    t = dealt(3)
    s = t.public_state()
    assert (s.rank, s.passes, s.caller, s.revealed, s.picker) == (None, 0, None, (), None)
    t.apply(1, Play(SEVEN, 1))
    t.apply(NO_SEAT, CloseWindow(1))
    t.apply(2, Pass())
    t.apply(0, Pass())  # everyone after seat 1 passed: the pile is set aside, seat 1 opens
    s = t.public_state()
    assert (s.rank, s.passes, s.caller, s.set_aside, s.to_move) == (None, 0, None, 1, 1)
    t.apply(1, Play(SEVEN, 1))
    t.apply(NO_SEAT, CloseWindow(2))
    t.apply(2, Pass())
    assert t.public_state().passes == 1
    t.apply(NO_SEAT, Forfeit(0, "x"))
    s = t.public_state()
    assert (s.phase, s.rank, s.passes, s.caller, s.picker) == (Phase.DEAL, None, 0, None, None)


def test_a_snapshot_cannot_be_changed_by_whoever_holds_it():
    import dataclasses
    s = dealt(3).public_state()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.to_move = 2  # type: ignore[misc]
    assert hash(s) == hash(dealt(3).public_state())
