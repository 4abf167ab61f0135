"""Words every game's text shares: the grammar of a seat named "you", counts, lists and
seat names. A game's ``text`` module builds its sentences from these (one copy, so "you
plays" is fixed once for every game); the narration turns a whole third-person sentence
into the second person with :func:`second_person`.

Local play names the person's seat "you" (``zkbluff play``); every other seat, and every
seat in a networked client or a spectator's view, goes by its name from the header.
Nothing here reads a transcript or a rules state: plain strings in, plain strings out.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence

#: the name local play gives the person's own seat
YOU = "you"

_VERBS = ("plays", "gives", "loads", "calls", "turns", "leaves", "proves", "survives", "pulls", "finishes",
          "starts", "passes", "opens", "takes", "picks", "forfeits", "commits", "deals", "hands", "claims", "eats",
          "believes", "doubts", "agrees", "reveals", "shows", "complains", "sends", "wins", "accepts",
          "challenges", "moves", "gets", "owes", "loses", "gains", "scores", "goes", "draws", "holds", "needs",
          "must", "has", "is", "was")
_YOU_VERB = re.compile(r"\b([Yy]ou) (" + "|".join(_VERBS) + r")\b")
_IRREGULAR = {"has": "have", "is": "are", "was": "were", "must": "must", "ran": "ran"}


def is_you(who: str) -> bool:
    """Whether ``who`` is the seat the text speaks to ("you", "You")."""
    return who.lower() == YOU


def _second(third_person: str) -> str:
    """A verb's second-person form: "plays" → "play", "catches" → "catch", "has" → "have"."""
    if third_person in _IRREGULAR:
        return _IRREGULAR[third_person]
    if third_person.endswith(("ches", "shes", "sses", "xes")):
        return third_person[:-2]
    return third_person[:-1] if third_person.endswith("s") else third_person


def verb(who: str, third_person: str) -> str:
    """``who`` and the verb agreeing with it: "you play", "house plays" (``third_person``
    is the verb as said of anyone else: "plays", "has", "catches")."""
    return f"{who} {_second(third_person) if is_you(who) else third_person}"


def possessive(who: str) -> str:
    """"your" for the seat spoken to, "house's" for any other."""
    return ("Your" if who == "You" else "your") if is_you(who) else f"{who}'s"


def plural(n: int, noun: str) -> str:
    """A count and its noun: "1 point", "3 points"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def join_words(items: Sequence[str]) -> str:
    """A list in words: "a", "a and b", "a, b and c" (at least one item)."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def seat_name(seat: Optional[int], names: Optional[Sequence[str]], nobody: str) -> str:
    """The name of ``seat`` (a seat number, or None for a line of the dealer's or the
    referee's, said as ``nobody``): its name from ``names``, or "Seat 2" without one."""
    if seat is None:
        return nobody
    return names[seat] if names and 0 <= seat < len(names) else f"Seat {seat}"


def second_person(text: str) -> str:
    """A game's third-person sentence made right for a seat named "you" (local play names
    the person's seat so): "you plays" → "you play", "you's" → "your", "you gives its" →
    "you give your"."""
    text = re.sub(r"\b([Yy])ou's\b", lambda m: m.group(1) + "our", text)

    def second(m: "re.Match[str]") -> str:
        return f"{m.group(1)} {_second(m.group(2))}"

    text = _YOU_VERB.sub(second, text).replace("you are out and finishes", "you are out and finish")
    return re.sub(r"\b([Yy]ou \w+( \w+)?) (its|their)\b", r"\1 your", text)
