"""How a fault in a deal settles the places (games/engine/deal_clock.py ``last_at_fault``),
for every scheme that uses it: the house-blind deal and Liar's Dice's roll. A seat that
withholds a deal line can only lose by it: it places strictly last, and no other seat's
order changes (the red-team finding: a knocked-out seat that withheld rose from 3rd to 2nd
and turned the leader's win into a tie, because the schemes gave the faulting seat 2 and
everyone else 1)."""
from types import SimpleNamespace

from zkbluff.games.engine.deal_clock import last_at_fault
from zkbluff.games.liars_dice.roll import DiceRoll, RollPublic


def test_the_seat_at_fault_places_strictly_last_and_the_others_keep_their_order():
    assert last_at_fault((1, 2, 3), 2) == (1, 2, 3)       # already last: stays last
    assert last_at_fault((3, 1, 2), 0) == (3, 1, 2)
    assert last_at_fault((1, 2, 3), 0) == (3, 1, 2)       # the leader at fault drops to last
    assert last_at_fault((1, 1, 3, 4), 1) == (1, 4, 2, 3)  # a shared first place breaks only by the fault
    assert last_at_fault((1, 1, 1), 2) == (1, 1, 3)


def test_the_old_rule_lifted_a_knocked_out_seat_and_this_one_does_not():
    """The negative twin: the old 2-or-1 rule on the standing (1, 2, 3) with seat 2 (3rd) at
    fault gave (1, 1, 2): the 3rd seat rose, the leader tied."""
    old = tuple(2 if s == 2 else 1 for s in range(3))
    assert old == (1, 1, 2) and last_at_fault((1, 2, 3), 2) != old


def _ledger(fault_seat):
    return SimpleNamespace(deal=RollPublic(fault="seat sent no roll.open", fault_line=9, fault_seat=fault_seat,
                                           proven=fault_seat is None))


def test_liars_dice_settles_a_seats_fault_on_the_dice_held():
    roll = DiceRoll(3)
    res = roll.outcome(_ledger(2), (5, 3, 1), standing=(1, 2, 3))
    assert res is not None and res.placements == (1, 2, 3)   # the 3rd seat stays 3rd; the leader still wins
    res = roll.outcome(_ledger(0), (5, 3, 1), standing=(1, 2, 3))
    assert res is not None and res.placements == (3, 1, 2)
    # the dealer at fault worsens no seat; no fault, no outcome
    res = roll.outcome(_ledger(None), (5, 3, 1), standing=(1, 2, 3))
    assert res is not None and res.placements == (1, 2, 3)
    assert roll.outcome(SimpleNamespace(deal=RollPublic()), (5, 3, 1), standing=(1, 2, 3)) is None
