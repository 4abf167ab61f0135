"""Bluffers' rules, guard by guard (issue 21's mutation testing): every bound, every refusal
and its message, every branch of the proven table's forfeit, each pinned by a test that fails
when the check is deleted, inverted or moved by one. Pure rules, no proofs."""
from __future__ import annotations

import dataclasses
import json

import pytest

from repo_root import REPO_ROOT
from zkbluff.field import r as FIELD_R
from zkbluff.games.bluffers.rules import (
    CHAMBERS, DRAW_ROUND_TAG, FIELD_MODULUS, KING, MAX_SEATS, NO_SEAT, BluffersRules, CallBluff, CommitSeed, Deal,
    Disconnect, LeaveTable, Phase, Play, LastPlay, AutoMove, DealHands, DrawTableCard, Forfeit, OpenPlay, PullOutcome, Reconnect, Reveal, Share, ShedCard, TableRules, bullet_chamber, check_invariants, pull_fires,
)

from rules_guard_helpers import refused_matching


def started(n: int, table_card: int = KING) -> BluffersRules:
    rules = BluffersRules(n)
    for seat in range(n):
        rules.apply(seat, CommitSeed(1000 + seat))
    rules.apply(NO_SEAT, Deal(table_card))
    return rules


def two_knocked_out_of_three() -> BluffersRules:
    """Three seats; seat 0 lies (a Queen for a King), is called and is out, then seat 1 does
    the same: seat 2 is the last one standing."""
    rules = started(3)
    for starter in (0, 1):
        assert rules.to_move == starter
        rules.apply(starter, Play(1))
        rules.apply(rules.to_move, CallBluff())
        rules.apply(starter, Reveal((6,)))
        for seat in rules.public_state().contributors:
            rules.apply(seat, Share(0))
        if not rules.over:
            rules.apply(NO_SEAT, Deal(KING))
    return rules


def pulling(n: int = 2) -> BluffersRules:
    """Seat 0 played a lying King (a Queen), seat 1 called: seat 0 pulls."""
    rules = started(n)
    rules.apply(0, Play(1))
    rules.apply(1, CallBluff())
    rules.apply(0, Reveal((6,)))
    assert rules.public_state().phase == Phase.PULL
    return rules


# ---------------------------------------------------------------- field elements

def test_the_field_modulus_is_bn254s_r():
    assert FIELD_MODULUS == FIELD_R


def test_a_seed_commitment_is_any_field_element_from_0_to_r_minus_1():
    rules = BluffersRules(2)
    refused_matching(rules, 0, CommitSeed(FIELD_MODULUS), "must be a field element, got 2188")
    refused_matching(rules, 0, CommitSeed(-1), "must be a field element, got -1")
    rules.apply(0, CommitSeed(0))
    rules.apply(1, CommitSeed(FIELD_MODULUS - 1))
    assert rules.public_state().seed_commitments == (0, FIELD_MODULUS - 1)


def test_a_share_is_any_field_element_from_0_to_r_minus_1():
    rules = pulling()
    refused_matching(rules, 0, Share(FIELD_MODULUS), "field element 0 <= x < r, got 2188")
    refused_matching(rules, 0, Share(-1), "field element 0 <= x < r, got -1")
    rules.apply(0, Share(FIELD_MODULUS - 1))
    rules.apply(1, Share(0))
    assert rules.public_state().last_pull.chamber == 0


# ---------------------------------------------------------------- seats named in actions

@pytest.mark.parametrize("n", [2, 3])
def test_leave_table_comes_from_a_seat_of_the_table(n):
    rules = started(n)
    for bad in (n, -1, NO_SEAT, True):
        refused_matching(rules, bad, LeaveTable(), rf"must be made by a seat 0\.\.{n - 1}, got {bad!r}")
    rules.apply(n - 1, LeaveTable())
    assert rules.public_state().left == (False,) * (n - 1) + (True,)


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("kind", [Disconnect, Reconnect])
def test_the_table_names_a_seat_of_the_table_when_it_drops_or_returns(n, kind):
    rules = started(n)
    for bad in (n, -1, True):
        refused_matching(rules, NO_SEAT, kind(bad), rf"{kind.kind}: seat must be 0\.\.{n - 1}, got {bad!r}")


# ---------------------------------------------------------------- the draw's stream

def test_the_draws_round_tag_is_far_from_every_deals_round():
    """A match has at most one round per pull and each revolver fires by its sixth pull, so
    fewer than CHAMBERS x MAX_SEATS rounds: the draw of round k (tag + k) never meets a deal."""
    rounds = CHAMBERS * MAX_SEATS
    assert DRAW_ROUND_TAG > 2 * rounds
    assert not {DRAW_ROUND_TAG + k for k in range(rounds)} & set(range(rounds + 1))


@pytest.mark.parametrize("vector", ["bluffers-2.jsonl", "bluffers-3.jsonl"])
def test_the_published_transcripts_draw_round_one_on_the_tag_plus_one(vector):
    """The tag is part of the protocol: the conformance transcripts' first draw proof has
    DRAW_ROUND_TAG + 1 as its round input; another tag would orphan every published match."""
    lines = [json.loads(line) for line in (REPO_ROOT / "vectors" / "transcripts" / vector).read_text().splitlines()]
    draw = next(line for line in lines if line.get("action") == "draw")
    assert str(DRAW_ROUND_TAG + 1) in draw["proofs"][0]["public"]


# ---------------------------------------------------------------- the revolver, exactly

@pytest.mark.parametrize("chamber", range(CHAMBERS))
def test_a_pull_fires_for_exactly_one_in_m_of_the_share_residues(chamber):
    """With m = 6 - chamber chambers left the pull fires iff the shares sum to 0 mod m:
    over every pair of residues (a full period, offset by multiples of m and by r so
    reduction happens) exactly 1/m of them fire. The chi-square test samples this; this is
    the exact count the sample estimates."""
    m = CHAMBERS - chamber
    for offset in (0, 7 * m, FIELD_MODULUS - m):
        fired = [(a, b) for a in range(m) for b in range(m) if pull_fires((a + offset, b), chamber)]
        assert len(fired) == m, (chamber, offset, fired)
        assert all((a + offset + b) % m == 0 for a, b in fired)
    assert pull_fires((), chamber)  # no share: sum 0


def test_the_sixth_pull_always_fires_and_chambers_outside_0_to_5_are_refused():
    assert all(pull_fires((s, 2 * s + 1), CHAMBERS - 1) for s in range(20))
    for bad in (-1, CHAMBERS):
        with pytest.raises(ValueError, match=rf"chamber must be 0\.\.5, got {bad}"):
            pull_fires((0,), bad)


@pytest.mark.parametrize("k", range(CHAMBERS))
def test_the_bullet_sits_in_the_first_chamber_that_fires(k):
    """Rows of shares that click (sum 1 mod m) until row k, whose shares sum to 0 mod m."""
    rows = [[1, 0] for _ in range(CHAMBERS)]
    rows[k] = [CHAMBERS - k, 0]
    rows[-1] = [5, 3]  # the last always fires, whatever its shares
    assert bullet_chamber(rows) == k
    assert all(not pull_fires(rows[i], i) for i in range(k))


# ---------------------------------------------------------------- the reveal and the invariants

def test_a_reveal_outside_the_deck_names_the_deck_and_both_jokers():
    rules = started(2)
    rules.apply(0, Play(1))
    rules.apply(1, CallBluff())
    refused_matching(rules, 0, Reveal((20,)), r"card id\(s\) \[20\] are not in the 20-card deck "
                                     r"\(0-17 Kings/Queens/Aces, jokers 18 and 19\)")


@pytest.mark.parametrize("bad", [(-1,), (20,), (0, 0)])
def test_the_invariant_checker_refuses_a_revealed_card_outside_the_deck_or_twice(bad):
    snap = started(3).public_state()
    check_invariants(dataclasses.replace(snap, revealed=(0, 19)))
    with pytest.raises(AssertionError):
        check_invariants(dataclasses.replace(snap, revealed=bad))


@pytest.mark.parametrize("cards", [[0], (True,), (0.0,)])
def test_a_reveal_is_a_tuple_of_integer_card_ids(cards):
    rules = started(2)
    rules.apply(0, Play(1))
    rules.apply(1, CallBluff())
    refused_matching(rules, 0, Reveal(cards), "cards must be a tuple of card ids")


def test_a_seats_own_play_is_not_marked_automatic():
    rules = started(2)
    rules.apply(0, Play(2))
    assert rules.public_state().last_play == LastPlay(0, 2, False)
    rules.apply(1, AutoMove("timeout"))
    assert rules.public_state().last_play == LastPlay(1, 1, True)


def test_the_invariant_checker_refuses_a_skipped_player_to_move():
    """Seat 1 has played all its cards: the turn skips it, and a snapshot saying it is to
    move is broken."""
    rules = started(3)
    for seat, count in ((0, 1), (1, 3), (2, 1), (0, 1), (1, 2)):
        rules.apply(seat, Play(count))
    snap = rules.public_state()
    assert snap.hand_sizes[1] == 0 and snap.to_move == 2
    check_invariants(snap)
    with pytest.raises(AssertionError, match="a skipped player is to move"):
        check_invariants(dataclasses.replace(snap, to_move=1))


# ---------------------------------------------------------------- the proven table's lines

def committed_table(n: int = 2) -> TableRules:
    rules = TableRules(n)
    for i in range(n):
        rules.apply(i, CommitSeed(1000 + i))
    return rules


@pytest.mark.parametrize("hands", [("", "aa"), (5, "aa"), ("aa", None), ("aa", "zz"), ("aa", "a")])
def test_each_sealed_hand_of_a_deal_is_non_empty_hex(hands):
    rules = committed_table()
    rules.apply(NO_SEAT, DrawTableCard(KING))
    refused_matching(rules, NO_SEAT, DealHands(KING, (0, 1), hands), r"one sealed hand \(hex\) for each of the 2")
    rules.apply(NO_SEAT, DealHands(KING, (0, 1), ("00", "ff" * 40)))


def test_the_salt_of_an_opened_play_is_a_field_element():
    rules = committed_table()
    rules.apply(NO_SEAT, DrawTableCard(KING))
    rules.apply(NO_SEAT, DealHands(KING, (0, 1), ("aa", "bb")))
    rules.apply(0, Play(1))
    rules.apply(1, CallBluff())
    for bad in (FIELD_MODULUS, -1, True, "1"):
        refused_matching(rules, 0, OpenPlay((0,), bad), f"play_salt must be a field element, got {bad!r}")
    rules.check(0, OpenPlay((0,), 0))  # check() never changes the state
    rules.apply(0, OpenPlay((0,), FIELD_MODULUS - 1))
    assert rules.public_state().phase == Phase.PULL


def test_only_the_dealer_deals_and_the_turn_is_checked_before_the_draw():
    """A seat's deal is refused as out of turn, before (not after) the missing draw."""
    rules = committed_table()
    refused_matching(rules, 0, DealHands(KING, (0, 1), ("aa", "bb")), "deal: out of turn")
    rules.apply(NO_SEAT, DrawTableCard(KING))
    refused_matching(rules, 1, DealHands(KING, (0, 1), ("aa", "bb")), "deal: out of turn")


# ---------------------------------------------------------------- the pull's order, the result's words

@pytest.mark.parametrize("players, truthful, order", [
    ((0,), False, (0, 1, 2, 3)),       # seat 0's lie called by seat 1: seat 0 pulls
    ((0,), True, (1, 2, 3, 0)),        # seat 0's truth called by seat 1: seat 1 pulls
    ((0, 1, 2), True, (3, 0, 1, 2)),   # seat 2's truth called by seat 3: seat 3 pulls
])
def test_the_shares_go_round_the_table_from_the_puller_in_seat_order(players, truthful, order):
    """Four seats: the puller first, then the next seats clockwise (not anticlockwise)."""
    rules = started(4)
    for seat in players:
        rules.apply(seat, Play(1))
    rules.apply(rules.to_move, CallBluff())
    rules.apply(players[-1], Reveal((0,) if truthful else (6,)))  # a King, or a Queen for a King
    assert rules.public_state().contributors == order
    for seat in order:
        assert rules.to_move == seat
        rules.apply(seat, Share(1 if seat == order[0] else 0))  # sum 1 mod 6: a click
    assert rules.public_state().last_pull == PullOutcome(order[0], 0, False)


def test_the_result_names_the_last_one_standing_and_only_says_what_happened():
    rules = two_knocked_out_of_three()
    result = rules.result()
    assert result.reason == "seat 2 is the last one standing"
    assert result.placements == (3, 2, 1) and result.scores == (1, 4, 8)


def test_between_rounds_nobody_must_call():
    """must_call: the seat holds cards and nobody else standing does; with no cards out
    (before a deal) no seat must call."""
    rules = BluffersRules(3)
    for seat in range(3):
        rules.apply(seat, CommitSeed(seat + 1))
    assert not any(rules.must_call(i) for i in range(3))
    rules.apply(NO_SEAT, Deal(KING))
    assert not any(rules.must_call(i) for i in range(3))


def test_the_public_snapshot_and_the_last_pull_are_frozen():
    """A seat holding a snapshot cannot change the engine through it (the last pull is the
    engine's own object)."""
    rules = pulling()
    rules.apply(0, Share(1))
    rules.apply(1, Share(0))
    snap = rules.public_state()
    assert snap.last_pull is rules.s.last_pull
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.last_pull.fired = True  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.phase = Phase.OVER  # type: ignore[misc]
    rules.apply(NO_SEAT, Deal(KING))
    rules.apply(0, Play(1))
    last = rules.public_state().last_play
    assert last is rules.s.last_play
    with pytest.raises(dataclasses.FrozenInstanceError):
        last.count = 3  # type: ignore[misc]
    assert hash(snap.last_pull) == hash(PullOutcome(0, 0, False))


def test_the_invariant_checker_refuses_a_negative_hand_and_a_lone_seat_in_a_live_match():
    rules = started(2)
    rules.apply(0, Play(1))
    snap = rules.public_state()
    assert snap.hand_sizes == (4, 5) and snap.pile == 1
    check_invariants(snap)
    with pytest.raises(AssertionError):
        check_invariants(dataclasses.replace(snap, hand_sizes=(-1, 5), pile=6))  # still 20 cards
    with pytest.raises(AssertionError, match="chamber -1 out of range"):
        check_invariants(dataclasses.replace(snap, chambers=(-1, 0)))


def test_the_invariant_checker_refuses_places_out_of_knock_out_order():
    """Seat 0 then seat 1 knocked out of three: places 3, 2, 1; the same places swapped
    between the two (still 1, 2, 3 settled) are refused."""
    rules = two_knocked_out_of_three()
    snap = rules.public_state()
    assert snap.knocked_out == (0, 1) and snap.places == (3, 2, 1)
    check_invariants(snap)
    with pytest.raises(AssertionError):
        check_invariants(dataclasses.replace(snap, places=(2, 3, 1)))
    # seat 0 knocked out, placed 2nd, and the match not over: one seat standing is the end
    lone = dataclasses.replace(BluffersRules(2).public_state(), phase=Phase.DEAL, alive=(False, True),
                               fired=(True, False), knocked_out=(0,), places=(2, None), chambers=(1, 0))
    with pytest.raises(AssertionError):
        check_invariants(lone)
    check_invariants(dataclasses.replace(lone, alive=(True, True), fired=(False, False), knocked_out=(),
                                         places=(None, None)))


def test_the_result_names_the_seats_that_forfeited_or_left():
    rules = TableRules(3)
    rules.apply(0, CommitSeed(1))
    rules.apply(NO_SEAT, Forfeit(1))   # seat 1's seed never came
    rules.apply(2, CommitSeed(3))
    rules.apply(0, LeaveTable())
    rules.apply(NO_SEAT, DrawTableCard(KING))
    rules.apply(NO_SEAT, DealHands(KING, (0, 2), ("aa", "bb")))
    rules.apply(0, AutoMove("dropped"))  # seat 0 is gone: one card played for it
    rules.apply(0, ShedCard())
    rules.apply(2, CallBluff())
    rules.apply(0, OpenPlay((6,), 1))    # a Queen for a King: seat 0 pulls
    rules.apply(0, Share(0))
    rules.apply(2, Share(0))             # a bang: seat 0 is out, seat 2 stands alone
    result = rules.result()
    assert result.reason == ("seat 2 is the last one standing; seat 0 left the table (no points); seat 1 forfeited "
                             "(time ran out on a line only it could make; no points)")
    assert result.placements == (2, 3, 1) and result.scores == (0, 0, 8)


def test_the_invariant_checker_refuses_cards_out_between_rounds_and_an_empty_play():
    snap = started(2).public_state()
    between = BluffersRules(2).public_state()
    check_invariants(between)
    with pytest.raises(AssertionError):  # still 20 cards, but dealt while no round is on
        check_invariants(dataclasses.replace(between, hand_sizes=(5, 5), undealt=10))
    with pytest.raises(AssertionError):
        check_invariants(dataclasses.replace(between, pile=1, undealt=19))
    check_invariants(dataclasses.replace(snap, last_play=LastPlay(0, 3, False)))
    with pytest.raises(AssertionError):
        check_invariants(dataclasses.replace(snap, last_play=LastPlay(0, 0, False)))


def test_the_proven_tables_extras_are_a_frozen_view():
    rules = committed_table()
    rules.apply(NO_SEAT, DrawTableCard(KING))
    extras = rules.extras()
    assert (extras.drawn, extras.timed_out, extras.shed_due) == (KING, None, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        extras.drawn = 2  # type: ignore[misc]
    assert rules.extras() == extras
