"""One narration per game: what each transcript line did, in words, the same at every screen.

A :class:`Narrator` follows a match's lines in order with its own copy of the game's
public rules (no proof is checked here: the front end's own referee or seat has done
that) and says each line as the game's text puts it: the line itself
(``text.describe(line, names)``) and then what follows from it, read from the public state
just before and just after the line (``text.outcome(line, before, after, names)``: who
scored, what was discarded, whose turn, who pulls, who is out).

Every front end narrates through it: the terminal (``zkbluff play``, ``zkbluff demo``),
a networked seat's client and a spectator (:mod:`zkbluff.server.client`), so the same
line prints the same words on every screen. The words are a function of the lines alone
(and the seat names in the header); ``viewer`` (a seat number, or None for a spectator)
is there for a game's text that says "you" to the seat it is shown to.

A game's text may define ``snapshot(rules)`` (the public state its ``outcome`` reads);
by default it is the rules' own state (``rules.s``) or ``rules.public_state()``.
"""
from __future__ import annotations

import copy
from typing import Any, Iterable, Optional, Sequence

from zkbluff.errors import ZkbluffError
from zkbluff.games.engine.spec import GameSpec
from zkbluff.games.engine.text import second_person as second_person  # its home: games/engine/text.py

#: lines a narration never shows (the header is the table's description; a closing line
#: carries the deal's secrets for the verifier)
SILENT = ("header",)


def _snapshot(text: Any, rules: Any) -> Any:
    if hasattr(text, "snapshot"):
        return text.snapshot(rules)
    return copy.deepcopy(rules.s) if hasattr(rules, "s") else rules.public_state()


class Narrator:
    """Says each line of one match in order (see the module). ``names`` are the seats'
    display names (the header's, by default, once it is seen)."""

    def __init__(self, spec: GameSpec, names: Optional[Sequence[str]] = None, viewer: Optional[int] = None):
        self.spec, self.viewer = spec, viewer
        self.names = list(names) if names is not None else None
        self.text = spec.text
        self.rules: Any = spec.new_rules()
        self.followed = 0  # the number of the last line followed

    def _follow(self, line: Any) -> tuple[Any, Any]:
        """Apply ``line`` to the narrator's copy of the public rules; the public state before
        and after it (the same object twice for a line the rules do not see)."""
        if self.rules is None:
            return None, None
        before = _snapshot(self.text, self.rules)
        kind = line.get("action")
        if kind in ("header", "end") or kind == self.spec.deal.closing or kind in self.spec.deal.line_roles:
            return before, before
        try:
            action = self.spec.action_class(kind).from_data(line.get("data"))
            self.rules.apply(line.get("seat"), action)
        except (ZkbluffError, LookupError, TypeError, ValueError, AttributeError):
            self.rules = None  # a line these rules cannot follow: the words from the lines alone from now on
            return None, None
        return before, _snapshot(self.text, self.rules)

    def lines(self, line: Any) -> list[str]:
        """The words for ``line`` (the next line of the match): its description first, then
        each consequence; [] for a line no screen shows (the header, the closing line)."""
        if not isinstance(line, dict):
            return []
        if line.get("action") == "header" and isinstance(line.get("data"), dict):
            if self.names is None:
                self.names = list(line["data"].get("seats") or [])
        names = self.names or [f"seat {i}" for i in range(self.spec.n_seats)]
        before, after = self._follow(line)
        self.followed = line.get("n", self.followed)
        said = self.text.describe(line, names)  # (a game's text may follow the lines too: every line goes to it)
        if line.get("action") in SILENT or line.get("action") == self.spec.deal.closing:
            return []
        out = [said]
        if before is not None and hasattr(self.text, "outcome"):
            out += [s for s in self.text.outcome(line, before, after, names) if s]
        if "you" in names:
            out = [second_person(s) for s in out]
        return out

    def follow(self, lines: Iterable[Any]) -> None:
        """Follow lines already seen (a resumed match) without saying them."""
        for line in lines:
            self.lines(line)


def narration(spec: GameSpec, lines: Iterable[Any], names: Optional[Sequence[str]] = None,
              viewer: Optional[int] = None) -> list[list[str]]:
    """The words for every line of a match, in order (one list per line)."""
    narrator = Narrator(spec, names, viewer)
    return [narrator.lines(line) for line in lines]


# ---------------------------------------------------------------- clocks

def move_clock(view: Any, seat: int) -> Optional[tuple[float, float, Any]]:
    """``(deadline, seconds, limit)`` of the decision ``seat`` would type now, by the public
    state ``view`` (a :class:`~zkbluff.games.engine.referee.Referee`: any party's copy): the
    seat is to move and the referee's clock then writes a ``timeout`` that takes the decision
    away (Bluffers' 30 seconds, Proof or Bluff's idle limit). None otherwise, and for a proof
    or an automatic move (the seat's client makes those by itself, nobody types them)."""
    if view is None or view.over or not view.deal_ready or view.head_at is None:
        return None
    rules = view.rules
    if rules.to_move != seat:
        return None
    due = view.spec.timeout(rules)
    if due is None or due[0].kind != "timeout" or due[1] == "proof" or not rules.legal_actions(seat):
        return None
    from zkbluff.games.engine.referee import limit_seconds

    seconds = limit_seconds(view.header.get("limits") or {}, due[1])
    if seconds is None:
        return None
    return view.head_at + seconds, seconds, due[1]


def clock_words(seconds: float) -> str:
    """Seconds left in words: ``28 s``, ``9 min 30 s``."""
    import math

    whole = max(0, int(math.ceil(seconds)))
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    return f"{minutes} min" + (f" {rest} s" if rest else "")


def time_up_words(spec: GameSpec, rules: Any, seat: int) -> str:
    """What the referee's clock does to ``seat`` when its move's limit runs out (the game's
    text says it, ``time_up``; by default the timeout itself)."""
    if hasattr(spec.text, "time_up"):
        return str(spec.text.time_up(rules, seat))
    due = spec.timeout(rules)
    return "the referee's clock writes your timeout" + (f" ({due[1]})" if due is not None else "")


def clock_notice(spec: GameSpec, view: Any, seat: int, now: float, said: set[Any]) -> Optional[str]:
    """The line a screen prints before asking ``seat`` for a move with a clock on it: the
    time left and what happens when it runs out; once per limit (``said`` keeps which), and
    again whenever less than half of it is left. None when there is nothing to say."""
    clock = move_clock(view, seat)
    if clock is None:
        return None
    deadline, seconds, limit = clock
    left = deadline - now
    if limit in said and left > seconds * 0.5:
        return None
    said.add(limit)
    return f"clock: {clock_words(left)} left for this move; then {time_up_words(spec, view.rules, seat)}"

