"""Hand-made signed, hash-chained transcripts for the tests of forks and comparisons
(``zkbluff transcript compare``, a client's equivocation check): only the chain and the
signatures are real (no rules, no proofs), which is all a comparison looks at. Keys are
derived from names, so every run makes the same lines."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Optional

from zkbluff.protocol.signing import SigningKey, sign_line
from zkbluff.protocol.transcript import GENESIS, canonical, line_hash


def key(name: str) -> SigningKey:
    return SigningKey.from_secret_hex(hashlib.sha256(f"fork-helpers:{name}".encode()).hexdigest())


class Chain:
    """A transcript under construction: ``lines`` (canonical text) and ``events``."""

    def __init__(self, match_id: str = "m-1", seats: tuple[str, ...] = ("ann", "bob"), referee: str = "referee",
                 header_at: float = 100.0):
        self.keys = {"referee": key(referee), "dealer": key("dealer"),
                     **{f"seat {i}": key(f"seat-{name}") for i, name in enumerate(seats)}}
        self.events: list[dict[str, Any]] = []
        data = {"game": "proof-or-bluff", "options": {"mode": "casual"}, "matchId": match_id, "seats": list(seats),
                "trust": "test", "parties": {"referee": self.keys["referee"].public_hex,
                                             "dealer": self.keys["dealer"].public_hex,
                                             "seats": [self.keys[f"seat {i}"].public_hex for i in range(len(seats))]},
                "keys": {}, "deal": {}}
        self._add(self.keys["referee"], {"n": 1, "prev": GENESIS, "seat": None, "action": "header", "data": data,
                                         "at": header_at})

    def _add(self, signer: SigningKey, event: dict[str, Any]) -> dict[str, Any]:
        line = sign_line(signer, event)
        self.events.append(line)
        return line

    @property
    def lines(self) -> list[str]:
        return [canonical(e) for e in self.events]

    def add(self, party: str, action: str, data: Optional[dict[str, Any]] = None,
            signer: Optional[SigningKey] = None) -> dict[str, Any]:
        """The next line, made by ``party`` (``referee``, ``dealer`` or ``seat N``) and signed
        by its key (or by ``signer``: a forgery)."""
        seat = int(party.split()[1]) if party.startswith("seat ") else None
        event = {"n": len(self.events) + 1, "prev": line_hash(self.lines[-1]), "seat": seat, "action": action,
                 "data": data or {}, "at": 100.0 + len(self.events)}
        return self._add(signer or self.keys[party], event)

    def copy(self) -> "Chain":
        other = Chain.__new__(Chain)
        other.keys, other.events = dict(self.keys), list(self.events)
        return other

    def write(self, path: Path) -> Path:
        path.write_text("".join(line + "\n" for line in self.lines), encoding="utf-8")
        return path
