"""Cheat's statements beyond the shared card statements (seed 004), held in Cheat's folder:
the statement registry (:mod:`zkbluff.statements.registry`) finds :data:`STATEMENTS` here.
This module sits in the statements layer (it imports only errors, field, circuit, gadgets,
``zkbluff.statements.base`` and the card vocabulary ``zkbluff.games.decks``); the rest of Cheat's folder may import it, nothing outside
the folder does.

What Cheat needs and where it comes from:

- a play (1..4 cards face down, the count public): the shared ``card.play.v1`` over the
  standard deck, as it is: the cards are a subset of the committed hand, ``count`` of them, and the
  new hand is the old minus them. A hand in Cheat can hold the whole deck after
  pick-ups; the deck-wide mask covers it.
- the turn-over of the last play after a call: a *public opening* of its commitment,
  checked natively by :func:`open_play` (``Poseidon(mask, salt)`` recomputed; no proof).
  The play proof already showed that the committed value is a set of ``count`` cards of
  the deck, and Poseidon is binding, so anyone who recomputes the commitment from the
  revealed ``(mask, salt)`` knows the cards; a proof would show nothing more and cost
  a prove per call.
- the pick-up: ``card.absorb_many.v1`` over the standard deck and ``k`` plays (here): the picker's new hand
  is its old hand plus the cards of up to ``k`` plays of the pile, all disjoint. A pile
  of more than ``k`` plays is picked up by a chain of such proofs, each one's new hand
  the next one's old; unused slots carry :data:`EMPTY_PLAY_COMMITMENT`.
"""
from __future__ import annotations

import random
from typing import Any, Optional, Sequence

from zkbluff.circuit.builder import ConstraintSystem
from zkbluff.errors import CommitmentMismatch, MalformedInput
from zkbluff.field import r
from zkbluff.gadgets import native as nat
from zkbluff.games.decks import STANDARD_52
from zkbluff.gadgets.basic import from_bits
from zkbluff.gadgets.poseidon import commit
from zkbluff.statements.base import (
    CONTEXT, Inputs, Statement, alloc_mask, bind_context, commitment, mask as mask_input, salt as salt_input, value,
)

#: play slots per pick-up proof. A pile's plays are absorbed by ``ceil(plays / 4)`` chained
#: proofs. Four slots fill a 2^11 evaluation domain (1759 of 2048 constraints), so one
#: proof of four costs about two single-play absorbs on mcl; piles of 1..4 plays (over
#: 95% of the pick-ups the bots' arena makes) take one proof.
ABSORB_SLOTS = 4

#: the public commitment of an unused play slot: ``Poseidon(0, 0)``. A real play holds at
#: least one card (the play statement proves ``count >= 1``), so by binding no real
#: play's commitment equals it, and a slot given this commitment can only hold no card.
EMPTY_PLAY_COMMITMENT = nat.commit(0, 0)


def absorb_many_statement(deck: int, plays: int) -> Statement:
    """Cheat's pick-up of a whole pile: the new hand is the old hand plus the cards of
    ``plays`` committed plays (four in the registry), the old hand and every play pairwise
    disjoint. Unused slots carry ``Poseidon(0, 0)`` (:data:`EMPTY_PLAY_COMMITMENT`; a real
    play holds a card, so no real play has that commitment); a pile of more plays is a
    chain of proofs, each one's new hand the next one's old. The called play itself is
    turned over by a public opening of its commitment, checked natively
    (``zkbluff.games.cheat.statements.open_play``): no proof. Discloses nothing about the cards.

    Public: old and new hand commitments, ``plays`` play commitments, context. Private: the
    old hand and every play with their salts, the new salt.

    Constraints: ``deck`` boolean bits per mask (old hand, each play), a commitment and its
    equality per mask and for the new hand (241 each), ``deck`` for disjointness (the sum
    of a card's bits over the old hand and every play is 0 or 1), 1 for the context:
    ``(deck + 241) * (plays + 1) + 241 + deck + 1`` (1759 for the standard deck and 4 plays).
    """
    if not 1 <= plays <= deck:
        raise ValueError(f"absorb_many: plays must be 1..{deck}, got {plays}")
    play_names = [f"play{j}" for j in range(plays)]
    declared = Inputs(
        public=(commitment("old_hand_commitment"), commitment("new_hand_commitment"),
                *(commitment(f"{p}_commitment") for p in play_names), CONTEXT),
        private=(mask_input("old_hand", deck), salt_input("old_salt"),
                 *(x for p in play_names for x in (mask_input(p, deck), salt_input(f"{p}_salt"))),
                 salt_input("new_salt")))
    pub = declared.public_names

    def synth(cs: ConstraintSystem, inp: Optional[dict[str, Any]], prm: dict[str, Any]) -> None:
        publics = {n: cs.public(n, value(inp, n)) for n in pub}
        bind_context(cs, publics["context"])
        old = alloc_mask(cs, inp, "old_hand", deck)
        old_salt = cs.private_unchecked("old_salt", value(inp, "old_salt"))
        cs.enforce_equal(commit(cs, from_bits(old), old_salt, "old_commit"), publics["old_hand_commitment"],
                         "old_opens")
        total = list(old)
        for p in play_names:
            bits = alloc_mask(cs, inp, p, deck)
            salt = cs.private_unchecked(f"{p}_salt", value(inp, f"{p}_salt"))
            cs.enforce_equal(commit(cs, from_bits(bits), salt, f"{p}_commit"), publics[f"{p}_commitment"],
                             f"{p}_opens")
            total = [t + b for t, b in zip(total, bits)]
        with cs.namespace("disjoint"):  # each card in at most one of: the old hand, the plays
            for i, t in enumerate(total):
                cs.enforce(t, t - 1, 0, f"card_{i}")
        new_salt = cs.private_unchecked("new_salt", value(inp, "new_salt"))
        cs.enforce_equal(commit(cs, from_bits(total), new_salt, "new_commit"), publics["new_hand_commitment"],
                         "new_opens")

    def native(inp: dict[str, Any], prm: dict[str, Any]) -> dict[str, Any]:
        new = inp["old_hand"]
        out = {"old_hand_commitment": nat.commit(inp["old_hand"], inp["old_salt"]), "context": inp.get("context", 0)}
        for p in play_names:
            out[f"{p}_commitment"] = nat.commit(inp[p], inp[f"{p}_salt"])
            new |= inp[p]
        out["new_hand_commitment"] = nat.commit(new, inp["new_salt"])
        return out

    def sample(rng: random.Random) -> dict[str, Any]:
        """Valid random inputs: an old hand of 0..20 cards, 1..plays disjoint plays of 1..4."""
        context = rng.getrandbits(253)
        taken = _random_mask(rng, deck, rng.randint(0, 20))
        inp = {"old_hand": taken, "old_salt": rng.getrandbits(250), "new_salt": rng.getrandbits(250),
               "context": context}
        used = rng.randint(1, plays)
        for j in range(plays):
            play = _random_mask(rng, deck, rng.randint(1, 4), taken) if j < used else 0
            taken |= play
            inp[f"play{j}"], inp[f"play{j}_salt"] = play, (rng.getrandbits(250) if play else 0)
        return inp

    return Statement.declare("card.absorb_many.v1", (("deck", deck), ("plays", plays)), declared, synth, native,
                             absorb_many_statement.__doc__ or "", owner="cheat", sample=sample)


def _random_mask(rng: random.Random, deck: int, k: int, avoid: int = 0) -> int:
    free = [c for c in range(deck) if not avoid >> c & 1]
    return sum(1 << c for c in rng.sample(free, k))


#: the statements Cheat registers (the registry adds them after the shared catalog)
STATEMENTS = (
    absorb_many_statement(STANDARD_52.size, ABSORB_SLOTS),  # the pick-up of a pile of plays (chained past 4)
)


def open_play(commitment: int, mask: int, salt: int, count: int, deck: int) -> tuple[int, ...]:
    """Check a public opening of a play commitment (the turn-over after a call) and return
    the card ids it reveals, in increasing order. Raises :class:`MalformedInput` for a mask
    that is not a set of ``count`` cards of the deck or a salt outside the field, and
    :class:`CommitmentMismatch` when ``Poseidon(mask, salt)`` is not ``commitment``."""
    for name, v in (("mask", mask), ("salt", salt), ("count", count)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise MalformedInput(f"play opening: {name} must be an integer, got {v!r}")
    if not 0 <= mask < (1 << deck):
        raise MalformedInput(f"play opening: mask must be a set of cards 0..{deck - 1}, got {mask}")
    if not 0 <= salt < r:
        raise MalformedInput(f"play opening: salt must be below the field modulus, got {salt}")
    cards = tuple(c for c in range(deck) if mask >> c & 1)
    if len(cards) != count:
        raise MalformedInput(f"play opening: {len(cards)} card(s) revealed, the play had {count}")
    if nat.commit(mask, salt) != commitment:
        raise CommitmentMismatch("play opening: Poseidon(mask, salt) is not the play's commitment")
    return cards


def absorb_chain_inputs(old_hand: int, old_salt: int, plays: Sequence[tuple[int, int]], new_salts: Sequence[int],
                        contexts: Sequence[int], slots: int = ABSORB_SLOTS) -> list[dict[str, Any]]:
    """The inputs of the chain of ``card.absorb_many`` proofs that picks up ``plays``
    (each ``(mask, salt)``, oldest first) into a hand: ``ceil(len(plays) / slots)``
    proofs, each with its own new salt from ``new_salts``; the last one's new hand is
    the old hand plus every play; ``contexts`` binds each proof to its transcript line.
    Unused slots of the last proof are empty plays ``(0, 0)``."""
    n_proofs = max(1, -(-len(plays) // slots))
    if not plays:
        raise MalformedInput("absorb chain: a pick-up needs at least one play in the pile")
    if len(new_salts) != n_proofs or len(contexts) != n_proofs:
        raise MalformedInput(f"absorb chain: {len(plays)} plays in proofs of {slots} need {n_proofs} new salt(s) "
                             f"and context(s), got {len(new_salts)} and {len(contexts)}")
    out, hand, salt = [], old_hand, old_salt
    for i in range(n_proofs):
        chunk = list(plays[i * slots:(i + 1) * slots])
        chunk += [(0, 0)] * (slots - len(chunk))
        inp = {"old_hand": hand, "old_salt": salt, "new_salt": new_salts[i], "context": contexts[i]}
        for j, (mask, psalt) in enumerate(chunk):
            inp[f"play{j}"], inp[f"play{j}_salt"] = mask, psalt
            hand |= mask
        salt = new_salts[i]
        out.append(inp)
    return out


def absorb_chain_publics(old_commitment: int, new_commitments: Sequence[int], play_commitments: Sequence[int],
                         contexts: Sequence[int], slots: int = ABSORB_SLOTS) -> list[list[int]]:
    """The public inputs a verifier checks the pick-up proofs against, built from public data
    only: the picker's hand commitment before, the commitments it publishes after each
    proof (the last one is its new hand), the pile's play commitments (oldest first) and
    each proof's context. Proof ``i`` absorbs plays ``slots*i .. slots*i+slots-1`` into the
    hand left by proof ``i - 1``; unused slots are :data:`EMPTY_PLAY_COMMITMENT`. Raises
    :class:`MalformedInput` when the number of proofs does not fit the pile."""
    n_proofs = max(1, -(-len(play_commitments) // slots))
    if not play_commitments:
        raise MalformedInput("absorb chain: a pick-up needs at least one play in the pile")
    if len(new_commitments) != n_proofs or len(contexts) != n_proofs:
        raise MalformedInput(f"absorb chain: a pile of {len(play_commitments)} plays takes {n_proofs} proof(s) of "
                             f"{slots}, got {len(new_commitments)} new hand(s) and {len(contexts)} context(s)")
    out, old = [], old_commitment
    for i in range(n_proofs):
        chunk = list(play_commitments[i * slots:(i + 1) * slots])
        chunk += [EMPTY_PLAY_COMMITMENT] * (slots - len(chunk))
        out.append([old, new_commitments[i], *chunk, contexts[i]])
        old = new_commitments[i]
    return out
