"""The proven table's rules (TableRules) on their own, no proofs (the deal's entropy lines
before them are the engine's, tests/games/engine/test_deal_unified.py): the seed commit order, the
drawn table card, the timer's move and the shed that must follow it, the reveal's salt;
every refusal names why and leaves the state unchanged."""
from __future__ import annotations

from zkbluff.games.bluffers.rules import (
    NO_SEAT, AutoMove, CallBluff, CommitSeed, DealHands, Disconnect, DrawTableCard, LeaveTable, OpenPlay, Phase,
    Play, Reconnect, ShedCard, Share, TableRules, Timeout, check_invariants,
)

from rules_guard_helpers import refused_matching


def commit(seat: int) -> CommitSeed:
    return CommitSeed(1000 + seat)


def committed(n: int = 2) -> TableRules:
    rules = TableRules(n)
    for i in range(n):
        rules.apply(i, commit(i))
    return rules


def dealt(n: int = 2, card: int = 0) -> TableRules:
    rules = committed(n)
    rules.apply(NO_SEAT, DrawTableCard(card))
    rules.apply(NO_SEAT, DealHands(card, tuple(range(n)), ("aa",) * n))
    return rules


def test_seats_commit_their_seeds_in_order_and_a_copied_seed_commitment_is_refused():
    rules = TableRules(3)
    assert rules.to_move == 0 and rules.s.phase == Phase.COMMIT
    refused_matching(rules, 1, commit(1), "out of turn")
    refused_matching(rules, NO_SEAT, DrawTableCard(0), "out of turn")  # no card before every seed is in
    rules.apply(0, commit(0))
    refused_matching(rules, 1, CommitSeed(1000), "already made")  # seat 0's
    rules.apply(1, commit(1))
    rules.apply(2, commit(2))
    assert rules.public_state().seed_commitments == (1000, 1001, 1002)
    assert rules.s.phase == Phase.DEAL and rules.to_move is NO_SEAT


def test_the_deal_names_the_drawn_table_card_and_the_standing_seats():
    rules = committed(2)
    refused_matching(rules, NO_SEAT, DealHands(0, (0, 1), ("aa", "bb")), "not been drawn")
    refused_matching(rules, NO_SEAT, DrawTableCard(3), "0, 1 or 2")
    refused_matching(rules, 0, DrawTableCard(1), "out of turn")
    rules.apply(NO_SEAT, DrawTableCard(1))
    refused_matching(rules, NO_SEAT, DrawTableCard(2), "not now")
    refused_matching(rules, NO_SEAT, DealHands(2, (0, 1), ("aa", "bb")), "drawn table card is 1")
    refused_matching(rules, NO_SEAT, DealHands(1, (1, 0), ("aa", "bb")), "standing seats")
    refused_matching(rules, NO_SEAT, DealHands(1, (0, 1), ("aa",)), "one sealed hand")
    rules.apply(NO_SEAT, DealHands(1, (0, 1), ("aa", "bb")))
    snap = rules.public_state()
    assert snap.table_card == 1 and snap.phase == Phase.TURN and rules.drawn is None
    check_invariants(snap)


def test_the_timer_then_the_automatic_card_then_its_shed():
    rules = dealt(2)
    seat = rules.to_move
    refused_matching(rules, seat, AutoMove("timeout"), "no timeout")
    refused_matching(rules, seat, Timeout(seat), "referee's clock")
    refused_matching(rules, NO_SEAT, Timeout(1 - seat), "not the seat to play")
    rules.apply(NO_SEAT, Timeout(seat))
    assert rules.legal_actions(seat) == [AutoMove("timeout")]
    refused_matching(rules, seat, Play(1), "time ran out")
    refused_matching(rules, NO_SEAT, Timeout(seat), "already automatic")
    rules.apply(seat, AutoMove("timeout"))
    assert rules.shed_due == seat and rules.to_move == seat and rules.legal_actions(seat) == [ShedCard()]
    assert rules.public_state().to_move == 1 - seat  # the pure rules' next player, once the shed is in
    refused_matching(rules, 1 - seat, Play(1), "owes the proof of its new hand")
    refused_matching(rules, 1 - seat, ShedCard(), "owes")
    rules.apply(seat, ShedCard())
    assert rules.to_move == 1 - seat and rules.public_state().hand_sizes[seat] == 4
    refused_matching(rules, 1 - seat, ShedCard(), "no automatic card")


def test_the_forced_call_as_an_automatic_move_needs_no_shed():
    rules = dealt(2)
    a = rules.to_move
    b = 1 - a
    rules.apply(a, Play(3))
    rules.apply(b, Play(1))
    rules.apply(a, Play(2))
    assert rules.must_call(b)
    rules.apply(NO_SEAT, Timeout(b))
    rules.apply(b, AutoMove("timeout"))
    assert rules.shed_due is None and rules.s.phase == Phase.REVEAL and rules.s.caller == b


def test_a_dropped_seat_is_automatic_and_a_timeout_does_not_apply_to_it():
    rules = dealt(2)
    seat = rules.to_move
    rules.apply(NO_SEAT, Timeout(seat))
    rules.apply(NO_SEAT, Disconnect(seat))
    assert rules.timed_out is None and rules.legal_actions(seat) == [AutoMove("dropped")]
    refused_matching(rules, NO_SEAT, Timeout(seat), "already automatic")
    rules.apply(seat, AutoMove("dropped"))
    rules.apply(seat, ShedCard())
    rules.apply(NO_SEAT, Reconnect(seat))
    rules.apply(1 - seat, CallBluff())
    refused_matching(rules, seat, OpenPlay((0,), -1), "play_salt")
    rules.apply(seat, OpenPlay((0,), 5))
    assert rules.s.phase == Phase.PULL


def test_leave_table_any_time_and_a_pure_rules_action_is_not_a_table_line():
    rules = dealt(3)
    rules.apply(2, LeaveTable())
    assert rules.plays_automatically(2)
    from zkbluff.games.bluffers.rules import Deal, Reveal
    for pure in (Deal(0), Reveal((1,))):
        refused_matching(rules, NO_SEAT, pure, "not an action of the proven Bluffers table")
    refused_matching(rules, 0, Share(1), "phase")
