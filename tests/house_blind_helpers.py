"""Shared pieces of the house-blind table tests (games/engine/house_blind_deal.py): shuffles
fixed per seat (so two worlds differ only in one honest seat's step) and the coalition's view
of a round reduced to everything it can compute about cards."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, Mapping, Sequence

from zkbluff.curve import get_backend
from zkbluff.games.engine import house_blind_deal as hbd
from zkbluff.protocol.elgamal import card_lookup
from zkbluff.protocol.shuffle import shuffle_with


def rotation(k: int, n: int) -> list[int]:
    return [(i + k) % n for i in range(n)]


@contextlib.contextmanager
def fixed_shuffles(orders: Mapping[int, Sequence[int]]) -> Iterator[None]:
    """Every seat shuffles a deck of ``len(orders[seat])`` cards by ``orders[seat]`` (any
    other deck, e.g. a table card's draw, by the identity), still with its proof."""
    real = hbd.HouseBlindSeat.shuffle_message

    def fixed(self: Any, deck: Any, H: Any, prev: str) -> Any:
        order = orders[self.seat] if len(orders[self.seat]) == len(deck) else list(range(len(deck)))
        out, proof, _ = shuffle_with(deck, H, self.ctx("shuffle", prev), order, self.rng, self.be)
        return out, proof
    hbd.HouseBlindSeat.shuffle_message = fixed  # type: ignore[method-assign]
    try:
        yield
    finally:
        hbd.HouseBlindSeat.shuffle_message = real  # type: ignore[method-assign]


def coalition_view(tab: Any, coalition: Sequence[int]) -> tuple[list, set]:
    """Everything the coalition (these seats, pooling their secrets, with the house, which
    holds none) can compute about cards from the round on the table: every ciphertext of
    every deck with its keys taken off — and, for the final deck, every share published by a
    seat outside it — looked up among the cards; and which outputs of each honest seat's step
    it can link to that step's inputs (a ciphertext or a partial decryption that reappears)."""
    be = get_backend()
    x = tab.view.ledger.deal.current
    xs = sum(tab.spec.deal.party(tab.seats[k].deal_secrets, k, x.layout, tab.view.match_id, x.round, "key",
                                 "").key.x for k in coalition)
    lookup = card_lookup(x.layout.deck)
    decks = [x.deck_before(0)] + [d for d, _, _, _ in x.shuffles]
    others: dict[int, list] = {}
    for k, (shares, _, _) in enumerate(x.shares):
        if k not in coalition:
            for s in shares:
                others.setdefault(s.card, []).append(s.D)
    known, partial = [], []
    for k, deck in enumerate(decks):
        row = [be.g1_add(B, be.g1_neg(be.g1_mul(A, xs))) for A, B in zip(deck.A, deck.B)]
        partial.append(row)
        for i, P in enumerate(row):
            if k == len(decks) - 1:
                for D in others.get(i, []):
                    P = be.g1_add(P, be.g1_neg(D))
            known.append((k, i, lookup.get(P)))
    n = x.layout.deck
    honest = [k for k in range(x.n) if k not in coalition]
    links = {(k, i, j) for k in honest for i in range(n) for j in range(n)
             if decks[k + 1].A[i] == decks[k].A[j] or partial[k + 1][i] == partial[k][j]}
    return known, links
