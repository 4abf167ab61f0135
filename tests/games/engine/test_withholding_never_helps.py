"""Withholding never helps the withholder or a colluder (issue 26, item 3).

(a) Bluffers: the last seat to give its revolver share knows, from the shares already on
the table, whether the pull fires. Every share is committed before any share is opened
(``u_j = Poseidon(seed_j, s, k)`` is fixed by the seed commitment every seat made before the
first deal), so a seat cannot steer a share, only withhold it: once the pull has started, the
withholder forfeits (out, no points) and the pull is re-run among the others on shares of a
slot nobody has opened (the withholder's own revolver at its chamber), so it can neither save
the puller nor shoot it; a colluder only trades an outcome it knows for a fresh fair draw, at
the price of its whole match (the puller's risk at most 11/36 at the first chamber, 1/6 fair).

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

def _rerun_after_last_share_withheld(n: int = 3) -> TableRules:
    r = _to_pull(n)
    for seat in r.s.contributors[:-1]:
        r.apply(seat, Share(3 + seat))
    r.apply(NO_SEAT, Forfeit(r.s.contributors[-1]))
    return r


def test_attack_last_seat_withholds_a_firing_share_to_save_the_puller():
    """Seat 0 gives the last share; with its share the pull would fire on seat 1. It
    withholds. Before the first fix the round was void, the bang cancelled, the chamber
    unchanged and seat 1 still standing; then the pull fired on every withheld share (which a
    colluder could use the other way: below). Now seat 0 is out with no points and the pull
    is re-run between seat 1 and seat 2 on shares of seat 0's revolver at its chamber: seat 0
    saved nobody, the re-run decides, on shares it has not seen."""
    r = _to_pull(3)
    r.apply(1, Share(3))
    r.apply(2, Share(4))
    assert r.to_move == 0 and pull_fires([3, 4, _firing_last_share([3, 4], 0)], 0)  # seat 0 knows
    r.apply(NO_SEAT, Forfeit(0))
    snap = r.public_state()
    check_invariants(snap)
    assert snap.phase == Phase.PULL and snap.puller == 1 and snap.to_move == 1   # the pull is not over
    assert snap.contributors == (1, 2) and snap.shares == ()                     # the old shares are void
    assert snap.share_slot == (0, 0) and snap.attempt == 1                       # a slot nobody opened
    assert snap.fired == (False,) * 3 and snap.chambers == (0, 0, 0) and snap.last_pull is None
    assert snap.forfeited == (True, False, False) and snap.places == (3, None, None)
    assert snap.hand_sizes == (0, 0, 0) and snap.pile == 0 and snap.undealt == 20   # the cards are collected
    assert r.overdue() == Forfeit(1)                                             # the puller owes the first share
    for second, fires in ((_firing_last_share([7], 0), True), (_firing_last_share([7], 0) + 1, False)):
        rr = _rerun_after_last_share_withheld(3)
        rr.apply(1, Share(7))
        rr.apply(2, Share(second))
        after = rr.public_state()
        check_invariants(after)
        assert after.fired[1] is fires and after.chambers == (0, 1, 0) and after.last_pull.fired is fires
        assert after.share_slot is None and after.attempt == 0
        if fires:
            assert rr.over and rr.result().placements == (3, 2, 1) and rr.result().scores == (0, 4, 8)
        else:
            assert after.phase == Phase.DEAL and after.starter == 1 and after.alive == (False, True, True)


def test_twin_the_last_share_given_fires_or_clicks_as_the_shares_say():
    for last, fires in ((_firing_last_share([3, 4], 0), True), (_firing_last_share([3, 4], 0) + 1, False)):
        r = _to_pull(3)
        r.apply(1, Share(3))
        r.apply(2, Share(4))
        r.apply(0, Share(last))
        snap = r.public_state()
        check_invariants(snap)
        assert snap.fired[1] is fires and snap.chambers == (0, 1, 0) and snap.forfeited == (False,) * 3


def test_the_rerun_takes_the_withholders_revolver_at_its_chamber_and_a_second_withholder_its_own():
    """At four seats two contributors can withhold in turn: each re-run draws on the newest
    withholder's revolver at its chamber (each seat's chamber here made different to tell the
    slots apart), a slot no pull has opened (that revolver is out) and no other re-run uses."""
    r = _to_pull(4)                                   # contributors 1, 2, 3, 0
    r.s.chambers = [2, 1, 3, 4]                       # earlier rounds clicked (as far as the rules care)
    assert r.public_state().share_slot == (1, 0)      # (the pull was set up at chamber 0)
    r.s.share_slot = (1, 1)
    r.apply(1, Share(3))
    r.apply(2, Share(4))
    r.apply(NO_SEAT, Forfeit(3))                      # a middle share withheld: seat 3 saw two shares
    snap = r.public_state()
    check_invariants(snap)
    assert snap.contributors == (1, 2, 0) and snap.share_slot == (3, 4) and snap.attempt == 1
    r.apply(1, Share(5))
    r.apply(2, Share(6))
    r.apply(NO_SEAT, Forfeit(0))                      # the last share of the re-run withheld
    snap = r.public_state()
    check_invariants(snap)
    assert snap.contributors == (1, 2) and snap.share_slot == (0, 2) and snap.attempt == 2 and snap.shares == ()
    assert snap.places == (3, None, None, 4) and snap.forfeited == (True, False, False, True)
    r.apply(1, Share(1))
    r.apply(2, Share(_firing_last_share([1], 1)))
    snap = r.public_state()
    assert r.over and snap.chambers[1] == 2 and snap.last_pull == type(snap.last_pull)(1, 1, True)
    assert r.result().placements == (3, 2, 1, 4) and r.result().scores == (0, 6, 10, 0)


def test_the_puller_withholding_only_forfeits_in_the_first_attempt_and_in_a_rerun():
    r = _to_pull(3)
    r.apply(NO_SEAT, Forfeit(1))                      # the puller's own (first) share: it knows nothing
    snap = r.public_state()
    check_invariants(snap)
    assert snap.fired == (False,) * 3 and snap.forfeited == (False, True, False) and snap.places[1] == 3
    assert r.result() is None and snap.phase == Phase.DEAL and snap.share_slot is None
    r = _rerun_after_last_share_withheld(4)          # seat 0 withheld; the re-run: 1, 2, 3
    r.apply(NO_SEAT, Forfeit(1))                      # the puller withholds the re-run's first share
    snap = r.public_state()
    check_invariants(snap)
    assert snap.phase == Phase.DEAL and snap.fired == (False,) * 4 and snap.places == (4, 3, None, None)
    assert snap.share_slot is None and snap.attempt == 0 and snap.puller is None


def test_a_withheld_share_with_only_the_puller_left_standing_gives_the_puller_the_win():
    r = _to_pull(2)                                   # seat 1 pulls, seat 0 gives the last share
    r.apply(1, Share(3))
    r.apply(NO_SEAT, Forfeit(0))
    snap = r.public_state()
    check_invariants(snap)
    assert r.over and snap.fired == (False, False) and r.result().placements == (2, 1)
    assert r.result().scores == (0, 5)
    assert snap.share_slot is None and snap.attempt == 0


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


# ---------------------------------------------------------------- (a') a colluder's sacrifice

def _slot(snap) -> tuple[int, int]:
    """The (revolver, pull) whose shares the pull's current attempt takes (before the re-run
    existed, always the puller's revolver at its chamber)."""
    slot = getattr(snap, "share_slot", None)
    return slot if slot is not None else (snap.puller, snap.chambers[snap.puller])


def _colluding_pulls(trials: int, seed: int) -> tuple[int, int, int, int]:
    """``trials`` first pulls at a three-seat table (puller seat 1, then seat 2, then seat 0,
    each seat's seed fresh and random). Seat 0, the last contributor, colludes against the
    puller: it computes the outcome from the shares on the table and its own, and withholds
    exactly when the pull would click. Returns (bangs, re-runs, bangs in the re-runs, re-runs
    on a slot whose shares were already opened, which seat 0 could have computed)."""
    from random import Random

    from zkbluff.statements.revolver import share_native

    rng = Random(seed)
    bangs = reruns = rerun_bangs = foreseen = 0
    for _ in range(trials):
        seeds = [rng.getrandbits(250) for _ in range(3)]
        r = _to_pull(3)
        seen: dict[tuple[int, int], list[int]] = {}
        while r.s.phase == Phase.PULL:
            snap = r.public_state()
            seat, slot = snap.to_move, _slot(snap)
            assert seat is not None and slot is not None
            mine = share_native(seeds[seat], *slot)
            if seat == 0 and r.s.alive[0]:
                if not pull_fires(list(snap.shares) + [mine], snap.chambers[snap.puller]):
                    r.apply(NO_SEAT, Forfeit(0))
                    check_invariants(r.public_state())
                    if r.s.phase == Phase.PULL:
                        reruns += 1
                        # seat 0 knows every share opened so far: a re-run on one of those slots
                        # would be an outcome it computed before it chose to withhold
                        foreseen += _slot(r.public_state()) in seen
                    continue
            seen.setdefault(slot, []).append(mine)
            r.apply(seat, Share(mine))
        fired = r.s.fired[1]
        bangs += fired
        rerun_bangs += fired and r.s.forfeited[0]
    return bangs, reruns, rerun_bangs, foreseen


def test_attack_a_colluder_that_withholds_every_click_cannot_make_the_pull_fire():
    """Before the re-run, seat 0 turned every click into a bang: withholding fired the pull,
    so the puller's first pull fired 600 times in 600 (the fair rate is 1 in 6). Now the
    withholder is out with no points and the pull is re-run among the puller and seat 2 on
    shares of a slot nobody has opened (seat 0's own revolver at its chamber: seat 0 is out,
    that revolver is never pulled), so seat 0 only trades a click it knew for a fresh fair
    draw: the pull fires with probability 1/6 + 5/6 · 1/6 = 11/36 (the residual bound,
    docs/bluffers.md), never more, and the re-run itself fires 1 time in 6."""
    trials = 600
    bangs, reruns, rerun_bangs, foreseen = _colluding_pulls(trials, 2607)
    fair, bound = 1 / 6, 11 / 36
    assert bangs < trials, f"every click became a bang ({bangs}/{trials})"
    assert reruns > 0.7 * trials                    # seat 0 withheld every click (5 in 6 of the pulls)
    assert abs(bangs / trials - bound) < 0.06, (bangs, trials)
    assert abs(rerun_bangs / reruns - fair) < 0.05, (rerun_bangs, reruns)
    assert foreseen == 0, "the re-run drew on shares the withholder had seen"


def test_twin_with_no_colluder_the_first_pull_fires_at_the_fair_rate():
    """The same pulls with seat 0 honest: 1 in 6."""
    from random import Random

    from zkbluff.statements.revolver import share_native

    rng, trials, bangs = Random(2608), 600, 0
    for _ in range(trials):
        seeds = [rng.getrandbits(250) for _ in range(3)]
        r = _to_pull(3)
        while r.s.phase == Phase.PULL:
            snap = r.public_state()
            r.apply(snap.to_move, Share(share_native(seeds[snap.to_move], *_slot(snap))))
        bangs += r.s.fired[1]
    assert abs(bangs / trials - 1 / 6) < 0.05, bangs
