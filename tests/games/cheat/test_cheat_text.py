"""Cheat in words: the rules page, and one sentence per event."""
import random

from zkbluff.games.cheat import bot
from zkbluff.games.cheat.rules import (
    DECK, Call, CheatRules, CloseWindow, Deal, Forfeit, Pass, PickUp, Play, Reveal, deal_sizes, rank_of,
)
from zkbluff.games.cheat.text import card_words, claim_words, describe, rules_text
from zkbluff.games.engine.rules import NO_SEAT

NAMES = ["Ali", "Ayşe", "Ben"]


def calls(t):
    return Call(t.public_state().play_no)


def closes(t):
    return CloseWindow(t.public_state().play_no)


def said(t, seat, action):
    before = t.public_state()
    t.apply(seat, action)
    return describe(before, seat, action, t.public_state(), NAMES)


def first(rank, skip=0):
    return [c for c in range(DECK.size) if rank_of(c) == rank][skip]


def test_the_seed_example_in_words():
    t = CheatRules(3, first_dealer=2)
    assert said(t, NO_SEAT, Deal(deal_sizes(3, 2))) == \
        "Hand 1 of 3: Ben deals the whole deck (Ali 18, Ayşe 17, Ben 17). Ali starts."
    assert said(t, 0, Play(5, 2)) == "Ali opens with two sevens."
    words = said(t, 1, calls(t)) + " " + said(t, 0, Reveal((first(5), first(1))))
    assert words == "Ayşe calls Bluff! The two sevens were a 7 and a 3: Ali picks up 2 cards."
    assert said(t, 0, PickUp(2)) == "Ali takes the pile; Ayşe was right and starts the next round."


def test_words_for_claims_and_cards():
    assert claim_words(4, 3) == "three sixes" and claim_words(12, 1) == "one Ace" and claim_words(8, 2) == "two tens"
    assert card_words(first(6)) == "an 8" and card_words(first(12)) == "an Ace" and card_words(first(9)) == "a Jack"
    assert card_words(first(8)) == "a 10"


def test_passes_set_aside_wrong_calls_hand_and_table_ends():
    t = CheatRules(3, hands=3, first_dealer=2)
    said(t, NO_SEAT, Deal(deal_sizes(3, 2)))
    said(t, 0, Play(11, 1))
    assert said(t, NO_SEAT, closes(t)) == "Nobody calls; Ayşe to play."
    assert said(t, 1, Pass()) == "Ayşe passes."
    assert said(t, 2, Pass()) == ("Ben passes. Everyone passed since Ali's play: the pile of 1 card is set aside "
                                  "face down. Ali starts a new round.")
    said(t, 0, Play(11, 2))
    said(t, 2, calls(t))
    assert said(t, 0, Reveal((first(11), first(11, 1)))) == \
        "The two Kings were a King and a King, as claimed: Ben picks up 2 cards."
    said(t, 2, PickUp(2))
    text = said(t, NO_SEAT, Forfeit(1, "no proof of its pick-up"))
    assert text.startswith("Ayşe forfeits the hand (no proof of its pick-up) and scores 52 for it. Hand 1 is over.")
    said(t, NO_SEAT, Deal(deal_sizes(3, 0)))
    said(t, NO_SEAT, Forfeit(1, "x"))
    said(t, NO_SEAT, Deal(deal_sizes(3, 1)))
    assert said(t, NO_SEAT, Forfeit(2, "x")).endswith("Ali wins with 0.")


def test_every_event_of_whole_tables_has_words():
    lines = []

    class Narrator(bot.HouseBot):
        def observe(self, seat, action, before, after, hand):
            lines.append(describe(before, seat, action, after))
            super().observe(seat, action, before, after, hand)

    bot.play_table([Narrator(random.Random(1)), bot.RandomBot(random.Random(2)), bot.RandomBot(random.Random(3)),
                    bot.HouseBot(random.Random(4))], 3, random.Random(9))
    assert lines and all(line and "None" not in line for line in lines)
    assert any("share the win" in line or " wins with " in line for line in lines[-1:])


def test_the_rules_page_says_every_rule():
    text = " ".join(rules_text().split())  # one line, whatever the wrapping
    for phrase in ("52-card deck", "one card more", "next to the dealer", "one to four cards", "1, 3, 5 or 7",
                   "first call counts", "picks up the whole pile", "put aside face down", "doesn't win straight away",
                   "scores 0", "1 penalty point per card", "3, 5 or 7 hands", "lowest total wins", "share the win"):
        assert phrase in text, phrase
