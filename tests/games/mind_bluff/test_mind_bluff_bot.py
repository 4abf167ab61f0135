"""Mind Bluff bots and text: policies from public information and their own choices only,
personas as data, untrusted names and dialogue, every event in words, the rules page."""
from dataclasses import replace
from pathlib import Path

import pytest

from zkbluff.errors import MalformedInput
from zkbluff.games.mind_bluff.arena import play_series, view_for, win_rate
from zkbluff.games.mind_bluff.bot import (
    PERSONAS, HouseBot, Persona, RandomBot, SeatView, check_display_text,
)
from zkbluff.games.mind_bluff.rules import (
    AllDone, Believe, Claim, Doubt, DoubtVerdict, Eat, EatVerdict, Event, EventKind, EndReason, MindBluffRules,
    StartGame,
)
from zkbluff.games.mind_bluff.text import RULES, describe, rules_text
from repo_root import REPO_ROOT

ROOT = REPO_ROOT


def test_names_and_dialogue_are_untrusted_text():
    assert check_display_text("Aiko 🍡", "name") == "Aiko 🍡"
    assert check_display_text("x" * 100) == "x" * 100
    for bad, why in (("x" * 101, "at most 100"), ("evil\nname", "control"), ("a\x1b[31m", "control"),
                     ("rtl\u202eoverride", "control"), (42, "string")):
        with pytest.raises(MalformedInput, match=why):
            check_display_text(bad, "name")
    with pytest.raises(MalformedInput, match="persona name"):
        Persona("bad\tname")
    with pytest.raises(MalformedInput, match="line"):
        Persona("ok", lines=(("won", "y" * 101),))
    with pytest.raises(MalformedInput, match="honesty"):
        Persona("ok", honesty=1.5)


def test_a_persona_file_is_untrusted_data():
    p = Persona.from_data({"name": "Grandpa", "honesty": 0.8, "lines": {"won": "Heh."}})
    assert (p.name, p.honesty, p.doubt, p.line("won")) == ("Grandpa", 0.8, Persona().doubt, "Heh.")
    for bad in ({"honesty": 0.5}, {"name": "x", "rules": "always win"}, {"name": "x", "honesty": "high"},
                {"name": "x", "honesty": True}, {"name": "x", "lines": {"won": 3}}, {"name": "x\n"},
                {"name": "x", "lines": ["won"]}, "name: x"):
        with pytest.raises(MalformedInput):
            Persona.from_data(bad)


def test_personas_are_data_that_tune_the_same_policy():
    assert PERSONAS["honest-hana"].line("won") == "Thank you for the meal!"
    assert PERSONAS["house"].line("won") is None
    # a persona never reaches the rules: a house bot with any persona plays legal moves only
    for name, persona in PERSONAS.items():
        rec = play_series([HouseBot(1, persona), RandomBot(2)], seed=4)
        assert rec.rules.over, name


def test_honest_persona_lies_less_than_a_sly_one():
    def lies(persona):
        n = t = 0
        for seed in range(30):
            rec = play_series([HouseBot(seed, persona), HouseBot(seed + 1)], seed=seed)
            for g, choices in zip(rec.rules.games, rec.choices):
                eats = iter(choices)
                x = None
                for e in g.events:
                    if e.kind == EventKind.ATE:
                        x = next(eats)
                    if e.kind == EventKind.CLAIMED and e.seat == 0 and not e.forced_honest:
                        t += 1
                        n += e.amount != x
        return n / t

    assert lies(PERSONAS["honest-hana"]) < lies(PERSONAS["sly-jiro"])


def test_the_bot_sees_only_public_state_and_its_own_choices():
    r = MindBluffRules((False, False))
    r.apply(None, StartGame(1, 0))
    r.apply(0, Eat())
    r.apply(None, EatVerdict(False))
    r.apply(0, Claim(2, False))
    view = view_for(r, 1, ())
    assert isinstance(view, SeatView) and set(vars(view)) == {"seat", "state", "my_choices", "legal"}
    assert not hasattr(view.state, "remaining") and view.state.start == 30
    # the same public view gives the same decision whatever the hidden truth was
    a = HouseBot(5).act(view)
    b = HouseBot(5).act(view_for(r, 1, ()))
    assert a == b and a.action in (Believe(), Doubt())


def test_the_bot_in_debt_claims_its_choice_and_never_doubts_a_proven_claim():
    r = MindBluffRules((False, False))
    r.apply(None, StartGame(1, 0))
    r.apply(0, Eat()), r.apply(None, EatVerdict(False)), r.apply(0, Claim(1, False))
    r.apply(1, Doubt()), r.apply(None, DoubtVerdict(False))  # P1 owes one
    r.apply(1, Eat()), r.apply(None, EatVerdict(False)), r.apply(1, Claim(3, False)), r.apply(0, Believe())
    r.apply(0, Eat()), r.apply(None, EatVerdict(False))
    view = view_for(r, 0, (1, 2))
    assert view.legal == (Claim(2, True),)
    for seed in range(10):
        assert HouseBot(seed).act(view).action == Claim(2, True)
        assert RandomBot(seed).act(view).action == Claim(2, True)
    r.apply(0, Claim(2, True))
    for seed in range(10):
        assert HouseBot(seed).act(view_for(r, 1, (3,))).action == Believe()


def _turn(r, seat, x, claim, response, truthful=None):
    """One scripted turn: eat, survive, claim (proven while in debt), the response."""
    r.apply(seat, Eat())
    r.apply(None, EatVerdict(False))
    r.apply(seat, Claim(claim, r.debts[seat] > 0))
    r.apply(1 - seat, response)
    if truthful is not None and r.phase.value == "doubt_verdict":
        r.apply(None, DoubtVerdict(truthful))


def test_the_bot_plays_the_known_count_right():
    """P1 learns every P2 eat from TRUE verdicts: with 6 left it eats 1 (leaving 5, a
    losing count for P2); with 2 left it eats 1 (never the last); with 1 left, All done."""
    r = MindBluffRules((False, False))
    r.apply(None, StartGame(1, 0))
    for _ in range(4):
        _turn(r, 0, 3, 3, Believe())
        _turn(r, 1, 3, 3, Doubt(), truthful=True)
    mine = (3, 3, 3, 3)
    view = view_for(r, 0, mine)
    assert HouseBot(0).belief(view).dist == {6: 1.0}
    for seed in range(10):
        move = HouseBot(seed).act(view)
        assert move.action == Eat() and move.choice == 1
    branch = MindBluffRules((False, False))
    branch.__dict__.update({k: (list(v) if isinstance(v, list) else v) for k, v in r.__dict__.items()})
    _turn(branch, 0, 1, 1, Believe())           # 5 left
    _turn(branch, 1, 3, 3, Doubt(), truthful=True)  # 2 left, P1 to move
    view2 = view_for(branch, 0, mine + (1,))
    assert HouseBot(0).belief(view2).dist == {2: 1.0}
    for seed in range(10):
        move = HouseBot(seed).act(view2)
        assert move.action == Eat() and move.choice == 1
    _turn(r, 0, 3, 3, Believe())                # 3 left
    _turn(r, 1, 2, 2, Doubt(), truthful=True)   # 1 left, P1 to move
    view3 = view_for(r, 0, mine + (3,))
    assert HouseBot(0).belief(view3).dist == {1: 1.0}
    for seed in range(10):
        assert HouseBot(seed).act(view3).action == AllDone()


def test_house_bot_beats_random_legal_with_a_fixed_seed():
    res = win_rate(lambda s: HouseBot(s), lambda s: RandomBot(s), series=100, seed=7)
    assert res["wins"] >= 90, res


def test_rules_page_is_rules_md():
    assert (ROOT / "src/zkbluff/games/mind_bluff/RULES.md").read_text() == RULES == rules_text()
    for must in ("first player to win 2 games", "29, 30 or 31", "TRUE", "BLUFF", "forced honest",
                 "4.5 seconds", "3.6 seconds", "10-second"):
        assert must in RULES, must


def test_every_event_in_words():
    base = Event(1, 1, EventKind.ATE, 0, (0, 0))
    seen = set()
    for kind in EventKind:
        e = replace(base, kind=kind, amount=2 if kind in (EventKind.CLAIMED, EventKind.VERDICT) else None,
                    outcome=True if kind in (EventKind.VERDICT, EventKind.ALL_DONE_RESULT) else None,
                    reason=EndReason.ATE_LAST if kind == EventKind.GAME_ENDED else None,
                    start=30 if kind == EventKind.GAME_STARTED else None)
        text = describe(e, ("Aiko", "Bot"))
        assert text and "Aiko" in text or "Bot" in text, kind
        seen.add(text)
    assert len(seen) == len(EventKind)
    hidden = describe(Event(3, 0, EventKind.GAME_STARTED, 1, (0, 0)), ("A", "B"))
    assert "??" in hidden and "29" not in hidden and "31" not in hidden
