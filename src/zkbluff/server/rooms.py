"""Rooms before a match starts (seed 003, "Play with friends"), and the server's guards.

A room has a short code that cannot be guessed or enumerated cheaply: 8 symbols from a
31-letter alphabet without look-alikes (about 39.6 bits), drawn from the OS's CSPRNG,
and failed look-ups are rate limited per client (:class:`RateLimiter`), so a client
guessing codes at the allowed rate would need centuries to hit one of a thousand open
rooms. The owner (the player who created it) may add bots while the table is not full
and remove a bot before the start; the owner starts once the game's minimum of seats
is filled (players and bots together, at least two players in all).
"""
from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, Optional

from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.server.storage import check_name

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no I, L, O, 0, 1
CODE_LENGTH = 8

#: a message larger than this is refused before it is parsed
MAX_MESSAGE_BYTES = 64 * 1024


def new_room_code(taken: Callable[[str], bool] = lambda code: False) -> str:
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if not taken(code):
            return code


def normalise_code(code: object) -> str:
    """A code as typed by a person: case and spaces/dashes are forgiven, anything else
    outside the alphabet is malformed."""
    if not isinstance(code, str):
        raise MalformedInput("room code: expected text")
    c = code.upper().replace(" ", "").replace("-", "")
    if len(c) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in c):
        raise MalformedInput(f"room code: expected {CODE_LENGTH} letters and digits, got {code[:20]!r}")
    return c


class RateLimiter:
    """A token bucket per key: ``rate`` events a second, bursts up to ``burst``.
    The clock is injected (tests never sleep)."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic):
        self.rate, self.burst, self.clock = rate, burst, clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def allow(self, key: str) -> bool:
        now = self.clock()
        tokens, last = self._buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - 1.0, now)
        return True

    def forget(self, key: str) -> None:
        """Drop ``key``'s bucket (a closed connection), so buckets do not pile up."""
        self._buckets.pop(key, None)

    def __len__(self) -> int:
        return len(self._buckets)


@dataclass(frozen=True)
class RoomLimits:
    """What one address may hold on a server (``zkbluff serve`` options; docs/hosting.md).

    ``create_rate``/``create_burst``: rooms an address may create (a token bucket: a
    burst, then one every 1/rate seconds). ``room_expiry``: seconds a room still in its
    lobby may stay with nobody connected before it is removed with its folder (a started
    room is a match: kept). ``signin_timeout``: seconds a connection has to create, join
    or watch a room before it is closed. ``max_connections``: open connections per
    address (players behind one NAT share it: raise it for a LAN party)."""
    create_rate: float = 1 / 30
    create_burst: int = 5
    room_expiry: float = 3600.0
    signin_timeout: float = 30.0
    max_connections: int = 16

    def __post_init__(self) -> None:
        for name in ("create_rate", "room_expiry", "signin_timeout"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
                raise MalformedInput(f"room limits: {name} must be a positive number, got {v!r}")
        for name in ("create_burst", "max_connections"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise MalformedInput(f"room limits: {name} must be an integer >= 1, got {v!r}")


class RoomState(Enum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"


@dataclass
class Member:
    """A seat in a room. ``is_bot``: a house bot the server runs. ``bot_client``: a
    client that said, in its signed join, that a bot plays its seat (``join --bot``).

    What the server can know: only the house bots for certain. A client's seat is a
    person's unless the client says otherwise; an honest client running a bot says so
    (SeatClient does, for ``host``/``join --bot``), a dishonest one can pass a bot off as a
    person and nothing on the wire tells them apart. The leaderboard therefore counts a
    match with at least two seats held by distinct keys whose clients did not declare a
    bot; a host who needs more ties keys to accounts outside this server."""
    name: str
    is_bot: bool
    public_key: Optional[str] = None  # the seat's Ed25519 public key (a person's; bots: the server's)
    bot_client: bool = False

    @property
    def is_person(self) -> bool:
        return not self.is_bot and not self.bot_client


@dataclass
class Room:
    code: str
    game: str
    owner: str  # the owner's public key
    min_seats: int
    max_seats: int
    members: list[Member] = field(default_factory=list)
    state: RoomState = RoomState.LOBBY

    def _lobby(self, what: str) -> None:
        if self.state is not RoomState.LOBBY:
            raise IllegalMove(f"{what}: the match has started")

    def join(self, name: str, public_key: str, bot_client: bool = False) -> int:
        self._lobby("join")
        check_name(name)
        if any(m.public_key == public_key for m in self.members):
            raise IllegalMove("join: this key already has a seat in the room")
        if len(self.members) >= self.max_seats:
            raise IllegalMove(f"join: the table is full ({self.max_seats} seats)")
        self.members.append(Member(name, False, public_key, bot_client))
        return len(self.members) - 1

    def add_bot(self, by: str, name: str) -> int:
        self._lobby("add bot")
        if by != self.owner:
            raise IllegalMove("add bot: only the room owner can add bots")
        check_name(name)
        if len(self.members) >= self.max_seats:
            raise IllegalMove(f"add bot: the table is full ({self.max_seats} seats)")
        self.members.append(Member(name, True))
        return len(self.members) - 1

    def remove_bot(self, by: str, seat: int) -> None:
        self._lobby("remove bot")
        if by != self.owner:
            raise IllegalMove("remove bot: only the room owner can remove bots")
        if not 0 <= seat < len(self.members) or not self.members[seat].is_bot:
            raise IllegalMove(f"remove bot: seat {seat} is not a bot")
        del self.members[seat]

    def people(self) -> list[bool]:
        """Per seat: played by a person (see :class:`Member`)."""
        return [m.is_person for m in self.members]

    def start(self, by: str) -> None:
        self.check_start(by)
        self.state = RoomState.PLAYING

    def check_start(self, by: str) -> None:
        """Raise unless ``by`` may start the room now (the owner, enough seats filled)."""
        self._lobby("start")
        if by != self.owner:
            raise IllegalMove("start: only the room owner can start the match")
        if len(self.members) < max(2, self.min_seats):
            raise IllegalMove(f"start: at least {max(2, self.min_seats)} players are needed, "
                              f"{len(self.members)} are in")
