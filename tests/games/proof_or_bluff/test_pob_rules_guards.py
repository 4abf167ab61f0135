"""Proof or Bluff's rules, message by message (issue 21's mutation testing): every refusal of
both tables says what it got and what it expected, in exactly these words, and changes
nothing. Each test fails if its message's numbers or names drift. Pure rules, no proofs."""
from __future__ import annotations

import copy

import pytest

from zkbluff.errors import IllegalMove
from zkbluff.games.engine.rules import NO_SEAT
from zkbluff.games.proof_or_bluff.rules import (
    FIVE_UP_BOARD, FIVE_UP_HAND, MODES, Accept, Challenge, Claim, ClassicDeal, ClassicRules, FiveUpDeal, FiveUpRules,
    Play, ProveLies,
    ProveVerdict, Timeout,
)

from rules_guard_helpers import refused, says

SEVEN, EIGHT, NINE, TWO, KING = 5, 6, 7, 0, 11
BOARD = sum(1 << c for c in (TWO, SEVEN, EIGHT, NINE, KING))  # 2c 7c 8c 9c Kc


def classic(start: int = SEVEN) -> ClassicRules:
    r = ClassicRules(MODES["standard"], start)
    r.apply(NO_SEAT, ClassicDeal(1, start, ()))
    return r


def five_up() -> FiveUpRules:
    r = FiveUpRules("standard")
    r.apply(NO_SEAT, FiveUpDeal(1, BOARD, ()))
    return r


# ---------------------------------------------------------------- construction

@pytest.mark.parametrize("start", [-1, 13, True])
def test_a_starting_rank_outside_the_deck_is_refused(start):
    with pytest.raises(IllegalMove, match=says(f"starting rank must be 0..12, got {start}")):
        ClassicRules(MODES["standard"], start)


def test_an_unknown_five_up_mode_is_refused():
    with pytest.raises(IllegalMove, match=says("unknown mode 'blitz'")):
        FiveUpRules("blitz")


# ---------------------------------------------------------------- turns and phases

def test_the_turn_and_phase_refusals_name_who_and_what():
    r = classic()
    refused(r, 1, Play(1, SEVEN), "play: out of turn (seat 1 moved, seat 0 is to move)")
    refused(r, NO_SEAT, Play(1, SEVEN), "play: a seat's move; the dealer or referee (seat null) may not make it")
    refused(r, 0, Accept(), "accept: not allowed now (the table is waiting for: play by seat 0)")
    refused(r, NO_SEAT, ClassicDeal(2, None, ()), "deal: not allowed now (the table is waiting for: play by seat 0)")
    fresh = ClassicRules(MODES["standard"], SEVEN)
    refused(fresh, 0, Play(1, SEVEN), "play: not allowed now (the table is waiting for: deal)")
    refused(fresh, 0, ClassicDeal(1, SEVEN, ()), "deal: only the dealer deals, not seat 0")


def test_nothing_after_the_end_in_words():
    r = classic()
    r.apply(NO_SEAT, Timeout(0, "idle"))
    assert r.over and r.result().reason == "seat 0 abandoned an idle turn"
    refused(r, 1, Play(1, SEVEN), "play: the match is over")
    refused(r, NO_SEAT, Timeout(1, "idle"), "timeout: the match is over")


# ---------------------------------------------------------------- deals

def test_classic_deal_refusals_name_the_round_and_rank():
    r = ClassicRules(MODES["standard"], SEVEN)
    refused(r, NO_SEAT, ClassicDeal(2, SEVEN, ()), "deal: round 2, expected 1")
    refused(r, NO_SEAT, ClassicDeal(1, 13, ()), "deal: the first deal names a starting rank 0..12, got 13")
    refused(r, NO_SEAT, ClassicDeal(1, -1, ()), "deal: the first deal names a starting rank 0..12, got -1")
    refused(r, NO_SEAT, ClassicDeal(1, None, ()), "deal: the first deal names a starting rank 0..12, got None")
    for edge in (0, 12):
        ClassicRules(MODES["standard"], edge).apply(NO_SEAT, ClassicDeal(1, edge, ()))


def test_five_up_deal_refusals_name_the_round_and_the_board():
    r = FiveUpRules("standard")
    refused(r, NO_SEAT, FiveUpDeal(2, BOARD, ()), "deal: round 2, expected 1")
    refused(r, NO_SEAT, FiveUpDeal(1, BOARD | 1 << 20, ()), "deal: the board must be 5 cards of the deck")


# ---------------------------------------------------------------- plays, claims, proofs

@pytest.mark.parametrize("count", [0, 5, True])
def test_a_play_count_is_one_to_four(count):
    refused(classic(), 0, Play(count, SEVEN), f"play: count must be 1..4, got {count!r}")


def test_a_play_claims_the_required_rank_by_name():
    refused(classic(), 0, Play(1, EIGHT), "play: the claimed rank must be the required rank 7, got 6")


def test_a_verdict_is_a_bool():
    r = classic()
    r.apply(0, Play(1, SEVEN))
    r.apply(1, Challenge())
    refused(r, 0, ProveVerdict(1), "prove: the verdict is true or false, got 1")


@pytest.mark.parametrize("names", [(TWO, SEVEN, EIGHT), (SEVEN, 3), (True,)])
def test_a_five_up_claim_names_up_to_two_board_ranks(names):
    refused(five_up(), 0, Claim(names), f"claim: name none, one or two ranks of the board, got {names!r}")


@pytest.mark.parametrize("names, lies", [((SEVEN,), 2), ((SEVEN, KING), 3), ((SEVEN,), -1), ((SEVEN,), True)])
def test_the_lies_are_zero_to_the_names(names, lies):
    r = five_up()
    r.apply(0, Claim(names))
    r.apply(1, Challenge())
    refused(r, 0, ProveLies(lies), f"prove: lies must be an integer 0..{len(names)}, got {lies!r}")
    r.apply(0, ProveLies(len(names)))


# ---------------------------------------------------------------- the referee's clock

def test_timeout_refusals_name_the_seat_and_the_limit():
    r = classic()
    refused(r, 0, Timeout(0, "idle"), "timeout: only the referee times a seat out, not seat 0")
    refused(r, NO_SEAT, Timeout(1, "idle"), "timeout: seat 1 is not the seat to move")
    refused(r, NO_SEAT, Timeout(0, "nap"), "timeout: unknown limit 'nap' (expected 'proof' or 'idle')")
    refused(r, NO_SEAT, Timeout(0, "proof"),
            "proof timeout: not allowed now (the table is waiting for: play by seat 0)")
    r.apply(0, Play(1, SEVEN))
    r.apply(1, Challenge())
    refused(r, NO_SEAT, Timeout(0, "idle"), "idle timeout: not allowed in phase prove")


# ---------------------------------------------------------------- foreign actions

def test_each_table_refuses_the_others_actions_by_name():
    refused(classic(), 0, Claim(()), "claim: not an action of the classic table")
    refused(five_up(), 0, Play(1, SEVEN), "play: not an action of 5 Up 2 Down")


def test_both_tables_public_states_are_frozen():
    import dataclasses
    for snap in (classic().public_state(), five_up().public_state()):
        with pytest.raises(dataclasses.FrozenInstanceError):
            snap.to_move = 1  # type: ignore[misc]
        assert hash(snap) == hash(dataclasses.replace(snap))


def test_the_modes_are_frozen_and_check_play_checks_without_playing():
    import dataclasses
    with pytest.raises(dataclasses.FrozenInstanceError):
        MODES["casual"].target = 99  # type: ignore[misc]
    r = classic()
    before = copy.deepcopy(r.__dict__)
    with pytest.raises(IllegalMove, match=says("play: count must be 1..4, got 5")):
        r.check_play(0, 5)
    with pytest.raises(IllegalMove, match=says("play: out of turn (seat 1 moved, seat 0 is to move)")):
        r.check_play(1, 1)
    r.check_play(0, 4)
    assert r.__dict__ == before


def test_a_five_up_claim_is_kept_in_rank_order_and_mixed_names_are_refused():
    r = five_up()
    refused(r, 0, Claim((SEVEN, "x")), "claim: name none, one or two ranks of the board, got (5, 'x')")
    r.apply(0, Claim((KING, SEVEN)))
    assert r.public_state().claim == (0, (SEVEN, KING))


def test_the_seeds_shape_two_players_and_two_hidden_cards_against_a_board_of_five():
    """Seed 000: a two-player game; 5 Up 2 Down deals two private cards each and five face up."""
    assert ClassicRules.n_seats == FiveUpRules.n_seats == 2
    assert classic().n_seats == five_up().n_seats == 2
    assert (FIVE_UP_HAND, FIVE_UP_BOARD) == (2, 5)


def test_a_five_up_claim_and_answer_come_from_the_seat_to_move_in_their_phase():
    r = five_up()
    refused(r, 1, Claim((SEVEN,)), "claim: out of turn (seat 1 moved, seat 0 is to move)")
    refused(r, 0, Accept(), "accept: not allowed now (the table is waiting for: claim by seat 0)")
    r.apply(0, Claim((SEVEN,)))
    refused(r, 0, Accept(), "accept: out of turn (seat 0 moved, seat 1 is to move)")
    refused(r, 1, Claim((SEVEN,)), "claim: not allowed now (the table is waiting for: respond by seat 1)")
    r.apply(1, Accept())
    assert r.public_state().scores == (1, 0)
