"""Decks as data: a size and, for each rank a player may claim, the card ids that count as
it. A claim is checked against a public *rank mask*, so one claim statement serves every
deck (jokers simply belong to every rank's mask). Every game names, masks and checks its
cards through its ``Deck``: no game open-codes a deck size or a rank count."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from zkbluff.errors import MalformedInput
from zkbluff.fair.cards import RANKS as _SHORT_RANKS, card_name as _poker_card_name


@dataclass(frozen=True)
class Deck:
    name: str
    size: int
    rank_names: tuple[str, ...]
    counts_as: Callable[[int, int], bool]  # (card id, rank) -> does the card count as that rank
    card_name: Callable[[int], str] = str  # a short name for a card id ("Ah")
    short_ranks: str = ""  # one character per rank, for typing ranks ("23456789TJQKA")

    @property
    def n_ranks(self) -> int:
        return len(self.rank_names)

    def rank_mask(self, rank: int) -> int:
        """The ids that count as ``rank``: the public input of the claim statement."""
        if not 0 <= rank < len(self.rank_names):
            raise ValueError(f"{self.name}: rank must be 0..{len(self.rank_names) - 1}, got {rank}")
        return sum(1 << c for c in range(self.size) if self.counts_as(c, rank))

    def ranks_of(self, card: int) -> tuple[int, ...]:
        """Every rank ``card`` counts as (one for a plain card, all for a joker)."""
        return tuple(r for r in range(self.n_ranks) if self.counts_as(card, r))

    def rank_of(self, card: int) -> int:
        """The rank of a plain card (a card that counts as exactly one rank)."""
        ranks = self.ranks_of(card)
        if len(ranks) != 1:
            raise ValueError(f"{self.name}: card {card} counts as {len(ranks)} ranks")
        return ranks[0]

    @property
    def full_mask(self) -> int:
        return (1 << self.size) - 1

    def cards(self, mask: int) -> list[int]:
        """The ids in a mask, ascending."""
        return [c for c in range(self.size) if mask >> c & 1]

    def mask(self, cards: Iterable[int], what: str = "cards") -> int:
        """The mask of a list of card ids; a card listed twice, a non-integer or an id outside
        the deck is :class:`MalformedInput` (never silently merged)."""
        out = 0
        for c in cards:
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < self.size:
                raise MalformedInput(f"{what}: a card id is an integer 0..{self.size - 1}, got {c!r}")
            if out >> c & 1:
                raise MalformedInput(f"{what}: card {self.card_name(c)} is listed twice")
            out |= 1 << c
        return out

    def parse_rank(self, token: str) -> int:
        """A rank typed by a person: its short letter or its name ("K", "King", "10")."""
        t = token.strip().upper()
        for i, name in enumerate(self.rank_names):
            if t == name.upper() or (self.short_ranks and t == self.short_ranks[i]):
                return i
        raise MalformedInput(f"{token!r} is not a rank of {self.name} ({', '.join(self.rank_names)})")


#: ids 0..51, rank ``id % 13`` (2..A), suit ``id // 13`` (c d h s): the seed-002 poker convention
STANDARD_52 = Deck("standard-52", 52, ("2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King", "Ace"),
                   lambda card, rank: card % 13 == rank, _poker_card_name, _SHORT_RANKS)

#: Bluffers (seed 003): 6 Kings (ids 0-5), 6 Queens (6-11), 6 Aces (12-17), 2 Jokers (18, 19),
#: which count as any rank
BLUFFERS_20 = Deck("bluffers-20", 20, ("King", "Queen", "Ace"),
                   lambda card, rank: card >= 18 or card // 6 == rank)
