"""Commit-reveal: each seat commits entropy and a hand-salt seed before anything is
dealt; the entropies combine into the match seed, of which only a commitment is
published until the match ends. Then everything is revealed and anyone can recompute
the deal (with seed 002's draw stream) and check it against the hand commitments.

All hashes are SHA-256 over UTF-8 text with a domain tag, hex-encoded.
"""
from __future__ import annotations

from typing import Any

import secrets
from dataclasses import dataclass

from zkbluff.errors import CommitmentMismatch, MalformedInput
from zkbluff.fair.stream import sha256_hex
from zkbluff.field import r


def _hex32(x: str, what: str) -> str:
    if not (isinstance(x, str) and len(x) == 64 and all(c in "0123456789abcdef" for c in x)):
        raise MalformedInput(f"{what}: expected 64 lowercase hex digits")
    return x


def commit_entropy(entropy: str) -> str:
    return sha256_hex("zkbluff:entropy:v1:" + _hex32(entropy, "entropy"))


def commit_salt_seed(salt_seed: str) -> str:
    return sha256_hex("zkbluff:salt-seed:v1:" + _hex32(salt_seed, "salt seed"))


def combine_entropies(entropies: list[str]) -> str:
    """The match seed: SHA-256 of the seats' entropies in seat order."""
    return sha256_hex("zkbluff:seed:v1:" + ":".join(_hex32(e, "entropy") for e in entropies))


def commit_seed(seed: str) -> str:
    return sha256_hex(seed)


def hand_salt(salt_seed: str, round_no: int) -> int:
    """The salt of a seat's dealt hand in round ``round_no`` (reproducible at the reveal)."""
    return int(sha256_hex(f"zkbluff:hand-salt:v1:{salt_seed}:{round_no}"), 16) % r


def fresh_salt() -> int:
    """A salt for a commitment that is never revealed (a hand after a play, a play)."""
    return secrets.randbelow(r)


@dataclass
class SeatSecrets:
    """What a seat commits to before the deal and reveals after the match."""

    entropy: str
    salt_seed: str

    @classmethod
    def fresh(cls) -> "SeatSecrets":
        return cls(secrets.token_hex(32), secrets.token_hex(32))

    def commitments(self) -> dict[str, Any]:
        return {"entropy": commit_entropy(self.entropy), "saltSeed": commit_salt_seed(self.salt_seed)}


def check_reveal(commitments: dict[str, Any], reveal: dict[str, Any], what: str) -> None:
    """Raise :class:`CommitmentMismatch` unless the revealed secrets open the commitments."""
    try:
        ok = (commit_entropy(reveal["entropy"]) == commitments["entropy"]
              and commit_salt_seed(reveal["saltSeed"]) == commitments["saltSeed"])
    except (KeyError, TypeError):
        raise MalformedInput(f"{what}: expected entropy and saltSeed") from None
    if not ok:
        raise CommitmentMismatch(f"{what}: the revealed secrets do not open the commitments")
