"""One input grammar for cards, in every game's prompt: the cards a person picks from the
hand shown, each by its position there (``2 5``) or by its name (``KH QS``, ``10h``,
``4♥``), or by its rank alone where the deck has a name for it (``K K``: two Kings of the
hand, the first ones shown). Digits are always positions (so a card of a number rank goes
by its full name: ``7h``). Empty input is refused: a decision is always a word.

A game's text gives :func:`parse_cards` its hand (in the order shown) and ``names``: a
card's accepted names, upper case (``standard_names`` for the 52-card deck; Bluffers names
its own). This module does no I/O.
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional, Sequence

from zkbluff.errors import MalformedInput

#: suit symbols typed or pasted, as the letters the names use
_SUIT_SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}

Names = Callable[[int], Iterable[str]]


def normalise(token: str) -> str:
    """A typed token as names are spelt: upper case, suit symbols as letters."""
    t = token.strip().upper()
    for sym, letter in _SUIT_SYMBOLS.items():
        t = t.replace(sym, letter)
    return t


def standard_names(card: int) -> tuple[str, ...]:
    """The names of a 52-card deck's card (id ``suit * 13 + rank``, ranks 2..A, suits
    c d h s): ``KH``, ``10H``/``TH``, ``KINGH`` and the rank alone where it is not a
    digit (``K``, ``KING``, ``T``); a number rank's ``7`` is a position, never a name."""
    short = "23456789TJQKA"[card % 13]
    word = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "JACK", "QUEEN", "KING", "ACE")[card % 13]
    suit = "CDHS"[card // 13]
    ranks = {short, word} | ({"10"} if short == "T" else set())
    out = {r + suit for r in ranks}
    out |= {r for r in ranks if not r.isdigit()}
    return tuple(sorted(out))


def parse_cards(text: str, hand: Sequence[int], names: Names, *, label: Callable[[int], str] = str,
                most: Optional[int] = None, example: str = "") -> tuple[int, ...]:
    """The cards ``text`` picks from ``hand`` (in the order typed), each at most once.
    :class:`MalformedInput`, saying why, for empty input, a position outside the hand, a
    name no card of the hand has, a card picked twice, or more than ``most`` cards."""
    hint = f" (positions or names, e.g. {example})" if example else " (their positions or names)"
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise MalformedInput("name at least one card" + hint)
    picked: list[int] = []
    for raw in tokens:
        if raw.isdigit():
            i = int(raw)
            if not 1 <= i <= len(hand):
                raise MalformedInput(f"card positions are 1 to {len(hand)}, got {raw!r}" +
                                     ("; a number rank goes by its full name, e.g. 7h" if
                                      any(n[:1].isdigit() for c in hand for n in names(c)) else ""))
            card = hand[i - 1]
            if card in picked:
                raise MalformedInput(f"{label(card)} (position {i}) is picked twice")
            picked.append(card)
            continue
        token = normalise(raw)
        matching = [c for c in hand if token in names(c)]
        if not matching:
            raise MalformedInput(f"{raw!r}: no card of your hand is called that" + hint)
        free = [c for c in matching if c not in picked]
        if not free:
            if len(matching) == 1:
                raise MalformedInput(f"{label(matching[0])} is picked twice")
            raise MalformedInput(f"your hand has only {len(matching)} cards called {raw!r}")
        picked.append(free[0])
    if most is not None and len(picked) > most:
        raise MalformedInput(f"pick at most {most} cards, got {len(picked)}")
    return tuple(picked)
