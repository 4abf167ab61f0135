"""The proven deal's private state, typed: a seat's deal secrets (:class:`SeatSecrets`) and the
dealer's state (:class:`DealerState`, with what each seat opened to it: :class:`OpenedSeat`).

The parties hold and save these as JSON (a seat's resume file, the server's secrets files, a
test's chosen seat secrets): :meth:`~SeatSecrets.to_json` writes exactly that form and
:meth:`~SeatSecrets.from_json` reads it back (a missing or malformed field is
:class:`~zkbluff.errors.MalformedInput` naming it). :class:`~zkbluff.games.engine.proven_deal.ProvenDeal`
reads its state once at each entry point and works on the fields, never on names.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from zkbluff.errors import MalformedInput
from zkbluff.protocol.entropy import HAND_KEY_BYTES, EntropySecret


def _decimal(data: Mapping[str, Any], key: str, what: str) -> int:
    v = data.get(key) if isinstance(data, Mapping) else None
    if not isinstance(v, str) or not v.isdigit() or len(v) > 78:
        raise MalformedInput(f"{what}: {key!r} must be a decimal string, got {v!r:.40}")
    return int(v)


def _hex(data: Mapping[str, Any], key: str, what: str, n_bytes: int = 32) -> str:
    v = data.get(key) if isinstance(data, Mapping) else None
    if not isinstance(v, str) or len(v) != 2 * n_bytes or any(c not in "0123456789abcdef" for c in v):
        raise MalformedInput(f"{what}: {key!r} must be {2 * n_bytes} lowercase hex digits, got {v!r:.40}")
    return v


def _entropy(data: Mapping[str, Any], what: str) -> EntropySecret:
    return EntropySecret(_decimal(data, "entropy", what), _decimal(data, "salt", what))


@dataclass(frozen=True)
class SeatSecrets:
    """A seat's deal secrets: its entropy (and its commitment's salt), its hand key (the key
    its shares are sealed under), the seed of its X25519 channel key, and one 32-byte secret
    (hex) per named extra seat key (``ProvenDeal.seat_keys``: Cheat's pile key)."""

    entropy: EntropySecret
    hand_key: bytes
    x25519: str
    keys: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"entropy": str(self.entropy.entropy), "salt": str(self.entropy.salt), "handKey": self.hand_key.hex(),
                "x25519": self.x25519, **{f"{name}Secret": secret for name, secret in self.keys.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], seat_keys: tuple[str, ...] = ()) -> "SeatSecrets":
        what = "seat deal secrets"
        if not isinstance(data, Mapping):
            raise MalformedInput(f"{what}: an object, got {type(data).__name__}")
        return cls(_entropy(data, what), bytes.fromhex(_hex(data, "handKey", what, HAND_KEY_BYTES)),
                   _hex(data, "x25519", what), {name: _hex(data, f"{name}Secret", what) for name in seat_keys})


@dataclass(frozen=True)
class OpenedSeat:
    """What a seat opened to the dealer: its hand key and its entropy (None for the dealer's
    own seat, which contributes none)."""

    hand_key: bytes
    entropy: Optional[EntropySecret] = None

    def to_json(self) -> dict[str, Any]:
        if self.entropy is None:
            return {"handKey": self.hand_key.hex()}
        return {"entropy": str(self.entropy.entropy), "salt": str(self.entropy.salt), "handKey": self.hand_key.hex()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], what: str) -> "OpenedSeat":
        key = bytes.fromhex(_hex(data, "handKey", what, HAND_KEY_BYTES))
        return cls(key, None if "entropy" not in data else _entropy(data, what))


@dataclass(frozen=True)
class DealerState:
    """The dealer's private state: the match, its entropy, the seed of its X25519 channel key
    and, per seat that opened, what it opened (:class:`OpenedSeat`)."""

    match_id: str
    entropy: EntropySecret
    x25519: str
    seats: Mapping[int, OpenedSeat] = field(default_factory=dict)

    def opened(self, seat: int, what: OpenedSeat) -> "DealerState":
        """The state with ``seat``'s opening recorded."""
        return DealerState(self.match_id, self.entropy, self.x25519, {**self.seats, seat: what})

    def to_json(self) -> dict[str, Any]:
        return {"matchId": self.match_id, "entropy": str(self.entropy.entropy), "salt": str(self.entropy.salt),
                "x25519": self.x25519, "seats": {str(s): o.to_json() for s, o in self.seats.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "DealerState":
        what = "dealer state"
        if not isinstance(data, Mapping) or not isinstance(data.get("matchId"), str) or \
                not isinstance(data.get("seats"), Mapping):
            raise MalformedInput(f"{what}: an object with matchId and seats, got {str(data)[:60]!r}")
        seats = data["seats"]
        if any(not isinstance(s, str) or not s.isdigit() for s in seats):
            raise MalformedInput(f"{what}: seats are keyed by seat number, got {sorted(map(str, seats))}")
        return cls(data["matchId"], _entropy(data, what), _hex(data, "x25519", what),
                   {int(s): OpenedSeat.from_json(o, f"{what}: seat {s}") for s, o in seats.items()})


__all__ = ["DealerState", "OpenedSeat", "SeatSecrets"]
