"""The statements and parameter sets the games use. ``circuits/`` holds one ``.r1cs`` per
entry and ``circuits/manifest.json`` their counts and fingerprints (a lock file that
``zkbluff circuits check`` compares with the code)."""
from __future__ import annotations

from functools import lru_cache

from zkbluff.errors import MalformedInput
from zkbluff.statements.base import Statement
from zkbluff.statements.cards import absorb_statement, claim_statement, deal_statement, match_statement, play_statement
from zkbluff.statements.oblivious import chosen_hand_statement, permutation_statement
from zkbluff.statements.values import (
    chamber_statement, choice_statement, counter_is_statement, counter_step_statement,
)

BLUFFERS_DECK = 20  # 6 Kings, 6 Queens, 6 Aces, 2 Jokers


@lru_cache(maxsize=None)
def all_statements() -> dict[str, Statement]:
    stmts = [
        deal_statement(52, (5, 5)),            # Proof or Bluff, Casual
        deal_statement(52, (7, 7)),            # Proof or Bluff, Standard and Casino
        deal_statement(52, (2, 2), board=5),   # 5 Up 2 Down
        deal_statement(52, (18, 17, 17)),      # Cheat, 3 players
        play_statement(52, 4),
        claim_statement(52),
        absorb_statement(52),
        match_statement(),
        play_statement(BLUFFERS_DECK, 3),
        claim_statement(BLUFFERS_DECK),
        choice_statement(),
        counter_step_statement(),
        counter_is_statement(),
        chamber_statement(6),
        permutation_statement(52),             # oblivious deal: the committed permuted deck
        chosen_hand_statement(52, 7),          # oblivious deal: a hand from positions (Standard, Casino)
        chosen_hand_statement(52, 5),          # (Casual)
        chosen_hand_statement(52, 2),          # (5 Up 2 Down)
    ]
    return {s.key_id: s for s in stmts}


def get_statement(key_id: str) -> Statement:
    stmts = all_statements()
    if key_id in stmts:
        return stmts[key_id]
    matches = [s for k, s in stmts.items() if k.split("@")[0] == key_id]
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(stmts)
    raise MalformedInput(f"unknown statement {key_id!r}" + (" (give its parameters)" if matches else "")
                         + f"; known: {known}")
