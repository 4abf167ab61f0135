"""Bluffers (seed 003): every rule by name on the public rules engine, whole matches at
2, 3 and 4 players with invariants at every event, the pull probabilities measured
(chi-square), and the illegal moves refused with the state unchanged."""
import dataclasses
import random

import pytest

from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.games.bluffers.bot import HouseBot, RandomBot, house_against_random, play_match
from zkbluff.games.bluffers.rules import (
    ACTIONS, ACE, CHAMBERS, DECK, JOKERS, KING, NO_SEAT, POINTS, QUEEN, AutoMove, BluffersRules, CallBluff,
    CommitSeed, Deal, Disconnect, LeaveTable, Phase, Play, Reconnect, Reveal, Share, bullet_chamber,
    check_invariants, counts_as_table_card, pull_fires,
)
from zkbluff.statements.revolver import share_native

K = [0, 1, 2, 3, 4, 5]
Q = [6, 7, 8, 9, 10, 11]
A = [12, 13, 14, 15, 16, 17]


def started(n: int, table_card: int = KING) -> BluffersRules:
    rules = BluffersRules(n)
    for seat in range(n):
        rules.apply(seat, CommitSeed(1000 + seat))
    rules.apply(NO_SEAT, Deal(table_card))
    return rules


def pull(rules: BluffersRules, fire: bool) -> None:
    """Give the shares of the current pull so that it fires (all zero) or clicks (one share 1)."""
    snap = rules.public_state()
    assert snap.phase == Phase.PULL
    for i, seat in enumerate(snap.contributors):
        rules.apply(seat, Share(0 if fire or i else 1))


def call_and_settle(rules: BluffersRules, caller: int, cards: tuple, fire: bool) -> None:
    rules.apply(caller, CallBluff())
    rules.apply(rules.to_move, Reveal(cards))
    pull(rules, fire)


def unchanged(rules: BluffersRules, seat, action, match: str = "") -> None:
    before = rules.public_state()
    with pytest.raises(IllegalMove, match=match):
        rules.apply(seat, action)
    assert rules.public_state() == before


# ---------------------------------------------------------------- the deck and the table card

def test_deck_has_6_kings_6_queens_6_aces_and_2_jokers():
    assert DECK.size == 20
    assert [sum(counts_as_table_card(c, t) and c not in JOKERS for c in range(20)) for t in (KING, QUEEN, ACE)] \
        == [6, 6, 6]
    assert JOKERS == (18, 19)


def test_a_joker_counts_as_the_table_card_whatever_it_is():
    for t in (KING, QUEEN, ACE):
        assert all(counts_as_table_card(j, t) for j in JOKERS)
        assert sum(counts_as_table_card(c, t) for c in range(20)) == 8
    assert not counts_as_table_card(Q[0], KING) and counts_as_table_card(K[0], KING)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_each_surviving_player_gets_5_cards_and_4_players_get_the_whole_deck(n):
    rules = started(n)
    snap = rules.public_state()
    assert snap.hand_sizes == (5,) * n
    assert snap.undealt == 20 - 5 * n
    assert (snap.undealt == 0) == (n == 4)
    check_invariants(snap)


def test_after_a_knock_out_only_the_survivors_are_dealt():
    rules = started(3)
    rules.apply(0, Play(1))
    call_and_settle(rules, 1, (Q[0],), fire=True)  # a lie: seat 0 pulls and is out
    rules.apply(NO_SEAT, Deal(QUEEN))
    assert rules.public_state().hand_sizes == (0, 5, 5)
    assert rules.public_state().undealt == 10


def test_the_table_card_is_public_and_is_king_queen_or_ace():
    rules = BluffersRules(2)
    rules.apply(0, CommitSeed(1))
    rules.apply(1, CommitSeed(2))
    for bad in (3, -1, True, "King"):
        unchanged(rules, NO_SEAT, Deal(bad), "table card")
    rules.apply(NO_SEAT, Deal(ACE))
    assert rules.public_state().table_card == ACE


def test_a_new_table_card_is_drawn_every_round():
    rules = started(2, KING)
    rules.apply(0, Play(1))
    call_and_settle(rules, 1, (K[0],), fire=False)
    snap = rules.public_state()
    assert snap.phase == Phase.DEAL and snap.table_card is None and snap.to_move is NO_SEAT
    unchanged(rules, 1, Play(1), "out of turn")
    rules.apply(NO_SEAT, Deal(QUEEN))
    assert rules.public_state().table_card == QUEEN and rules.public_state().round == 2


def test_only_the_dealer_deals():
    rules = BluffersRules(2)
    rules.apply(0, CommitSeed(1))
    rules.apply(1, CommitSeed(2))
    unchanged(rules, 0, Deal(KING), "out of turn")


def test_revolver_seeds_are_committed_in_seat_order_before_the_first_deal():
    rules = BluffersRules(3)
    unchanged(rules, NO_SEAT, Deal(KING), "out of turn")
    unchanged(rules, 1, CommitSeed(5), "out of turn")
    unchanged(rules, 0, CommitSeed(-1), "field element")
    rules.apply(0, CommitSeed(7))
    unchanged(rules, 1, CommitSeed(7), "already made this commitment")
    for seat in (1, 2):
        rules.apply(seat, CommitSeed(7 + seat))
    assert rules.public_state().seed_commitments == (7, 8, 9)
    assert rules.public_state().phase == Phase.DEAL


# ---------------------------------------------------------------- a turn

def test_a_turn_plays_1_2_or_3_cards():
    rules = started(2)
    for bad in (0, 4, -1, True):
        unchanged(rules, 0, Play(bad), "count must be 1..3")
    rules.apply(0, Play(3))
    assert rules.public_state().hand_sizes == (2, 5) and rules.public_state().pile == 3
    rules.apply(1, Play(2))
    unchanged(rules, 0, Play(3), r"count must be 1..2")
    assert [a for a in rules.legal_actions(0)] == [Play(1), Play(2), CallBluff()]


def test_the_next_player_accepts_by_playing_and_the_turn_passes():
    rules = started(3)
    rules.apply(0, Play(2))
    assert rules.to_move == 1
    rules.apply(1, Play(1))
    assert rules.to_move == 2
    assert rules.public_state().last_play.seat == 1 and rules.public_state().last_play.count == 1


def test_call_bluff_needs_cards_on_the_table():
    rules = started(2)
    unchanged(rules, 0, CallBluff(), "no cards have been played")
    assert CallBluff() not in rules.legal_actions(0)


def test_a_call_reveals_the_last_cards_and_marks_which_match_jokers_included():
    rules = started(2, ACE)
    rules.apply(0, Play(3))
    rules.apply(1, CallBluff())
    assert rules.public_state().phase == Phase.REVEAL and rules.to_move == 0
    rules.apply(0, Reveal((A[0], JOKERS[1], K[0])))
    snap = rules.public_state()
    assert snap.revealed == (A[0], JOKERS[1], K[0])
    assert snap.matched == (True, True, False)


def test_all_cards_match_so_the_caller_pulls():
    rules = started(2, QUEEN)
    rules.apply(0, Play(2))
    rules.apply(1, CallBluff())
    rules.apply(0, Reveal((Q[3], JOKERS[0])))
    assert rules.public_state().puller == 1


def test_any_card_does_not_match_so_the_player_who_played_pulls():
    rules = started(2, QUEEN)
    rules.apply(0, Play(2))
    rules.apply(1, CallBluff())
    rules.apply(0, Reveal((Q[3], A[0])))
    assert rules.public_state().puller == 0


def test_only_the_called_seat_reveals_and_only_what_it_played():
    rules = started(3)
    rules.apply(0, Play(2))
    rules.apply(1, CallBluff())
    unchanged(rules, 1, Reveal((K[0], K[1])), "out of turn")
    unchanged(rules, 0, Reveal((K[0],)), "played 2 card")
    unchanged(rules, 0, Reveal((K[0], K[1], K[2])), "played 2 card")


@pytest.mark.parametrize("cards", [(20, K[0]), (K[0], -1), (JOKERS[0], JOKERS[0]), (K[1], 99)])
def test_a_joker_or_card_claimed_outside_the_deck_is_rejected(cards):
    rules = started(2)
    rules.apply(0, Play(2))
    rules.apply(1, CallBluff())
    unchanged(rules, 0, Reveal(cards), "deck|twice")
    rules.apply(0, Reveal((JOKERS[0], JOKERS[1])))  # the twin: both real jokers are fine


# ---------------------------------------------------------------- the revolver

def make_pull(rules: BluffersRules, puller: int, fire: bool = False) -> None:
    """A two-seat round in which ``puller`` ends up pulling: the starter plays one card,
    the other calls; the reveal is a lie if the starter is to pull, else the truth."""
    starter = rules.to_move
    rules.apply(starter, Play(1))
    call_and_settle(rules, rules.to_move, (Q[0],) if puller == starter else (K[0],), fire)


def test_the_chamber_advances_with_every_pull_and_carries_over_rounds():
    rules = started(2)
    expected = [0, 0]
    for puller in (1, 1, 0, 1, 0):
        make_pull(rules, puller)
        snap = rules.public_state()
        assert snap.last_pull.seat == puller and snap.last_pull.chamber == expected[puller]
        expected[puller] += 1
        assert snap.chambers == tuple(expected)
        rules.apply(NO_SEAT, Deal(KING))  # a new round: the chambers stay where they were
        assert rules.public_state().chambers == tuple(expected)
    assert not any(rules.public_state().fired)


def test_chamber_index_counts_each_seats_own_pulls():
    rules = started(2)
    rules.apply(0, Play(1))
    call_and_settle(rules, 1, (K[0],), fire=False)  # seat 1 pulls (chamber 0 -> 1)
    rules.apply(NO_SEAT, Deal(KING))
    assert rules.to_move == 1  # the puller starts
    rules.apply(1, Play(1))
    call_and_settle(rules, 0, (Q[0],), fire=False)  # seat 1 lied: it pulls again (1 -> 2)
    assert rules.public_state().chambers == (0, 2)
    assert rules.public_state().last_pull.chamber == 1 and not rules.public_state().last_pull.fired


def test_six_chambers_one_bullet_the_sixth_pull_always_fires():
    assert pull_fires([5, 7, 11], 5)  # one chamber left
    assert pull_fires([0, 0], 0) and not pull_fires([1, 0], 0)
    with pytest.raises(ValueError):
        pull_fires([0], 6)
    rules = started(2)
    for _ in range(5):
        make_pull(rules, 0)  # five clicks
        rules.apply(NO_SEAT, Deal(KING))
    assert rules.public_state().chambers == (5, 0)
    rules.apply(0, Play(1))
    rules.apply(1, CallBluff())
    rules.apply(0, Reveal((Q[0],)))
    for seat in rules.public_state().contributors:  # any shares: the last chamber fires
        rules.apply(seat, Share(12345 + seat))
    assert rules.public_state().fired == (True, False) and rules.over
    assert rules.public_state().last_pull.chamber == 5


def test_a_bang_knocks_the_player_out_and_settles_its_place():
    rules = started(4)
    rules.apply(0, Play(1))
    call_and_settle(rules, 1, (A[0],), fire=True)
    snap = rules.public_state()
    assert not snap.alive[0] and snap.fired[0] and snap.places == (4, None, None, None)
    assert snap.knocked_out == (0,)
    check_invariants(snap)


def test_after_the_pull_the_puller_starts_the_new_round():
    rules = started(3)
    rules.apply(0, Play(1))
    call_and_settle(rules, 1, (K[2],), fire=False)  # the claim was true: seat 1 pulls, clicks
    rules.apply(NO_SEAT, Deal(ACE))
    assert rules.to_move == 1 and rules.public_state().starter == 1


def test_if_the_puller_is_out_the_next_player_starts():
    rules = started(3)
    rules.apply(0, Play(1))
    rules.apply(1, Play(1))
    call_and_settle(rules, 2, (Q[0],), fire=True)  # seat 1 lied and is out
    rules.apply(NO_SEAT, Deal(ACE))
    assert rules.to_move == 2


def test_every_standing_seat_gives_a_share_puller_first_and_knocked_out_seats_none():
    rules = started(3)
    rules.apply(0, Play(1))
    call_and_settle(rules, 1, (Q[0],), fire=True)  # seat 0 out
    rules.apply(NO_SEAT, Deal(KING))
    rules.apply(1, Play(1))
    rules.apply(2, CallBluff())
    rules.apply(1, Reveal((K[0],)))  # true: seat 2 pulls
    snap = rules.public_state()
    assert snap.puller == 2 and snap.contributors == (2, 1)
    unchanged(rules, 1, Share(0), "out of turn")
    unchanged(rules, 0, Share(0), "out of turn")
    unchanged(rules, 2, Share(-5), "field element")
    rules.apply(2, Share(3))
    assert rules.to_move == 1
    rules.apply(1, Share(3))  # (3 + 3) mod 6 == 0: bang
    assert rules.over and rules.public_state().places == (3, 1, 2)


def native_revolver_pulls(rng: random.Random, seats: int, fires=pull_fires, share=share_native) -> list[bool]:
    """One revolver's pulls until it fires, from the seats' random seeds and the native share."""
    seeds = [rng.randrange(2 ** 253) for _ in range(seats)]
    out = []
    for k in range(CHAMBERS):
        f = fires([share(s, 0, k) for s in seeds], k)
        out.append(f)
        if f:
            return out
    raise AssertionError("six pulls without a bang")


def chi_square_of_pulls(samples: list[list[bool]]) -> tuple[float, list[tuple[int, int]]]:
    """Sum over chambers 0..4 of the 1-dof chi-square of fires against 1/(6-k) given the
    pull was reached (5 degrees of freedom in all)."""
    stat, table = 0.0, []
    for k in range(CHAMBERS - 1):
        reached = sum(1 for s in samples if len(s) > k)
        fired = sum(1 for s in samples if len(s) > k and s[k])
        p = 1 / (CHAMBERS - k)
        e1, e0 = reached * p, reached * (1 - p)
        stat += (fired - e1) ** 2 / e1 + ((reached - fired) - e0) ** 2 / e0
        table.append((reached, fired))
    return stat, table


CHI2_5DOF_P001 = 20.515
N_REVOLVERS = 900


def test_pull_probabilities_are_1_6_then_1_5_then_1_4_chi_square():
    rng = random.Random(2026)
    samples = [native_revolver_pulls(rng, rng.choice((2, 3))) for _ in range(N_REVOLVERS)]
    stat, table = chi_square_of_pulls(samples)
    assert stat < CHI2_5DOF_P001, (stat, table)
    positions = [len(s) - 1 for s in samples]
    counts = [positions.count(k) for k in range(CHAMBERS)]
    e = N_REVOLVERS / CHAMBERS
    uniform = sum((c - e) ** 2 / e for c in counts)
    assert uniform < CHI2_5DOF_P001, counts
    # the bullet chamber of a full row of shares is where the pulls stop
    rows = [[share_native(s, 1, k) for s in (11, 22)] for k in range(CHAMBERS)]
    k = bullet_chamber(rows)
    assert all(not pull_fires(rows[i], i) for i in range(k)) and pull_fires(rows[k], k)


def test_the_chi_square_check_catches_a_biased_revolver():
    """The twin: a revolver that fires with 1/6 at every pull (the chamber not advancing)
    fails the same test."""
    rng = random.Random(2026)

    def stuck(shares, k):
        return sum(s % 6 for s in shares) % 6 == 0 or k == CHAMBERS - 1

    samples = [native_revolver_pulls(rng, 2, stuck, share=lambda s, v, k: rng.getrandbits(253))
               for _ in range(N_REVOLVERS)]
    stat, _ = chi_square_of_pulls(samples)
    assert stat > CHI2_5DOF_P001


# ---------------------------------------------------------------- special cases

def empty_seat_1_in_three() -> BluffersRules:
    """Seat 1 has played all 5 cards; seats 0 and 2 still hold cards."""
    rules = started(3)
    rules.apply(0, Play(1))   # 0: 4
    rules.apply(1, Play(3))   # 1: 2
    rules.apply(2, Play(1))   # 2: 4
    rules.apply(0, Play(1))   # 0: 3
    rules.apply(1, Play(2))   # 1: 0
    return rules


def test_a_player_with_no_cards_is_skipped_until_the_round_ends():
    rules = empty_seat_1_in_three()
    assert rules.to_move == 2
    rules.apply(2, Play(1))
    assert rules.to_move == 0  # seat 1 skipped
    rules.apply(0, Play(1))
    assert rules.to_move == 2


def test_a_skipped_player_acting_is_rejected():
    rules = empty_seat_1_in_three()
    rules.apply(2, Play(1))
    unchanged(rules, 1, Play(1), "out of turn")
    unchanged(rules, 1, CallBluff(), "out of turn")
    assert rules.legal_actions(1) == []


def test_the_last_play_of_a_player_with_no_cards_can_still_be_called():
    rules = empty_seat_1_in_three()
    rules.apply(2, CallBluff())
    assert rules.to_move == 1  # the empty-handed seat opens its last play
    rules.apply(1, Reveal((Q[0], Q[1])))
    assert rules.public_state().puller == 1


def only_seat_0_has_cards() -> BluffersRules:
    rules = started(2)
    rules.apply(0, Play(1))  # 4
    rules.apply(1, Play(3))  # 2
    rules.apply(0, Play(1))  # 3
    rules.apply(1, Play(2))  # 0
    return rules


def test_the_only_player_with_cards_must_call_bluff():
    rules = only_seat_0_has_cards()
    assert rules.to_move == 0 and rules.must_call(0)
    assert rules.legal_actions(0) == [CallBluff()]
    unchanged(rules, 0, Play(1), "must call bluff")
    rules.apply(0, CallBluff())
    assert rules.to_move == 1


def test_a_non_caller_when_calling_is_forced_is_rejected():
    rules = only_seat_0_has_cards()
    unchanged(rules, 1, CallBluff(), "out of turn")  # the empty-handed seat may not call for it
    unchanged(rules, NO_SEAT, CallBluff(), "out of turn")
    unchanged(rules, 0, Play(3), "count must be|must call")


def test_the_timer_plays_one_card_for_the_seat():
    rules = started(2)
    rules.apply(0, AutoMove("timeout"))
    snap = rules.public_state()
    assert snap.hand_sizes == (4, 5) and snap.last_play.count == 1 and snap.last_play.auto
    unchanged(rules, 1, AutoMove("nap"), "reason")
    unchanged(rules, 1, AutoMove("dropped"), "connected")


def test_the_timer_makes_the_forced_call():
    rules = only_seat_0_has_cards()
    rules.apply(0, AutoMove("timeout"))
    assert rules.public_state().phase == Phase.REVEAL and rules.public_state().caller == 0


def test_a_dropped_player_is_played_automatically_and_rejoins_where_it_left_off():
    rules = started(3)
    rules.apply(NO_SEAT, Disconnect(1))
    unchanged(rules, NO_SEAT, Disconnect(1), "already")
    unchanged(rules, 2, Disconnect(1), "made by the table")
    rules.apply(0, Play(2))
    assert rules.legal_actions(1) == [AutoMove("dropped")]
    unchanged(rules, 1, Play(1), "disconnected")
    unchanged(rules, 1, AutoMove("timeout"), "not connected")
    rules.apply(1, AutoMove("dropped"))
    assert rules.public_state().hand_sizes == (3, 4, 5)
    rules.apply(NO_SEAT, Reconnect(1))
    unchanged(rules, NO_SEAT, Reconnect(1), "not disconnected")
    rules.apply(2, Play(1))
    rules.apply(0, Play(1))
    assert Play(3) in rules.legal_actions(1)  # back, with its 4 cards
    rules.apply(1, Play(3))


def test_leave_table_forfeits_the_points_and_the_match_goes_on():
    rules = started(3)
    rules.apply(2, LeaveTable())  # any time, not only on its turn
    unchanged(rules, 2, LeaveTable(), "already left")
    unchanged(rules, NO_SEAT, Reconnect(2), "for good")
    rules.apply(0, Play(1))
    rules.apply(1, Play(1))
    assert rules.legal_actions(2) == [AutoMove("dropped")]
    rules.apply(2, AutoMove("dropped"))
    call_and_settle(rules, 0, (Q[0],), fire=True)  # seat 2's auto card was no King: it is out
    rules.apply(NO_SEAT, Deal(KING))
    rules.apply(0, Play(1))
    call_and_settle(rules, 1, (Q[0],), fire=True)
    result = rules.result()
    assert result.placements == (2, 1, 3)
    assert result.scores == (4, 8, 0)  # seat 2 placed 3rd but left: no point
    assert "left the table" in result.reason


@pytest.mark.parametrize("n", [2, 3, 4])
def test_places_settle_as_players_are_knocked_out_and_points_follow_the_table_size(n):
    rules = started(n)
    order = []
    while not rules.over:
        starter = rules.to_move
        rules.apply(starter, Play(1))
        call_and_settle(rules, rules.to_move, (Q[0],), fire=True)  # the starter lied and is out
        order.append(starter)
        if not rules.over:
            assert rules.public_state().places[starter] == n - len(order) + 1
            rules.apply(NO_SEAT, Deal(KING))
    result = rules.result()
    winner = next(i for i in range(n) if i not in order)
    assert result.placements[winner] == 1
    for k, seat in enumerate(order):
        assert result.placements[seat] == n - k
    assert sorted(result.scores, reverse=True) == list(POINTS[n])
    assert {2: (5, 1), 3: (8, 4, 1), 4: (10, 6, 3, 1)}[n] == POINTS[n]
    assert result.winners == (winner,)


def test_nothing_is_allowed_once_the_match_is_over():
    rules = started(2)
    rules.apply(0, Play(1))
    call_and_settle(rules, 1, (Q[0],), fire=True)
    assert rules.over and rules.to_move is None
    unchanged(rules, NO_SEAT, Deal(KING), "over")
    unchanged(rules, 1, LeaveTable(), "over")
    unchanged(rules, NO_SEAT, Disconnect(0), "over")
    assert rules.legal_actions(1) == []


def test_seat_counts_outside_2_to_4_are_refused():
    for n in (0, 1, 5, True):
        with pytest.raises(IllegalMove):
            BluffersRules(n)


# ---------------------------------------------------------------- actions as data

def test_every_action_round_trips_through_its_data_and_wrong_types_are_refused():
    samples = [CommitSeed(5), Deal(1), Play(2), CallBluff(), AutoMove("timeout"), Reveal((1, 19)), Share(7),
               Disconnect(2), Reconnect(2), LeaveTable()]
    assert {a.kind for a in samples} == set(ACTIONS)
    for a in samples:
        assert ACTIONS[a.kind].from_data(a.to_data()) == a
    with pytest.raises(MalformedInput):
        Play.from_data({"count": True})
    with pytest.raises(MalformedInput):
        Reveal.from_data({"cards": ["K"]})
    with pytest.raises(MalformedInput):
        Deal.from_data({"table_card": 1, "extra": 0})


def test_a_foreign_action_is_refused():
    rules = started(2)

    @dataclasses.dataclass(frozen=True)
    class Pass(Play):
        kind = "pass"

    unchanged(rules, 0, Pass(1), "not a Bluffers action")


# ---------------------------------------------------------------- invariants

def test_the_invariant_checker_catches_broken_snapshots():
    snap = started(3).public_state()
    check_invariants(snap)
    for bad in (dataclasses.replace(snap, pile=1),                       # a card appears from nowhere
                dataclasses.replace(snap, chambers=(7, 0, 0)),           # chamber out of range
                dataclasses.replace(snap, knocked_out=(1, 1)),           # a revolver fired twice
                dataclasses.replace(snap, fired=(True, False, False)),   # fired but still standing
                dataclasses.replace(snap, revealed=(3, 3)),
                dataclasses.replace(snap, hand_sizes=(6, 5, 4))):
        with pytest.raises(AssertionError):
            check_invariants(bad)


def checking(rules, dealer):
    check_invariants(rules.public_state())
    dealer.check_cards()


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("seed", range(6))
def test_whole_matches_to_the_end_with_invariants_at_every_event(n, seed):
    rng = random.Random(seed * 10 + n)
    # seeds 0 and 3: random-legal everywhere; the others mix house and random-legal seats
    policies = [RandomBot() if seed % 3 == 0 or (seed + i) % 2 else HouseBot() for i in range(n)]
    log = play_match(policies, rng, on_event=checking, timeout_rate=0.05 * (seed % 3),
                     drop_rate=0.02 * (seed % 2), leave_rate=0.002 * (seed % 2))
    assert sorted(log.places) == list(range(1, n + 1))
    kinds = {a.kind for _, a in log.events}
    assert {"commit_seed", "deal", "call_bluff", "reveal", "share"} <= kinds
    assert sum(1 for _, a in log.events if isinstance(a, Deal)) == log.rounds


@pytest.mark.parametrize("n", [2, 3])
def test_whole_matches_with_proven_shares(n):
    """Pull shares from the seats' seeds by the native share (as the proof computes them)."""
    rng = random.Random(77 + n)
    seeds = [rng.randrange(2 ** 253) for _ in range(n)]
    log = play_match([RandomBot() for _ in range(n)], rng, on_event=checking,
                     share=lambda seat, revolver, k: share_native(seeds[seat], revolver, k))
    assert sorted(log.places) == list(range(1, n + 1))


def test_house_bot_beats_random_legal_on_average():
    for n in (2, 3, 4):
        report = house_against_random(n, matches=60, seed=3)
        assert report.mean_points["house"] > report.mean_points["random"] + 1, report.lines()
        assert report.mean_place["house"] < report.mean_place["random"], report.lines()


# ---------------------------------------------------------------- fuzz: legal or refused, never half-applied

def junk_action(rng: random.Random, n: int):
    kind = rng.choice(sorted(ACTIONS))
    cls = ACTIONS[kind]
    ints = [rng.choice([-1, 0, 1, 2, 3, 4, 5, 19, 20, 2 ** 254, True]) for _ in range(3)]
    return {
        "commit_seed": lambda: CommitSeed(ints[0]), "deal": lambda: Deal(ints[0]), "play": lambda: Play(ints[0]),
        "call_bluff": CallBluff, "auto_move": lambda: AutoMove(rng.choice(["timeout", "dropped", "x"])),
        "reveal": lambda: Reveal(tuple(ints[:rng.randint(0, 3)])), "share": lambda: Share(ints[0]),
        "disconnect": lambda: Disconnect(ints[0]), "reconnect": lambda: Reconnect(ints[0]),
        "leave_table": LeaveTable,
    }[cls.kind]()


@pytest.mark.parametrize("seed", range(12))
def test_random_actions_are_applied_whole_or_refused_with_nothing_changed(seed):
    rng = random.Random(seed)
    n = 2 + seed % 3
    rules = BluffersRules(n)
    applied = refused = 0
    for _ in range(3000):
        if rules.over:
            break
        seat = rng.choice([NO_SEAT, *range(n), rules.to_move, rules.to_move])
        legal = rules.legal_actions(seat)
        snap = rules.public_state()
        if snap.phase == Phase.COMMIT and rng.random() < 0.5:
            seat, action = snap.to_move, CommitSeed(rng.getrandbits(200))
        elif snap.phase == Phase.REVEAL and rng.random() < 0.5:
            seat, action = snap.to_move, Reveal(tuple(rng.sample(range(20), snap.last_play.count)))
        elif snap.phase == Phase.PULL and rng.random() < 0.5:
            seat, action = snap.to_move, Share(rng.getrandbits(250))
        elif legal and rng.random() < 0.6:
            action = rng.choice(legal)
        else:
            action = junk_action(rng, n)
        try:
            rules.apply(seat, action)
        except IllegalMove:
            assert rules.public_state() == snap, (seat, action)
            refused += 1
        else:
            check_invariants(rules.public_state())
            applied += 1
    assert applied > 20 and refused > 20
