"""Liar's Dice's own statements, held in its folder: the statement registry
(:mod:`zkbluff.statements.registry`) finds :data:`STATEMENTS` here. This module sits in the
statements layer (it imports only errors, field, circuit, gadgets and
``zkbluff.statements.base``); the rest of the folder may import it, nothing outside does.

Dice are packed three bits a die, die ``k`` in bits ``3k..3k+2``: a face ``1..6``, or ``0`` for
a die the seat no longer has. A seat's dice of a round are committed as
``Poseidon(pack, salt)``.

- ``dice.roll.v1``: the dice commitment holds the dice *derived* from the seat's committed
  secret and the round's joint entropy, so the seat cannot choose them and nobody else
  learns them;
- ``dice.count.v1``: how many of the committed dice show a face (ones wild or not), without
  revealing any die.
"""
from __future__ import annotations

import random
from typing import Any, Mapping, Optional, Sequence

from zkbluff.circuit.builder import LC, ConstraintSystem
from zkbluff.errors import MalformedInput
from zkbluff.field import r
from zkbluff.gadgets import native as nat
from zkbluff.gadgets.basic import enforce_boolean, from_bits, is_equal, less_than, to_bits
from zkbluff.gadgets.order import mixed_radix_digits
from zkbluff.gadgets.poseidon import commit, poseidon
from zkbluff.statements.base import (
    CONTEXT, Input, Inputs, Statement, alloc_mask, bind_context, bit, commitment, number, salt, value,
)

#: dice a seat starts with (the most a roll derives), faces on a die
MAX_DICE, FACES = 5, 6
#: bits a die takes in the packed value (faces 1..6 and 0 for no die)
DIE_BITS = 3
PACK_BITS = DIE_BITS * MAX_DICE
#: the width of the public ``n_dice`` and ``count`` numbers (at most 5 of one seat)
SMALL_BITS = 3


# ---------------------------------------------------------------- the native twins

def derive_dice(secret: int, entropy: int, n_dice: int, dice: int = MAX_DICE) -> tuple[int, ...]:
    """The seat's ``dice`` dice of a round: the base-6 digits of ``Poseidon(secret, entropy)``
    (as :func:`zkbluff.gadgets.order.mixed_radix_digits` proves them), each plus one; the
    dice from ``n_dice`` on are 0 (dice the seat has lost). ValueError for the hash values
    the gadget refuses (a fraction below 6^5 / r of the field)."""
    if not 0 <= n_dice <= dice:
        raise MalformedInput(f"dice roll: a seat holds 0..{dice} dice, got {n_dice}")
    digits = nat.mixed_radix_digits(nat.poseidon([secret, entropy]), [FACES] * dice)
    return tuple(d + 1 if k < n_dice else 0 for k, d in enumerate(digits))


def pack_dice(dice: Sequence[int]) -> int:
    """The packed value of up to five dice (each 0..6), three bits a die."""
    if len(dice) > MAX_DICE or any(isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= FACES
                                   for d in dice):
        raise MalformedInput(f"dice: up to {MAX_DICE} values 0..{FACES}, got {list(dice)!r:.80}")
    return sum(d << (DIE_BITS * k) for k, d in enumerate(dice))


def unpack_dice(pack: int, dice: int = MAX_DICE) -> tuple[int, ...]:
    return tuple((pack >> (DIE_BITS * k)) & ((1 << DIE_BITS) - 1) for k in range(dice))


def count_face(dice: Sequence[int], face: int, wild: bool) -> int:
    """How many of ``dice`` count for a bid on ``face``: that face, and ones too when ones
    are wild and the face is not one."""
    return sum(1 for d in dice if d == face or (wild and face != 1 and d == 1))


# ---------------------------------------------------------------- dice.roll.v1

def roll_statement(dice: int = MAX_DICE) -> Statement:
    """A seat's roll: its dice commitment holds dice derived from its committed secret and
    the round's joint entropy. The secret opens the seat's secret commitment (from the
    header, made before any entropy of the match existed); ``h = Poseidon(secret,
    entropy)``; die ``k`` is ``1 +`` the ``k``-th base-6 digit of ``h`` (unique, exactly
    uniform given ``h`` below the largest multiple of ``6^5`` in the field) for
    ``k < n_dice``, and 0 after; the dice commitment is ``Poseidon(pack, dice_salt)``
    (pack: three bits a die). The joint entropy is a hash of every seat's opened entropy
    of the round (committed first, then opened), so the seat cannot choose its dice, and
    the house, who sees only commitments, never learns them. Discloses nothing about the dice.

    Public: the secret commitment, the joint entropy, ``n_dice``, the dice commitment,
    context. Private: the secret and its salt, the dice salt.

    Constraints: two commitments and a hash (240 each), the digits (5 x 5 + the quotient's
    2 x 241 + 1), ``n_dice``'s range (3) and five comparisons with it (5 each), five
    products, the context."""
    declared = Inputs(
        public=(commitment("secret_commitment"), Input("entropy"), number("n_dice", SMALL_BITS),
                commitment("dice_commitment"), CONTEXT),
        private=(Input("secret"), salt("secret_salt"), salt("dice_salt")))
    pub = declared.public_names

    def synth(cs: ConstraintSystem, inp: Optional[dict[str, int]], prm: dict[str, Any]) -> None:
        publics = {n: cs.public(n, value(inp, n)) for n in pub}
        bind_context(cs, publics["context"])
        secret = cs.private_unchecked("secret", value(inp, "secret"))
        secret_salt = cs.private_unchecked("secret_salt", value(inp, "secret_salt"))
        cs.enforce_equal(commit(cs, secret, secret_salt, "secret_commit"), publics["secret_commitment"],
                         "secret_opens")
        h = poseidon(cs, [secret, publics["entropy"]], "derive")
        digits = mixed_radix_digits(cs, h, [FACES] * dice, "faces")
        n_dice = publics["n_dice"]
        to_bits(cs, n_dice, SMALL_BITS, "n_dice_range")  # below 8, so the comparisons are sound
        pack = LC.constant(0)
        for k, digit in enumerate(digits):
            held = less_than(cs, LC.constant(k), n_dice, SMALL_BITS, f"held_{k}")
            die = cs.mul(held, digit + 1, f"die_{k}")
            pack = pack + die * (1 << (DIE_BITS * k))
        dice_salt = cs.private_unchecked("dice_salt", value(inp, "dice_salt"))
        cs.enforce_equal(commit(cs, pack, dice_salt, "dice_commit"), publics["dice_commitment"], "dice_opens")

    def native(inp: dict[str, int], prm: dict[str, Any]) -> dict[str, int]:
        out = {"secret_commitment": nat.commit(inp["secret"], inp["secret_salt"]), "context": inp.get("context", 0)}
        if "entropy" in inp and "n_dice" in inp:
            rolled = derive_dice(inp["secret"], inp["entropy"], inp["n_dice"], dice)
            out["dice_commitment"] = nat.commit(pack_dice(rolled), inp["dice_salt"])
        return out

    def sample(rng: random.Random) -> dict[str, int]:
        return {"secret": rng.randrange(r), "secret_salt": rng.getrandbits(250), "dice_salt": rng.getrandbits(250),
                "entropy": rng.randrange(r), "n_dice": rng.randint(1, dice), "context": rng.getrandbits(253)}

    return Statement.declare("dice.roll.v1", (("dice", dice), ("faces", FACES)), declared, synth, native,
                             roll_statement.__doc__ or "", owner="liars_dice", sample=sample, said=_roll_said)


# ---------------------------------------------------------------- dice.count.v1

def count_statement(dice: int = MAX_DICE) -> Statement:
    """How many of a seat's committed dice count for a bid on ``face``: ``count`` is the
    number of dice showing ``face``, plus those showing one when ``wild`` is set and
    ``face`` is not one (ones wild). The dice open the seat's dice commitment of the round
    (the one its ``dice.roll.v1`` proof made); no die is revealed, only the count.

    Public: the dice commitment, ``face``, ``wild``, ``count``, context. Private: the
    packed dice (three bits a die) and their salt.

    Constraints: the pack's bits (15), its commitment (240), two equalities a die (3 each),
    ``wild``'s boolean and its product with "face is not one" (1 + 3 + 1), one product and
    the sum, the context."""
    declared = Inputs(
        public=(commitment("dice_commitment"), number("face", SMALL_BITS), bit("wild"),
                number("count", SMALL_BITS), CONTEXT),
        private=(number("dice", DIE_BITS * dice), salt("dice_salt")))
    pub = declared.public_names

    def synth(cs: ConstraintSystem, inp: Optional[dict[str, int]], prm: dict[str, Any]) -> None:
        publics = {n: cs.public(n, value(inp, n)) for n in pub}
        bind_context(cs, publics["context"])
        bits = alloc_mask(cs, inp, "dice", DIE_BITS * dice)
        dice_salt = cs.private_unchecked("dice_salt", value(inp, "dice_salt"))
        cs.enforce_equal(commit(cs, from_bits(bits), dice_salt, "dice_commit"), publics["dice_commitment"],
                         "dice_opens")
        face, wild = publics["face"], publics["wild"]
        enforce_boolean(cs, wild, "wild_bit")
        wild_here = cs.mul(wild, 1 - is_equal(cs, face, 1, "face_is_one"), "wild_here")
        faces, ones = LC.constant(0), LC.constant(0)
        for k in range(dice):
            die = from_bits(bits[DIE_BITS * k:DIE_BITS * (k + 1)])
            faces = faces + is_equal(cs, die, face, f"face_{k}")
            ones = ones + is_equal(cs, die, 1, f"one_{k}")
        cs.enforce_equal(faces + cs.mul(wild_here, ones, "wild_ones"), publics["count"], "count")

    def native(inp: dict[str, int], prm: dict[str, Any]) -> dict[str, int]:
        out = {"dice_commitment": nat.commit(inp["dice"], inp["dice_salt"]), "context": inp.get("context", 0)}
        if "face" in inp and "wild" in inp:
            out["count"] = count_face(unpack_dice(inp["dice"], dice), inp["face"], bool(inp["wild"]))
        return out

    def sample(rng: random.Random) -> dict[str, int]:
        held = rng.randint(1, dice)
        rolled = [rng.randint(1, FACES) if k < held else 0 for k in range(dice)]
        return {"dice": pack_dice(rolled), "dice_salt": rng.getrandbits(250), "face": rng.randint(1, FACES),
                "wild": rng.randint(0, 1), "context": rng.getrandbits(253)}

    return Statement.declare("dice.count.v1", (("dice", dice), ("faces", FACES)), declared, synth, native,
                             count_statement.__doc__ or "", owner="liars_dice", sample=sample, said=_count_said)


def _roll_said(v: Mapping[str, int], who: str) -> str:
    """What a ``dice.roll.v1`` proof discloses, for the review."""
    return (f"{who}'s committed dice are the roll its committed secret and every seat's entropy give; "
            f"the dice stay hidden")


def _count_said(v: Mapping[str, int], who: str) -> str:
    """What a ``dice.count.v1`` proof discloses, for the review: one number."""
    face, count = v.get("face", 0), v.get("count", 0)
    wild = " (ones wild)" if v.get("wild") and face != 1 else ""
    return (f"one number: {count} of {who}'s dice show {face}{wild}; which dice, and the others, "
            f"stay hidden")


#: the statements Liar's Dice registers (the registry adds them after the shared catalog)
STATEMENTS = (roll_statement(), count_statement())
ROLL_ID, COUNT_ID = STATEMENTS[0].key_id, STATEMENTS[1].key_id
