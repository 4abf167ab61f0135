"""Liar's Dice's statements, the cheating prover's side: a seat cannot commit dice other than
the ones its secret and the joint entropy give (nor its secret another), cannot prove a
count other than its dice's, and a die it lost counts for nothing. The generic statement
tests (tests/statements/test_statements.py) adopt both statements from the folder; these
are the game's own attacks, each with its honest twin."""
from __future__ import annotations

import random

import pytest

from zkbluff.errors import MalformedInput, UnsatisfiedConstraint
from zkbluff.gadgets import native as nat
from zkbluff.games.liars_dice.statements import (
    COUNT_ID, ROLL_ID, STATEMENTS, count_face, derive_dice, pack_dice, unpack_dice,
)
from zkbluff.statements import get_statement

ROLL, COUNT = get_statement(ROLL_ID), get_statement(COUNT_ID)


def roll_inputs(rng: random.Random, n_dice: int = 5) -> dict:
    return {"secret": rng.getrandbits(250), "secret_salt": rng.getrandbits(250), "dice_salt": rng.getrandbits(250),
            "entropy": rng.getrandbits(250), "n_dice": n_dice, "context": 7}


def test_both_statements_are_the_folders_and_registered():
    assert {s.key_id for s in STATEMENTS} == {ROLL_ID, COUNT_ID}
    assert all(s.owner == "liars_dice" for s in STATEMENTS)
    assert ROLL.public == ("secret_commitment", "entropy", "n_dice", "dice_commitment", "context")


def test_the_dice_are_derived_from_the_secret_and_the_entropy_and_lost_dice_are_zero():
    rng = random.Random(1)
    inp = roll_inputs(rng, 3)
    dice = derive_dice(inp["secret"], inp["entropy"], 3)
    assert len(dice) == 5 and all(1 <= d <= 6 for d in dice[:3]) and dice[3:] == (0, 0)
    assert derive_dice(inp["secret"], inp["entropy"], 5)[:3] == dice[:3]
    assert derive_dice(inp["secret"], inp["entropy"] + 1, 5) != derive_dice(inp["secret"], inp["entropy"], 5)
    publics = ROLL.complete(inp)
    assert publics["dice_commitment"] == nat.commit(pack_dice(dice), inp["dice_salt"])
    ROLL.witness(inp)  # the honest twin proves


def test_every_face_comes_up_about_equally_often():
    rng = random.Random(2)
    seen = [0] * 7
    for _ in range(600):
        for d in derive_dice(rng.getrandbits(250), rng.getrandbits(250), 5):
            seen[d] += 1
    assert seen[0] == 0 and all(400 < x < 600 for x in seen[1:])  # 3000 dice, 500 expected a face


def test_a_seat_cannot_commit_dice_of_its_choice():
    rng = random.Random(3)
    inp = roll_inputs(rng)
    honest = derive_dice(inp["secret"], inp["entropy"], 5)
    chosen = (6, 6, 6, 6, 6) if honest != (6, 6, 6, 6, 6) else (1, 1, 1, 1, 1)
    with pytest.raises(UnsatisfiedConstraint, match="dice_opens"):
        ROLL.witness({**inp, "dice_commitment": nat.commit(pack_dice(chosen), inp["dice_salt"])})


def test_a_seat_cannot_roll_with_a_secret_other_than_its_committed_one():
    rng = random.Random(4)
    inp = roll_inputs(rng)
    committed = nat.commit(inp["secret"], inp["secret_salt"])
    with pytest.raises(UnsatisfiedConstraint, match="secret_opens"):
        ROLL.witness({**inp, "secret": inp["secret"] + 1, "secret_commitment": committed})


def test_a_seat_cannot_keep_a_lost_die():
    rng = random.Random(5)
    inp = roll_inputs(rng, 2)
    full = derive_dice(inp["secret"], inp["entropy"], 5)
    with pytest.raises(UnsatisfiedConstraint, match="dice_opens"):
        ROLL.witness({**inp, "dice_commitment": nat.commit(pack_dice(full), inp["dice_salt"])})
    with pytest.raises(MalformedInput):
        ROLL.witness({**inp, "n_dice": 8})  # n_dice is a number below 2^3


def test_a_count_is_exactly_the_dice_showing_the_face_ones_wild_or_not():
    dice = (1, 3, 3, 5, 0)
    base = {"dice": pack_dice(dice), "dice_salt": 99, "context": 1}
    for face in range(1, 7):
        for wild in (0, 1):
            inp = {**base, "face": face, "wild": wild}
            assert COUNT.complete(inp)["count"] == count_face(dice, face, bool(wild))
            COUNT.witness(inp)  # the honest twin
            lie = count_face(dice, face, bool(wild)) + 1
            with pytest.raises(UnsatisfiedConstraint, match="count"):
                COUNT.witness({**inp, "count": lie})


def test_a_count_cannot_use_dice_other_than_the_committed_ones():
    committed = nat.commit(pack_dice((3, 3, 3, 2, 2)), 5)
    with pytest.raises(UnsatisfiedConstraint, match="dice_opens"):
        COUNT.witness({"dice": pack_dice((2, 2, 2, 2, 2)), "dice_salt": 5, "face": 2, "wild": 0, "count": 5,
                       "dice_commitment": committed, "context": 1})


def test_pack_and_unpack_are_inverse_and_refuse_what_is_no_die():
    assert unpack_dice(pack_dice((6, 1, 2, 0, 5))) == (6, 1, 2, 0, 5)
    for bad in ((7,), (-1,), (1, 2, 3, 4, 5, 6), (True,)):
        with pytest.raises(MalformedInput):
            pack_dice(bad)
