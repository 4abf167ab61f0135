"""Red team of issue 26 item 3 at Mind Bluff: the referee holds no seat, like Cheat's and
Bluffers' dealer. A house whose referee stalls (or falsely accuses a seat) while its side
trails used to end the series void, every seat placed 1: the leader's lead became a draw,
the attack item 3(b) closed for the seatless dealer. A referee at fault now settles the
series on the standing at the fault (games won), as the silent dealer does."""
from zkbluff.games.engine.rules import NO_SEAT
from zkbluff.games.mind_bluff.rules import (
    AllDone, AllDoneVerdict, Believe, Claim, Consent, Eat, EatVerdict, MindBluffRules, Phase, RefereeTimeOut,
    Reveal, StartGame,
)

P1, P2 = 0, 1


def _p1_wins_game_one() -> MindBluffRules:
    r = MindBluffRules((True, True))
    r.apply(NO_SEAT, StartGame(1, P1))
    r.apply(P1, Eat())
    r.apply(NO_SEAT, EatVerdict(False))
    r.apply(P1, Claim(1, False))
    r.apply(P2, Believe())
    r.apply(P2, Eat())
    r.apply(NO_SEAT, EatVerdict(False))
    r.apply(P2, Claim(1, False))
    r.apply(P1, Believe())
    r.apply(P1, AllDone())
    if r.phase == Phase.ALL_DONE_VERDICT:
        r.apply(NO_SEAT, AllDoneVerdict(True))
    r.apply(NO_SEAT, Reveal(r.game, 30, (), (), (), "", "", ""))
    for s in (P1, P2):
        if r.phase == Phase.NEXT_GAME:
            r.apply(s, Consent())
    r.apply(NO_SEAT, StartGame(2, P2))
    return r


def _stalled_at_p2s_eat() -> MindBluffRules:
    r = _p1_wins_game_one()
    assert r.public_state().wins == (1, 0) and not r.over
    r.apply(P2, Eat())  # the referee, on P2's side, never gives the verdict
    assert r.phase == Phase.EAT_VERDICT and r.to_move is NO_SEAT
    return r


def test_attack_a_referee_stalling_while_its_side_trails_does_not_turn_the_lead_into_a_draw():
    r = _stalled_at_p2s_eat()
    r.apply(P1, RefereeTimeOut())  # the leader's only way out of the stall
    res = r.result()
    assert r.over and "referee is at fault" in res.reason
    assert res.placements == (1, 2), "the leader keeps its lead"
    assert res.scores == (1, 0)


def test_a_referee_stalling_at_level_games_leaves_both_seats_level():
    """Twin: at 0–0 (and 1–1) the standing is level; both seats share place 1."""
    r = MindBluffRules((True, True))
    r.apply(NO_SEAT, StartGame(1, P1))
    r.apply(P1, Eat())
    r.apply(P2, RefereeTimeOut())
    assert r.over and r.result().placements == (1, 1)


def test_the_claim_is_open_to_either_seat_and_the_trailer_gains_nothing_by_claiming():
    r = _stalled_at_p2s_eat()
    r.apply(P2, RefereeTimeOut())
    assert r.result().placements == (1, 2)
