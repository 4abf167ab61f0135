"""The ``context`` public input every statement takes: it binds a proof to its match,
its turn (transcript line number) and the hash of the transcript line before it, so a
proof cannot be replayed in another turn or match.

``context = SHA-256("zkbluff:context:v1:" + match_id + ":" + line + ":" + prev_hash) mod r``
"""
from __future__ import annotations

from zkbluff.fair.stream import sha256_hex
from zkbluff.field import r


def context_value(match_id: str, line: int, prev_hash: str) -> int:
    return int(sha256_hex(f"zkbluff:context:v1:{match_id}:{line}:{prev_hash}"), 16) % r
