"""The contract every game's rules engine keeps (OpenSpiel's ``State``, RLCard's rules
apart from players): N seats, public state only, typed actions, illegal actions refused
with :class:`IllegalMove` and the state left unchanged.

A rules engine holds only what every seat may see. Hidden values (a hand, a chamber, a
choice) live in the party that owns them; where the rules need one bit or number of a
hidden value (a challenged claim's verdict, a trigger pull's bang), it enters as an
action of the party that proves it, carrying the value the proof disclosed. The live
table and the offline verifier drive the same engine, so a transcript is checked
against exactly the rules that produced it.

Rules modules import nothing from I/O, crypto, provers or bots; randomness is injected
as actions (a deal, a drawn table card) so a game replays exactly.
"""
from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, Optional, TypeVar

from zkbluff.errors import IllegalMove, MalformedInput

#: the seat id of a party that is not a player: the dealer or the referee
NO_SEAT = None


class Role(str, Enum):
    """Who is entitled to make a line."""

    SEAT = "seat"          # the seat named on the line (signed with that seat's key)
    DEALER = "dealer"      # seat null, signed with the dealer's key
    REFEREE = "referee"    # seat null, signed with the referee's key (header, timeouts, end)


@dataclass(frozen=True)
class Action:
    """Base of every typed action. Subclasses are frozen dataclasses with a class-level
    ``kind`` (the transcript's ``action`` string), a class-level ``role`` (the party entitled
    to make it) and fields of JSON-safe types
    (``int``, ``bool``, ``str``, tuples of ``int`` or ``str``, ``Optional`` of these). ``to_data``/``from_data`` convert to
    and from the transcript's ``data`` object, refusing wrong types (a verdict is a bool,
    a count an int: never silently coerced)."""

    kind: ClassVar[str] = ""
    #: who is entitled to make a line of this kind (every action class states its own: no default)
    role: ClassVar[Role]

    def to_data(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def from_data(cls: type[A], data: Any) -> A:
        if not isinstance(data, dict):
            raise MalformedInput(f"{cls.kind}: data must be an object, got {type(data).__name__}")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        if set(data) != set(fields):
            raise MalformedInput(f"{cls.kind}: data fields {sorted(data)}, expected {sorted(fields)}")
        values: dict[str, Any] = {}
        for name, f in fields.items():
            values[name] = _typed(cls.kind, name, data[name], f.type)
        return cls(**values)


A = TypeVar("A", bound=Action)


def _typed(kind: str, name: str, v: Any, annotation: Any) -> Any:
    """Check ``v`` against a field annotation written as a string (``from __future__
    import annotations``): ``int``, ``bool``, ``str``, ``tuple[int, ...]``, ``Optional[int]``."""
    t = str(annotation).replace(" ", "")
    if t.startswith("Optional[") and v is None:
        return None
    t = t.removeprefix("Optional[").removesuffix("]") if t.startswith("Optional[") else t
    if t == "bool":
        if not isinstance(v, bool):
            raise MalformedInput(f"{kind}: {name} must be true or false, got {v!r}")
        return v
    if t == "int":
        if isinstance(v, bool) or not isinstance(v, int):
            raise MalformedInput(f"{kind}: {name} must be an integer, got {v!r}")
        return v
    if t == "str":
        if not isinstance(v, str):
            raise MalformedInput(f"{kind}: {name} must be a string, got {v!r}")
        return v
    if t == "tuple[int,...]":
        if not isinstance(v, (list, tuple)) or any(isinstance(x, bool) or not isinstance(x, int) for x in v):
            raise MalformedInput(f"{kind}: {name} must be a list of integers, got {v!r}")
        return tuple(v)
    if t == "tuple[str,...]":
        if not isinstance(v, (list, tuple)) or any(not isinstance(x, str) for x in v):
            raise MalformedInput(f"{kind}: {name} must be a list of strings, got {v!r}")
        return tuple(v)
    raise TypeError(f"{kind}.{name}: unsupported field type {t}")


class EndCode(str, Enum):
    """Base of a game's table of end reason codes (its ``END_CODES``, one ``str`` enum in
    the game's rules module, named on its spec as ``GameSpec.end_codes``): why a match
    ended, as a short stable name (``emptied_hand``). The end line of a transcript under
    rules ``<game>/1`` carries ``<game>.<name>`` (``cheat.emptied_hand``) and the verifier
    checks it against the code the replayed rules give; the words (:attr:`Result.reason`)
    are the game's and may change without breaking any earlier transcript (Wycheproof's
    ``flags``, gnark's error values: the code is the contract). Codes are never renamed: a
    new way to end gets a new code."""


class DealEnd(EndCode):
    """The engine's own end codes, for a match the deal ends (every game has them)."""

    #: a seat sent nothing in the deal's entropy phase (or its exchange) in time: it places last
    FORFEIT = "deal_forfeit"
    #: the dealer is at fault (a complaint upheld, its silence after a complete exchange)
    FAULT = "deal_fault"


@dataclass(frozen=True)
class Result:
    """How a finished match ended. ``placements[i]`` is seat i's place (1 = first; ties
    share a place); ``scores`` are the game's own points or penalties; ``reason`` says
    in words why it ended; ``code`` says it as one of the game's :class:`EndCode` names
    (``""`` for a game that declares none). ``no_points[i]``: seat i earns no points from
    the match whatever its place (a game's own rule, e.g. Bluffers' Leave Table and a
    forfeit by the clock); empty when no seat is so marked. Neither ``code`` nor
    ``no_points`` is part of equality (the place and scores say the same match)."""

    placements: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str
    no_points: tuple[bool, ...] = field(default=(), compare=False)
    code: str = field(default="", compare=False)

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(i for i, p in enumerate(self.placements) if p == 1)


class Rules(ABC):
    """An N-seat rules engine over public state.

    ``to_move`` is the seat whose action the table waits for, or ``NO_SEAT`` when the
    dealer or referee must act (a deal, a proof's outcome). ``check`` raises
    :class:`IllegalMove` saying why an action is refused and changes nothing; ``apply``
    checks, then changes the state.
    """

    n_seats: int

    @property  # abstract: every rules class defines its own over
    @abstractmethod
    def over(self) -> bool: ...

    @property  # abstract: every rules class defines its own to_move
    @abstractmethod
    def to_move(self) -> Optional[int]: ...

    @abstractmethod
    def legal_actions(self, seat: Optional[int]) -> list[Action]:
        """Every action ``seat`` may take now (for bots and prompts; counts as actions
        with a range may be listed one by one)."""

    @abstractmethod
    def check(self, seat: Optional[int], action: Action) -> None:
        """Raise :class:`IllegalMove` unless ``seat`` may take ``action`` now."""

    @abstractmethod
    def _apply(self, seat: Optional[int], action: Action) -> None:
        """Change the state for an action ``check`` accepted."""

    def apply(self, seat: Optional[int], action: Action) -> None:
        self.check(seat, action)
        self._apply(seat, action)

    @abstractmethod
    def public_state(self) -> Any:
        """A frozen snapshot of the public state (a dataclass every seat may see)."""

    @abstractmethod
    def result(self) -> Optional[Result]:
        """The result once ``over``; ``None`` before."""

    def standing_places(self) -> Optional[tuple[int, ...]]:
        """The places (1 = best, ties share a place) if the match were settled on its
        standing now: what a fault by a dealer that holds no seat settles it on (a silent
        dealer never worsens a seat's standing, so its silence cannot turn a leader's win
        into a draw). None: the rules keep no standing (every seat places 1)."""
        return None

    # helpers for subclasses
    def _expect_turn(self, seat: Optional[int], what: str) -> None:
        if self.over:
            raise IllegalMove(f"{what}: the match is over")
        if seat != self.to_move:
            who = "the dealer" if self.to_move is NO_SEAT else f"seat {self.to_move}"
            raise IllegalMove(f"{what}: out of turn ({who} is to move, not "
                              f"{'the dealer' if seat is NO_SEAT else f'seat {seat}'})")
