"""The oblivious-deal statements (card.permutation.v1, card.chosen_hand.v1) and the
permutation gadget: native twins, pinned counts, the circuit audit, tampering in one
named place rejected by the constraints, and a Groth16 round trip on mcl."""
import random

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.circuit import build, check
from zkbluff.circuit.audit import unconstrained_public_inputs, under_constrained_wires, unsatisfied_after
from zkbluff.errors import InvalidProof, MalformedInput, UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.gadgets import native
from zkbluff.gadgets.permutation import (
    challenge_constraint_count, enforce_permutation_of_range, grand_product, permutation_challenge,
)
from zkbluff.groth16 import prove, verify
from zkbluff.statements import get_statement
from zkbluff.statements.oblivious import chosen_hand_inputs, permutation_inputs

from oblivious_helpers import seeded_keys

PERM = get_statement("card.permutation.v1@deck=52")
HAND = {k: get_statement(f"card.chosen_hand.v1@deck=52,hand={k}") for k in (7, 5, 2)}


# ---------------------------------------------------------------- the gadget

def run(fn, values: list[int]):
    """Build fn(cs, wires) over private wires holding ``values``; the result is returned
    as the one public input. Returns (system, witness)."""
    def stmt(cs, inp):
        out = cs.public("out", None if inp is None else inp["out"])
        ws = [cs.private_unchecked(f"v{i}", None if inp is None else inp[f"v{i}"]) for i in range(len(values))]
        cs.enforce_equal(fn(cs, ws), out, "output")

    from zkbluff.circuit import ConstraintSystem

    cs = ConstraintSystem(with_values=True)
    cs.public("out", 0)
    out = fn(cs, [cs.private_unchecked(f"v{i}", v) for i, v in enumerate(values)])
    inp = {f"v{i}": v for i, v in enumerate(values)}
    inp["out"] = out.value if hasattr(out, "value") else out
    return build(stmt, inp)


@settings(max_examples=30)
@given(st.lists(st.integers(0, r - 1), min_size=1, max_size=8), st.integers(0, r - 1))
def test_grand_product_matches_native(values, challenge):
    system, witness = run(lambda cs, ws: grand_product(cs, ws, challenge), values)
    assert witness[1] == native.grand_product(values, challenge)
    assert system.n_constraints == len(values) - 1 + 1  # the products, then the output equality


@settings(max_examples=30)
@given(st.lists(st.integers(0, 63), min_size=1, max_size=60))
def test_permutation_challenge_matches_native_and_counts(values):
    system, witness = run(lambda cs, ws: permutation_challenge(cs, ws, 6), values)
    assert witness[1] == native.permutation_challenge(values, 6)
    assert system.n_constraints == challenge_constraint_count(len(values), 6) + 1
    assert under_constrained_wires(system, witness) == []


def test_permutation_challenge_refuses_values_out_of_range():
    with pytest.raises(UnsatisfiedConstraint, match="challenge/range_1/recompose"):
        run(lambda cs, ws: permutation_challenge(cs, ws, 6), [3, 64, 5])
    with pytest.raises(ValueError):
        native.permutation_challenge([3, 64, 5], 6)
    # packing is injective: values that differ give different challenges
    assert native.permutation_challenge([1, 0], 6) != native.permutation_challenge([0, 1], 6)


def perm_check(values: list[int]):
    def fn(cs, ws):
        gamma = permutation_challenge(cs, ws, 4)
        enforce_permutation_of_range(cs, ws, gamma)
        return 0
    return run(fn, values)


@settings(max_examples=40)
@given(st.integers(2, 12).flatmap(lambda n: st.tuples(st.permutations(list(range(n))),
                                                      st.lists(st.integers(0, 15), min_size=n, max_size=n))))
def test_enforce_permutation_agrees_with_native(case):
    perm, other = case
    system, witness = perm_check(list(perm))
    check(system, witness)
    assert native.is_permutation_of_range(list(perm))
    if native.is_permutation_of_range(other):
        perm_check(other)
    else:
        with pytest.raises(UnsatisfiedConstraint, match="permutation/equal"):
            perm_check(other)


def test_permutation_gadget_count_and_audit():
    system, witness = perm_check([3, 0, 2, 1, 4])
    # range checks (5 x 5) + Poseidon(1 pack) + 2n - 2 + the output equality
    assert system.n_constraints == 25 + 213 + 8 + 1
    assert under_constrained_wires(system, witness) == []


# ---------------------------------------------------------------- the statements

PINNED = {PERM.key_id: 13239, HAND[7].key_id: 3349, HAND[5].key_id: 2551, HAND[2].key_id: 1354}


def test_pinned_counts_and_targets():
    counts = {s.key_id: s.build()[0].n_constraints for s in (PERM, *HAND.values())}
    assert counts == PINNED
    assert counts[PERM.key_id] <= 16000
    assert all(counts[HAND[k].key_id] <= 5000 for k in HAND)
    # the budget: 52 commitments and their equalities, the challenge, the grand product, the context
    assert counts[PERM.key_id] == 52 * (240 + 1) + challenge_constraint_count(52, 6) + (2 * 52 - 2) + 1
    assert PERM.build()[0].n_public == 53 and HAND[7].build()[0].n_public == 56


def deck(seed=0):
    rng = random.Random(seed)
    cards = list(range(52))
    rng.shuffle(cards)
    salts = [rng.getrandbits(250) for _ in cards]
    return cards, salts, [native.commit(c, s) for c, s in zip(cards, salts)]


CARDS, SALTS, COMS = deck()
MINE = [3, 17, 22, 40, 41, 8, 50]       # the chooser's fetched positions
DEALERS = [0, 1, 2, 30, 31, 32, 33]     # the dealer's public positions
BOARD_FREE = 0


def opening(q):
    return (q, CARDS[q], SALTS[q])


def chooser_inputs(openings=None, **kw):
    base = dict(commitments=COMS, openings=openings or [opening(q) for q in MINE], hand_salt=77,
                excluded=sum(1 << q for q in DEALERS), required=0, context=5)
    base.update(kw)
    return chosen_hand_inputs(**base)


def dealer_inputs(openings=None, **kw):
    base = dict(commitments=COMS, openings=openings or [opening(q) for q in DEALERS], hand_salt=78,
                excluded=0, required=sum(1 << q for q in DEALERS), context=6)
    base.update(kw)
    return chosen_hand_inputs(**base)


def test_valid_inputs_and_natives():
    system, witness = PERM.build(permutation_inputs(CARDS, SALTS, 9))
    assert witness[1:54] == [*COMS, 9] == PERM.public_values(permutation_inputs(CARDS, SALTS, 9))
    for inp, mask_of in ((chooser_inputs(), MINE), (dealer_inputs(), DEALERS)):
        system, witness = HAND[7].build(inp)
        pub = dict(zip(HAND[7].public, witness[1:57]))
        assert pub["hand_commitment"] == native.commit(sum(1 << CARDS[q] for q in mask_of), inp["hand_salt"])
        assert witness[1:57] == HAND[7].public_values(inp)
    with pytest.raises(MalformedInput, match="commitments at positions not opened must be given"):
        HAND[7].public_values({k: v for k, v in chooser_inputs().items() if k != "commitment0"})


@pytest.mark.parametrize("stmt, inputs", [(PERM, lambda: permutation_inputs(CARDS, SALTS, 9)),
                                          (HAND[7], chooser_inputs), (HAND[7], dealer_inputs),
                                          (HAND[2], lambda: chooser_inputs([opening(3), opening(50)]))],
                         ids=["permutation", "chooser-7", "dealer-7", "chooser-2"])
def test_circuit_audit(stmt, inputs):
    system, witness = stmt.build(inputs())
    check(system, witness)
    assert under_constrained_wires(system, witness) == []
    assert unconstrained_public_inputs(system) == []
    assert system.fingerprint() == stmt.build()[0].fingerprint()


def test_a_single_flipped_bit_names_its_constraint():
    """The constraints, not the witness generator, reject: a valid witness with the
    chooser's position bit moved to a dealer position fails a named constraint."""
    system, witness = HAND[7].build(chooser_inputs())
    wire = system.wire_names.index(f"slot0/at_{MINE[0]}")
    assert unsatisfied_after(system, witness, wire, 0) == "slot0/one_position"
    wire = system.wire_names.index("slot0/is_0")
    assert unsatisfied_after(system, witness, wire, 1) is not None


# ---------------------------------------------------------------- tampering, one named place each

def perm_with(cards):
    return lambda: permutation_inputs(cards, SALTS, 9)


def dup_card():
    cards = list(CARDS)
    cards[5] = cards[6]  # one card twice, another missing; the commitments are computed from these
    return cards


def swap_in(i, q, base=MINE):
    ps = list(base)
    ps[i] = q
    return [opening(x) for x in ps]


TAMPERS = {
    # the permutation statement
    "permutation: a duplicate card": (PERM, perm_with(dup_card()), "permutation/equal"),
    "permutation: a card past the deck (52)": (PERM, perm_with([52 if c == 0 else c for c in CARDS]),
                                               "permutation/equal"),
    "permutation: a card too large to pack (64)": (PERM, perm_with([64 if c == 0 else c for c in CARDS]),
                                                   "challenge/range_"),
    "permutation: a commitment that the opening does not open": (
        PERM, lambda: {**permutation_inputs(CARDS, SALTS, 9), "commitment7": COMS[8]}, "position7/opens"),
    # the chosen-hand statement, as the chooser
    "chooser: a position assigned to the dealer": (HAND[7], lambda: chooser_inputs(swap_in(2, DEALERS[3])),
                                                   f"not_excluded/bit_{DEALERS[3]}"),
    "chooser: a position not fetched (a guessed salt)": (
        HAND[7], lambda: chooser_inputs([(10, CARDS[10], SALTS[10] + 1)] + [opening(q) for q in MINE[1:]]),
        "slot0/opens"),
    "chooser: the wrong card at a fetched position": (
        HAND[7], lambda: chooser_inputs([(MINE[0], CARDS[MINE[1]], SALTS[MINE[0]])] + [opening(q) for q in MINE[1:]]),
        "slot0/opens"),
    "chooser: two equal positions": (HAND[7], lambda: chooser_inputs(swap_in(1, MINE[0])),
                                     f"distinct_positions/position_{MINE[0]}"),
    "chooser: a position outside the deck": (
        HAND[7], lambda: chooser_inputs([(52, CARDS[3], SALTS[3])] + [opening(q) for q in MINE[1:]]),
        "slot0/one_position"),
    "chooser: a card outside the deck": (
        HAND[7], lambda: chooser_inputs([(MINE[0], 52, SALTS[MINE[0]])] + [opening(q) for q in MINE[1:]]),
        "slot0/one_card"),
    "chooser: a hand commitment to another hand": (
        HAND[7], lambda: {**chooser_inputs(), "hand_commitment": native.commit(1, 77)}, "hand_opens"),
    # the chosen-hand statement, as the dealer
    "dealer: a hand from a position not its own": (HAND[7], lambda: dealer_inputs(swap_in(0, 20, DEALERS)),
                                                   f"required/bit_{DEALERS[0]}"),
}


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_tampered_witness_is_rejected_by_the_named_constraint(name):
    stmt, inputs, constraint = TAMPERS[name]
    with pytest.raises(UnsatisfiedConstraint) as info:
        stmt.build(inputs())
    assert info.value.constraint.startswith(constraint), info.value.constraint


def test_the_untampered_twins_pass():
    """Positive twins of the tamper table: the same builders with nothing changed."""
    for stmt, inputs in ((PERM, perm_with(list(CARDS))), (HAND[7], chooser_inputs), (HAND[7], dealer_inputs),
                         (HAND[7], lambda: chooser_inputs(swap_in(2, 20)))):
        system, witness = stmt.build(inputs())
        check(system, witness)


# ---------------------------------------------------------------- Groth16 on mcl

@pytest.mark.parametrize("stmt, inputs", [(PERM, lambda: permutation_inputs(CARDS, SALTS, 9)),
                                          (HAND[7], chooser_inputs), (HAND[7], dealer_inputs)],
                         ids=["permutation", "chooser-7", "dealer-7"])
def test_groth16_round_trip(mcl, stmt, inputs):
    pk = seeded_keys(stmt.key_id)
    system, witness = stmt.build(inputs())
    public = witness[1: 1 + system.n_public]
    proof = prove(pk, witness, backend=mcl)
    verify(pk.vk, public, proof, backend=mcl)
    for name in ("commitment0", "commitment51", "context", *(("excluded", "required", "hand_commitment")
                                                              if stmt is not PERM else ())):
        changed = list(public)
        k = stmt.public.index(name)
        changed[k] = (changed[k] + 1) % r
        with pytest.raises(InvalidProof):
            verify(pk.vk, changed, proof, backend=mcl)


def test_prover_refuses_a_duplicate_card(mcl):
    """The dealer's own proof fails for a non-permutation: the prover refuses it."""
    pk = seeded_keys(PERM.key_id)
    good, witness = PERM.build(permutation_inputs(CARDS, SALTS, 9))
    wire = good.wire_names.index("card5")
    witness = list(witness)
    witness[wire] = CARDS[6]
    with pytest.raises(UnsatisfiedConstraint):
        prove(pk, witness, backend=mcl)
