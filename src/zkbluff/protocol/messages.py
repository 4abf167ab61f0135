"""Private messages between a table and a seat (a dealt hand, a revealed entropy):
AES-256-GCM (pycryptodome) under a key the two share, with the match id and the
transcript line as associated data, so a sealed message cannot be replayed elsewhere.
A message that does not open raises :class:`CommitmentMismatch` and reveals nothing."""
from __future__ import annotations

from typing import Any

import hashlib
import json

from zkbluff.errors import CommitmentMismatch, MalformedInput

NONCE_BYTES = 12
TAG_BYTES = 16


def seat_key(shared_secret: str, seat: int) -> bytes:
    """A 256-bit key for one seat's private channel from a secret it shares with the table."""
    return hashlib.sha256(f"zkbluff:seat-key:v1:{seat}:{shared_secret}".encode()).digest()


def _aad(match_id: str, line: int) -> bytes:
    return f"zkbluff:msg:v1:{match_id}:{line}".encode()


def seal(key: bytes, match_id: str, line: int, payload: dict[str, Any]) -> str:
    """Encrypt ``payload`` (JSON) for the holder of ``key``; returns hex of nonce‖ciphertext‖tag."""
    if len(key) != 32:
        raise MalformedInput("message key: expected 32 bytes")
    from Crypto.Cipher import AES  # (here: a verifier, which opens nothing, never imports it)
    from Crypto.Random import get_random_bytes

    nonce = get_random_bytes(NONCE_BYTES)
    cipher = AES.new(key, AES.MODE_GCM, nonce=nonce)
    cipher.update(_aad(match_id, line))
    ct, tag = cipher.encrypt_and_digest(json.dumps(payload, sort_keys=True).encode())
    return (nonce + ct + tag).hex()


def open_sealed(key: bytes, match_id: str, line: int, sealed: str) -> dict[str, Any]:
    try:
        raw = bytes.fromhex(sealed)
    except (ValueError, TypeError):
        raise MalformedInput("sealed message: expected hex") from None
    if len(raw) < NONCE_BYTES + TAG_BYTES:
        raise MalformedInput("sealed message: too short")
    nonce, ct, tag = raw[:NONCE_BYTES], raw[NONCE_BYTES:-TAG_BYTES], raw[-TAG_BYTES:]
    from Crypto.Cipher import AES

    cipher = AES.new(key, AES.MODE_GCM, nonce=nonce)
    cipher.update(_aad(match_id, line))
    try:
        payload = json.loads(cipher.decrypt_and_verify(ct, tag))
    except ValueError:
        raise CommitmentMismatch("sealed message: it does not open under this key, match and line") from None
    if not isinstance(payload, dict):
        raise MalformedInput("sealed message: the payload is not an object")
    return payload
