"""The statements and parameter sets the games use. ``circuits/`` holds one ``.r1cs`` per
entry and ``circuits/manifest.json`` their counts and fingerprints (a lock file that
``zkbluff circuits check`` compares with the code)."""
from __future__ import annotations

from functools import lru_cache

from zkbluff.errors import MalformedInput
from zkbluff.statements.base import Statement
from zkbluff.statements.cards import absorb_statement, claim_statement, match_statement, play_statement
from zkbluff.statements.cheat import ABSORB_SLOTS, absorb_many_statement
from zkbluff.statements.deal import deal_v2_statement
from zkbluff.statements.oblivious import chosen_hand_statement, permutation_statement
from zkbluff.statements.values import (
    chamber_statement, choice_statement, counter_is_statement, counter_step_statement, start_draw_statement,
)
from zkbluff.statements.revolver import pick_statement, share_statement

BLUFFERS_DECK = 20  # 6 Kings, 6 Queens, 6 Aces, 2 Jokers


@lru_cache(maxsize=None)
def all_statements() -> dict[str, Statement]:
    stmts = [
        play_statement(52, 4),
        claim_statement(52),
        absorb_statement(52),
        absorb_many_statement(52, ABSORB_SLOTS),  # Cheat's pick-up of a pile of plays (chained past 4)
        match_statement(),
        play_statement(BLUFFERS_DECK, 3),
        claim_statement(BLUFFERS_DECK),
        choice_statement(),
        counter_step_statement(),
        counter_is_statement(),
        chamber_statement(6),
        # card.deal.v2: entropy contributor 0 is the dealer, then every seat that is not the dealer
        deal_v2_statement(52, (5, 5), entropies=2),           # Proof or Bluff, Casual (house deals, 2 seats)
        deal_v2_statement(52, (7, 7), entropies=2),           # Proof or Bluff, Standard and Casino
        deal_v2_statement(52, (2, 2), board=5, entropies=2),  # 5 Up 2 Down
        deal_v2_statement(52, (18, 17, 17), entropies=4),     # Cheat: a dealer and 3..6 players
        deal_v2_statement(52, (13, 13, 13, 13), entropies=5),
        deal_v2_statement(52, (11, 11, 10, 10, 10), entropies=6),
        deal_v2_statement(52, (9, 9, 9, 9, 8, 8), entropies=7),
        share_statement(6),                    # Bluffers' revolver (supersedes value.chamber.v1)
        pick_statement(BLUFFERS_DECK, 5),      # Bluffers' timeout: the seat's seed picks the card
        # Bluffers' rounds: 5 cards to each standing seat (4 seats: the whole deck), house deals
        deal_v2_statement(BLUFFERS_DECK, (5, 5), entropies=3),
        deal_v2_statement(BLUFFERS_DECK, (5, 5, 5), entropies=4),
        deal_v2_statement(BLUFFERS_DECK, (5, 5, 5, 5), entropies=5),
        start_draw_statement(),                # Mind Bluff game 3's hidden start
        permutation_statement(52),             # oblivious deal: the committed permuted deck
        chosen_hand_statement(52, 7),          # oblivious deal: a hand from positions (Standard, Casino)
        chosen_hand_statement(52, 5),          # (Casual)
        chosen_hand_statement(52, 2),          # (5 Up 2 Down)
        # ... after knock-outs: fewer hands, every seat's entropy (committed at the start) still in
        deal_v2_statement(BLUFFERS_DECK, (5, 5), entropies=4),
        deal_v2_statement(BLUFFERS_DECK, (5, 5), entropies=5),
        deal_v2_statement(BLUFFERS_DECK, (5, 5, 5), entropies=5),
        # Bluffers' table card: a 3-card "deck" (King, Queen, Ace), one dummy hand, the board is
        # the drawn table card (uniform over the three), on the round's own stream
        deal_v2_statement(3, (1,), board=1, entropies=3),
        deal_v2_statement(3, (1,), board=1, entropies=4),
        deal_v2_statement(3, (1,), board=1, entropies=5),
    ]
    return {s.key_id: s for s in stmts}


def get_statement(key_id: str) -> Statement:
    stmts = all_statements()
    if key_id in stmts:
        return stmts[key_id]
    matches = [s for k, s in stmts.items() if k.split("@")[0] == key_id]
    if matches:  # a bare name means its first registered parameter set (the standard deck)
        return matches[0]
    raise MalformedInput(unknown_statement(key_id, list(stmts)))


def unknown_statement(name: str, ids: list[str]) -> str:
    """The message for a statement name no statement has: the closest names first ("did
    you mean"), then every id."""
    import difflib

    bare = sorted({k.split("@")[0] for k in ids})
    close = difflib.get_close_matches(name.split("@")[0], bare, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
    return f"unknown statement {name!r}{hint}; known: {', '.join(ids)}"
