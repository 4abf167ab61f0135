"""The statements and parameter sets the games use. ``circuits/`` holds one ``.r1cs`` per
entry and ``circuits/manifest.json`` their counts and fingerprints (a lock file that
``zkbluff circuits check`` compares with the code).

Two sources, in this order: the shared catalog below (statements several games or the
engine use), then every game folder that holds its own statements — a module
``zkbluff/games/<game>/statements.py`` with a tuple ``STATEMENTS`` — in folder-name order.
The game folders are found on the ``zkbluff.games`` package's path, not imported by name
here: adding a game's statements edits nothing outside its folder. Such a module is in
the statements layer (it imports only errors, field, circuit, gadgets,
``zkbluff.statements.base`` and ``zkbluff.games.decks``; ``tests/repo/test_layers.py``),
and each of its statements names its folder as ``owner``. :func:`get_statement` looks in
the shared catalog first, so a process that needs only shared statements imports no game.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Optional

from zkbluff.errors import MalformedInput, unknown_statement
from zkbluff.statements.base import Statement
from zkbluff.statements.cards import absorb_statement, claim_statement, match_statement, play_statement
from zkbluff.statements.deal import deal_v2_statement
from zkbluff.statements.hand_binding import hand_binding_statement
from zkbluff.statements.oblivious import chosen_hand_statement, permutation_statement
from zkbluff.statements.values import (
    chamber_statement, choice_statement, counter_is_statement, counter_step_statement, start_draw_statement,
)
from zkbluff.statements.revolver import pick_statement, share_statement

BLUFFERS_DECK = 20  # 6 Kings, 6 Queens, 6 Aces, 2 Jokers


#: where a game folder keeps its statements, and the tuple it names them in
GAME_MODULE = "statements"
GAME_ATTRIBUTE = "STATEMENTS"


def game_folders(search: Optional[Iterable[str]] = None) -> list[tuple[str, Path]]:
    """``(game, path)`` of every folder on the ``zkbluff.games`` package path (or ``search``)
    that holds a ``statements.py``, in folder-name order (the engine's own folder is no game)."""
    if search is None:
        package = sys.modules.get("zkbluff.games")
        if package is not None:  # the package's path as imports see it
            search = list(package.__path__)
        else:  # the path only: the package is not run here
            spec = importlib.util.find_spec("zkbluff.games")
            search = list(spec.submodule_search_locations or []) if spec is not None else []
    found: dict[str, Path] = {}
    for base in search:
        for path in sorted(Path(base).glob(f"*/{GAME_MODULE}.py")):
            game = path.parent.name
            if game != "engine" and game.isidentifier():
                found.setdefault(game, path)
    return sorted(found.items())


def game_statements(search: Optional[Iterable[str]] = None) -> list[Statement]:
    """The statements every game folder holds (see the module's docstring), each checked
    to name its folder as owner."""
    out: list[Statement] = []
    for game, _ in game_folders(search):
        module = importlib.import_module(f"zkbluff.games.{game}.{GAME_MODULE}")
        stmts = getattr(module, GAME_ATTRIBUTE, None)
        if not isinstance(stmts, tuple) or not all(isinstance(s, Statement) for s in stmts):
            raise TypeError(f"zkbluff.games.{game}.{GAME_MODULE}.{GAME_ATTRIBUTE} must be a tuple of Statements")
        for stmt in stmts:
            if stmt.owner != game:
                raise ValueError(f"{stmt.key_id} is held in games/{game}/ but names owner {stmt.owner!r}")
        out.extend(stmts)
    return out


@lru_cache(maxsize=None)
def all_statements() -> dict[str, Statement]:
    """Every registered statement by key id: the shared catalog, then the game folders'."""
    stmts = [*shared_statements(), *game_statements()]
    by_id: dict[str, Statement] = {}
    for stmt in stmts:
        if stmt.key_id in by_id:
            raise ValueError(f"{stmt.key_id} is registered twice (owners {by_id[stmt.key_id].owner!r} "
                             f"and {stmt.owner!r})")
        by_id[stmt.key_id] = stmt
    return by_id


@lru_cache(maxsize=None)
def _shared_by_id() -> dict[str, Statement]:
    return {s.key_id: s for s in shared_statements()}


@lru_cache(maxsize=None)
def shared_statements() -> tuple[Statement, ...]:
    """The shared catalog: statements that several games or the engine's deals use (made
    once per process: a statement's constraint system is cached with the object)."""
    return (
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
        # house-blind deal: a seat's hand commitment bound to the cards opened to it (committed
        # cards; docs/house-blind-deal.md): Cheat's hands at 3..6 seats (18/17, 13, 11/10, 9/8), 26 (two
        # seats), Bluffers' 5 of 20, Proof or Bluff's 7, 5 and 2 (games/engine/house_blind_deal.py)
        hand_binding_statement(52, 17),
        hand_binding_statement(52, 26),
        hand_binding_statement(52, 18),
        hand_binding_statement(52, 13),
        hand_binding_statement(52, 11),
        hand_binding_statement(52, 10),
        hand_binding_statement(52, 9),
        hand_binding_statement(52, 8),
        hand_binding_statement(52, 7),
        hand_binding_statement(52, 5),
        hand_binding_statement(52, 2),
        hand_binding_statement(BLUFFERS_DECK, 5),
    )


def get_statement(key_id: str) -> Statement:
    """The registered statement ``key_id``; a bare name means its first registered parameter
    set (the standard deck). The shared catalog is looked in first, so a process that needs
    only shared statements (most verifiers) imports no game folder."""
    for source in (_shared_by_id, all_statements):  # the second only when the first lacks it
        stmts = source()
        if key_id in stmts:
            return stmts[key_id]
        matches = [s for k, s in stmts.items() if k.split("@")[0] == key_id]
        if matches:
            return matches[0]
    raise MalformedInput(unknown_statement(key_id, list(all_statements())))

