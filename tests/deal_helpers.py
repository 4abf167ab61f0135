"""Cheating dealers shared by the deal-in-proof tests of every game (tests/games/proof_or_bluff/test_pob_deal.py,
tests/games/engine/test_deal_unified.py): each is the engine's honest ``Dealer`` with one thing changed."""
from __future__ import annotations

from typing import Any, Mapping

from zkbluff.games.engine.parties import Dealer
from zkbluff.protocol.entropy import EntropySecret


class GrindingDealer(Dealer):
    """Writes its commitment, then swaps its entropy for a fresh one before dealing."""

    def receive(self, event: Mapping[str, Any], restoring: bool = False) -> None:
        super().receive(event, restoring)
        assert self.view is not None and self.state is not None
        if event["action"] in ("entropy.seat", "entropy.open") and self.view.deal_ready:  # the last opening
            fresh = EntropySecret.fresh()
            self.state = {**self.state, "entropy": str(fresh.entropy), "salt": str(fresh.salt)}
