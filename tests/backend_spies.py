"""Backends that wrap a real one to watch or bend its pairing checks (shared by the
ceremony and Groth16 guard tests; not tests themselves)."""
from __future__ import annotations

from typing import Any


class PairingSpy:
    """A backend that counts its pairing checks (to see that the caller's backend is the one
    used, and how many pairings a check costs)."""

    def __init__(self, be: Any):
        self._be, self.pairings = be, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._be, name)

    def pairing_product_is_one(self, pairs: Any) -> bool:
        self.pairings += 1
        return self._be.pairing_product_is_one(pairs)


class FirstPairingFails(PairingSpy):
    """The wrapped backend, except that the first pairing-product check (a batch's) fails."""

    def pairing_product_is_one(self, pairs: Any) -> bool:
        self.pairings += 1
        return False if self.pairings == 1 else self._be.pairing_product_is_one(pairs)
