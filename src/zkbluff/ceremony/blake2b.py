"""BLAKE2b-512 with a state that can be saved and resumed, in snarkjs's layout.

A ``.ptau`` contribution records the *partial hash* of its response: the BLAKE2b
state after hashing everything but the contributor's public key (216 bytes: the
128-byte block buffer, then little-endian u32 words: the chaining value h[0..7] as
(low, high) pairs, the number of bytes already compressed, 0, the number of bytes
in the buffer, 0, then zeros). Python's :mod:`hashlib` cannot export or import a
state, so this module keeps its own: whole blocks go through the C extension's
compression function (``zkbluff._fr_native.blake2b_blocks``) when it is built, else
through the pure-Python reference here (RFC 7693; about 10 ms per kilobyte; tested
equal). Everything that needs no saved state uses :func:`hashlib.blake2b`.
"""
from __future__ import annotations

import hashlib
import importlib
import struct
from typing import Any, Optional

from zkbluff.errors import MalformedInput

PARTIAL_HASH_SIZE = 216
_MASK = (1 << 64) - 1
_IV = (
    0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1,
    0x510E527FADE682D1, 0x9B05688C2B3E6C1F, 0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179,
)
_SIGMA = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
    (14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3),
    (11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4),
    (7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8),
    (9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13),
    (2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9),
    (12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11),
    (13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10),
    (6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5),
    (10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0),
)
_ROUNDS = tuple(_SIGMA[i % 10] for i in range(12))
_BLOCK = 128


def _compress(h: list[int], block: bytes, t: int, last: bool) -> None:
    """RFC 7693's F: mix one 128-byte block into h (in place)."""
    m = struct.unpack("<16Q", block)
    v0, v1, v2, v3, v4, v5, v6, v7 = h
    v8, v9, v10, v11 = _IV[0], _IV[1], _IV[2], _IV[3]
    v12 = _IV[4] ^ (t & _MASK)
    v13 = _IV[5] ^ (t >> 64)
    v14 = _IV[6] ^ _MASK if last else _IV[6]
    v15 = _IV[7]
    M = _MASK
    for s in _ROUNDS:
        # column step
        v0 = (v0 + v4 + m[s[0]]) & M; v12 ^= v0; v12 = ((v12 >> 32) | (v12 << 32)) & M
        v8 = (v8 + v12) & M; v4 ^= v8; v4 = ((v4 >> 24) | (v4 << 40)) & M
        v0 = (v0 + v4 + m[s[1]]) & M; v12 ^= v0; v12 = ((v12 >> 16) | (v12 << 48)) & M
        v8 = (v8 + v12) & M; v4 ^= v8; v4 = ((v4 >> 63) | (v4 << 1)) & M
        v1 = (v1 + v5 + m[s[2]]) & M; v13 ^= v1; v13 = ((v13 >> 32) | (v13 << 32)) & M
        v9 = (v9 + v13) & M; v5 ^= v9; v5 = ((v5 >> 24) | (v5 << 40)) & M
        v1 = (v1 + v5 + m[s[3]]) & M; v13 ^= v1; v13 = ((v13 >> 16) | (v13 << 48)) & M
        v9 = (v9 + v13) & M; v5 ^= v9; v5 = ((v5 >> 63) | (v5 << 1)) & M
        v2 = (v2 + v6 + m[s[4]]) & M; v14 ^= v2; v14 = ((v14 >> 32) | (v14 << 32)) & M
        v10 = (v10 + v14) & M; v6 ^= v10; v6 = ((v6 >> 24) | (v6 << 40)) & M
        v2 = (v2 + v6 + m[s[5]]) & M; v14 ^= v2; v14 = ((v14 >> 16) | (v14 << 48)) & M
        v10 = (v10 + v14) & M; v6 ^= v10; v6 = ((v6 >> 63) | (v6 << 1)) & M
        v3 = (v3 + v7 + m[s[6]]) & M; v15 ^= v3; v15 = ((v15 >> 32) | (v15 << 32)) & M
        v11 = (v11 + v15) & M; v7 ^= v11; v7 = ((v7 >> 24) | (v7 << 40)) & M
        v3 = (v3 + v7 + m[s[7]]) & M; v15 ^= v3; v15 = ((v15 >> 16) | (v15 << 48)) & M
        v11 = (v11 + v15) & M; v7 ^= v11; v7 = ((v7 >> 63) | (v7 << 1)) & M
        # diagonal step
        v0 = (v0 + v5 + m[s[8]]) & M; v15 ^= v0; v15 = ((v15 >> 32) | (v15 << 32)) & M
        v10 = (v10 + v15) & M; v5 ^= v10; v5 = ((v5 >> 24) | (v5 << 40)) & M
        v0 = (v0 + v5 + m[s[9]]) & M; v15 ^= v0; v15 = ((v15 >> 16) | (v15 << 48)) & M
        v10 = (v10 + v15) & M; v5 ^= v10; v5 = ((v5 >> 63) | (v5 << 1)) & M
        v1 = (v1 + v6 + m[s[10]]) & M; v12 ^= v1; v12 = ((v12 >> 32) | (v12 << 32)) & M
        v11 = (v11 + v12) & M; v6 ^= v11; v6 = ((v6 >> 24) | (v6 << 40)) & M
        v1 = (v1 + v6 + m[s[11]]) & M; v12 ^= v1; v12 = ((v12 >> 16) | (v12 << 48)) & M
        v11 = (v11 + v12) & M; v6 ^= v11; v6 = ((v6 >> 63) | (v6 << 1)) & M
        v2 = (v2 + v7 + m[s[12]]) & M; v13 ^= v2; v13 = ((v13 >> 32) | (v13 << 32)) & M
        v8 = (v8 + v13) & M; v7 ^= v8; v7 = ((v7 >> 24) | (v7 << 40)) & M
        v2 = (v2 + v7 + m[s[13]]) & M; v13 ^= v2; v13 = ((v13 >> 16) | (v13 << 48)) & M
        v8 = (v8 + v13) & M; v7 ^= v8; v7 = ((v7 >> 63) | (v7 << 1)) & M
        v3 = (v3 + v4 + m[s[14]]) & M; v14 ^= v3; v14 = ((v14 >> 32) | (v14 << 32)) & M
        v9 = (v9 + v14) & M; v4 ^= v9; v4 = ((v4 >> 24) | (v4 << 40)) & M
        v3 = (v3 + v4 + m[s[15]]) & M; v14 ^= v3; v14 = ((v14 >> 16) | (v14 << 48)) & M
        v9 = (v9 + v14) & M; v4 ^= v9; v4 = ((v4 >> 63) | (v4 << 1)) & M
    h[0] ^= v0 ^ v8
    h[1] ^= v1 ^ v9
    h[2] ^= v2 ^ v10
    h[3] ^= v3 ^ v11
    h[4] ^= v4 ^ v12
    h[5] ^= v5 ^ v13
    h[6] ^= v6 ^ v14
    h[7] ^= v7 ^ v15


def _native() -> Optional[Any]:
    """The C extension (its ``blake2b_blocks``), or None when it is not built."""
    try:
        return importlib.import_module("zkbluff._fr_native")
    except ImportError:
        return None


def _compress_blocks(h: list[int], data: bytes, compressed: int) -> None:
    """Compress every whole block of ``data`` into h (in place), the counter starting after
    ``compressed`` bytes: in C when the extension is built, else block by block here."""
    native = _native()
    if native is not None and hasattr(native, "blake2b_blocks") and compressed + len(data) < 1 << 64:
        h[:] = struct.unpack("<8Q", native.blake2b_blocks(struct.pack("<8Q", *h), data, compressed))
        return
    for pos in range(0, len(data), _BLOCK):
        compressed += _BLOCK
        _compress(h, data[pos: pos + _BLOCK], compressed, False)


class Blake2b:
    """BLAKE2b-512 (no key) whose state :meth:`partial` saves and :meth:`resume` restores.
    Like snarkjs's hasher it keeps the last block buffered until more data or the digest."""

    __slots__ = ("h", "buf", "compressed")

    def __init__(self) -> None:
        self.h = list(_IV)
        self.h[0] ^= 0x01010000 ^ 64  # digest length 64, no key, fanout 1, depth 1
        self.buf = b""
        self.compressed = 0

    def update(self, data: bytes) -> "Blake2b":
        data = self.buf + bytes(data)
        n = len(data)
        # always keep a (possibly full) last block back
        whole = 0 if n <= _BLOCK else (n - 1) // _BLOCK * _BLOCK
        if whole:
            _compress_blocks(self.h, data[:whole], self.compressed)
            self.compressed += whole
        self.buf = data[whole:]
        return self

    def digest(self) -> bytes:
        h = list(self.h)
        _compress(h, self.buf.ljust(_BLOCK, b"\0"), self.compressed + len(self.buf), True)
        return struct.pack("<8Q", *h)

    def partial(self) -> bytes:
        words = []
        for x in self.h:
            words += [x & 0xFFFFFFFF, x >> 32]
        words += [self.compressed & 0xFFFFFFFF, 0, len(self.buf), 0, 0, 0]
        return self.buf.ljust(_BLOCK, b"\0") + struct.pack("<22I", *words)

    @classmethod
    def resume(cls, partial: bytes) -> "Blake2b":
        if len(partial) != PARTIAL_HASH_SIZE:
            raise MalformedInput(f"partial hash: expected {PARTIAL_HASH_SIZE} bytes, got {len(partial)}")
        w = struct.unpack("<22I", partial[_BLOCK:])
        pos = w[18]
        if pos > _BLOCK:
            raise MalformedInput(f"partial hash: buffer position {pos} is beyond a block of {_BLOCK}")
        out = cls()
        out.h = [w[2 * i] | (w[2 * i + 1] << 32) for i in range(8)]
        out.compressed = w[16] | (w[17] << 32)
        out.buf = partial[:pos]
        return out


def blake2b512(*parts: bytes) -> bytes:
    """BLAKE2b-512 of the concatenation (hashlib, fast)."""
    h = hashlib.blake2b(digest_size=64)
    for p in parts:
        h.update(p)
    return h.digest()
