"""Bluffers in words: the rules page matches RULES.md and states the seed's numbers; every
event of whole matches is said in a line; chosen events are said exactly."""
import random
from pathlib import Path

import pytest

from zkbluff.games.bluffers.bot import RandomBot, play_match
from zkbluff.games.bluffers.rules import (
    ACE, KING, NO_SEAT, QUEEN, AutoMove, BluffersRules, CallBluff, CommitSeed, Deal, Disconnect, LeaveTable,
    Play, Reconnect, Reveal, Share,
)
from zkbluff.games.bluffers.text import RULES_TEXT, card_name, claim_words, describe
from repo_root import REPO_ROOT

ROOT = REPO_ROOT


def test_rules_md_is_the_rules_text():
    assert (ROOT / "src/zkbluff/games/bluffers/RULES.md").read_text() == RULES_TEXT


@pytest.mark.parametrize("fact", [
    "20 cards: 6 Kings, 6 Queens, 6 Aces and 2 Jokers", "A Joker counts as any card", "gets 5 cards",
    "whole deck is dealt", "King, Queen or Ace", "1, 2 or 3 cards", "30 seconds", "6 chambers, 1 bullet",
    "1 in 6, then 1 in 5", "carries over", "skipped until the round ends", "must call bluff",
    "earn no points", "10, 6, 3 and 1", "8, 4 and 1", "5 and 1", "the next player starts it",
])
def test_the_rules_text_states_every_rule(fact):
    assert fact in RULES_TEXT.replace("\n", " ").replace("  ", " ")


def test_card_names_and_claims():
    assert [card_name(c) for c in (0, 6, 12, 18, 19)] == ["King", "Queen", "Ace", "Joker", "Joker"]
    assert claim_words(1, KING) == "One King!" and claim_words(3, ACE) == "Three Aces!"
    assert claim_words(2, QUEEN) == "Two Queens!"


class Recorder:
    def __init__(self, rules: BluffersRules):
        self.rules, self.lines = rules, []

    def __call__(self, seat, action):
        before = self.rules.public_state()
        self.rules.apply(seat, action)
        line = describe(seat, action, before, self.rules.public_state())
        self.lines.append(line)
        return line


def test_chosen_events_in_words():
    rules = BluffersRules(2)
    say = Recorder(rules)
    assert say(0, CommitSeed(1)) == "Seat 0 loads its revolver: its secret seed is committed."
    say(1, CommitSeed(2))
    assert say(NO_SEAT, Deal(KING)) == "Round 1: 5 cards each to Seat 0, Seat 1. The table card is the King."
    assert say(0, Play(2)) == "Seat 0 plays two cards: “Two Kings!”"
    assert say(1, CallBluff()) == "Seat 1 calls bluff on Seat 0's two cards!"
    assert say(0, Reveal((3, 19))) == ("Seat 0 turns over King (matches), Joker (matches). "
                                       "The claim was true: Seat 1 pulls the trigger.")
    assert say(1, Share(1)) == "Seat 1 gives its proven share for Seat 1's pull (chamber 1 of 6, risk 1 in 6)."
    assert say(0, Share(0)).endswith("Click! Seat 1 survives; next time the risk is 1 in 5.")
    say(NO_SEAT, Deal(QUEEN))
    assert say(1, AutoMove("timeout")) == "Seat 1's time ran out: one random card is played for them: “One Queen!”"
    assert say(NO_SEAT, Disconnect(0)) == "Seat 0 lost the connection; its moves are played automatically."
    assert say(0, AutoMove("dropped")).startswith("Seat 0 is away: one random card")
    assert say(NO_SEAT, Reconnect(0)) == "Seat 0 is back and rejoins where it left off."
    say(1, CallBluff())
    assert "The lie is caught: Seat 0 pulls the trigger." in say(0, Reveal((12,)))
    say(0, Share(0))
    last = say(1, Share(0))
    assert last.endswith("BANG! Seat 0 is out and finishes 2nd. Seat 1 is the last one standing and wins (5 points).")


def test_forced_call_and_leaving_in_words():
    rules = BluffersRules(2)
    say = Recorder(rules)
    say(0, CommitSeed(1))
    say(1, CommitSeed(2))
    say(NO_SEAT, Deal(ACE))
    for seat, k in ((0, 1), (1, 3), (0, 1), (1, 2)):
        say(seat, Play(k))
    assert say(0, AutoMove("timeout")) == ("Seat 0's time ran out: they call bluff on Seat 1's two cards! "
                                           "(the only player with cards must call)")
    assert say(1, LeaveTable()) == "Seat 1 leaves the table and will earn no points; the match goes on."
    assert describe(0, Play(1), rules.public_state(), rules.public_state(), names=["Ann", "Bo"]) \
        == "Ann plays one card: “One Ace!”"


def test_every_event_of_whole_matches_is_said():
    for n in (2, 3, 4):
        rules_seen = []

        def hook(rules, dealer):
            rules_seen.append(rules.public_state())

        log = play_match([RandomBot() for _ in range(n)], random.Random(n), on_event=hook, timeout_rate=0.1,
                         drop_rate=0.02)
        assert len(rules_seen) == len(log.events)
        before = BluffersRules(n).public_state()
        for (seat, action), after in zip(log.events, rules_seen):
            line = describe(seat, action, before, after)
            assert line and line[0].isupper() and line.rstrip()[-1] in ".!”)", line
            before = after
        assert "wins" in line


def test_describe_refuses_a_foreign_action():
    snap = BluffersRules(2).public_state()
    with pytest.raises(ValueError):
        describe(0, object(), snap, snap)  # type: ignore[arg-type]


def test_docs_list_every_action_and_phase():
    from zkbluff.games.bluffers.rules import ACTIONS, Phase

    doc = (ROOT / "docs/bluffers.md").read_text()
    for kind, cls in ACTIONS.items():
        assert f"| `{cls.__name__}` | `{kind}` |" in doc, kind
    for phase in Phase:
        assert f"| `{phase.value}` |" in doc, phase
