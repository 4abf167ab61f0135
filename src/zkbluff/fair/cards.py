"""Seed 002's card convention (pure; no crypto): id ``c`` in 0..51, rank ``c % 13`` in
``23456789TJQKA``, suit ``c // 13`` in ``c d h s``. The fair layer names poker decks with it
and the games name cards with it."""
from __future__ import annotations

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def card_name(card: int) -> str:
    """``"Ah"``, ``"Tc"``, …"""
    return RANKS[card % 13] + SUITS[card // 13]
