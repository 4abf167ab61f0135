"""Shared by the SignatureBatch tests (tests/protocol/test_signature_batch.py and its red
team): the first bad line as one-by-one checking and as the batch name it."""
from __future__ import annotations

from zkbluff.errors import TranscriptError
from zkbluff.protocol.signing import InvalidSignature, SignatureBatch, check_line_signature


def first_bad_one_by_one(items) -> int | None:
    """The first bad line of ``(event, key)`` items as check_line_signature sees it, or None."""
    for event, key in items:
        try:
            check_line_signature(event, key.public_hex, "p")
        except InvalidSignature:
            return event["n"]
    return None


def first_bad_batched(items) -> int | None:
    """The line SignatureBatch names (always with the signature code), or None when it
    passes (and then it has forgotten every signature)."""
    batch = SignatureBatch()
    for event, key in items:
        batch.add_line(event, key.public_hex, "p", event["n"])
    try:
        batch.verify()
    except TranscriptError as exc:
        assert exc.code == "line.signature"
        return exc.line
    assert len(batch) == 0
    return None
