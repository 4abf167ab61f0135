"""Rules checks that a mutant could delete with no other test noticing (issue 21): illegal
idle timeouts (by the seat not to move, in the prove and deal phases), 5 Up 2 Down's idle
forfeits, the −1 (not −2) for a failed challenge, 5 Up 2 Down's Casino target and its board
check, and the typed errors of every game's actions built from transcript data."""
import copy
import re

import pytest

from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.games.engine.rules import NO_SEAT, Result
from zkbluff.games.proof_or_bluff.rules import (
    CLASSIC_MAX_ROUNDS, DECK, FIVE_UP_MAX_ROUNDS, FIVE_UP_TARGETS, MODES, Accept, Challenge, Claim, ClassicDeal,
    ClassicRules, FiveUpDeal, FiveUpRules, Play, ProveLies, ProveVerdict, Timeout, board_ranks, next_rank,
)

KING, SEVEN, EIGHT, NINE, TWO, ACE = 11, 5, 6, 7, 0, 12
# a board of five cards: 2c, 7c, 8c, 9c, Kc (ranks 2 7 8 9 K)
BOARD = sum(1 << c for c in (TWO, SEVEN, EIGHT, NINE, KING))


def classic(mode="standard", start=SEVEN):
    r = ClassicRules(MODES[mode])
    r.apply(NO_SEAT, ClassicDeal(1, start, ()))
    return r


def five_up(mode="standard"):
    r = FiveUpRules(mode)
    r.apply(NO_SEAT, FiveUpDeal(1, BOARD, ()))
    return r


def refused(r, seat, action, match):
    """``action`` is refused with ``match`` and the state is exactly what it was."""
    before = copy.deepcopy(r.s)
    with pytest.raises(IllegalMove, match=match):
        r.apply(seat, action)
    with pytest.raises(IllegalMove, match=match):
        r.check(seat, action)
    assert r.s == before


# ---------------------------------------------------------------- timeouts

@pytest.mark.parametrize("make", [classic, five_up])
def test_an_idle_timeout_of_the_seat_not_to_move_is_refused(make):
    r = make()
    assert r.s.to_move == 0
    refused(r, NO_SEAT, Timeout(1, "idle"), "seat 1 is not the seat to move")
    refused(r, NO_SEAT, Timeout(1, "proof"), "seat 1 is not the seat to move")
    r.apply(NO_SEAT, Timeout(0, "idle"))  # the twin: the seat to move is timed out
    assert r.over and r.result().placements == (2, 1)


@pytest.mark.parametrize("make", [classic, five_up])
def test_only_the_referee_times_a_seat_out(make):
    r = make()
    for seat in (0, 1):
        refused(r, seat, Timeout(0, "idle"), f"only the referee times a seat out, not seat {seat}")


def test_no_timeout_in_the_deal_phase():
    """In the deal phase nobody is to move (the dealer deals); a seat cannot be timed out,
    whichever seat the state last had to move."""
    for r in (ClassicRules(MODES["casual"]), FiveUpRules("casual")):
        assert r.to_move is NO_SEAT and r.s.to_move == 0
        for limit in ("idle", "proof"):
            refused(r, NO_SEAT, Timeout(0, limit), "seat 0 is not the seat to move")


def test_no_idle_timeout_in_the_prove_phase_classic():
    """A challenged seat that never proves is timed out under the proof limit (a caught
    bluff), never as idle (a forfeit)."""
    r = classic()
    r.apply(0, Play(2, SEVEN))
    r.apply(1, Challenge())
    assert r.s.phase == "prove" and r.s.to_move == 0
    refused(r, NO_SEAT, Timeout(0, "idle"), "idle timeout: not allowed in phase prove")
    r.apply(NO_SEAT, Timeout(0, "proof"))
    assert not r.over and r.s.scores == [0, 3]


def test_no_idle_timeout_in_the_prove_phase_five_up():
    r = five_up()
    r.apply(0, Claim((KING,)))
    r.apply(1, Challenge())
    refused(r, NO_SEAT, Timeout(0, "idle"), "idle timeout: not allowed in phase prove")
    r.apply(NO_SEAT, Timeout(0, "proof"))  # every named rank counts as a lie
    assert r.s.scores == [0, 1]


@pytest.mark.parametrize("make", [classic, five_up])
def test_no_proof_timeout_outside_the_prove_phase(make):
    r = make()
    refused(r, NO_SEAT, Timeout(0, "proof"), "proof timeout: not allowed now")


@pytest.mark.parametrize("make", [classic, five_up])
def test_an_unknown_limit_is_refused(make):
    refused(make(), NO_SEAT, Timeout(0, "nap"), "unknown limit 'nap'")


def test_five_up_idle_forfeits_in_the_claim_and_respond_phases():
    r = five_up()
    r.apply(NO_SEAT, Timeout(0, "idle"))  # claim phase, seat 0 to claim
    assert r.over and r.result() == Result((2, 1), (0, 0), "seat 0 abandoned an idle turn")
    r = five_up()
    r.apply(0, Claim((KING,)))
    assert r.s.phase == "respond" and r.s.to_move == 1
    r.apply(NO_SEAT, Timeout(1, "idle"))
    assert r.over and r.result() == Result((1, 2), (0, 0), "seat 1 abandoned an idle turn")


def test_classic_idle_forfeits_in_the_play_and_respond_phases():
    r = classic()
    r.apply(0, Play(1, SEVEN))
    r.apply(NO_SEAT, Timeout(1, "idle"))
    assert r.result() == Result((1, 2), (0, 0), "seat 1 abandoned an idle turn")


def test_no_timeout_after_the_end():
    r = five_up()
    r.apply(NO_SEAT, Timeout(0, "idle"))
    refused(r, NO_SEAT, Timeout(1, "idle"), "timeout: the match is over")


# ---------------------------------------------------------------- scoring

def test_a_failed_challenge_costs_exactly_one_point():
    """From 3 points (so the floor at zero does not hide a −2)."""
    r = classic("casino")
    r.s.scores = [0, 3]
    r.apply(0, Play(1, SEVEN))
    r.apply(1, Challenge())
    r.apply(0, ProveVerdict(True))
    assert r.s.scores == [0, 2]
    assert r.s.to_move == 1 and r.s.phase == "play" and r.s.pile == 0 and r.s.required_rank == EIGHT
    # and a caught bluff gives exactly three
    r.apply(1, Play(1, EIGHT))
    r.apply(0, Challenge())
    r.apply(1, ProveVerdict(False))
    assert r.s.scores == [3, 2]


def test_the_prove_seat_and_phase_guard():
    """Only the challenged seat proves, and only after a challenge."""
    r = classic()
    refused(r, 0, ProveVerdict(True), "prove: not allowed now")
    r.apply(0, Play(2, SEVEN))
    refused(r, 0, ProveVerdict(True), "prove: not allowed now")
    refused(r, 1, ProveVerdict(True), "prove: not allowed now")
    r.apply(1, Challenge())
    refused(r, 1, ProveVerdict(False), r"out of turn \(seat 1 moved, seat 0 is to move\)")
    refused(r, NO_SEAT, ProveVerdict(False), "seat null")
    refused(r, 0, ProveVerdict(1), "the verdict is true or false, got 1")  # type: ignore[arg-type]
    r.apply(0, ProveVerdict(False))
    assert r.s.scores == [0, 3]
    f = five_up()
    refused(f, 0, ProveLies(0), "prove: not allowed now")
    f.apply(0, Claim((KING,)))
    f.apply(1, Challenge())
    refused(f, 1, ProveLies(0), "out of turn")
    refused(f, 0, ProveLies(2), r"lies must be an integer 0\.\.1, got 2")
    refused(f, 0, ProveLies(-1), r"0\.\.1, got -1")
    refused(f, 0, ProveLies(True), "got True")  # type: ignore[arg-type]
    f.apply(0, ProveLies(0))
    assert f.s.scores == [2, 0]


def test_five_up_casino_target_is_twenty():
    assert FIVE_UP_TARGETS == {"casual": 10, "standard": 20, "casino": 20}
    assert FiveUpRules("casino").s.target == 20 and FiveUpRules("casual").s.target == 10
    with pytest.raises(IllegalMove, match="unknown mode 'x'"):
        FiveUpRules("x")


def test_five_up_casino_does_not_end_at_the_casual_target():
    r = FiveUpRules("casino")
    r.s.scores = [9, 0]
    r.apply(NO_SEAT, FiveUpDeal(1, BOARD, ()))
    r.apply(0, Claim((KING, NINE)))
    r.apply(1, Accept())  # +3: 12, past casual's 10
    r.apply(1, Claim(()))
    assert not r.over and r.s.phase == "deal" and r.s.scores == [12, 0]
    r.s.scores = [17, 0]
    r.apply(NO_SEAT, FiveUpDeal(2, BOARD, ()))
    r.apply(1, Claim(()))
    r.apply(0, Claim((KING, NINE)))
    r.apply(1, Accept())
    assert r.over and r.result().placements == (1, 2) and r.s.scores == [20, 0]


@pytest.mark.parametrize("board, why", [
    (BOARD & ~(1 << KING), "four cards"),
    (BOARD | 1 << 20, "six cards"),
    (0, "no card"),
    (-BOARD, "negative"),
    (BOARD | 1 << 52, "a card past the deck"),
    ((BOARD & ~(1 << KING)) | 1 << 52, "four cards and one past the deck"),
    (True, "a bool"),
    ("31", "a string"),
])
def test_five_up_board_validation(board, why):
    r = FiveUpRules("standard")
    refused(r, NO_SEAT, FiveUpDeal(1, board, ()), "the board must be 5 cards of the deck")


def test_five_up_board_sets_the_claimable_ranks():
    r = five_up()
    assert board_ranks(r.s.board) == {TWO, SEVEN, EIGHT, NINE, KING}
    refused(r, 0, Claim((ACE,)), "name none, one or two ranks of the board")
    refused(r, 0, Claim((KING, KING, NINE)), "name none, one or two ranks")
    refused(r, 0, Claim((True,)), "name none")  # type: ignore[arg-type]
    r.apply(0, Claim((KING, KING)))  # a rank may be named twice
    assert r.s.claim == (0, (KING, KING))


def test_five_up_deal_round_and_dealer_guards():
    r = FiveUpRules("standard")
    refused(r, NO_SEAT, FiveUpDeal(2, BOARD, ()), "round 2, expected 1")
    refused(r, 0, FiveUpDeal(1, BOARD, ()), "only the dealer deals, not seat 0")
    r.apply(NO_SEAT, FiveUpDeal(1, BOARD, ()))
    assert r.s.first_claimer == 0 and r.s.to_move == 0 and r.s.phase == "claim"
    refused(r, NO_SEAT, FiveUpDeal(2, BOARD, ()), "deal: not allowed now")


def test_classic_deal_guards_and_starting_rank():
    r = ClassicRules(MODES["casual"])
    refused(r, 0, ClassicDeal(1, SEVEN, ()), "only the dealer deals")
    refused(r, NO_SEAT, ClassicDeal(2, SEVEN, ()), "round 2, expected 1")
    refused(r, NO_SEAT, ClassicDeal(1, None, ()), "names a starting rank 0..12, got None")
    refused(r, NO_SEAT, ClassicDeal(1, 13, ()), "got 13")
    refused(r, NO_SEAT, ClassicDeal(1, -1, ()), "got -1")
    refused(r, NO_SEAT, ClassicDeal(1, True, ()), "got True")  # type: ignore[arg-type]
    r.apply(NO_SEAT, ClassicDeal(1, ACE, ()))
    assert r.s.required_rank == ACE and r.s.hand_sizes == [5, 5] and r.s.phase == "play"
    with pytest.raises(IllegalMove, match="starting rank must be 0..12"):
        ClassicRules(MODES["casual"], 13)


def test_only_the_first_classic_deal_names_a_starting_rank():
    r = classic("casual")
    r.s.hand_sizes = [1, 5]
    r.apply(0, Play(1, SEVEN))
    r.apply(1, Challenge())
    r.apply(0, ProveVerdict(False))  # caught at the door: re-deal
    assert r.s.phase == "deal" and r.s.to_move == 1
    refused(r, NO_SEAT, ClassicDeal(2, EIGHT, ()), "only the first deal names a starting rank")
    r.apply(NO_SEAT, ClassicDeal(2, None, ()))
    assert r.s.to_move == 1 and r.s.required_rank == EIGHT and r.s.hand_sizes == [5, 5]


def test_play_count_and_rank_guards():
    r = classic()
    refused(r, 0, Play(0, SEVEN), r"count must be 1\.\.4, got 0")
    refused(r, 0, Play(5, SEVEN), r"1\.\.4, got 5")
    refused(r, 0, Play(True, SEVEN), "got True")  # type: ignore[arg-type]
    refused(r, 0, Play(1, EIGHT), "the required rank 7")
    r.s.hand_sizes = [2, 7]
    refused(r, 0, Play(3, SEVEN), r"count must be 1\.\.2, got 3")
    r.apply(0, Play(2, SEVEN))
    assert r.s.hand_sizes == [0, 7] and r.s.pile == 2 and r.s.claim == (0, 2, SEVEN)


def test_legal_actions_follow_the_phase():
    r = ClassicRules(MODES["casual"])
    assert r.legal_actions(0) == [] and r.legal_actions(NO_SEAT) == []
    r.apply(NO_SEAT, ClassicDeal(1, SEVEN, ()))
    assert r.legal_actions(1) == []
    assert r.legal_actions(0) == [Play(k, SEVEN) for k in (1, 2, 3, 4)]
    r.s.hand_sizes = [2, 5]
    assert r.legal_actions(0) == [Play(1, SEVEN), Play(2, SEVEN)]
    r.apply(0, Play(1, SEVEN))
    assert r.legal_actions(1) == [Accept(), Challenge()]
    r.apply(1, Challenge())
    assert r.legal_actions(0) == [ProveVerdict(True), ProveVerdict(False)]
    f = five_up()
    assert f.legal_actions(1) == []
    assert Claim(()) in f.legal_actions(0) and Claim((KING, KING)) in f.legal_actions(0)
    assert len(f.legal_actions(0)) == 1 + 5 + 15
    f.apply(0, Claim((KING, NINE)))
    f.apply(1, Challenge())
    assert f.legal_actions(0) == [ProveLies(0), ProveLies(1), ProveLies(2)]


def test_classic_draw_after_the_last_round_and_next_rank_wraps():
    assert next_rank(ACE) == TWO and next_rank(TWO) == 1
    r = classic("casual")
    r.s.completed_rounds = CLASSIC_MAX_ROUNDS - 1
    r.s.hand_sizes = [1, 5]
    r.apply(0, Play(1, SEVEN))
    r.apply(1, Challenge())
    r.apply(0, ProveVerdict(False))
    assert r.over and r.result().placements == (1, 1) and "6 completed rounds" in r.result().reason
    assert r.result().winners == (0, 1)


def test_five_up_last_round():
    r = FiveUpRules("casual")
    r.s.round, r.s.scores = FIVE_UP_MAX_ROUNDS - 1, [3, 1]
    r.apply(NO_SEAT, FiveUpDeal(FIVE_UP_MAX_ROUNDS, BOARD, ()))
    assert r.s.first_claimer == 1 and r.s.to_move == 1
    r.apply(1, Claim(()))
    r.apply(0, Claim(()))
    assert r.over and r.result() == Result((1, 2), (3, 1), "the higher score after 10 rounds")


def test_public_state_and_to_move():
    r = ClassicRules(MODES["casino"])
    p = r.public_state()
    assert p.target == 20 and p.to_move is NO_SEAT and p.phase == "deal"
    f = FiveUpRules("casino")
    assert f.public_state().target == 20 and f.to_move is NO_SEAT
    f.apply(NO_SEAT, FiveUpDeal(1, BOARD, ()))
    assert f.public_state().board == BOARD and f.public_state().to_move == 0


def test_deck_masks():
    assert DECK.rank_mask(KING) == sum(1 << (KING + 13 * s) for s in range(4))


# ---------------------------------------------------------------- every game's actions from transcript data

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from zkbluff.games.registry import GAMES  # noqa: E402

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8)
ACTIONS = [(game, cls) for game, spec in sorted(GAMES.items()) for cls in spec.actions]


def _field_data(cls):
    """Data with exactly the action's field names and arbitrary JSON values."""
    names = [f.name for f in __import__("dataclasses").fields(cls)]
    return st.fixed_dictionaries({n: JSON for n in names})


@pytest.mark.parametrize("game, cls", ACTIONS, ids=[f"{g}:{c.kind}" for g, c in ACTIONS])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_from_data_and_check_raise_only_typed_errors(game, cls, data):
    """Any JSON as an action's data: ``from_data`` returns the action or raises
    MalformedInput; the rules then accept it or raise IllegalMove (never a raw KeyError,
    TypeError, AttributeError), for every seat a line may name, and change nothing when
    they refuse."""
    payload = data.draw(st.one_of(_field_data(cls), JSON), label="data")
    try:
        action = cls.from_data(payload)
    except MalformedInput:
        return
    assert action.to_data() == {k: (list(v) if isinstance(v, tuple) else v) for k, v in payload.items()}
    rules = GAMES[game]().new_rules()
    for seat in [None] + list(range(rules.n_seats)):
        before = copy.deepcopy(rules.public_state())
        try:
            rules.check(seat, action)
        except IllegalMove:
            assert rules.public_state() == before


def test_a_mind_bluff_eat_must_carry_a_sealed_choice_of_the_right_shape():
    """The public check every party runs (the referee alone can open it): an ephemeral
    X25519 key (32 bytes hex), a dot, the box (hex)."""
    from zkbluff.games.mind_bluff.referee import ChoiceOpening, VerdictChecker, seal_choice
    from zkbluff.games.mind_bluff.rules import Eat
    from zkbluff.protocol.entropy import x25519_keypair

    _, referee_public = x25519_keypair()
    good = seal_choice(referee_public.hex(), "m", 0, 1, 1, ChoiceOpening(2, 5))
    checker = VerdictChecker(("ab" * 32, "cd" * 32))
    assert len(checker.expect(None, 0, Eat(good))) == 1  # type: ignore[arg-type]
    eph, box = good.split(".")
    for bad in ("", "x", eph, eph + ".", "." + box, eph[2:] + "." + box, eph + "." + box + ".00",
                eph.upper() + "." + box, eph + "." + box[1:], eph + "." + box[:-2] + "zz"):
        with pytest.raises(MalformedInput, match="eat: "):
            checker.expect(None, 0, Eat(bad))  # type: ignore[arg-type]


#: the transcript's action names per game and the party that makes each: the wire format
#: (a renamed kind makes every recorded transcript unreadable). The entropy of Cheat and
#: Bluffers is the engine deal's own lines (entropy.dealer, entropy.seat), not a game action.
SCHEMA = {
    "bluffers": {"auto_move": "seat", "call_bluff": "seat", "commit_seed": "seat", "deal": "dealer",
                 "disconnect": "referee", "draw": "dealer", "forfeit": "referee", "leave_table": "seat",
                 "play": "seat", "reconnect": "referee", "reveal": "seat", "sealed_move": "referee", "share": "seat",
                 "shed": "seat",
                 "timeout": "referee"},
    "cheat": {"call": "seat", "close_window": "referee", "deal": "dealer", "dispute": "seat",
              "forfeit": "referee", "hand_over": "seat", "pass": "seat",
              "pick_up": "seat", "play": "seat", "reveal": "seat"},
    "five-up-two-down": {"accept": "seat", "challenge": "seat", "claim": "seat", "deal": "dealer", "prove": "seat",
                         "timeout": "referee"},
    "liars-dice": {"bid": "seat", "count": "seat", "dudo": "seat", "roll": "dealer", "timeout": "referee"},
    "mind-bluff": {"all_done": "seat", "all_done_verdict": "referee", "believe": "seat", "claim": "seat",
                   "consent": "seat", "doubt": "seat", "doubt_verdict": "referee", "eat": "seat",
                   "eat_verdict": "referee", "referee_timeout": "seat", "reveal": "referee", "reveal_entropy": "seat",
                   "seal_answer": "seat",
                   "seal_complaint": "referee", "start_game": "referee", "timeout": "referee"},
    "proof-or-bluff": {"accept": "seat", "challenge": "seat", "deal": "dealer", "play": "seat", "prove": "seat",
                       "timeout": "referee"},
}


def test_every_games_action_names_and_parties_are_the_transcript_schema():
    assert sorted(GAMES) == sorted(SCHEMA)
    for game, spec in GAMES.items():
        kinds = [cls.kind for cls in spec.actions]
        assert len(set(kinds)) == len(kinds), game
        assert {cls.kind: cls.role.value for cls in spec.actions} == SCHEMA[game], game
        for cls in spec.actions:
            assert spec().action_class(cls.kind) is cls



def test_every_action_class_states_its_own_role():
    """``role`` lives on the action class (issue 28): each of a game's actions says it in its
    own body (no base class default a referee's action could fall back to as a seat's)."""
    from zkbluff.games.engine.rules import Role

    for game, spec in GAMES.items():
        for cls in spec.actions:
            assert isinstance(cls.__dict__.get("role"), Role), (game, cls.__name__)


def test_an_action_class_without_a_role_is_refused_not_taken_for_a_seats():
    """The negative twin: the engine has no default role, so a kind whose class names none
    cannot be made by anyone (the referee refuses its line as malformed)."""
    from dataclasses import dataclass
    from typing import ClassVar

    from zkbluff.games.engine.rules import Action

    @dataclass(frozen=True)
    class Nameless(Action):
        kind: ClassVar[str] = "nameless"

    assert not hasattr(Nameless, "role")
    with pytest.raises(AttributeError):
        Nameless.role  # noqa: B018

def test_the_proof_or_bluff_phases_and_limits_are_their_wire_names():
    from zkbluff.games.proof_or_bluff.rules import Phase, TimeLimit

    assert [p.value for p in Phase] == ["deal", "play", "respond", "prove", "claim", "over"]
    assert [t.value for t in TimeLimit] == ["proof", "idle"]
    assert ClassicRules.IDLE_PHASES == (Phase.PLAY, Phase.RESPOND)
    assert FiveUpRules.IDLE_PHASES == (Phase.CLAIM, Phase.RESPOND)


def test_a_check_changes_nothing_even_when_the_action_is_legal():
    """``check`` runs the transition on a deep copy: the lists in the state (scores, hand
    sizes) are not shared with it."""
    r = classic()
    before = copy.deepcopy(r.s)
    for action in (Play(3, SEVEN), Play(1, SEVEN)):
        r.check(0, action)
        assert r.s == before
    r.apply(0, Play(2, SEVEN))
    r.apply(1, Challenge())
    before = copy.deepcopy(r.s)
    r.check(0, ProveVerdict(False))
    assert r.s == before and r.s.scores == [0, 0]
    f = five_up()
    f.apply(0, Claim((KING,)))
    before = copy.deepcopy(f.s)
    f.check(1, Accept())
    assert f.s == before


def test_the_state_before_the_first_deal():
    from zkbluff.games.proof_or_bluff.rules import ClassicPublic, FiveUpPublic

    r = ClassicRules(MODES["casual"])
    assert r.public_state() == ClassicPublic(10, 0, (0, 0), (0, 0), "deal", None, 0, None, 0, 0)
    assert (r.s.winner, r.s.draw, r.s.end_reason, r.result()) == (None, False, "", None)
    assert ClassicRules(MODES["casual"], 12).s.required_rank == 12
    assert ClassicRules(MODES["casual"], 0).s.required_rank == 0
    for bad in (13, -1, "3", True):
        with pytest.raises(IllegalMove, match=f"^starting rank must be 0..12, got {bad}$"):
            ClassicRules(MODES["casual"], bad)
    f = FiveUpRules("standard")
    assert f.public_state() == FiveUpPublic(20, (0, 0), 0, "deal", None, 0, 0, None)
    assert (f.s.winner, f.s.draw, f.s.end_reason, f.s.claims_done, f.result()) == (None, False, "", 0, None)
    with pytest.raises(Exception):
        r.public_state().pile = 3  # type: ignore[misc]  # a frozen snapshot


def test_actions_of_the_other_table_and_other_types_are_refused():
    refused(classic(), 0, Claim((KING,)), "^claim: not an action of the classic table$")
    refused(five_up(), 0, Play(1, SEVEN), "^play: not an action of 5 Up 2 Down$")
    refused(classic(), 0, Play("2", SEVEN), r"count must be 1\.\.4, got '2'")  # type: ignore[arg-type]
    refused(ClassicRules(MODES["casual"]), NO_SEAT, ClassicDeal(1, "3", ()), "got '3'")  # type: ignore[arg-type]
    refused(five_up(), 0, Claim(("9",)), "name none")  # type: ignore[arg-type]
    r = five_up()
    r.apply(0, Claim((KING,)))
    r.apply(1, Challenge())
    refused(r, 0, ProveLies("0"), "got '0'")  # type: ignore[arg-type]


def test_a_draw_is_a_shared_first_place():
    r = FiveUpRules("casual")
    r.s.round, r.s.scores = FIVE_UP_MAX_ROUNDS - 1, [3, 3]
    r.apply(NO_SEAT, FiveUpDeal(FIVE_UP_MAX_ROUNDS, BOARD, ()))
    r.apply(1, Claim(()))
    r.apply(0, Claim(()))
    assert r.result() == Result((1, 1), (3, 3), "a tie after 10 rounds") and r.s.draw and r.s.winner is None


# ---------------------------------------------------------------- the engine's rules base (engine/rules.py)

from dataclasses import dataclass as _dataclass  # noqa: E402
from typing import ClassVar, Optional  # noqa: E402

from zkbluff.games.engine.rules import Action, Rules  # noqa: E402


@_dataclass(frozen=True)
class Every(Action):
    kind: ClassVar[str] = "every"
    # string annotations, as in the game modules (``from __future__ import annotations``)
    i: "int"
    b: "bool"
    s: "str"
    ints: "tuple[int, ...]"
    strs: "tuple[str, ...]"
    maybe: "Optional[int]"


GOOD = {"i": 3, "b": False, "s": "x", "ints": [1, 2], "strs": ["a"], "maybe": None}


def test_typed_fields_round_trip():
    a = Every.from_data(GOOD)
    assert a == Every(3, False, "x", (1, 2), ("a",), None)
    assert a.to_data() == GOOD and isinstance(a.to_data()["ints"], list)
    assert Every.from_data({**GOOD, "maybe": 4}).maybe == 4
    assert Every.from_data({**GOOD, "ints": (), "strs": []}).ints == ()


@pytest.mark.parametrize("field, value, message", [
    ("i", True, "every: i must be an integer, got True"),
    ("i", "3", "every: i must be an integer, got '3'"),
    ("i", 3.0, "every: i must be an integer, got 3.0"),
    ("i", None, "every: i must be an integer, got None"),
    ("b", 0, "every: b must be true or false, got 0"),
    ("b", None, "every: b must be true or false, got None"),
    ("s", 1, "every: s must be a string, got 1"),
    ("ints", [1, True], "every: ints must be a list of integers, got [1, True]"),
    ("ints", [1, "2"], "every: ints must be a list of integers, got [1, '2']"),
    ("ints", "12", "every: ints must be a list of integers, got '12'"),
    ("strs", ["a", 1], "every: strs must be a list of strings, got ['a', 1]"),
    ("strs", "ab", "every: strs must be a list of strings, got 'ab'"),
    ("maybe", "1", "every: maybe must be an integer, got '1'"),
    ("maybe", False, "every: maybe must be an integer, got False"),
])
def test_typed_fields_refuse_other_types(field, value, message):
    with pytest.raises(MalformedInput, match="^" + re.escape(message) + "$"):
        Every.from_data({**GOOD, field: value})


def test_data_must_be_an_object_with_exactly_the_fields():
    with pytest.raises(MalformedInput, match=r"^every: data must be an object, got list$"):
        Every.from_data([])
    with pytest.raises(MalformedInput, match="^" + re.escape("every: data fields ['b', 'i', 'ints', 'maybe', 's'], "
                                                             "expected ['b', 'i', 'ints', 'maybe', 's', 'strs']") + "$"):
        Every.from_data({k: v for k, v in GOOD.items() if k != "strs"})
    with pytest.raises(MalformedInput, match="every: data fields"):
        Every.from_data({**GOOD, "extra": 1})
    assert Accept.from_data({}) == Accept()


def test_an_unsupported_field_type_is_a_programming_error():
    @_dataclass(frozen=True)
    class Odd(Action):
        kind: ClassVar[str] = "odd"
        f: "float"

    with pytest.raises(TypeError, match="^odd.f: unsupported field type float$"):
        Odd.from_data({"f": 1.0})


class _Turns(Rules):
    n_seats = 2

    def __init__(self, to_move, over=False):
        self._to_move, self._over = to_move, over

    over = property(lambda self: self._over)  # type: ignore[assignment]
    to_move = property(lambda self: self._to_move)  # type: ignore[assignment]

    def legal_actions(self, seat):
        return []

    def check(self, seat, action):
        self._expect_turn(seat, "go")

    def _apply(self, seat, action):
        self.applied = (seat, action)

    def public_state(self):
        return None

    def result(self):
        return None


def test_expect_turn_and_apply():
    with pytest.raises(IllegalMove, match=r"^go: out of turn \(seat 1 is to move, not seat 0\)$"):
        _Turns(1).check(0, Accept())
    with pytest.raises(IllegalMove, match=r"^go: out of turn \(the dealer is to move, not seat 0\)$"):
        _Turns(None).check(0, Accept())
    with pytest.raises(IllegalMove, match=r"^go: out of turn \(seat 0 is to move, not the dealer\)$"):
        _Turns(0).check(None, Accept())
    with pytest.raises(IllegalMove, match=r"^go: the match is over$"):
        _Turns(0, over=True).check(0, Accept())
    t = _Turns(0)
    t.apply(0, Accept())
    assert t.applied == (0, Accept())
    t = _Turns(1)
    with pytest.raises(IllegalMove):
        t.apply(0, Accept())  # apply checks first
    assert not hasattr(t, "applied")
    _Turns(None).check(None, Accept())


def test_result_winners():
    assert Result((1, 2, 1), (0, 0, 0), "").winners == (0, 2)
    assert Result((2, 1), (0, 0), "").winners == (1,)
    assert Result((2, 2), (0, 0), "").winners == ()
    with pytest.raises(Exception):
        Result((1,), (0,), "").reason = "x"  # type: ignore[misc]  # frozen


def test_scores_add_to_what_a_seat_already_has():
    """From non-zero scores, so an assignment cannot pass for an addition."""
    f = five_up("casino")
    f.s.scores = [3, 4]
    f.apply(0, Claim((KING,)))
    f.apply(1, Challenge())
    f.apply(0, ProveLies(0))  # a true challenged single: +2
    assert f.s.scores == [5, 4]
    f.apply(1, Claim((KING, NINE)))
    f.apply(0, Challenge())
    f.apply(1, ProveLies(2))  # two lies: the liar −2, the challenger +2
    assert f.s.scores == [7, 2] and f.public_state().claim is None


def test_the_target_is_reached_exactly():
    r = classic("casual")  # target 10
    r.s.scores = [0, 7]
    r.apply(0, Play(1, SEVEN))
    r.apply(1, Challenge())
    r.apply(0, ProveVerdict(False))
    assert r.over and r.result() == Result((2, 1), (0, 10), "reached 10 points")


def test_the_claim_is_cleared_after_every_settlement():
    r = classic()
    r.apply(0, Play(1, SEVEN))
    r.apply(1, Accept())
    assert r.public_state().claim is None and r.s.claim is None
    r.apply(1, Play(1, EIGHT))
    r.apply(0, Challenge())
    r.apply(1, ProveVerdict(True))
    assert r.s.claim is None
    r = classic("casual")
    r.s.hand_sizes = [1, 5]
    r.apply(0, Play(1, SEVEN))
    r.apply(1, Challenge())
    r.apply(0, ProveVerdict(False))  # caught at the door
    r.apply(NO_SEAT, ClassicDeal(2, None, ()))
    assert r.s.claim is None and r.s.pile == 0


# ---------------------------------------------------------------- every game's actions are immutable

import dataclasses  # noqa: E402
import importlib  # noqa: E402

from zkbluff.games.engine.rules import Action  # noqa: E402

RULES_MODULES = ("proof_or_bluff", "cheat", "mind_bluff", "bluffers")
OWN_ACTIONS = sorted(((game, cls) for game in RULES_MODULES
                      for cls in vars(importlib.import_module(f"zkbluff.games.{game}.rules")).values()
                      if isinstance(cls, type) and issubclass(cls, Action)
                      and cls.__module__ == f"zkbluff.games.{game}.rules"), key=lambda gc: (gc[0], gc[1].__name__))


def _refuses_every_write(action: Action) -> bool:
    """Setting the kind, a field or a new attribute of ``action`` raises FrozenInstanceError."""
    for name in ["kind", "extra", *(f.name for f in dataclasses.fields(action))]:
        try:
            setattr(action, name, 1)
        except dataclasses.FrozenInstanceError:
            continue
        return False
    return True


@pytest.mark.parametrize("game, cls", OWN_ACTIONS, ids=[f"{g}:{c.__name__}" for g, c in OWN_ACTIONS])
def test_every_action_of_every_game_is_immutable(game, cls):
    """An action is checked, then applied, then written to the transcript: nothing may
    change it in between. Each action class is a frozen dataclass of its own: a class that
    only inherits Action's frozen ``__setattr__`` (its decorator removed) takes a new kind
    or attribute, since that guard only covers Action's own instances and fields."""
    values = {f.name: 0 for f in dataclasses.fields(cls)}
    action = cls(**values)
    assert _refuses_every_write(action)
    assert action.kind == cls.kind != "" and action == cls(**values) and hash(action) == hash(cls(**values))


def test_the_immutability_check_catches_an_action_without_its_own_decorator():
    """The negative twin: an action class without ``@dataclass(frozen=True)`` of its own
    (what deleting the decorator makes of a field-less action) takes writes."""
    class Loose(Action):
        kind = "loose"

    assert not _refuses_every_write(Loose())
    assert len(OWN_ACTIONS) >= 40 and {g for g, _ in OWN_ACTIONS} == set(RULES_MODULES)
