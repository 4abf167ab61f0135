"""1-out-of-n oblivious transfer on BN254 G1 (Chou–Orlandi, "The Simplest Protocol for
Oblivious Transfer", 2015), batched: one sender key for ``m`` transfers of ``n`` payloads.

With ``G`` the generator of G1 (prime order r, cofactor 1, so every finite point on the
curve is in the group):

1. the sender draws ``a`` and sends ``A = aG``;
2. for transfer ``i`` with choice ``c_i``, the receiver draws ``b_i`` and sends
   ``B_i = c_i A + b_i G``;
3. the sender derives the key of position ``j`` from ``K_ij = a (B_i - j A)`` and sends
   every payload ``j`` encrypted under it; the receiver derives its one key from
   ``K_i = b_i A``, which equals ``K_i,c_i``.

The sender learns nothing of ``c_i``: ``B_i`` is uniform in G1 whatever the choice (``b_i``
is uniform). The receiver can open one position per transfer: two keys of one transfer
differ by ``(j - j') a A = (j - j') a^2 G``, so knowing both gives ``a^2 G`` from ``aG``
(the square Diffie–Hellman problem); the key derivation is a random oracle on the exact
point. The receiver can later *reveal* ``(c_i, b_i)``: they open ``B_i`` (a second
opening would give the discrete log of ``A``), so a third party can recompute the one key
and decrypt the one payload — the basis of a complaint against a sender who sent a bad
payload (:func:`open_revealed`).

Keys: HKDF-SHA256 (RFC 5869, on the standard library's HMAC) over the canonical 64-byte
encoding of ``K_ij``, with the session id, the transfer index ``i``, the position ``j``
and the encodings of ``A`` and ``B_i`` in its info, so a key serves one position of one
transfer of one session. Payloads: encrypt-then-MAC with a hash-derived pad — the HKDF
output is a 32-byte MAC key followed by a pad as long as the payload; the ciphertext is
``payload XOR pad`` and its tag the first 16 bytes of HMAC-SHA256 under the MAC key.
Why not AES-GCM: each key encrypts exactly one short payload (the sender answers a
session once), so a one-time pad from a random-oracle output is all the secrecy needed;
the HMAC tag is *key-committing* (GCM is not: a GCM ciphertext can be built to decrypt
under several keys), so a ciphertext opens under one key only and a complaint about it
means one thing; and it costs microseconds where pycryptodome's GCM set-up costs about
0.3 ms a ciphertext (364 ciphertexts a deal).

Every point received is decoded with :func:`zkbluff.curve.codec.g1_from_bytes` (length,
coordinates below p, on the curve, not infinity) before any use; every count and length
is checked; violations raise :class:`MalformedInput` and change no state.

Curve work goes through the backend in batches: the receiver's ``b_i G``, ``c_i A`` and
``b_i A`` are three ``g1_mul_many`` calls; the sender does one multiplication per
transfer (``a B_i``) and walks ``K_i,j+1 = K_ij - aA`` with point additions, so the
``m * n`` keys cost ``m`` scalar multiplications, not ``m * n``.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Callable, Optional, Sequence

from zkbluff.curve import G1_GENERATOR, Backend, G1Affine, get_backend
from zkbluff.curve.codec import g1_from_bytes, g1_to_bytes
from zkbluff.errors import DealerFault, InvalidComplaint, MalformedInput
from zkbluff.field import r

TAG_BYTES = 16
KDF_SALT = b"zkbluff:ot:v1"
_HEX_DIGITS = frozenset("0123456789abcdef")

RandBelow = Callable[[int], int]


def _nonzero_scalar(randbelow: RandBelow) -> int:
    while True:
        x = randbelow(r)
        if x:
            return x


def _session_bytes(session: str) -> bytes:
    if not isinstance(session, str) or not session:
        raise MalformedInput(f"OT session id: expected a non-empty string, got {session!r:.60}")
    raw = session.encode("utf-8")
    return len(raw).to_bytes(4, "big") + raw


def hkdf_sha256(ikm: bytes, salt: bytes, info: bytes, length: int) -> bytes:
    """HKDF-SHA256 (RFC 5869): extract, then expand to ``length`` bytes (at most 8160)."""
    prk = hmac.digest(salt, ikm, hashlib.sha256)
    out, block = b"", b""
    for k in range(1, -(-length // 32) + 1):
        block = hmac.digest(prk, block + info + bytes([k]), hashlib.sha256)
        out += block
    return out[:length]


def derive_key(session: str, transfer: int, position: int, A: bytes, B: bytes, K: G1Affine,
               payload_bytes: int) -> tuple[bytes, bytes]:
    """The MAC key and pad of one position of one transfer: HKDF-SHA256 with the
    canonical encoding of ``K`` as secret and the session, transfer index, position and
    the encodings of ``A`` and ``B`` as info."""
    info = _session_bytes(session) + transfer.to_bytes(4, "big") + position.to_bytes(4, "big") + A + B
    out = hkdf_sha256(g1_to_bytes(K), KDF_SALT, info, 32 + payload_bytes)
    return out[:32], out[32:]


def _tag(mac_key: bytes, ct: bytes) -> bytes:
    return hmac.digest(mac_key, ct, hashlib.sha256)[:TAG_BYTES]


def _encrypt(mac_key: bytes, pad: bytes, payload: bytes) -> bytes:
    ct = bytes(x ^ y for x, y in zip(payload, pad))
    return ct + _tag(mac_key, ct)


def _decrypt(mac_key: bytes, pad: bytes, blob: bytes) -> Optional[bytes]:
    ct, tag = blob[:-TAG_BYTES], blob[-TAG_BYTES:]
    if not hmac.compare_digest(_tag(mac_key, ct), tag):
        return None
    return bytes(x ^ y for x, y in zip(ct, pad))


def _hex_bytes(x, length: int, what: str) -> bytes:
    if not isinstance(x, str) or len(x) != 2 * length:
        got = f"{len(x)} hex digits" if isinstance(x, str) else type(x).__name__
        raise MalformedInput(f"{what}: expected {2 * length} hex digits ({length} bytes), got {got}")
    if not _HEX_DIGITS.issuperset(x):
        raise MalformedInput(f"{what}: not lowercase hex")
    return bytes.fromhex(x)


def decode_point(x, what: str) -> tuple[G1Affine, bytes]:
    """A G1 point from 128 hex digits, validated (coordinates below p, on the curve, not
    the point at infinity); with its canonical bytes."""
    raw = _hex_bytes(x, 64, what)
    return g1_from_bytes(raw, what), raw


def _field(msg, key: str, what: str):
    if not isinstance(msg, dict):
        raise MalformedInput(f"{what}: expected a JSON object, got {type(msg).__name__}")
    if key not in msg:
        raise MalformedInput(f"{what}: missing field {key!r}")
    return msg[key]


def _list(x, n: int, what: str) -> list:
    if not isinstance(x, list):
        raise MalformedInput(f"{what}: expected a list of {n}, got {type(x).__name__}")
    if len(x) != n:
        raise MalformedInput(f"{what}: expected {n} entries, got {len(x)}")
    return x


def _check_params(n: int, transfers: int, payload_bytes: int) -> None:
    if not 2 <= n <= 1 << 16 or not 1 <= transfers <= n or not 1 <= payload_bytes <= 1 << 12:
        raise ValueError(f"OT: n={n}, transfers={transfers}, payload_bytes={payload_bytes} out of range")


class OTSender:
    """The sender of ``transfers`` 1-out-of-``n`` transfers in one session. Holds ``a``;
    answers one request, once."""

    def __init__(self, session: str, n: int, transfers: int, payload_bytes: int,
                 backend: Optional[Backend] = None, randbelow: RandBelow = secrets.randbelow):
        _check_params(n, transfers, payload_bytes)
        _session_bytes(session)
        self.session, self.n, self.transfers, self.payload_bytes = session, n, transfers, payload_bytes
        self.backend = backend or get_backend()
        self._a = _nonzero_scalar(randbelow)
        self.A = self.backend.g1_mul(G1_GENERATOR, self._a)
        self._A_bytes = g1_to_bytes(self.A)
        self.answered = False

    def setup(self) -> dict:
        """The first message: ``{"A": hex}``."""
        return {"A": self._A_bytes.hex()}

    def check_request(self, request: dict) -> list[tuple[G1Affine, bytes]]:
        """The request's points, each validated (and its canonical bytes); raises
        :class:`MalformedInput` for a wrong shape or count or a bad point."""
        entries = _list(_field(request, "B", "OT request"), self.transfers, "OT request B")
        return [decode_point(x, f"OT request B[{i}]") for i, x in enumerate(entries)]

    def respond(self, request: dict, payloads: Sequence[bytes]) -> dict:
        """``{"ciphertexts": [[hex] * n] * transfers}``: payload ``j`` of every transfer
        encrypted under that transfer's key for ``j``. The request is validated whole
        before anything is computed; a second request is refused."""
        if self.answered:
            raise MalformedInput("OT sender: this session has already answered its transfers")
        if len(payloads) != self.n or any(not isinstance(p, (bytes, bytearray)) or len(p) != self.payload_bytes
                                          for p in payloads):
            raise ValueError(f"OT sender: expected {self.n} payloads of {self.payload_bytes} bytes")
        Bs = self.check_request(request)
        be = self.backend
        neg_T = be.g1_neg(be.g1_mul(self.A, self._a))  # -aA
        out = []
        for i, (B, B_bytes) in enumerate(Bs):
            K = be.g1_mul(B, self._a)  # a B_i; then K_ij = a B_i - j aA
            row = []
            for j in range(self.n):
                mac_key, pad = derive_key(self.session, i, j, self._A_bytes, B_bytes, K, self.payload_bytes)
                row.append(_encrypt(mac_key, pad, bytes(payloads[j])).hex())
                K = be.g1_add(K, neg_T)
            out.append(row)
        self.answered = True
        return {"ciphertexts": out}


class OTReceiver:
    """The receiver of one session: one choice per transfer. Holds the ``b_i``."""

    def __init__(self, session: str, n: int, choices: Sequence[int], payload_bytes: int,
                 backend: Optional[Backend] = None, randbelow: RandBelow = secrets.randbelow):
        _check_params(n, len(choices), payload_bytes)
        _session_bytes(session)
        if any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < n for c in choices):
            raise ValueError(f"OT receiver: choices must be integers in 0..{n - 1}")
        self.session, self.n, self.payload_bytes = session, n, payload_bytes
        self.choices = list(choices)
        self.backend = backend or get_backend()
        self._randbelow = randbelow
        self._b: list[int] = []
        self._A: G1Affine = None
        self._A_bytes = b""
        self._B_bytes: list[bytes] = []

    @property
    def transfers(self) -> int:
        return len(self.choices)

    def request(self, setup: dict) -> dict:
        """``{"B": [hex] * transfers}`` for the sender's ``{"A": hex}``."""
        A, A_bytes = decode_point(_field(setup, "A", "OT setup"), "OT setup A")
        be = self.backend
        while True:
            bs = [_nonzero_scalar(self._randbelow) for _ in self.choices]
            Bs = [be.g1_add(cA, bG) for cA, bG in zip(be.g1_mul_many(A, self.choices),
                                                       be.g1_mul_many(G1_GENERATOR, bs))]
            if all(B is not None for B in Bs):  # infinity only when b_i = -c_i a: negligible
                break
        self._A, self._A_bytes, self._b = A, A_bytes, bs
        self._B_bytes = [g1_to_bytes(B) for B in Bs]
        return {"B": [b.hex() for b in self._B_bytes]}

    def receive(self, response: dict) -> list[bytes]:
        """The chosen payload of every transfer. A malformed response raises
        :class:`MalformedInput`; a chosen ciphertext that does not decrypt raises
        :class:`DealerFault` naming the transfer (nothing is returned then)."""
        if not self._b:
            raise MalformedInput("OT receiver: no request was made in this session")
        rows = _list(_field(response, "ciphertexts", "OT response"), self.transfers, "OT response ciphertexts")
        blob_len = self.payload_bytes + TAG_BYTES
        chosen = []
        for i, row in enumerate(rows):
            _list(row, self.n, f"OT response ciphertexts[{i}]")
            blobs = [_hex_bytes(x, blob_len, f"OT response ciphertexts[{i}][{j}]") for j, x in enumerate(row)]
            chosen.append(blobs[self.choices[i]])
        Ks = self.backend.g1_mul_many(self._A, self._b)
        out = []
        for i, (c, K, blob) in enumerate(zip(self.choices, Ks, chosen)):
            mac_key, pad = derive_key(self.session, i, c, self._A_bytes, self._B_bytes[i], K, self.payload_bytes)
            payload = _decrypt(mac_key, pad, blob)
            if payload is None:
                raise DealerFault(f"OT transfer {i}: the chosen ciphertext does not decrypt under the receiver's key",
                                  transfer=i)
            out.append(payload)
        return out

    def reveal(self, transfer: int) -> dict:
        """The opening of request ``B_transfer``: ``{"transfer", "choice", "b"}``. It gives
        away that transfer's choice; a receiver reveals it only to complain."""
        if not self._b or not 0 <= transfer < self.transfers:
            raise MalformedInput(f"OT receiver: no transfer {transfer} to reveal")
        return {"transfer": transfer, "choice": self.choices[transfer], "b": str(self._b[transfer])}


def open_revealed(session: str, n: int, payload_bytes: int, setup: dict, request: dict, response: dict,
                  reveal: dict, backend: Optional[Backend] = None) -> bytes:
    """What a revealed transfer delivers, recomputed by a third party from the three
    messages and the receiver's reveal. Raises :class:`InvalidComplaint` if the reveal
    does not open the receiver's request (``B_i != c A + b G``), :class:`DealerFault` if
    the chosen ciphertext does not decrypt under the key so determined, and
    :class:`MalformedInput` for a malformed message. Pure: no state."""
    be = backend or get_backend()
    A, A_bytes = decode_point(_field(setup, "A", "OT setup"), "OT setup A")
    i, c, b = (_field(reveal, k, "OT reveal") for k in ("transfer", "choice", "b"))
    if isinstance(i, bool) or not isinstance(i, int) or isinstance(c, bool) or not isinstance(c, int) \
            or not 0 <= c < n:
        raise MalformedInput(f"OT reveal: expected integer transfer and choice in 0..{n - 1}, got {i!r}, {c!r}")
    if not isinstance(b, str) or not b.isascii() or not b.isdigit() or len(b) > 100 or not 0 < int(b) < r:
        raise MalformedInput(f"OT reveal: b must be a decimal string (ASCII digits) in 1..r-1, got {b!r:.40}")
    entries = _field(request, "B", "OT request")
    rows = _field(response, "ciphertexts", "OT response")
    if not isinstance(entries, list) or not isinstance(rows, list) or not 0 <= i < min(len(entries), len(rows)):
        raise MalformedInput(f"OT reveal: transfer {i} is not in the request and the response")
    B, B_bytes = decode_point(entries[i], f"OT request B[{i}]")
    row = _list(rows[i], n, f"OT response ciphertexts[{i}]")
    blob = _hex_bytes(row[c], payload_bytes + TAG_BYTES, f"OT response ciphertexts[{i}][{c}]")
    bb = int(b)
    if be.g1_add(be.g1_mul(A, c), be.g1_mul(G1_GENERATOR, bb)) != B:
        raise InvalidComplaint(f"OT reveal: (choice {c}, b) does not open request B[{i}]")
    mac_key, pad = derive_key(session, i, c, A_bytes, B_bytes, be.g1_mul(A, bb), payload_bytes)
    payload = _decrypt(mac_key, pad, blob)
    if payload is None:
        raise DealerFault(f"OT transfer {i}: ciphertext {c} does not decrypt under the revealed key", transfer=i)
    return payload
