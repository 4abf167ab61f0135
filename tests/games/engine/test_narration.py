"""One narration per game (games/engine/narration.py), over every transcript vector: no
line's words are empty or the generic fallback ("seat 0: play"), every line that decides
something says what it decided (Bluffers: the call's verdict, who pulls, click or BANG, who
is out; Proof or Bluff: who scored, the pile discarded, whose turn, a round ended at the
door), and the words are a function of the lines alone (two narrators agree)."""
from __future__ import annotations

import json

import pytest

from repo_root import REPO_ROOT
from zkbluff.games.bluffers.text import TableText
from zkbluff.games.engine.narration import Narrator, narration, second_person
from zkbluff.games.engine.registry import spec_for

VECTORS = sorted((REPO_ROOT / "vectors" / "transcripts").glob("*.jsonl"))


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _narrate(path, names=None):
    lines = _lines(path)
    header = lines[0]["data"]
    spec = spec_for(header["game"], header["options"])
    return lines, narration(spec, lines, names)


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_every_vector_line_is_said_in_words(path):
    lines, said = _narrate(path)
    assert said[0] == []  # the header is the table's description, not a line of play
    for line, words in zip(lines[1:], said[1:]):
        kind = line["action"]
        if kind == spec_for(lines[0]["data"]["game"], lines[0]["data"]["options"]).deal.closing:
            continue
        assert words and all(w.strip() for w in words), (line["n"], kind)
        first = words[0]
        assert not first.endswith(f": {kind}") and not first.endswith(f": {kind}.") \
            and not first.startswith(f"{kind} {{"), (line["n"], first)
    # the same lines give the same words to every narrator (no screen keeps state of its own)
    assert _narrate(path)[1] == said


def _after(lines, said, kind):
    return [(line, words) for line, words in zip(lines, said) if line["action"] == kind]


@pytest.mark.parametrize("path", [p for p in VECTORS if p.stem.startswith("bluffers")], ids=lambda p: p.stem)
def test_bluffers_says_what_every_call_decided(path):
    lines, said = _narrate(path)
    reveals = _after(lines, said, "reveal")
    assert reveals
    for line, words in reveals:
        text = " ".join(words)
        assert ("the claim was true" in text) != ("the lie is caught" in text), text
        assert "pulls the trigger" in text and "risk 1 in" in text
    pulls = [" ".join(w) for line, w in _after(lines, said, "share") if "Click!" in " ".join(w)
             or "BANG!" in " ".join(w)]
    assert len(pulls) == len(reveals)  # every pull's end is said, on its last share
    assert any("BANG!" in p and "is out" in p for p in pulls)
    deals = _after(lines, said, "deal")
    assert all("Revolvers:" in " ".join(w) and "pull" in " ".join(w) for _, w in deals)  # every seat's pulls


def test_proof_or_bluff_says_scores_pile_turn_and_the_door():
    lines, said = _narrate(REPO_ROOT / "vectors" / "transcripts" / "proof-or-bluff-casual.jsonl")
    proves = _after(lines, said, "prove")
    assert proves
    for _, words in proves:
        text = " ".join(words)
        assert ("gains 3 points" in text or "challenge failed" in text) and "is discarded" in text
    assert any("caught at the door" in " ".join(w) and "dealt again" in " ".join(w) for _, w in proves)
    assert all("plays next" in " ".join(w) or "plays first" in " ".join(w) or "caught" in " ".join(w)
               or lines[-1]["n"] - line["n"] < 3 for line, w in proves)


def test_names_given_replace_the_header_names():
    path = REPO_ROOT / "vectors" / "transcripts" / "bluffers-2.jsonl"
    _, said = _narrate(path, ["you", "house"])
    text = "\n".join(w for words in said for w in words)
    assert "you play" in text and "you plays" not in text and "you's" not in text
    assert "house plays" in text


def test_a_line_the_rules_cannot_follow_still_has_words():
    path = REPO_ROOT / "vectors" / "transcripts" / "proof-or-bluff-casual.jsonl"
    lines = _lines(path)
    spec = spec_for(lines[0]["data"]["game"], lines[0]["data"]["options"])
    narrator = Narrator(spec)
    narrator.lines(lines[0])
    words = narrator.lines(lines[8])  # out of order: the narrator's rules refuse it
    assert words and narrator.rules is None
    assert narrator.lines(lines[9])  # and it goes on from the lines alone


def test_second_person():
    assert second_person("you plays two cards") == "you play two cards"
    assert second_person("you's 30 seconds ran out.") == "your 30 seconds ran out."
    assert second_person("you gives its proven share") == "you give your proven share"
    assert second_person("BANG! you is out and finishes 2nd.") == "BANG! you are out and finish 2nd."
    assert second_person("you passes.") == "you pass."
    assert second_person("house plays") == "house plays"  # another seat's words are left as they are


def test_an_automatic_card_is_not_said_as_a_call():
    """The transcript's automatic card (its pick's proof on the line) is a card played, not
    "calls bluff"; the forced call (no proof) is the call."""
    card = {"n": 30, "seat": 1, "action": "auto_move", "data": {"reason": "timeout"},
            "proofs": [{"statement": "card.pick.v1@deck=20"}]}
    said = TableText.describe(card, ["ann", "bob"])
    assert "card" in said and "played" in said and "bluff" not in said
    call = {"n": 30, "seat": 1, "action": "auto_move", "data": {"reason": "timeout"}}
    assert "calls bluff" in TableText.describe(call, ["ann", "bob"])


def test_final_scores_say_whose():
    lines, said = _narrate(REPO_ROOT / "vectors" / "transcripts" / "proof-or-bluff-casual.jsonl", ["you", "house"])
    end = said[[line["action"] for line in lines].index("end")][0]
    assert "final scores: you " in end and ", house " in end and "–" not in end
    _, said = _narrate(REPO_ROOT / "vectors" / "transcripts" / "bluffers-3.jsonl")
    assert " pts" not in said[-1][0] and "(1 point)" in said[-1][0]
