"""Decks as data: a size and, for each rank a player may claim, the card ids that count as
it. A claim is checked against a public *rank mask*, so one claim statement serves every
deck (jokers simply belong to every rank's mask)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Deck:
    name: str
    size: int
    rank_names: tuple[str, ...]
    counts_as: Callable[[int, int], bool]  # (card id, rank) -> does the card count as that rank

    def rank_mask(self, rank: int) -> int:
        """The ids that count as ``rank``: the public input of the claim statement."""
        if not 0 <= rank < len(self.rank_names):
            raise ValueError(f"{self.name}: rank must be 0..{len(self.rank_names) - 1}, got {rank}")
        return sum(1 << c for c in range(self.size) if self.counts_as(c, rank))


#: ids 0..51, rank ``id % 13`` (2..A), suit ``id // 13`` (c d h s): the seed-002 poker convention
STANDARD_52 = Deck("standard-52", 52, ("2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King", "Ace"),
                   lambda card, rank: card % 13 == rank)

#: Bluffers (seed 003): 6 Kings (ids 0-5), 6 Queens (6-11), 6 Aces (12-17), 2 Jokers (18, 19),
#: which count as any rank
BLUFFERS_20 = Deck("bluffers-20", 20, ("King", "Queen", "Ace"),
                   lambda card, rank: card >= 18 or card // 6 == rank)
