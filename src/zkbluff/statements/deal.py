"""``card.deal.v2``: the deal computed inside the proof from the parties' committed entropies.

Derivation (the native twin :func:`deal_native` and the circuit compute the same thing):

1. ``seed = Poseidon(e_0, ..., e_{E-1})`` over the entropy contributors (contributor 0 is
   the dealer, who commits first; then every seat that is not the dealer, in seat order).
   Each ``e_i`` opens its public commitment ``Poseidon(e_i, salt_i)``.
2. The deck order: draw ``d`` (``d = 0, 1, ...``) takes the ``j_d``-th card, in id order,
   of those not drawn yet, ``0 <= j_d < deck - d``. The digits ``j_d`` are the
   mixed-radix digits of ``h_g mod N_g`` where ``h_g = Poseidon(seed, round, g)`` and
   chunk ``g`` groups consecutive draws whose radices multiply to ``N_g < 2^160``; so the
   order is a uniformly random ordered draw without replacement (exactly uniform; the
   prover refuses a chunk whose ``h_g >= floor((r-1)/N_g) N_g``, probability < 2^-93).
3. Hand 0 is the first ``hands[0]`` cards drawn, hand 1 the next ``hands[1]``, ..., then
   the board. When the parts cover the whole deck, the last part is what remains (no
   draws needed for it).
4. Each hand's public commitment is ``Poseidon(mask, salt)`` with its seat's salt; the
   board mask is public.

Nothing is revealed after the match: the proof alone shows the hands are the seed's.
"""
from __future__ import annotations

from typing import Optional, Sequence

from zkbluff.circuit.builder import LC, ConstraintSystem
from zkbluff.errors import UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.gadgets import native as nat
from zkbluff.gadgets.order import mixed_radix_digits, pick_remaining
from zkbluff.gadgets.poseidon import commit, poseidon
from zkbluff.statements.base import CONTEXT, Input, Inputs, Statement, bind_context, commitment, salt, value

#: a chunk of draws shares one Poseidon output while its radices multiply below 2^CHUNK_BITS
CHUNK_BITS = 160
MAX_ENTROPIES = 16


def deal_plan(deck: int, hands: Sequence[int], board: int = 0) -> tuple[list[int], bool, list[list[int]]]:
    """``(part_sizes, last_is_remainder, chunks)``: the parts are the hands then the board
    (if any); ``chunks`` lists the draw indices that share one Poseidon output."""
    parts = list(hands) + ([board] if board else [])
    remainder = sum(parts) == deck
    draws = sum(parts) - (parts[-1] if remainder else 0)
    chunks: list[list[int]] = []
    product = 1
    for d in range(draws):
        m = deck - d
        if not chunks or product * m >= 1 << CHUNK_BITS:
            chunks.append([])
            product = 1
        chunks[-1].append(d)
        product *= m
    return parts, remainder, chunks


def deck_order(entropies: Sequence[int], round_no: int, hands: Sequence[int], board: int = 0,
               deck: int = 52) -> list[int]:
    """The drawn cards in draw order (the top of the deck order) for this seed and round:
    draw ``d`` takes the ``j_d``-th card, in id order, of those not drawn yet. Raises
    :class:`UnsatisfiedConstraint` in the refused case (probability < 2^-93 a chunk)."""
    _, _, chunks = deal_plan(deck, hands, board)
    seed = nat.poseidon(list(entropies))
    order: list[int] = []
    remaining = (1 << deck) - 1
    for g, chunk in enumerate(chunks):
        h = nat.poseidon([seed, round_no % r, g])
        try:
            digits = nat.mixed_radix_digits(h, [deck - d for d in chunk])
        except ValueError as exc:
            raise UnsatisfiedConstraint(f"deal: chunk {g} of this seed cannot be proven ({exc})") from None
        for j in digits:
            c = nat.pick_remaining(remaining, j)
            order.append(c)
            remaining &= ~(1 << c)
    return order


def deal_native(entropies: Sequence[int], round_no: int, hands: Sequence[int], board: int = 0,
                deck: int = 52) -> tuple[list[int], int]:
    """The native twin: ``(hand masks, board mask)`` dealt from the entropies (in
    contributor order) in round ``round_no``, exactly as ``card.deal.v2`` proves it."""
    parts, remainder, _ = deal_plan(deck, hands, board)
    order = deck_order(entropies, round_no, hands, board, deck)
    masks = []
    at = 0
    for size in parts:
        part = order[at:at + size]
        at += size
        masks.append(sum(1 << c for c in part))
    if remainder:  # the last part is every card not drawn
        masks[-1] = ((1 << deck) - 1) & ~sum(masks[:-1])
    board_mask = masks.pop() if board else 0
    return masks, board_mask


def deal_v2_statement(deck: int, hands: Sequence[int], board: int = 0, entropies: int = 2) -> Statement:
    """``card.deal.v2``: the hands and the board are the seed's deal for this round (see the
    module). Public: every contributor's entropy commitment, every hand's commitment, the
    board mask, the round, the context. Private: the entropies with their commitment
    salts, the hand salts. The dealer learns the hands; it cannot choose them."""
    k = len(hands)
    if not 1 <= k <= 6 or any(h < 1 for h in hands) or sum(hands) + board > deck or deck > 250:
        raise ValueError(f"deal: {k} hands of {list(hands)} and a board of {board} do not fit a deck of {deck}")
    if not 1 <= entropies <= MAX_ENTROPIES:
        raise ValueError(f"deal: 1..{MAX_ENTROPIES} entropy contributors, got {entropies}")
    parts, remainder, chunks = deal_plan(deck, hands, board)
    declared = deal_v2_inputs_declared(k, entropies)

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        e_commits = [cs.public(f"entropy{i}_commitment", value(inp, f"entropy{i}_commitment"))
                     for i in range(entropies)]
        h_commits = [cs.public(f"hand{i}_commitment", value(inp, f"hand{i}_commitment")) for i in range(k)]
        board_pub = cs.public("board", value(inp, "board"))
        round_no = cs.public("round", value(inp, "round"))
        context = cs.public("context", value(inp, "context"))
        bind_context(cs, context)
        ents = []
        for i in range(entropies):
            e = cs.private_unchecked(f"entropy{i}", value(inp, f"entropy{i}"))
            salt = cs.private_unchecked(f"entropy{i}_salt", value(inp, f"entropy{i}_salt"))
            cs.enforce_equal(commit(cs, e, salt, f"entropy{i}/commit"), e_commits[i], f"entropy{i}/opens")
            ents.append(e)
        seed = poseidon(cs, ents, "seed")
        remaining: list[LC] = [LC.constant(1)] * deck
        drawn: list[LC] = []  # the mask of each drawn card, in draw order
        for g, chunk in enumerate(chunks):
            h = poseidon(cs, [seed, round_no, g], f"stream_{g}")
            digits = mixed_radix_digits(cs, h, [deck - d for d in chunk], f"stream_{g}/digits")
            for d, j in zip(chunk, digits):
                onehot = pick_remaining(cs, remaining, j, f"draw_{d}")
                remaining = [x - s for x, s in zip(remaining, onehot)]
                drawn.append(_mask(onehot))
        masks = []
        at = 0
        for p, size in enumerate(parts):
            if remainder and p == len(parts) - 1:
                masks.append(_mask(remaining))
            else:
                acc = LC.constant(0)
                for m in drawn[at:at + size]:
                    acc = acc + m
                masks.append(acc)
                at += size
        board_mask = masks.pop() if board else LC.constant(0)
        cs.enforce_equal(board_mask, board_pub, "board/opens")
        for i in range(k):
            salt = cs.private_unchecked(f"hand{i}_salt", value(inp, f"hand{i}_salt"))
            cs.enforce_equal(commit(cs, masks[i], salt, f"hand{i}/commit"), h_commits[i], f"hand{i}/opens")

    def native(inp: dict, prm: dict) -> dict:
        ents = [inp[f"entropy{i}"] for i in range(entropies)]
        round_no = inp.get("round", 0)
        masks, board_mask = deal_native(ents, round_no, hands, board, deck)
        out = {f"entropy{i}_commitment": nat.commit(ents[i], inp[f"entropy{i}_salt"]) for i in range(entropies)}
        out.update({f"hand{i}_commitment": nat.commit(masks[i], inp[f"hand{i}_salt"]) for i in range(k)})
        out.update({"board": board_mask, "round": round_no, "context": inp.get("context", 0)})
        return out

    return Statement.declare("card.deal.v2", (("deck", deck), ("hands", tuple(hands)), ("board", board),
                                              ("entropies", entropies)), declared, synth, native,
                             deal_v2_statement.__doc__ or "")


def deal_v2_inputs_declared(hands: int, entropies: int) -> Inputs:
    """``card.deal.v2``'s declaration: public every contributor's entropy commitment, every
    hand's commitment, the board mask, the round and the context, in this order; private the
    entropies with their salts and the hand salts. (Only the kinds every value of the field
    passes are declared: the checks before proving are the circuit's, as before.)"""
    return Inputs(
        public=(*(commitment(f"entropy{i}_commitment") for i in range(entropies)),
                *(commitment(f"hand{i}_commitment") for i in range(hands)), Input("board"), Input("round"), CONTEXT),
        private=(*(x for i in range(entropies) for x in (Input(f"entropy{i}"), salt(f"entropy{i}_salt"))),
                 *(salt(f"hand{i}_salt") for i in range(hands))))


def deal_v2_inputs(entropies: Sequence[tuple[int, int]], hand_salts: Sequence[int], round_no: int = 0,
                   context: int = 0) -> dict:
    """The private and public inputs of ``card.deal.v2`` from ``(entropy, salt)`` pairs (in
    contributor order) and the hand salts (in seat order); the statement fills in the rest."""
    inp: dict = {"round": round_no, "context": context}
    for i, (e, s) in enumerate(entropies):
        inp[f"entropy{i}"] = e
        inp[f"entropy{i}_salt"] = s
    for i, s in enumerate(hand_salts):
        inp[f"hand{i}_salt"] = s
    return inp


def _mask(bits: Sequence[LC]) -> LC:
    acc = LC.constant(0)
    for c, b in enumerate(bits):
        acc = acc + b * (1 << c)
    return acc

