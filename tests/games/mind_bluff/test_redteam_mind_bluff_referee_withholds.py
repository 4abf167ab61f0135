"""Red team of issue 26 item 3 at Mind Bluff: the referee holds no seat, like Cheat's and
Bluffers' dealer. A house whose referee stalls (or falsely accuses a seat) while its side
trails used to end the series void, every seat placed 1: the leader's lead became a draw,
the attack item 3(b) closed for the seatless dealer. A referee at fault now settles the
series on the standing at the fault (games won), as the silent dealer does."""
import pytest

from zkbluff.errors import IllegalMove
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


# ---------------------------------------------------------------- game 3: after the draw

def _after_the_draw(humans: tuple[bool, bool]) -> MindBluffRules:
    """A 1–1 series at game 3's start: both seats revealed their draw entropies, so the
    referee (which holds its own) now knows game 3's start and coin; its line is owed."""
    from zkbluff.games.mind_bluff.rules import RevealEntropy

    r = MindBluffRules(humans)
    for game, winner in ((1, P1), (2, P2)):
        if r.phase == Phase.START:
            r.apply(NO_SEAT, StartGame(game, game - 1))
        r.apply(r.to_move, AllDone())                         # the first to move calls All done …
        r.apply(NO_SEAT, AllDoneVerdict(r.actor == winner))   # … and wins or loses by it
        r.apply(NO_SEAT, Reveal(r.game, 30, (), (), (), "", "", ""))
        for s in (P1, P2):
            if r.phase == Phase.NEXT_GAME and humans[s]:
                r.apply(s, Consent())
    assert r.public_state().wins == (1, 1) and r.phase == Phase.DRAW
    r.apply(r.to_move, RevealEntropy("a"))
    r.apply(r.to_move, RevealEntropy("b"))
    assert r.phase == Phase.START and r.to_move is NO_SEAT and r.next_game_number == 3
    return r


def test_attack_a_referee_that_learns_game_threes_draw_and_never_starts_it_is_on_the_clock():
    """The attack: at a table of bot seats (no human seat: the referee paces the games) the
    referee learns game 3's start and coin from the seats' reveals and, the draw bad for a
    seat it favours, never writes game 3's start. Before, no seat could say so (the room
    owner "starts when it likes"): the series stalled for ever, nobody at fault. Now the
    seats, having revealed, wait on the referee: either claims its time ran out and the
    series is settled on the games won (1–1: both share place 1), the referee named at fault
    — what its stall at any later line of game 3 gives, nothing its knowledge of the draw buys."""
    r = _after_the_draw((False, False))
    assert r.referee_waited()
    r.apply(P2, RefereeTimeOut())
    res = r.result()
    assert r.over and res.placements == (1, 1) and res.scores == (1, 1) and "referee is at fault" in res.reason


def test_twin_the_same_stall_with_human_seats_and_at_game_threes_first_verdict_settles_the_same():
    r = _after_the_draw((True, True))
    assert r.referee_waited()
    r.apply(P1, RefereeTimeOut())
    assert r.result().placements == (1, 1)
    r = _after_the_draw((False, False))
    r.apply(NO_SEAT, StartGame(3, P2))
    r.apply(P2, Eat())                                        # the referee stalls at the first verdict instead
    r.apply(P1, RefereeTimeOut())
    assert r.result().placements == (1, 1) and r.result().scores == (1, 1)


def test_twin_with_no_human_seat_games_one_and_two_are_still_paced_by_the_referee():
    """Before a game whose draw nobody has contributed to (games 1 and 2), a bot-only
    table's referee starts when it likes: no seat has acted since its last line."""
    r = MindBluffRules((False, False))
    assert r.phase == Phase.START and not r.referee_waited()
    r.apply(NO_SEAT, StartGame(1, P1))
    r.apply(P1, AllDone())
    r.apply(NO_SEAT, AllDoneVerdict(True))
    r.apply(NO_SEAT, Reveal(1, 30, (), (), (), "", "", ""))
    assert r.phase == Phase.START and r.next_game_number == 2 and not r.referee_waited()
    with pytest.raises(IllegalMove, match="not on the referee"):
        r.check(P2, RefereeTimeOut())
