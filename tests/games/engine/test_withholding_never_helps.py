"""Withholding never helps the withholder or a colluder (issue 26, item 3).

(a) Bluffers: the last seat to give its revolver share knows, from the shares already on
the table, whether the pull fires. Every share is committed before any share is opened
(``u_j = Poseidon(seed_j, s, k)`` is fixed by the seed commitment every seat made before the
first deal), so a seat cannot steer a share, only withhold it: once the pull has started, a
withheld share is the outcome least favourable to the withholder and its colluders — the
withholder forfeits (out, no points) and the pull fires.

(b) A dealer that holds no seat (the oblivious deal's engine dealer; Cheat and Bluffers,
whose dealer is no seat) goes silent: the match is settled on the standing at the fault,
so a leading seat keeps its lead and no seat's standing is worsened (before, every seat
placed 1: the leader's win became a draw)."""
from __future__ import annotations

from types import SimpleNamespace

from zkbluff.games.bluffers.rules import (
    CallBluff, CommitSeed, DealHands, DrawTableCard, Forfeit, OpenPlay, Phase, Play, Share, TableRules,
    check_invariants, pull_fires,
)
from zkbluff.games.bluffers.spec import BluffersSpec
from zkbluff.games.cheat.spec import CheatSpec
from zkbluff.games.engine.oblivious_deal import ObliviousPublic
from zkbluff.games.engine.proven_deal import DealPublic
from zkbluff.games.engine.referee import Referee
from zkbluff.games.engine.rules import NO_SEAT
from zkbluff.games.proof_or_bluff.spec import ClassicSpec


def _to_pull(n: int = 3) -> TableRules:
    """``n`` seats, round 1 (table card King): seat 0 plays two jokers, seat 1 calls wrongly
    and pulls; the contributors are seat 1 (the puller), then 2, then 0."""
    r = TableRules(n)
    for i in range(n):
        r.apply(i, CommitSeed(1000 + i))
    r.apply(NO_SEAT, DrawTableCard(0))
    r.apply(NO_SEAT, DealHands(0, tuple(range(n)), ("aa",) * n))
    r.apply(0, Play(2))
    r.apply(1, CallBluff())
    r.apply(0, OpenPlay((18, 19), 5))
    assert r.s.phase == Phase.PULL and r.s.puller == 1 and r.s.contributors == tuple((1 + k) % n for k in range(n))
    return r


def _firing_last_share(given: list[int], chamber: int) -> int:
    """A last share with which the pull fires (the last seat can compute this)."""
    return next(x for x in range(6) if pull_fires(given + [x], chamber))


# ---------------------------------------------------------------- (a) the revolver share

def test_attack_last_seat_withholds_a_firing_share_to_save_the_puller():
    """Seat 0 gives the last share; with its share the pull would fire on seat 1. It
    withholds: the pull still fires (seat 1 is out, a knock-out's place and points) and seat 0
    forfeits with no points. Before the fix the round was void, the bang cancelled, the chamber
    unchanged and seat 1 still standing."""
    r = _to_pull(3)
    r.apply(1, Share(3))
    r.apply(2, Share(4))
    assert r.to_move == 0 and pull_fires([3, 4, _firing_last_share([3, 4], 0)], 0)  # seat 0 knows
    r.apply(NO_SEAT, Forfeit(0))
    snap = r.public_state()
    check_invariants(snap)
    assert snap.fired == (False, True, False) and snap.chambers == (0, 1, 0)   # the bang stands
    assert snap.last_pull is not None and snap.last_pull.fired and snap.last_pull.seat == 1
    assert snap.alive == (False, False, True) and r.over
    res = r.result()
    assert res.placements == (3, 2, 1) and res.scores == (0, 4, 8)
    assert "seat 0 forfeited" in res.reason


def test_twin_the_last_share_given_fires_or_clicks_as_the_shares_say():
    for last, fires in ((_firing_last_share([3, 4], 0), True), (_firing_last_share([3, 4], 0) + 1, False)):
        r = _to_pull(3)
        r.apply(1, Share(3))
        r.apply(2, Share(4))
        r.apply(0, Share(last))
        snap = r.public_state()
        check_invariants(snap)
        assert snap.fired[1] is fires and snap.chambers == (0, 1, 0) and snap.forfeited == (False,) * 3


def test_a_middle_share_withheld_fires_too_and_the_puller_withholding_only_forfeits():
    r = _to_pull(4)
    r.apply(1, Share(3))
    r.apply(NO_SEAT, Forfeit(2))                      # seat 2 saw the puller's share only
    snap = r.public_state()
    check_invariants(snap)
    assert snap.fired == (False, True, False, False) and snap.forfeited == (False, False, True, False)
    assert snap.places == (None, 3, 4, None) and snap.phase == Phase.DEAL and snap.starter == 3
    # the puller withholding its own (first) share: it knows nothing of the others; it is out
    # with no points, which is below any bang's place and points
    r = _to_pull(3)
    r.apply(NO_SEAT, Forfeit(1))
    snap = r.public_state()
    check_invariants(snap)
    assert snap.fired == (False,) * 3 and snap.forfeited == (False, True, False) and snap.places[1] == 3
    assert r.result() is None and snap.phase == Phase.DEAL


def test_a_withheld_share_with_only_the_puller_left_standing_gives_the_puller_the_win():
    r = _to_pull(2)                                   # seat 1 pulls, seat 0 gives the last share
    r.apply(1, Share(3))
    r.apply(NO_SEAT, Forfeit(0))
    snap = r.public_state()
    check_invariants(snap)
    assert r.over and snap.fired == (False, False) and r.result().placements == (2, 1)
    assert r.result().scores == (0, 5)


# ---------------------------------------------------------------- (b) a silent dealer with no seat

def _referee_view(spec, rules, deal) -> SimpleNamespace:
    return SimpleNamespace(spec=spec, rules=rules, ledger=SimpleNamespace(deal=deal))


def test_attack_cheat_dealer_silent_while_its_side_trails_keeps_the_leaders_win():
    spec = CheatSpec({"players": "3", "hands": "3"})
    rules = spec.new_rules()
    rules.game.penalties = [0, 7, 12]                      # after a hand: seat 0 leads
    view = _referee_view(spec, rules, DealPublic(fault="no deal (no hand sent) by the deadline 50.0", fault_line=9))
    res = Referee._deal_outcome(view)  # type: ignore[arg-type]
    assert res is not None and res.placements == (1, 2, 3) and "dealer is at fault" in res.reason
    # the twin: level scores stay level
    rules.game.penalties = [5, 5, 5]
    assert Referee._deal_outcome(view).placements == (1, 1, 1)  # type: ignore[union-attr]


def test_attack_bluffers_dealer_silent_never_worsens_a_standing_seat():
    spec = BluffersSpec({"players": "3"})
    rules = spec.new_rules()
    for i in range(3):
        rules.apply(i, CommitSeed(1000 + i))
    rules.s.alive = [True, False, True]               # seat 1 knocked out (3rd), seats 0 and 2 standing
    rules.s.places = [None, 3, None]
    rules.s.fired = [False, True, False]
    view = _referee_view(spec, rules, DealPublic(fault="no deal", fault_line=20))
    res = Referee._deal_outcome(view)  # type: ignore[arg-type]
    assert res is not None and res.placements == (1, 3, 1)


def test_attack_oblivious_engine_dealer_silent_while_the_house_trails():
    spec = ClassicSpec({"deal": "oblivious"})
    rules = spec.new_rules()
    rules.s.scores = [6, 2]                           # seat 0 leads; the house (seat 1) trails
    view = _referee_view(spec, rules, ObliviousPublic(fault="the dealer sent no deal", fault_line=30,
                                                      fault_seat=None, proven=True))
    res = Referee._deal_outcome(view)  # type: ignore[arg-type]
    assert res is not None and res.placements == (1, 2)
    # the twin: a seat at fault still places last, whatever the score
    view.ledger.deal = ObliviousPublic(fault="no choose line", fault_line=30, fault_seat=0)
    assert Referee._deal_outcome(view).placements == (2, 1)  # type: ignore[union-attr]


def test_no_share_is_opened_before_every_seed_is_committed():
    import pytest

    from zkbluff.errors import IllegalMove

    r = TableRules(3)
    r.apply(0, CommitSeed(1000))
    r.apply(1, CommitSeed(1001))
    before = r.public_state()
    for seat in range(3):
        with pytest.raises(IllegalMove):
            r.apply(seat, Share(5))                   # seat 2's commitment is not yet on the table
    assert r.public_state() == before
    r.apply(2, CommitSeed(1002))
    assert r.s.phase == Phase.DEAL and all(c is not None for c in r.s.seed_commitments)
