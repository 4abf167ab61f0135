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

An offline verifier checks a whole transcript's signatures together
(:class:`SignatureBatch`): one random linear combination of their verification equations,
then one by one only to name the first bad line.
"""
from __future__ import annotations

import functools
import hashlib
import secrets

from typing import Any, Optional

from Crypto.PublicKey import ECC
from Crypto.Signature import eddsa

from zkbluff.errors import InvalidProof, MalformedInput
from zkbluff.protocol.transcript import canonical

PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64
LINE_DOMAIN = "zkbluff:line:v1:"
#: the referee's receipt of a seat's line (``received``: its clock's time and signature)
RECEIVED_DOMAIN = "zkbluff:received:v1:"


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
        _public_key(raw)
    except ValueError as exc:
        raise MalformedInput(_not_a_key(what, exc)) from None
    assert isinstance(public_hex, str)
    return public_hex


class SmallOrderKey(ValueError):
    """A public key that is a point of small order (:func:`_public_key`)."""


@functools.lru_cache(maxsize=1024)
def _public_key(raw: bytes) -> ECC.EccKey:
    """The decoded Ed25519 point of ``raw`` (decoding costs a square root; a transcript's
    lines are signed by a handful of keys, so each is decoded once). Raises ValueError, also
    for a point of small order (8A the neutral point: the identity and the seven torsion
    points), under which the cofactored equation holds for R = 0, s = 0 and any message, so
    that a signature would prove no one wrote the line."""
    key = eddsa.import_public_key(raw)
    if (key.pointQ * 8).is_point_at_infinity():
        raise SmallOrderKey("a point of small order (any line verifies under it with R = 0, s = 0)")
    return key


def _key_of(public_hex: Any, who: str) -> ECC.EccKey:
    """``who``'s decoded public key; :class:`MalformedInput` unless a usable Ed25519 point."""
    raw = _hex_bytes(public_hex, PUBLIC_KEY_BYTES, f"public key of {who}")
    try:
        return _public_key(raw)
    except ValueError as exc:
        raise MalformedInput(_not_a_key(f"public key of {who}", exc)) from None


def _not_a_key(what: str, exc: ValueError) -> str:
    if isinstance(exc, SmallOrderKey):
        return f"{what}: {exc}, expected a point of order L or 8L"
    return f"{what}: not an Ed25519 public key"


def verify_signature(public_hex: str, message: bytes, signature: Any, who: str) -> None:
    """Return if ``signature`` is ``who``'s Ed25519 signature of ``message``; raise
    :class:`InvalidSignature` if not, :class:`MalformedInput` if it is not 64 bytes of hex."""
    sig = _hex_bytes(signature, SIGNATURE_BYTES, f"signature of {who}", code="line.signature")
    key = _key_of(public_hex, who)
    try:
        eddsa.new(key, "rfc8032").verify(message, sig)
    except ValueError:
        raise InvalidSignature(f"the line is not signed by {who} (the signature does not verify "
                               f"under {who}'s public key {public_hex[:16]}…)") from None


def line_message(event: dict[str, Any]) -> bytes:
    """The bytes a line's signature covers: the canonical line without ``sig`` and without
    ``received`` (the referee's receipt, added after its maker signed it)."""
    return (LINE_DOMAIN + canonical({k: v for k, v in event.items() if k not in ("sig", "received")})).encode("utf-8")


def receipt_message(event: dict[str, Any], at: Any) -> bytes:
    """The bytes the referee's receipt of a line covers: the line as its maker signed it
    (without ``sig``, which is the maker's own) with ``received`` = ``{"at": at}``."""
    body = {k: v for k, v in event.items() if k not in ("sig", "received")}
    return (RECEIVED_DOMAIN + canonical({**body, "received": {"at": at}})).encode("utf-8")


def sign_receipt(key: SigningKey, event: dict[str, Any], at: float) -> dict[str, Any]:
    """``event`` with ``received`` = ``{"at": at, "sig": ...}``: ``key`` (the referee's)
    signs that it received the line, as its maker signed it, at ``at`` on its clock."""
    body = {k: v for k, v in event.items() if k != "received"}
    return {**body, "received": {"at": at, "sig": key.sign(receipt_message(body, at))}}


def sign_line(key: SigningKey, event: dict[str, Any]) -> dict[str, Any]:
    """``event`` with ``sig`` set to ``key``'s signature of it (any old ``sig`` replaced; a
    receipt kept, which holds only while the line is the one the referee received)."""
    body = {k: v for k, v in event.items() if k != "sig"}
    return {**body, "sig": key.sign(line_message(body))}


def check_line_signature(event: dict[str, Any], public_hex: str, who: str) -> None:
    """Raise unless ``event['sig']`` is ``who``'s signature of the line."""
    if "sig" not in event:
        raise InvalidSignature(f"the line is not signed (expected a signature of {who})")
    verify_signature(public_hex, line_message(event), event["sig"], who)


#: the order L of Ed25519's prime-order subgroup (RFC 8032)
ED25519_ORDER = 2 ** 252 + 27742317777372353535851937790883648493


class SignatureBatch:
    """Line signatures collected as a verifier reads a transcript and checked together.

    :meth:`add_line` checks at once what needs no curve arithmetic (the line carries a
    signature; it and the key are well formed: :class:`InvalidSignature` or
    :class:`MalformedInput` as :func:`check_line_signature` raises them) and keeps the rest.
    :meth:`verify` checks every kept signature with one equation, pycryptodome's own
    (RFC 8032, cofactored: ``[8][s]B = [8]R + [8][k]A``) for each signature ``i``, weighted by
    a fresh random 128-bit ``z_i`` and summed:
    ``[8]([sum z_i s_i] B - sum [z_i] R_i - sum_A [sum_{i by A} z_i k_i] A) = 0``. A set
    with a signature that fails its own equation fails the sum except with probability
    2^-128 (the cofactor puts each term in the prime-order subgroup; the weights are drawn
    after the signatures are fixed). It costs one 128-bit multiplication per signature and one
    full one per key, where one by one costs two full ones per signature. Only when the sum
    fails are the signatures checked one by one (:func:`verify_signature`), and the first
    bad one raises :class:`~zkbluff.errors.TranscriptError` naming its line
    (``line.signature``)."""

    def __init__(self) -> None:
        #: (line, public key hex, message, signature bytes, who)
        self._items: list[tuple[int, str, bytes, bytes, str]] = []

    def __len__(self) -> int:
        return len(self._items)

    def add(self, message: bytes, signature: Any, public_hex: str, who: str, line: int) -> None:
        """Keep ``who``'s ``signature`` of ``message`` (well formed now) for :meth:`verify`."""
        sig = _hex_bytes(signature, SIGNATURE_BYTES, f"signature of {who}", code="line.signature")
        _key_of(public_hex, who)
        self._items.append((line, public_hex, message, sig, who))

    def add_line(self, event: dict[str, Any], public_hex: str, who: str, line: int) -> None:
        """Keep ``event``'s signature by ``who`` for :meth:`verify`, after the checks
        :func:`check_line_signature` makes before any arithmetic."""
        if "sig" not in event:
            raise InvalidSignature(f"the line is not signed (expected a signature of {who})")
        sig = _hex_bytes(event["sig"], SIGNATURE_BYTES, f"signature of {who}", code="line.signature")
        _key_of(public_hex, who)
        self._items.append((line, public_hex, line_message(event), sig, who))

    def verify(self) -> None:
        """Return if every kept signature verifies (and forget them); else raise
        :class:`~zkbluff.errors.TranscriptError` naming the first bad line."""
        if not self._items or _batch_equation_holds(self._items):
            self._items = []
            return
        from zkbluff.errors import TranscriptError

        for line, public_hex, message, sig, who in self._items:
            try:
                verify_signature(public_hex, message, sig.hex(), who)
            except InvalidSignature as exc:
                raise TranscriptError(str(exc), line=line, code=exc.code) from None
        line = max(item[0] for item in self._items)  # fail closed: the sum fails, each passes (a fault)
        raise TranscriptError("the signatures do not verify together, though each does", line=line,
                              code=InvalidSignature.code)


def _batch_equation_holds(items: list[tuple[int, str, bytes, bytes, str]]) -> bool:
    """The weighted sum of :class:`SignatureBatch`'s equations is the neutral point (False
    as soon as a signature's R is no point or its s is not below L: that one fails alone)."""
    from Crypto.Math.Numbers import Integer
    from Crypto.PublicKey._point import EccPoint

    def times(P: Any, k: int) -> Any:  # a public scalar: pycryptodome's variable-time multiplication
        return P * Integer(k, public=True)

    s_sum, total = 0, None  # total: sum [z_i] R_i + sum_A [c_A] A
    per_key: dict[str, int] = {}
    encoded: dict[str, bytes] = {}  # the key as pycryptodome's verify hashes it (its own encoding)
    for _, public_hex, message, sig, _ in items:
        s = int.from_bytes(sig[32:], "little")
        if s >= ED25519_ORDER:
            return False
        try:
            R = EccPoint._decode_eddsa(sig[:32], "Ed25519")  # the decoding pycryptodome's verify uses
        except ValueError:
            return False
        if public_hex not in encoded:
            encoded[public_hex] = _public_key(bytes.fromhex(public_hex)).export_key(format="raw")
        k = int.from_bytes(hashlib.sha512(sig[:32] + encoded[public_hex] + message).digest(), "little")
        z = secrets.randbits(128)
        s_sum += z * s
        per_key[public_hex] = per_key.get(public_hex, 0) + z * k
        zR = times(R, z)
        total = zR if total is None else total + zR
    assert total is not None  # items is never empty
    for public_hex, c in per_key.items():
        total = total + times(_public_key(bytes.fromhex(public_hex)).pointQ, c % ED25519_ORDER)
    base: Any = _public_key(bytes.fromhex(items[0][1]))._curve.G  # B, as pycryptodome's verify takes it
    diff = times(base, s_sum % ED25519_ORDER) + (-total)
    return bool(times(diff, 8).is_point_at_infinity())
