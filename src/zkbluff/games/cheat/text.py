"""Cheat in words: the rules page and one sentence per event for a terminal.

:func:`describe` reads the public state before and after an action and says what
happened ("Ayşe calls Bluff!", "The two sevens were a 7 and a 3: Ali picks up 2
cards."). It sees only public data: the cards of a called play, once turned over, and
nothing else.
"""
from __future__ import annotations

from importlib.resources import files
from typing import Any, Callable, Mapping, Optional, Sequence

from zkbluff.games.cheat.rules import (
    DECK, N_RANKS, Call, CheatState, CloseWindow, Deal, Forfeit, Pass, Phase, PickUp, Play, Reveal, rank_of,
)
from zkbluff.games.cheat.match import ACTIONS as TABLE_ACTIONS, CheatTable, Stage
from zkbluff.games.engine.house_blind_deal import describe_line
from zkbluff.games.engine.rules import NO_SEAT, Action
from zkbluff.games.engine.text import join_words, plural

#: a rank as a word in a claim, aligned with ``DECK.rank_names`` ("two sevens", "one Ace")
RANK_WORDS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
              "Jack", "Queen", "King", "Ace")
_PLURAL_IRREGULAR = {"six": "sixes"}
NUMBER_WORDS = ("no", "one", "two", "three", "four")
assert len(RANK_WORDS) == N_RANKS, "one word per rank of the deck"


def rules_text() -> str:
    """The rules page (``RULES.md`` next to this module), for ``zkbluff rules cheat``."""
    return files("zkbluff.games.cheat").joinpath("RULES.md").read_text(encoding="utf-8")


def rank_word(rank: int, count: int = 1) -> str:
    word = RANK_WORDS[rank]
    return word if count == 1 else _PLURAL_IRREGULAR.get(word, word + "s")


def claim_words(rank: int, count: int) -> str:
    """``"two sevens"``, ``"one Ace"``."""
    return f"{NUMBER_WORDS[count]} {rank_word(rank, count)}"


def card_words(card: int) -> str:
    """A card by its rank with its article: ``"a 7"``, ``"an 8"``, ``"an Ace"``."""
    name = DECK.rank_names[rank_of(card)]
    return ("an " if name[0] in "8A" else "a ") + name


def describe(before: CheatState, seat: Optional[int], action: Action, after: CheatState,
             names: Optional[Sequence[str]] = None) -> str:
    """One or two sentences saying ``action`` by ``seat`` (which changed ``before`` into
    ``after``) for a terminal; ``names`` are the seats' names (default "Seat 1", ...)."""
    nm = list(names) if names is not None else [f"Seat {i + 1}" for i in range(after.n_seats)]
    out = _event(before, seat, action, after, nm)
    if after.hand_penalties != before.hand_penalties:
        out.append(_hand_over(after, nm))
    if after.phase == Phase.OVER and before.phase != Phase.OVER:
        out.append(_table_over(after, nm))
    return " ".join(s for s in out if s)


def _event(b: CheatState, seat: Optional[int], a: Action, s: CheatState, nm: list[str]) -> list[str]:
    who = "The table" if seat is NO_SEAT else nm[seat]
    if isinstance(a, Deal):
        sizes = ", ".join(f"{nm[i]} {n}" for i, n in enumerate(a.hand_sizes))
        return [f"Hand {s.hand_no} of {s.hands}: {nm[s.dealer]} deals the whole deck ({sizes}).",
                f"{nm[s.to_move]} starts."]  # type: ignore[index]
    if isinstance(a, Play):
        verb = "opens with" if b.rank is None else "plays"
        last = f" Those were {nm[seat]}'s last cards!" if s.hand_sizes[seat] == 0 else ""  # type: ignore[index]
        return [f"{who} {verb} {claim_words(a.rank, a.count)}.{last}"]
    if isinstance(a, Pass):
        out = [f"{who} passes."]
        if s.set_aside > b.set_aside:
            opener = nm[s.to_move]  # type: ignore[index]
            aside = plural(s.set_aside - b.set_aside, 'card')
            out.append(f"Everyone passed since {opener}'s play: the pile of {aside} "
                       f"is set aside face down. {opener} starts a new round.")
        return out
    if isinstance(a, Call):
        return [f"{who} calls Bluff!"]
    if isinstance(a, CloseWindow):
        player = b.pile[-1][0]
        if s.phase == Phase.PLAY:
            return [f"Nobody calls; {nm[s.to_move]} to play."]  # type: ignore[index]
        return [f"Nobody calls in time: {nm[player]} has emptied their hand."]
    if isinstance(a, Reveal):
        _, count = b.pile[-1]
        claim = claim_words(b.rank, count) if count > 1 else rank_word(b.rank)  # type: ignore[arg-type]
        verb = "were" if count > 1 else "was"
        picker = nm[s.picker]  # type: ignore[index]
        wrong = ", as claimed" if s.picker == s.caller else ""
        return [f"The {claim} {verb} {join_words([card_words(c) for c in a.cards])}{wrong}: "
                f"{picker} picks up {plural(b.pile_size, 'card')}."]
    if isinstance(a, PickUp):
        if s.phase == Phase.PLAY:
            return [f"{who} takes the pile; {nm[s.to_move]} was right and starts the next round."]  # type: ignore[index]
        return [f"{who} takes the pile, and {nm[b.pile[-1][0]]} has emptied their hand."]
    if isinstance(a, Forfeit):
        return [f"{nm[a.seat]} forfeits the hand ({a.reason}) and scores {DECK.size} for it."]
    return [f"{who}: {a.kind}."]


def _hand_over(s: CheatState, nm: list[str]) -> str:
    scores = ", ".join(f"{nm[i]} {p}" for i, p in enumerate(s.hand_penalties[-1]))
    totals = ", ".join(f"{nm[i]} {p}" for i, p in enumerate(s.penalties))
    return f"Hand {len(s.hand_penalties)} is over. Penalties: {scores}. Totals: {totals}."


def _table_over(s: CheatState, nm: list[str]) -> str:
    best = min(s.penalties)
    winners = [nm[i] for i, p in enumerate(s.penalties) if p == best]
    if len(winners) == 1:
        return f"{winners[0]} wins with {best}."
    return f"{join_words(winners)} share the win with {best} each."


# ---------------------------------------------------------------- the engine's text object

def _parse_cards(text: str, hand: Sequence[int]) -> tuple[int, ...]:
    """Cards of ``hand`` by position or name: the one grammar of every game's prompt
    (:mod:`zkbluff.games.engine.card_input`: ``1 3``, ``KH QS``, ``K K``)."""
    from zkbluff.games.engine.card_input import parse_cards, standard_names

    example = "'1 3' or '" + " ".join(DECK.card_name(c) for c in list(hand)[:2]) + "'" if hand else ""
    return parse_cards(text, hand, standard_names, label=DECK.card_name, example=example)


def _hand(hand: Sequence[int]) -> str:
    return "Your hand: " + "  ".join(f"{i + 1}:{DECK.card_name(c)}" for i, c in enumerate(hand))


class CheatText:
    """``zkbluff rules/play/demo cheat``'s text: the rules page, one sentence per transcript
    line (it follows the lines in order with its own copy of the public rules, so it can say
    "the two sevens were a 7 and a 3"), and the prompts for a person."""

    RULES = rules_text()

    @staticmethod
    def hand_words(obs: Any) -> str:
        """The seat's own hand, for its review (``games/engine/review.py``)."""
        return "your hand: " + ("  ".join(DECK.card_name(c) for c in sorted(obs.hand, key=rank_of))
                                if obs.hand else "empty")

    def __init__(self, n_seats: int = 4, hands: int = 3, window: int = 3):
        self.n_seats, self.hands, self.window = n_seats, hands, window
        self._table: Optional[CheatTable] = None
        self._next = 0

    def describe(self, line: Mapping[str, Any], names: Sequence[str]) -> str:
        kind, data, seat = line["action"], line["data"], line["seat"]
        who = "The table" if seat is None else names[seat]
        if kind == "header":
            self._table, self._next = None, 2
            return f"Match {data['matchId']}: " + ", ".join(data["seats"])
        if kind == "end":
            return f"The table is over: {data['reason']}."
        said = describe_line(kind, data, who, names)  # the deal's own lines need no state
        if self._table is None or line["n"] != self._next:
            if line["n"] != 2:  # joined in the middle: no state to describe against
                return said or f"{who}: {kind}."
            self._table = CheatTable(self.n_seats, self.hands, self.window, sealed=not kind.startswith("house-blind."))
        self._next = line["n"] + 1
        if said is not None:
            return said
        table = self._table
        cls = next(c for c in TABLE_ACTIONS if c.kind == kind)
        action = cls.from_data(data)
        n_events = len(table.history)
        table.apply(seat, action)
        if len(table.history) > n_events:
            _, inner, before, after = table.history[-1]
            return describe(before, seat, inner, after, names)
        if kind == "hand_over":
            return f"{who} hands the picker the cards of its earlier plays, sealed to it."
        if kind == "pick_up":
            return f"{who} proves part {data['part'] + 1} of the pick-up."
        if kind == "forfeit":
            return f"{names[data['seat']]} forfeits ({data['reason']})."
        return f"{who}: {kind}."

    @staticmethod
    def prompt(obs: Any, ask: Callable[[str], str], say: Callable[[str], None], names: Sequence[str]) -> Any:
        """Ask a person for a move. In a calling window ``ask`` returns "" when the time is
        up; then this returns None (no call)."""
        from zkbluff.errors import MalformedInput
        from zkbluff.games.cheat.moves import CallBluff, PassTurn, PlayCards, Proceed

        t, s, seat = obs.table, obs.state, obs.seat
        if t.to_move == seat and (t.stage != Stage.RULES or s.phase in (Phase.TURNOVER, Phase.PICKUP)):
            say("Your client does what the table needs from it (turn-over, openings or pick-up proof).")
            return Proceed()
        if s.phase == Phase.WINDOW:
            player, count = s.pile[-1]
            if player == seat:
                return None
            say(_hand(obs.hand))  # what you hold, before you decide to call
            answer = ask(f"{names[player]} claims {claim_words(s.rank, count)}. 'b' + Enter to call Bluff!").strip()
            return CallBluff(s.play_no) if answer.lower() in ("b", "bluff") else None
        hand = obs.hand
        say("Cards in hand: " + ", ".join(f"{names[i]} {n}" for i, n in enumerate(s.hand_sizes))
            + f"; {plural(s.pile_size, 'card')} on the pile, {s.set_aside} set aside")
        say(_hand(hand))
        if s.rank is None:
            parts = ask("You open: a rank, then 1-4 cards by position or name (e.g. '7 1 3' or 'K KH KC')"
                        ).strip().split(None, 1)
            if len(parts) != 2:
                raise MalformedInput("give a rank, then the cards: e.g. '7 1 3' or 'K KH KC'")
            return PlayCards(DECK.parse_rank(parts[0]), _parse_cards(parts[1], hand))
        text = ask(f"Play 1-4 cards as {rank_word(s.rank, 2)} (positions or names, e.g. '1 3' or 'K K') "
                   f"or 'p' to pass").strip()
        if text.lower() in ("p", "pass"):
            return PassTurn()
        return PlayCards(s.rank, _parse_cards(text, hand))
