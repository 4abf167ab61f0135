"""``card.hand_binding.v1`` — the house-blind deal's hand binding (docs/house-blind-deal.md).

A seat's hand commitment ``Poseidon(mask, salt)`` holds exactly the cards ``card0..card{m-1}``:
each in ``0..deck-1``, pairwise distinct, and ``mask`` the bitmask of them (bit ``c`` for card
``c``, the mask the play, claim and pick-up statements take). The cards and a uniform
``blind`` are **committed** inputs (:mod:`zkbluff.groth16.committed`): public wires of the
constraint system, laid out after the disclosed ``hand_commitment`` and ``context``, which a
proof replaces by the point ``D = sum card_i K_i + blind K_blind`` (``K`` the verifying key's
``IC`` points of those wires). Outside the circuit a sigma proof
(:mod:`zkbluff.protocol.hand_binding`) shows that the same ``card_i`` are the ElGamal
plaintexts ``(card_i + 1) G`` opened to the seat. Cost: ``m * deck`` one-hot bits, ``2m + deck``
linear rows, one Poseidon commitment, the context and the blind squared.
"""
from __future__ import annotations

from typing import Optional

from zkbluff.circuit.builder import ConstraintSystem
from zkbluff.gadgets import native as nat
from zkbluff.gadgets.basic import alloc_boolean, enforce_boolean, from_bits, popcount
from zkbluff.gadgets.poseidon import commit
from zkbluff.statements.base import Statement, bind_context, value


def hand_binding_statement(deck: int, hand: int) -> Statement:
    """``card.hand_binding.v1``: ``hand_commitment = Poseidon(mask(card0..), hand_salt)`` with
    the ``hand`` cards distinct and below ``deck``. Public (disclosed): hand_commitment, context.
    Committed: card0..card{hand-1}, blind. Private: hand_salt."""
    cards_n = tuple(f"card{i}" for i in range(hand))
    committed = cards_n + ("blind",)
    pub = ("hand_commitment", "context") + committed

    def synth(cs: ConstraintSystem, inp: Optional[dict], prm: dict) -> None:
        hand_c = cs.public("hand_commitment", value(inp, "hand_commitment"))
        context = cs.public("context", value(inp, "context"))
        cards = [cs.public(n, value(inp, n)) for n in cards_n]
        blind = cs.public("blind", value(inp, "blind"))
        bind_context(cs, context)
        cs.mul(blind, blind, "blind/square")  # (every committed wire also has its own input row)
        is_card = []
        for i in range(hand):
            with cs.namespace(f"slot{i}"):
                c_val = None if inp is None else inp[f"card{i}"]
                bits = [alloc_boolean(cs, f"is_{c}", None if inp is None else int(c_val == c)) for c in range(deck)]
                if cs.records_hints:  # (the circom export: each bit says whether the card is c)
                    for c, b in enumerate(bits):
                        cs.hint(b, "{x} == " + str(c) + " ? 1 : 0", x=cards[i])
                cs.enforce_equal(popcount(bits), 1, "one_card")
                cs.enforce_equal(popcount([b * c for c, b in enumerate(bits)]), cards[i], "is_the_card")
                is_card.append(bits)
        held = [popcount([bits[c] for bits in is_card]) for c in range(deck)]
        with cs.namespace("distinct_cards"):
            for c, h in enumerate(held):
                enforce_boolean(cs, h, f"card_{c}")
        salt = cs.private_unchecked("hand_salt", value(inp, "hand_salt"))
        cs.enforce_equal(commit(cs, from_bits(held), salt, "hand_commit"), hand_c, "hand_opens")

    def native(inp: dict, prm: dict) -> dict:
        mask = 0
        for n in cards_n:
            if 0 <= inp[n] < deck:
                mask |= 1 << inp[n]
        return {"hand_commitment": nat.commit(mask, inp["hand_salt"]), "context": inp.get("context", 0)}

    return Statement("card.hand_binding.v1", (("deck", deck), ("hand", hand)), pub, ("hand_salt",), synth, native,
                     hand_binding_statement.__doc__ or "", committed=committed)


def hand_binding_inputs(cards: list[int], hand_salt: int, blind: int, context: int) -> dict:
    """The input dict of ``card.hand_binding.v1`` (the hand commitment is computed)."""
    return {**{f"card{i}": c for i, c in enumerate(cards)}, "blind": blind, "hand_salt": hand_salt,
            "context": context}
