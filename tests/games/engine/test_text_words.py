"""The words every game's text shares (games/engine/text.py, issue 28): one copy of the
"you" grammar, counts, lists and seat names, and no game keeping its own."""
import re

import pytest

from repo_root import REPO_ROOT
from zkbluff.games.engine.text import is_you, join_words, plural, possessive, seat_name, second_person, verb

GAMES = REPO_ROOT / "src" / "zkbluff" / "games"


@pytest.mark.parametrize("who,third,said", [
    ("house", "plays", "house plays"), ("you", "plays", "you play"), ("You", "plays", "You play"),
    ("you", "catches", "you catch"), ("you", "has", "you have"), ("you", "is", "you are"),
    ("you", "was", "you were"), ("you", "must", "you must"), ("you", "ran", "you ran"),
    ("Ann", "has", "Ann has"), ("youth", "plays", "youth plays"),
])
def test_verb_agrees_with_who(who: str, third: str, said: str) -> None:
    assert verb(who, third) == said


def test_possessive_and_is_you() -> None:
    assert (possessive("you"), possessive("You"), possessive("house")) == ("your", "Your", "house's")
    assert is_you("you") and is_you("You") and not is_you("your") and not is_you("house")


def test_counts_lists_and_seat_names() -> None:
    assert (plural(1, "point"), plural(0, "card"), plural(3, "honest claim")) == ("1 point", "0 cards", "3 honest claims")
    assert (join_words(["a"]), join_words(["a", "b"]), join_words(["a", "b", "c"])) == ("a", "a and b", "a, b and c")
    assert seat_name(None, ["Ann"], "The dealer") == "The dealer"
    assert seat_name(0, ["Ann"], "The table") == "Ann"
    assert seat_name(3, ["Ann"], "The table") == "Seat 3"  # a seat the names do not cover
    assert seat_name(1, None, "The table") == "Seat 1"


def test_second_person_as_before() -> None:
    """The narration's whole-sentence rewrite, moved here unchanged."""
    assert second_person("you plays two cards; you's turn") == "you play two cards; your turn"
    assert second_person("You finishes it and you gives its share") == "You finish it and you give your share"
    assert second_person("you is out and finishes third") == "you are out and finish third"
    assert second_person("house plays") == "house plays"


def test_no_game_keeps_its_own_you_grammar() -> None:
    """Every game's text comes to engine/text.py for the "you" grammar: no module under a
    game folder compares a name with "you" itself (the copies issue 28 found in Proof or
    Bluff's and Mind Bluff's text, the narration's own verb table aside)."""
    own = re.compile(r"""==\s*['"]you['"]|['"]your['"]\s+if\b""")
    found = [f"{p.relative_to(GAMES)}:{i}" for p in sorted(GAMES.glob("*/*.py")) if p.parent.name != "engine"
             for i, line in enumerate(p.read_text().splitlines(), 1) if own.search(line)]
    assert found == []


def test_the_guard_sees_a_copy() -> None:
    """The negative twin: the guard's pattern finds the copy it was written against."""
    own = re.compile(r"""==\s*['"]you['"]|['"]your['"]\s+if\b""")
    assert own.search('    return "your" if who == "you" else f"{who}\'s"')
    assert own.search("    return f\"{who} {verb[:-1] if who.lower() == 'you' and verb.endswith('s') else verb}\"")
