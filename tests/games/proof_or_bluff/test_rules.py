"""Every rule of seed 000 as a named test, on the pure rules engine."""

import pytest

from zkbluff.bots.arena import play_classic, play_five_up
from zkbluff.bots.proof_or_bluff import ClassicHouseBot, ClassicRandomBot, FiveUpHouseBot
from zkbluff.errors import IllegalMove
from zkbluff.games.proof_or_bluff.rules import (
    MODES, Accept, Challenge, Claim, ClassicRules, FiveUpRules, Play, next_rank, rank_mask, rank_name,
)

ACE, KING, SEVEN, EIGHT, NINE, TWO = 12, 11, 5, 6, 7, 0


def classic(mode="standard", start=SEVEN):
    r = ClassicRules(MODES[mode], start)
    r.deal()
    return r


def test_modes():
    assert (MODES["casual"].hand_size, MODES["casual"].target) == (5, 10)
    assert (MODES["standard"].hand_size, MODES["standard"].target) == (7, 15)
    assert (MODES["casino"].hand_size, MODES["casino"].target) == (7, 20)
    assert classic("casual").s.hand_sizes == [5, 5]


def test_player_one_goes_first_and_scores_start_at_zero():
    r = classic()
    assert r.s.to_move == 0 and r.s.scores == [0, 0] and r.s.pile == 0 and r.s.phase == "play"


def test_rank_rotation_wraps_ace_to_two():
    assert [rank_name(x) for x in (next_rank(KING), next_rank(ACE))] == ["Ace", "2"]
    assert bin(rank_mask(KING)).count("1") == 4


def test_plays_are_one_to_four_cards_and_the_claim_is_count_and_required_rank():
    r = classic()
    assert r.legal_actions(0) == [Play(k, SEVEN) for k in (1, 2, 3, 4)]
    for bad in (0, 5):
        with pytest.raises(IllegalMove):
            r.play(0, bad)
    r.play(0, 2)
    assert r.s.claim == (0, 2, SEVEN) and r.s.pile == 2 and r.s.hand_sizes == [5, 7]


def test_no_pass_and_no_move_out_of_turn():
    r = classic()
    with pytest.raises(IllegalMove, match="out of turn"):
        r.play(1, 1)
    with pytest.raises(IllegalMove):
        r.accept(1)
    r.play(0, 1)
    assert r.legal_actions(1) == [Accept(), Challenge()]
    with pytest.raises(IllegalMove):
        r.play(1, 1)  # a claim is on the table: accept or challenge, no pass


def test_accept_advances_rank_and_responder_plays():
    r = classic()
    r.play(0, 2)
    r.accept(1)
    assert r.s.required_rank == EIGHT and r.s.to_move == 1 and r.s.phase == "play" and r.s.pile == 2
    assert r.s.scores == [0, 0]  # accepted plays score nothing


def test_successful_challenge_plus_three_pile_discarded_challenger_plays():
    r = classic()
    r.play(0, 3)
    r.challenge(1)
    assert r.s.phase == "prove" and r.s.to_move == 0
    r.resolve(False)
    assert r.s.scores == [0, 3] and r.s.pile == 0 and r.s.required_rank == EIGHT and r.s.to_move == 1


def test_failed_challenge_minus_one_floored_at_zero():
    r = classic()
    r.play(0, 1)
    r.challenge(1)
    r.resolve(True)
    assert r.s.scores == [0, 0] and r.s.pile == 0 and r.s.to_move == 1
    r.s.scores[1] = 2
    r.play(1, 1)
    r.challenge(0)
    r.resolve(True)
    assert r.s.scores == [0, 2]  # seat 0 at 0 stays at 0


def test_seed_example_round_step_by_step():
    """Seed 000's example (Standard): rank 7; you play two claiming Two Sevens (one is a
    Jack); the computer accepts; rank 8; it plays three claiming Three Eights; you
    challenge; false; the 5-card pile is discarded; +3 to you; rank 9; you play next."""
    r = classic("standard", SEVEN)
    r.play(0, 2)
    assert r.s.claim == (0, 2, SEVEN)
    r.accept(1)
    assert r.s.pile == 2 and r.s.required_rank == EIGHT and r.s.to_move == 1
    r.play(1, 3)
    assert r.s.claim == (1, 3, EIGHT) and r.s.pile == 5
    r.challenge(0)
    r.resolve(False)
    assert r.s.pile == 0 and r.s.scores == [3, 0] and r.s.required_rank == NINE and r.s.to_move == 0


def empty_hand(r, seat, keep=1):
    r.s.hand_sizes[seat] = keep


def test_going_out_accepted_wins():
    r = classic()
    empty_hand(r, 0, 2)
    r.play(0, 2)
    r.accept(1)
    assert r.over and r.s.winner == 0


def test_going_out_challenged_true_wins():
    r = classic()
    empty_hand(r, 0, 1)
    r.play(0, 1)
    r.challenge(1)
    r.resolve(True)
    assert r.over and r.s.winner == 0


def test_caught_at_the_door_plus_three_redeal_play_on():
    r = classic()
    empty_hand(r, 0, 1)
    r.play(0, 1)
    r.challenge(1)
    r.resolve(False)
    assert not r.over and r.s.scores == [0, 3] and r.s.phase == "deal" and r.s.completed_rounds == 1
    r.deal()
    assert r.s.hand_sizes == [7, 7] and r.s.to_move == 1 and r.s.round == 2


def test_target_reached_ends_the_match_even_at_the_door():
    r = classic("casual")
    r.s.scores[1] = 8
    empty_hand(r, 0, 1)
    r.play(0, 1)
    r.challenge(1)
    r.resolve(False)
    assert r.over and r.s.winner == 1 and r.s.scores[1] == 11


def test_six_completed_rounds_is_a_draw():
    r = classic()
    for i in range(6):
        seat = r.s.to_move
        empty_hand(r, seat, 1)
        r.play(seat, 1)
        r.challenge(1 - seat)
        r.s.scores = [0, 0]  # keep scores below the target
        r.resolve(False)
        r.s.scores = [0, 0]
        if i < 5:
            r.deal()
    assert r.over and r.s.draw and r.s.winner is None


def test_proof_timeout_is_a_caught_bluff_and_idle_forfeits():
    r = classic()
    r.play(0, 1)
    r.challenge(1)
    with pytest.raises(IllegalMove):
        r.timeout(1, "proof")  # not the seat that owes the proof
    r.timeout(0, "proof")
    assert r.s.scores == [0, 3] and r.s.to_move == 1
    r.timeout(1, "idle")
    assert r.over and r.s.winner == 0


def test_illegal_moves_change_nothing():
    r = classic()
    before = repr(r.s)
    for bad in (lambda: r.play(0, 9), lambda: r.accept(0), lambda: r.resolve(True), lambda: r.timeout(0, "x")):
        with pytest.raises(IllegalMove):
            bad()
        assert repr(r.s) == before


# ---------------------------------------------------------------- 5 Up 2 Down

BOARD = (1 << KING) | (1 << SEVEN) | (1 << (TWO + 13)) | (1 << (NINE + 26)) | (1 << (ACE + 39))


def five(mode="standard"):
    r = FiveUpRules(mode)
    r.deal(BOARD)
    return r


def test_five_up_claims_name_board_ranks():
    r = five()
    assert Claim(()) in r.legal_actions(0) and Claim((KING, KING)) in r.legal_actions(0)
    with pytest.raises(IllegalMove):
        r.claim(0, (EIGHT,))  # not on the board
    with pytest.raises(IllegalMove):
        r.claim(0, (KING, SEVEN, TWO))


def test_five_up_none_cannot_be_challenged():
    r = five()
    r.claim(0, ())
    assert r.s.to_move == 1 and r.s.phase == "claim" and r.s.scores == [0, 0]


def test_five_up_scoring_table():
    cases = [((KING,), "accept", None, [1, 0]), ((KING, SEVEN), "accept", None, [3, 0]),
             ((KING,), "challenge", 0, [2, 0]), ((KING, SEVEN), "challenge", 0, [4, 0]),
             ((KING,), "challenge", 1, [0, 1]), ((KING, SEVEN), "challenge", 1, [0, 1]),
             ((KING, SEVEN), "challenge", 2, [0, 2])]
    for names, response, lies, scores in cases:
        r = five()
        r.claim(0, names)
        getattr(r, response)(1)
        if lies is not None:
            r.resolve(lies)
        assert r.s.scores == scores, (names, response, lies)


def test_five_up_liar_floored_and_lies_bounded():
    r = five()
    r.s.scores = [1, 0]
    r.claim(0, (KING, SEVEN))
    r.challenge(1)
    with pytest.raises(IllegalMove):
        r.resolve(3)
    r.resolve(2)
    assert r.s.scores == [0, 2]


def test_five_up_first_claimer_alternates_and_race_checked_at_round_end():
    r = five()
    assert r.s.first_claimer == 0
    r.s.scores = [19, 0]
    r.claim(0, (KING, SEVEN))
    r.accept(1)
    assert r.s.scores == [22, 0] and not r.over  # checked only at the end of the round
    r.claim(1, ())
    assert r.over and r.s.winner == 0
    r2 = five("casual")
    r2.claim(0, ())
    r2.claim(1, ())
    r2.deal(BOARD)
    assert r2.s.first_claimer == 1 and r2.s.to_move == 1 and r2.s.target == 10


def test_five_up_ten_rounds_tie_is_a_draw():
    r = FiveUpRules()
    for _ in range(10):
        r.deal(BOARD)
        r.claim(r.s.to_move, ())
        r.claim(r.s.to_move, ())
    assert r.over and r.s.draw


# ---------------------------------------------------------------- whole matches, invariants

class Checked:
    """Wraps an agent and checks invariants on every observation it gets."""

    def __init__(self, agent):
        self.agent = agent

    def act(self, obs):
        assert all(s >= 0 for s in obs.state.scores)
        if hasattr(obs.state, "pile"):
            assert 0 <= obs.state.pile <= 14 and all(0 <= h <= 7 for h in obs.state.hand_sizes)
            assert len(obs.hand) == obs.state.hand_sizes[obs.seat]
        assert len(set(obs.hand)) == len(obs.hand) and all(0 <= c < 52 for c in obs.hand)
        return self.agent.act(obs)


@pytest.mark.parametrize("seed", range(40))
def test_whole_classic_matches_end(seed):
    agents = [Checked(ClassicHouseBot(seed)), Checked(ClassicRandomBot(seed + 99))]
    winner = play_classic(agents, ["casual", "standard", "casino"][seed % 3], seed=seed)
    assert winner in (0, 1, None)


@pytest.mark.parametrize("seed", range(40))
def test_whole_five_up_matches_end(seed):
    winner = play_five_up([Checked(FiveUpHouseBot(seed)), Checked(FiveUpHouseBot(seed + 1))], "casual" if seed % 2 else "standard",
                          seed=seed)
    assert winner in (0, 1, None)


def test_house_bot_beats_a_random_player():
    from zkbluff.bots.arena import win_rate

    from zkbluff.bots.proof_or_bluff import FiveUpRandomBot

    classic_res = win_rate(play_classic, ClassicHouseBot, ClassicRandomBot, 100)
    five_res = win_rate(play_five_up, FiveUpHouseBot, FiveUpRandomBot, 100)
    assert classic_res["wins"] >= 80, classic_res
    assert five_res["wins"] >= 80, five_res
