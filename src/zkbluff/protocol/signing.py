"""Ed25519 signatures on transcript lines (pycryptodome's EdDSA, RFC 8032).

Every party (the dealer, the referee, each seat) makes its own key on its own side and
publishes only the public half; the header lists them. Every line carries ``sig``: the
signature of the party entitled to make that line over
``"zkbluff:line:v1:" + canonical(line without sig)`` (the canonical JSON of
:mod:`zkbluff.protocol.transcript`), so a line's number, link, seat, action, data and
proof are all signed. A verifier holding the header's public keys checks every line; a
party without a seat's key cannot write a line in that seat's name.

A signature that does not verify raises :class:`InvalidSignature` (exit 1); a key or a
signature that is not well formed raises :class:`MalformedInput` (exit 2).
"""
from __future__ import annotations

import functools

from typing import Any, Optional

from Crypto.PublicKey import ECC
from Crypto.Signature import eddsa

from zkbluff.errors import InvalidProof, MalformedInput
from zkbluff.protocol.transcript import canonical

PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64
LINE_DOMAIN = "zkbluff:line:v1:"


class InvalidSignature(InvalidProof):
    """A well-formed signature that the named public key does not accept (exit 1)."""

    code = "line.signature"


def _hex_bytes(text: Any, n: int, what: str, code: Optional[str] = None) -> bytes:
    """``text`` as ``n`` bytes: exactly ``2n`` lowercase hex digits (one spelling per value,
    so a line cannot be re-spelled into another valid line)."""
    if not isinstance(text, str) or len(text) != 2 * n or text != text.lower():
        raise MalformedInput(f"{what}: expected {2 * n} lowercase hex digits, got {text!r:.80}", code=code)
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise MalformedInput(f"{what}: expected {2 * n} lowercase hex digits, got {text!r:.80}", code=code) from None


class SigningKey:
    """One party's Ed25519 key. Made with :meth:`generate` on the party's own side; only
    :attr:`public_hex` ever leaves it. :meth:`secret_hex` exists for the party's own
    resume file, never for a message."""

    def __init__(self, key: ECC.EccKey):
        if not key.has_private() or key.curve != "Ed25519":
            raise MalformedInput("signing key: expected an Ed25519 private key")
        self._key = key
        self.public_hex: str = key.public_key().export_key(format="raw").hex()

    @classmethod
    def generate(cls) -> "SigningKey":
        return cls(ECC.generate(curve="Ed25519"))

    @classmethod
    def from_secret_hex(cls, secret: str) -> "SigningKey":
        return cls(eddsa.import_private_key(_hex_bytes(secret, 32, "signing key seed")))

    def secret_hex(self) -> str:
        seed: bytes = self._key.seed
        return seed.hex()

    def sign(self, message: bytes) -> str:
        sig: bytes = eddsa.new(self._key, "rfc8032").sign(message)
        return sig.hex()

    def __repr__(self) -> str:  # never print the secret
        return f"SigningKey(public={self.public_hex[:16]}…)"


def check_public_key(public_hex: Any, what: str = "public key") -> str:
    """Raise :class:`MalformedInput` unless ``public_hex`` is a valid Ed25519 point (64 hex digits)."""
    raw = _hex_bytes(public_hex, PUBLIC_KEY_BYTES, what)
    try:
        eddsa.import_public_key(raw)
    except ValueError:
        raise MalformedInput(f"{what}: not an Ed25519 public key") from None
    assert isinstance(public_hex, str)
    return public_hex


@functools.lru_cache(maxsize=1024)
def _public_key(raw: bytes) -> ECC.EccKey:
    """The decoded Ed25519 point of ``raw`` (decoding costs a square root; a transcript's
    lines are signed by a handful of keys, so each is decoded once). Raises ValueError."""
    return eddsa.import_public_key(raw)


def verify_signature(public_hex: str, message: bytes, signature: Any, who: str) -> None:
    """Return if ``signature`` is ``who``'s Ed25519 signature of ``message``; raise
    :class:`InvalidSignature` if not, :class:`MalformedInput` if it is not 64 bytes of hex."""
    sig = _hex_bytes(signature, SIGNATURE_BYTES, f"signature of {who}", code="line.signature")
    key = _public_key(_hex_bytes(public_hex, PUBLIC_KEY_BYTES, f"public key of {who}"))
    try:
        eddsa.new(key, "rfc8032").verify(message, sig)
    except ValueError:
        raise InvalidSignature(f"the line is not signed by {who} (the signature does not verify "
                               f"under {who}'s public key {public_hex[:16]}…)") from None


def line_message(event: dict[str, Any]) -> bytes:
    """The bytes a line's signature covers: the canonical line without ``sig``."""
    return (LINE_DOMAIN + canonical({k: v for k, v in event.items() if k != "sig"})).encode("utf-8")


def sign_line(key: SigningKey, event: dict[str, Any]) -> dict[str, Any]:
    """``event`` with ``sig`` set to ``key``'s signature of it (any old ``sig`` replaced)."""
    body = {k: v for k, v in event.items() if k != "sig"}
    return {**body, "sig": key.sign(line_message(body))}


def check_line_signature(event: dict[str, Any], public_hex: str, who: str) -> None:
    """Raise unless ``event['sig']`` is ``who``'s signature of the line."""
    if "sig" not in event:
        raise InvalidSignature(f"the line is not signed (expected a signature of {who})")
    verify_signature(public_hex, line_message(event), event["sig"], who)
