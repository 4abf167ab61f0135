"""The two statements of the oblivious deal (see docs/oblivious-deal.md).

``card.permutation.v1`` — the dealer commits every position ``j`` of a permuted deck as
``C_j = Poseidon(card_j, salt_j)`` and proves the cards are a permutation of the deck.

``card.chosen_hand.v1`` — a hand commitment ``Poseidon(mask, salt)`` is made of the
openings at ``hand`` distinct positions, none in the public ``excluded`` mask and all of
the public ``required`` mask among them, each opening matching its position's commitment. The chooser proves its hand with ``excluded`` = the dealer's and
the board's positions and ``required = 0`` (it knows openings only at the positions it
fetched and at the public board); the dealer proves its own hand with ``required`` = its
public positions (with exactly ``hand`` positions, the hand is made of exactly those).

Both take the 52 commitments as public inputs (one field element each); see the docs for
the measured verifier cost of that choice against one in-circuit digest.
"""
from __future__ import annotations

from typing import Optional

from zkbluff.circuit.builder import LC, ConstraintSystem
from zkbluff.errors import MalformedInput
from zkbluff.gadgets import native as nat
from zkbluff.gadgets.basic import alloc_boolean, enforce_boolean, from_bits, popcount
from zkbluff.gadgets.permutation import enforce_permutation_of_range, permutation_challenge
from zkbluff.gadgets.poseidon import commit
from zkbluff.gadgets.sets import enforce_disjoint, enforce_subset
from zkbluff.statements.base import Statement, bind_context, public_mask_bits, value


def commitment_names(deck: int) -> tuple[str, ...]:
    return tuple(f"commitment{j}" for j in range(deck))


# ---------------------------------------------------------------- permutation

def permutation_statement(deck: int) -> Statement:
    """``card.permutation.v1``: the committed cards ``card0..card{deck-1}`` are a
    permutation of ``0..deck-1``. Public: the ``deck`` position commitments
    ``Poseidon(card_j, salt_j)`` and the context. Private: the cards and salts. The
    permutation is a grand product against a challenge hashed in-circuit from the cards
    (which the commitments fix): soundness error ``deck / r``."""
    bits = max(1, (deck - 1).bit_length())
    names = commitment_names(deck)
    pub = names + ("context",)
    prv = tuple(f"card{j}" for j in range(deck)) + tuple(f"salt{j}" for j in range(deck))

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        coms = [cs.public(n, value(inp, n)) for n in names]
        context = cs.public("context", value(inp, "context"))
        bind_context(cs, context)
        cards = [cs.private_unchecked(f"card{j}", value(inp, f"card{j}")) for j in range(deck)]
        salts = [cs.private_unchecked(f"salt{j}", value(inp, f"salt{j}")) for j in range(deck)]
        for j in range(deck):
            cs.enforce_equal(commit(cs, cards[j], salts[j], f"position{j}/commit"), coms[j], f"position{j}/opens")
        gamma = permutation_challenge(cs, cards, bits, "challenge")
        enforce_permutation_of_range(cs, cards, gamma, "permutation")

    def native(inp: dict, prm: dict) -> dict:
        out = {names[j]: nat.commit(inp[f"card{j}"], inp[f"salt{j}"]) for j in range(deck)}
        out["context"] = inp.get("context", 0)
        return out

    return Statement("card.permutation.v1", (("deck", deck),), pub, prv, synth, native,
                     permutation_statement.__doc__ or "")


def permutation_inputs(cards: list[int], salts: list[int], context: int) -> dict:
    """The input dict of ``card.permutation.v1`` for a committed deck order."""
    return {**{f"card{j}": c for j, c in enumerate(cards)}, **{f"salt{j}": s for j, s in enumerate(salts)},
            "context": context}


# ---------------------------------------------------------------- chosen hand

def chosen_hand_statement(deck: int, hand: int) -> Statement:
    """``card.chosen_hand.v1``: ``hand_commitment`` opens to the set of cards at ``hand``
    distinct positions, each card the opening of its position's commitment; no position
    lies in the public ``excluded`` mask, and every position of the public ``required``
    mask is among them. Public: the ``deck`` position commitments, excluded, required,
    hand_commitment, context. Private: for each slot its position, card and salt; the
    hand salt. The chooser proves with ``required = 0``, the dealer with ``required`` = its
    public positions."""
    names = commitment_names(deck)
    pub = names + ("excluded", "required", "hand_commitment", "context")
    prv = tuple(x for i in range(hand) for x in (f"position{i}", f"card{i}", f"salt{i}")) + ("hand_salt",)

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        coms = [cs.public(n, value(inp, n)) for n in names]
        excluded = cs.public("excluded", value(inp, "excluded"))
        required = cs.public("required", value(inp, "required"))
        hand_c = cs.public("hand_commitment", value(inp, "hand_commitment"))
        context = cs.public("context", value(inp, "context"))
        bind_context(cs, context)
        excluded_bits = public_mask_bits(cs, excluded, inp, "excluded", deck)
        required_bits = public_mask_bits(cs, required, inp, "required", deck)
        at_position: list[list[LC]] = []
        is_card: list[list[LC]] = []
        for i in range(hand):
            with cs.namespace(f"slot{i}"):
                pos = None if inp is None else inp[f"position{i}"]
                card = None if inp is None else inp[f"card{i}"]
                at = [alloc_boolean(cs, f"at_{j}", None if inp is None else int(pos == j)) for j in range(deck)]
                if cs.records_hints:
                    from zkbluff.circuit.circom import Input

                    for j, b in enumerate(at):
                        cs.hint(b, "{pos} == {j} ? 1 : 0", pos=Input(f"position{i}"), j=j)
                cs.enforce_equal(popcount(at), 1, "one_position")
                selected = popcount([cs.mul(b, c, f"select_{j}") for j, (b, c) in enumerate(zip(at, coms))])
                is_c = [alloc_boolean(cs, f"is_{c}", None if inp is None else int(card == c)) for c in range(deck)]
                if cs.records_hints:
                    for c, b in enumerate(is_c):
                        cs.hint(b, "{card} == {c} ? 1 : 0", card=Input(f"card{i}"), c=c)
                cs.enforce_equal(popcount(is_c), 1, "one_card")
                card_value = popcount([b * c for c, b in enumerate(is_c)])
                salt = cs.private_unchecked(f"salt{i}", value(inp, f"salt{i}"))
                cs.enforce_equal(commit(cs, card_value, salt, "commit"), selected, "opens")
                at_position.append(at)
                is_card.append(is_c)
        used = [popcount([at[j] for at in at_position]) for j in range(deck)]
        with cs.namespace("distinct_positions"):
            for j, u in enumerate(used):
                enforce_boolean(cs, u, f"position_{j}")
        enforce_disjoint(cs, used, excluded_bits, "not_excluded")
        enforce_subset(cs, required_bits, used, "required")
        cards_held = [popcount([ic[c] for ic in is_card]) for c in range(deck)]
        with cs.namespace("distinct_cards"):
            for c, h in enumerate(cards_held):
                enforce_boolean(cs, h, f"card_{c}")
        hand_salt = cs.private_unchecked("hand_salt", value(inp, "hand_salt"))
        cs.enforce_equal(commit(cs, from_bits(cards_held), hand_salt, "hand_commit"), hand_c, "hand_opens")

    def native(inp: dict, prm: dict) -> dict:
        out: dict = {"context": inp.get("context", 0), "excluded": inp.get("excluded", 0),
                     "required": inp.get("required", 0)}
        mask = 0
        for i in range(hand):
            pos, card = inp[f"position{i}"], inp[f"card{i}"]
            if 0 <= pos < deck and 0 <= card < deck:
                out[f"commitment{pos}"] = nat.commit(card, inp[f"salt{i}"])
                mask |= 1 << card
        out["hand_commitment"] = nat.commit(mask, inp["hand_salt"])
        missing = [n for n in names if n not in out and n not in inp]
        if missing:
            raise MalformedInput(f"card.chosen_hand.v1: the commitments at positions not opened must be given; "
                                 f"missing {', '.join(missing[:3])}{'...' if len(missing) > 3 else ''}")
        return out

    return Statement("card.chosen_hand.v1", (("deck", deck), ("hand", hand)), pub, prv, synth, native,
                     chosen_hand_statement.__doc__ or "")


def chosen_hand_inputs(commitments: list[int], openings: list[tuple[int, int, int]], hand_salt: int,
                       excluded: int, required: int, context: int) -> dict:
    """The input dict of ``card.chosen_hand.v1``: ``openings`` are (position, card, salt)."""
    inp = {f"commitment{j}": c for j, c in enumerate(commitments)}
    for i, (pos, card, salt) in enumerate(openings):
        inp.update({f"position{i}": pos, f"card{i}": card, f"salt{i}": salt})
    inp.update({"hand_salt": hand_salt, "excluded": excluded, "required": required, "context": context})
    return inp
