"""One input grammar for cards in every game (issue 32, item 4): positions or names
(``2 5``, ``KH QS``, ``K K``), one parser (games/engine/card_input.py) behind every game's
prompt, empty input refused everywhere (5 Up 2 Down's "none" is a word to type), and the
hand shown before every decision (a re-dealt hand before accept or challenge)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from zkbluff.errors import MalformedInput
from zkbluff.games.engine import card_input
from zkbluff.games.engine.card_input import parse_cards, standard_names

# 52-card ids: suit * 13 + rank (ranks 2..A = 0..12, suits c d h s)
KH, QS, KC, SEVEN_H, TEN_D = 2 * 13 + 11, 3 * 13 + 10, 11, 2 * 13 + 5, 13 + 8
HAND = (SEVEN_H, TEN_D, KC, KH, QS)


@pytest.mark.parametrize("typed,picked", [
    ("2 5", (TEN_D, QS)), ("KH QS", (KH, QS)), ("kh, qs", (KH, QS)), ("K K", (KC, KH)), ("king 1", (KC, SEVEN_H)),
    ("7h", (SEVEN_H,)), ("10d", (TEN_D,)), ("Td", (TEN_D,)), ("K♥", (KH,)), ("Q", (QS,)),
])
def test_positions_and_names(typed, picked):
    assert parse_cards(typed, HAND, standard_names) == picked


@pytest.mark.parametrize("typed,why", [
    ("", "at least one card"), ("   ", "at least one card"), ("6", "positions are 1 to 5"),
    ("K K K", "only 2 cards called 'K'"), ("KH kh", "picked twice"), ("4 4", "picked twice"), ("As", "no card"),
    ("7", "a number rank goes by its full name, e.g. 7h"), ("x", "no card"),
])
def test_refusals_say_why(typed, why):
    with pytest.raises(MalformedInput, match=why):
        parse_cards(typed, HAND, standard_names)


def test_at_most():
    with pytest.raises(MalformedInput, match="at most 3"):
        parse_cards("1 2 3 4", HAND, standard_names, most=3)


# ---------------------------------------------------------------- every game's prompt

def _ask(*answers):
    it = iter(answers)
    asked: list[str] = []

    def ask(q):
        asked.append(q)
        return next(it)
    ask.asked = asked  # type: ignore[attr-defined]
    return ask


def _classic_turn():
    from zkbluff.games.proof_or_bluff.moves import ClassicObservation
    from zkbluff.games.proof_or_bluff.rules import PLAY, ClassicPublic

    return ClassicObservation(0, ClassicPublic(10, 11, (0, 0), (5, 5), PLAY, 0, 0, None, 1, 0), HAND, ())


def _cheat_turn(rank=11):
    from zkbluff.games.cheat.match import Stage
    from zkbluff.games.cheat.rules import Phase

    state = SimpleNamespace(phase=Phase.PLAY, rank=rank, hand_sizes=(5, 5), pile_size=0, set_aside=0, pile=[])
    table = SimpleNamespace(to_move=0, stage=Stage.RULES, game=state)
    return SimpleNamespace(table=table, state=state, seat=0, hand=HAND, legal=())


def _bluffers_turn():
    from zkbluff.games.bluffers.rules import CallBluff

    state = SimpleNamespace(table_card=0, last_play=None, round=1, chambers=(1, 0))
    # Bluffers ids: Kings 0-5, Queens 6-11, Aces 12-17, Jokers 18-19
    return SimpleNamespace(due="turn", state=state, hand=(0, 7, 3, 18, 12), legal=(CallBluff(),), seat=0)


def test_cheat_takes_card_names():
    """Before: "give the numbers of your cards, e.g. '1 3', got 'KH QS'"."""
    from zkbluff.games.cheat.text import CheatText

    said: list[str] = []
    assert CheatText.prompt(_cheat_turn(), _ask("KH QS"), said.append, ["you", "house"]).cards == (KH, QS)
    assert CheatText.prompt(_cheat_turn(), _ask("K K"), said.append, ["you", "house"]).cards == (KC, KH)
    assert CheatText.prompt(_cheat_turn(), _ask("2 5"), said.append, ["you", "house"]).cards == (TEN_D, QS)
    opening = CheatText.prompt(_cheat_turn(None), _ask("K KH kc"), said.append, ["you", "house"])
    assert (opening.rank, opening.cards) == (11, (KH, KC))


def test_bluffers_takes_card_names():
    """Before: positions only ("expected card positions 1-5 or c, got 'k k'")."""
    from zkbluff.games.bluffers.text import TableText

    said: list[str] = []
    assert TableText.prompt(_bluffers_turn(), _ask("K K"), said.append, ["you", "house"]).cards == (0, 3)
    assert TableText.prompt(_bluffers_turn(), _ask("queen joker"), said.append, ["you", "house"]).cards == (7, 18)
    assert TableText.prompt(_bluffers_turn(), _ask("2 5"), said.append, ["you", "house"]).cards == (7, 12)
    assert TableText.prompt(_bluffers_turn(), _ask("c"), said.append, ["you", "house"]).__class__.__name__ == \
        "CallBluff"


def test_proof_or_bluff_takes_a_rank_alone():
    from zkbluff.games.proof_or_bluff.text import ClassicText

    said: list[str] = []
    assert set(ClassicText.prompt(_classic_turn(), _ask("K K"), said.append, ["you", "house"]).cards) == {KC, KH}


def test_the_same_refusal_at_every_game():
    """One parser: an empty answer, a card picked twice, a position outside the hand are
    refused in the same words at every card game's prompt."""
    from zkbluff.games.bluffers.text import TableText
    from zkbluff.games.cheat.text import CheatText
    from zkbluff.games.proof_or_bluff.text import ClassicText

    prompts = [(ClassicText, _classic_turn), (CheatText, _cheat_turn), (TableText, _bluffers_turn)]
    for typed in ("", "1 1", "9"):
        refusals = set()
        for text, obs in prompts:
            with pytest.raises(MalformedInput) as err:
                text.prompt(obs(), _ask(typed), lambda m: None, ["you", "house"])
            words = str(err.value).split(" (")
            refusals.add(words[1] if typed == "1 1" else words[0].split(";")[0])  # (the card's own name first)
        assert len(refusals) == 1, (typed, refusals)
    assert card_input.parse_cards.__module__ == "zkbluff.games.engine.card_input"


def test_bluffers_pulls_in_words():
    from zkbluff.games.bluffers.text import TableText

    said: list[str] = []
    TableText.prompt(_bluffers_turn(), _ask("1"), said.append, ["you", "house"])
    assert "1 pull." in said[0] and "pull(s)" not in said[0]


# ---------------------------------------------------------------- empty input, and the hand before a decision

def _five_up(phase_claim: bool):
    from zkbluff.games.proof_or_bluff.moves import FiveUpObservation
    from zkbluff.games.proof_or_bluff.rules import CLAIM, RESPOND, FiveUpPublic
    from zkbluff.games.proof_or_bluff.rules import DECK

    board = DECK.mask([0, 1, 2, 3, 11])
    if phase_claim:
        pub = FiveUpPublic(10, (0, 0), board, CLAIM, 1, 1, 0, None)
    else:
        pub = FiveUpPublic(10, (0, 0), board, RESPOND, 1, 1, 0, (0, (11,)))
    return FiveUpObservation(1, pub, (24, 30), ())


def test_five_up_empty_enter_claims_nothing():
    """Before: an empty Enter claimed "none" (a claim that scores nothing, never undone)."""
    from zkbluff.games.proof_or_bluff.text import FiveUpText

    with pytest.raises(MalformedInput, match="none"):
        FiveUpText.prompt(_five_up(True), _ask(""), lambda m: None, ["you", "house"])
    assert FiveUpText.prompt(_five_up(True), _ask("none"), lambda m: None, ["you", "house"]).names == ()


def test_empty_accept_or_challenge_is_refused():
    from zkbluff.games.proof_or_bluff.text import FiveUpText

    with pytest.raises(MalformedInput):
        FiveUpText.prompt(_five_up(False), _ask(""), lambda m: None, ["you", "house"])


def test_the_hand_is_shown_before_accept_or_challenge():
    """After a re-deal the other seat plays first: before, you answered its claim without
    seeing your new hand."""
    from zkbluff.games.proof_or_bluff.moves import ClassicObservation
    from zkbluff.games.proof_or_bluff.rules import RESPOND, ClassicPublic
    from zkbluff.games.proof_or_bluff.text import ClassicText, card_label

    pub = ClassicPublic(10, 11, (0, 0), (5, 3), RESPOND, 0, 2, (1, 2, 11), 2, 1)
    obs = ClassicObservation(0, pub, HAND, ())
    said: list[str] = []
    ClassicText.prompt(obs, _ask("a"), said.append, ["you", "house"])
    assert any("Your hand" in x and card_label(KH) in x for x in said), said


def test_the_hand_is_shown_before_a_call_in_cheat():
    from zkbluff.games.cheat.match import Stage
    from zkbluff.games.cheat.rules import Phase
    from zkbluff.games.cheat.text import CheatText

    state = SimpleNamespace(phase=Phase.WINDOW, rank=11, hand_sizes=(5, 3), pile_size=2, set_aside=0,
                            pile=[(1, 2)], play_no=4)
    table = SimpleNamespace(to_move=None, stage=Stage.RULES, game=state)
    obs = SimpleNamespace(table=table, state=state, seat=0, hand=HAND, legal=())
    said: list[str] = []
    CheatText.prompt(obs, _ask(""), said.append, ["you", "house"])
    assert any("Your hand" in x for x in said), said
