"""Liar's Dice in words: the rules page is RULES.md and states the table's options; every
line of a stored match is narrated (the same words for a seat named "you" in the second
person); the prompt turns typing into a bid or a Dudo and refuses what is none."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.games.engine.narration import narration
from zkbluff.games.liars_dice.moves import BidIntent, CountIntent, DudoIntent, Observation
from zkbluff.games.liars_dice.rules import Bid, Dudo, LiarsDiceRules, Roll
from zkbluff.games.liars_dice.text import TEXT
from zkbluff.games.registry import spec_for

ROOT = Path(__file__).resolve().parents[3]
BASE = ROOT / "vectors" / "transcripts" / "liars-dice-2.jsonl"


def test_the_rules_page_is_rules_md_and_names_the_options():
    assert TEXT.RULES == (ROOT / "src/zkbluff/games/liars_dice/RULES.md").read_text()
    for words in ("--players", "--wild", "Dudo", "ones", "withholds"):
        assert words in TEXT.RULES


def test_every_line_of_a_stored_match_is_narrated_and_the_end_says_who_won():
    lines = [json.loads(x) for x in BASE.read_text().splitlines()]
    said = narration(spec_for("liars-dice", lines[0]["data"]["options"]), lines)
    assert all(s for s in said[1:])  # every line after the header has its words
    text = "\n".join(w for s in said for w in s)
    assert "calls Dudo!" in text and "loses a die" in text and " wins with " in text
    you = narration(spec_for("liars-dice", {}), lines, names=["you", "house"])
    words = "\n".join(w for s in you for w in s)
    assert "you claims" not in words and "you proves" not in words and "you commit your entropy" in words


def _obs(rules: LiarsDiceRules, seat: int) -> Observation:
    return Observation(seat, rules.public_state(), (1, 4, 4, 6, 2), tuple(rules.legal_actions(seat)))


def test_the_prompt_reads_a_bid_or_dudo_and_refuses_what_is_none():
    rules = LiarsDiceRules(2)
    rules.apply(None, Roll(1))
    said: list[str] = []
    assert TEXT.prompt(_obs(rules, 0), lambda _: "3 5", said.append, ["a", "b"]) == BidIntent(3, 5)
    with pytest.raises(IllegalMove):
        TEXT.prompt(_obs(rules, 0), lambda _: "dudo", said.append, ["a", "b"])  # no bid yet
    rules.apply(0, Bid(3, 5))
    assert TEXT.prompt(_obs(rules, 1), lambda _: "dudo", said.append, ["a", "b"]) == DudoIntent()
    for bad, err in (("three fives", MalformedInput), ("3 5", IllegalMove), ("2 7", IllegalMove)):
        with pytest.raises(err):
            TEXT.prompt(_obs(rules, 1), lambda _, b=bad: b, said.append, ["a", "b"])
    rules.apply(1, Dudo())
    assert TEXT.prompt(_obs(rules, 0), lambda _: pytest.fail("a count asks nothing"), said.append,
                       ["a", "b"]) == CountIntent()
