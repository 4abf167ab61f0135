"""The seed-002 draw primitives, byte for byte as its JavaScript:

```js
const word = (key, msg) => BigInt('0x' + createHmac('sha256', key).update(msg).digest('hex').slice(0, 13));
function int(n) { const N = BigInt(n), limit = SPAN - (SPAN % N);
  for (;;) { const w = next(); if (w < limit) return Number(w % N); } }
const die = () => int(6) + 1;
function shuffle(a) { a = a.slice(); for (let i = a.length - 1; i > 0; i--) { const j = int(i + 1); swap } }
```

Strings (keys and messages) are their UTF-8 bytes as given: no normalisation, no trimming.
"""
from __future__ import annotations

import hashlib
import hmac
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")
SPAN = 1 << 52


def utf8(s: str) -> bytes:
    """A JavaScript string as Node's crypto hashes it: UTF-8, as given."""
    return s.encode("utf-8", "surrogatepass")


def sha256_hex(s: str) -> str:
    return hashlib.sha256(utf8(s)).hexdigest()


def hmac_hex(key: str, msg: str) -> str:
    return hmac.new(utf8(key), utf8(msg), hashlib.sha256).hexdigest()


def word(key: str, msg: str) -> int:
    """The first 52 bits (13 hex digits) of HMAC-SHA256(key, msg)."""
    return int(hmac_hex(key, msg)[:13], 16)


class DrawStream:
    """``next()`` returns successive words for counters 0, 1, 2, ...; ``message(k)``
    builds the HMAC message of counter k. One stream per match."""

    def __init__(self, next_word: Callable[[int], int]):
        self._next_word = next_word
        self.counter = 0

    def next(self) -> int:
        w = self._next_word(self.counter)
        self.counter += 1
        return w

    def int(self, n: int) -> int:
        """A whole number below n by rejection sampling; a rejected word still uses a
        counter. n must be 1..2^52 (outside that the seed's loop would never end)."""
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= SPAN:
            raise ValueError(f"int(n): n must be 1..2^52, got {n!r}")
        limit = SPAN - SPAN % n
        while True:
            w = self.next()
            if w < limit:
                return w % n

    def die(self) -> int:
        return self.int(6) + 1

    def shuffle(self, a: Sequence[T]) -> list[T]:
        """Fisher–Yates from the top: for i from the last index down to 1, swap a[i]
        with a[int(i + 1)]."""
        a = list(a)
        for i in range(len(a) - 1, 0, -1):
            j = self.int(i + 1)
            a[i], a[j] = a[j], a[i]
        return a


def hmac_stream(key: str, message: Callable[[int], str]) -> DrawStream:
    return DrawStream(lambda k: word(key, message(k)))
