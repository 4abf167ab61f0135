"""card.deal.v2: the deal derived from the committed entropies inside the proof.

The order gadgets against their twins, the statement against its native twin, the
mutation audit, witnesses tampered in one named place (each refused by the constraints,
not by the witness generator), a Groth16 round trip on mcl, and deal frequencies.
"""
import math
import random

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.circuit import ConstraintSystem, LC, build, check
from zkbluff.circuit.audit import under_constrained_wires, unconstrained_public_inputs
from zkbluff.errors import InvalidProof, UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.gadgets import native
from zkbluff.gadgets.native import commit
from zkbluff.gadgets.order import mixed_radix_digits, pick_remaining
from zkbluff.groth16 import prove, setup_insecure_seeded_for_tests, verify
from zkbluff.statements import all_statements, get_statement
from zkbluff.statements.deal import deal_native, deal_plan, deal_v2_inputs, deck_order

from order_gadget_helpers import digits_circuit

DEALS = {k: s for k, s in all_statements().items() if s.name == "card.deal.v2"}
DEAL77 = get_statement("card.deal.v2@deck=52,hands=7-7,board=0,entropies=2")
DEAL22 = get_statement("card.deal.v2@deck=52,hands=2-2,board=5,entropies=2")
CHEAT6 = get_statement("card.deal.v2@deck=52,hands=9-9-9-9-8-8,board=0,entropies=7")

fr = st.integers(0, r - 1)


def inputs_for(stmt, seed, round_no=3, context=11):
    rng = random.Random(seed)
    prm = stmt.param_dict
    return deal_v2_inputs([(rng.randrange(r), rng.randrange(r)) for _ in range(prm["entropies"])],
                          [rng.randrange(r) for _ in prm["hands"]], round_no, context)


def entropies_of(inp, n):
    return [inp[f"entropy{i}"] for i in range(n)]


def wire(system, name):
    return system.wire_names.index(name)


# ---------------------------------------------------------------- the order gadgets

@settings(max_examples=40)
@given(fr, st.lists(st.integers(1, 60), min_size=1, max_size=12))
def test_mixed_radix_digits_agree_with_twin(h, radices):
    try:
        digits = native.mixed_radix_digits(h, radices)
    except ValueError:  # the refused top of the field: the gadget refuses it too
        with pytest.raises(UnsatisfiedConstraint):
            build(digits_circuit(radices), {"h": h, **{f"j{d}": 0 for d in range(len(radices))}})
        return
    n_total = math.prod(radices)
    assert sum(j * math.prod(radices[:d]) for d, j in enumerate(digits)) == h % n_total
    assert all(0 <= j < m for j, m in zip(digits, radices))
    system, witness = build(digits_circuit(radices), {"h": h, **{f"j{d}": j for d, j in enumerate(digits)}})
    check(system, witness)
    assert under_constrained_wires(system, witness) == []


def test_mixed_radix_digits_count_pinned():
    radices = [52 - d for d in range(14)]
    cs = ConstraintSystem()
    mixed_radix_digits(cs, cs.public("h"), radices)
    q_bits = ((r - 1) // math.prod(radices) - 1).bit_length()
    assert q_bits == 177  # r ~ 2^253.6 over N = 52!/38! ~ 2^76.5
    # per digit 6 bits and 5 "<=" rows (the top bit of m - 1 folds); the quotient's 177 bits
    # and 176 rows; one recompose row
    assert len(cs.constraints) == 14 * (6 + 5) + 177 + 176 + 1


def test_mixed_radix_refused_top_of_the_field():
    """h >= Q N has no unique decomposition: the twin and the gadget both refuse it."""
    radices = [52, 51, 50]
    n_total = math.prod(radices)
    top = ((r - 1) // n_total) * n_total
    assert native.mixed_radix_digits(top - 1, radices) == [51, 50, 49]
    with pytest.raises(ValueError, match="refused"):
        native.mixed_radix_digits(top, radices)
    with pytest.raises(UnsatisfiedConstraint, match="quotient"):
        build(digits_circuit(radices), {"h": top, "j0": 0, "j1": 0, "j2": 0})


def test_mixed_radix_carry_alias_refused():
    """Digit 0 raised by its radix and digit 1 lowered by one recompose to the same h:
    the range row of digit 0 refuses the alias (else a dealer could pick a drawn card)."""
    radices = [5, 7]
    h = 2 + 5 * 3
    system, witness = build(digits_circuit(radices), {"h": h, "j0": 2, "j1": 3})
    forged = list(witness)
    forged[1 + 1] = 7  # public j0
    forged[1 + 2] = 2  # public j1
    for i, b in enumerate(native.to_bits(7, 3)):
        forged[wire(system, f"digits/digit_0/bit_{i}")] = b
    for i, b in enumerate(native.to_bits(2, 3)):
        forged[wire(system, f"digits/digit_1/bit_{i}")] = b
    with pytest.raises(UnsatisfiedConstraint, match="digits/digit_0/le"):
        check(system, forged)


def pick_circuit(n):
    def synth(cs, inp):
        j = cs.public("j", inp and inp["j"])
        card = cs.public("card", inp and inp["card"])
        rem = [cs.public(f"rem_{c}", inp and (inp["mask"] >> c) & 1) for c in range(n)]  # the deck is an input
        for c, x in enumerate(rem):
            cs.enforce(x, x - 1, 0, f"rem_{c}/boolean")
        onehot = pick_remaining(cs, rem, j)
        acc = LC.constant(0)
        for c, s in enumerate(onehot):
            acc = acc + s * c
        cs.enforce_equal(acc, card, "card")
    return synth


@settings(max_examples=40)
@given(st.integers(1, (1 << 12) - 1), st.data())
def test_pick_remaining_agrees_with_twin(mask, data):
    n = 12
    j = data.draw(st.integers(0, bin(mask).count("1") - 1))
    card = native.pick_remaining(mask, j)
    assert mask >> card & 1 and bin(mask & ((1 << card) - 1)).count("1") == j
    system, witness = build(pick_circuit(n), {"j": j, "card": card, "mask": mask})
    check(system, witness)
    assert system.n_constraints == n + n + 1  # n picking rows, the test's n booleans and 1 output
    assert under_constrained_wires(system, witness) == []


def test_pick_remaining_refuses_an_index_past_the_end():
    with pytest.raises(ValueError):
        native.pick_remaining(0b1011, 3)
    with pytest.raises(UnsatisfiedConstraint, match="pick/card_"):
        build(pick_circuit(6), {"j": 3, "card": 0, "mask": 0b1011})


def test_pick_remaining_refuses_a_drawn_card():
    """Steps moved to a card that is no longer in the deck: its row refuses it."""
    mask = 0b110110
    system, witness = build(pick_circuit(6), {"j": 1, "card": 2, "mask": mask})
    forged = list(witness)
    for c in range(1, 6):
        forged[wire(system, f"pick/step_{c}")] = int(0 < c)  # select card 0, which was drawn
    with pytest.raises(UnsatisfiedConstraint, match="pick/card_0"):
        check(system, forged)


# ---------------------------------------------------------------- the statement

def test_pinned_counts_and_target():
    # the 52-card deals (the Bluffers deck's are pinned with every statement in test_statements.py)
    counts = {k: s.build()[0].n_constraints for k, s in DEALS.items() if s.param_dict["deck"] == 52}
    assert counts == {
        "card.deal.v2@deck=52,hands=5-5,board=0,entropies=2": 2490,
        "card.deal.v2@deck=52,hands=7-7,board=0,entropies=2": 2700,
        "card.deal.v2@deck=52,hands=2-2,board=5,entropies=2": 2439,
        "card.deal.v2@deck=52,hands=18-17-17,board=0,entropies=4": 5339,
        "card.deal.v2@deck=52,hands=13-13-13-13,board=0,entropies=5": 6051,
        "card.deal.v2@deck=52,hands=11-11-10-10-10,board=0,entropies=6": 6721,
        "card.deal.v2@deck=52,hands=9-9-9-9-8-8,board=0,entropies=7": 7334,
    }
    assert counts["card.deal.v2@deck=52,hands=7-7,board=0,entropies=2"] <= 25_000


def test_plan_draws_and_chunks():
    assert deal_plan(52, (7, 7)) == ([7, 7], False, [list(range(14))])
    parts, remainder, chunks = deal_plan(52, (9, 9, 9, 9, 8, 8))
    assert remainder and sum(len(c) for c in chunks) == 44  # the last hand is what remains
    for chunk in chunks:
        assert math.prod(52 - d for d in chunk) < 1 << 160
    assert deal_plan(52, (2, 2), 5) == ([2, 2, 5], False, [list(range(9))])


@pytest.mark.parametrize("key", [DEAL77.key_id, DEAL22.key_id, CHEAT6.key_id])  # test_statements audits all
def test_audit_every_wire_pinned_and_every_public_bound(key):
    stmt = DEALS[key]
    system, witness = stmt.build(inputs_for(stmt, key))
    check(system, witness)
    assert under_constrained_wires(system, witness) == []
    assert unconstrained_public_inputs(system) == []
    assert stmt.build()[0].fingerprint() == system.fingerprint()


@settings(max_examples=8)
@given(st.sampled_from(sorted(DEALS)), st.integers(0, 2 ** 32), st.integers(0, 2 ** 20))
def test_circuit_agrees_with_the_native_twin(key, seed, round_no):
    stmt = DEALS[key]
    prm = stmt.param_dict
    inp = inputs_for(stmt, seed, round_no)
    system, witness = stmt.build(inp)
    pub = dict(zip(stmt.public, witness[1:1 + system.n_public]))
    masks, board = deal_native(entropies_of(inp, prm["entropies"]), round_no, prm["hands"], prm["board"],
                               prm["deck"])
    assert pub["board"] == board and pub["round"] == round_no
    for i, m in enumerate(masks):
        assert pub[f"hand{i}_commitment"] == commit(m, inp[f"hand{i}_salt"])
    for i in range(prm["entropies"]):
        assert pub[f"entropy{i}_commitment"] == commit(inp[f"entropy{i}"], inp[f"entropy{i}_salt"])
    # the twin deals what the rules need: sizes, no card twice, the whole deck when it should
    assert [bin(m).count("1") for m in masks] == list(prm["hands"])
    assert bin(board).count("1") == prm["board"]
    union = board
    for m in masks:
        assert union & m == 0
        union |= m
    assert union < 1 << prm["deck"]
    if sum(prm["hands"]) + prm["board"] == prm["deck"]:
        assert union == (1 << prm["deck"]) - 1


@settings(max_examples=20)
@given(st.lists(fr, min_size=2, max_size=2), st.integers(0, 1000))
def test_native_twin_matches_an_independent_shuffle(ents, round_no):
    """Re-derive the order from its definition with a plain list (no masks)."""
    seed = native.poseidon(ents)
    h = native.poseidon([seed, round_no, 0])
    n_total = math.prod(52 - d for d in range(14))
    assert h // n_total < (r - 1) // n_total
    rest, deck, order = h % n_total, list(range(52)), []
    for d in range(14):
        rest, j = divmod(rest, 52 - d)
        order.append(deck.pop(j))
    assert deck_order(ents, round_no, (7, 7)) == order
    masks, _ = deal_native(ents, round_no, (7, 7))
    assert masks == [sum(1 << c for c in order[:7]), sum(1 << c for c in order[7:])]


def test_rounds_and_seeds_deal_differently():
    ents = [11, 22]
    assert deal_native(ents, 0, (7, 7)) != deal_native(ents, 1, (7, 7))
    assert deal_native(ents, 0, (7, 7)) != deal_native([22, 11], 0, (7, 7))
    assert deal_native(ents, 0, (7, 7)) == deal_native(list(ents), 0, (7, 7))


# ---------------------------------------------------------------- tampering, one named place each

def base77():
    return inputs_for(DEAL77, "tamper", round_no=5)


def test_honest_deal_builds():
    system, witness = DEAL77.build(base77())
    check(system, witness)


def test_dealer_proving_a_hand_not_derived_from_the_seed_is_rejected():
    """The dealer publishes a hand commitment of its choosing for seat 1."""
    inp = base77()
    masks, _ = deal_native(entropies_of(inp, 2), 5, (7, 7))
    chosen = sum(1 << c for c in (12, 25, 38, 51, 11, 24, 37))  # four aces and three kings
    assert chosen != masks[1]
    with pytest.raises(UnsatisfiedConstraint, match="hand1/opens"):
        DEAL77.build({**inp, "hand1_commitment": commit(chosen, inp["hand1_salt"])})


def test_dealer_redrawing_its_entropy_after_the_commitment_is_rejected():
    """Grinding: the dealer's commitment is fixed first; another entropy does not open it."""
    inp = base77()
    committed = commit(inp["entropy0"], inp["entropy0_salt"])
    with pytest.raises(UnsatisfiedConstraint, match="entropy0/opens"):
        DEAL77.build({**inp, "entropy0": inp["entropy0"] + 1, "entropy0_commitment": committed})


def test_swapped_entropies_are_rejected():
    inp = base77()
    swapped = {**inp, "entropy0": inp["entropy1"], "entropy0_salt": inp["entropy1_salt"],
               "entropy1": inp["entropy0"], "entropy1_salt": inp["entropy0_salt"]}
    publics = dict(zip(DEAL77.public, DEAL77.public_values(inp)))
    with pytest.raises(UnsatisfiedConstraint, match="entropy0/opens"):
        DEAL77.build({**swapped, "entropy0_commitment": publics["entropy0_commitment"],
                      "entropy1_commitment": publics["entropy1_commitment"]})
    # swapping the commitments too changes the seed, so the published hands no longer open
    with pytest.raises(UnsatisfiedConstraint, match="hand0/opens"):
        DEAL77.build({**swapped, "hand0_commitment": publics["hand0_commitment"],
                      "hand1_commitment": publics["hand1_commitment"]})


def test_wrong_salts_are_rejected():
    inp = base77()
    publics = dict(zip(DEAL77.public, DEAL77.public_values(inp)))
    with pytest.raises(UnsatisfiedConstraint, match="hand0/opens"):
        DEAL77.build({**inp, "hand0_salt": inp["hand0_salt"] + 1, "hand0_commitment": publics["hand0_commitment"]})
    with pytest.raises(UnsatisfiedConstraint, match="entropy1/opens"):
        DEAL77.build({**inp, "entropy1_salt": inp["entropy1_salt"] + 1,
                      "entropy1_commitment": publics["entropy1_commitment"]})


def test_wrong_round_is_rejected():
    inp = base77()
    publics = dict(zip(DEAL77.public, DEAL77.public_values(inp)))
    with pytest.raises(UnsatisfiedConstraint, match="hand0/opens"):
        DEAL77.build({**inp, "round": 6, "hand0_commitment": publics["hand0_commitment"],
                      "hand1_commitment": publics["hand1_commitment"]})


def test_wrong_board_is_rejected():
    inp = inputs_for(DEAL22, "board")
    _, board = deal_native(entropies_of(inp, 2), 3, (2, 2), 5)
    other = next(c for c in range(52) if not board >> c & 1)
    low = board & -board
    with pytest.raises(UnsatisfiedConstraint, match="board/opens"):
        DEAL22.build({**inp, "board": (board & ~low) | (1 << other)})


def steps_for(card):
    return {c: int(card < c) for c in range(1, 52)}


def drawn_card(system, witness, d):
    steps = [witness[wire(system, f"draw_{d}/step_{c}")] for c in range(1, 52)] + [1]
    return steps.index(1)


def test_a_card_in_two_hands_is_rejected():
    """Draw 7 (seat 1's first card) forged to take seat 0's first card again."""
    system, witness = DEAL77.build(base77())
    first = drawn_card(system, witness, 0)
    forged = list(witness)
    for c, v in steps_for(first).items():
        forged[wire(system, f"draw_7/step_{c}")] = v
    with pytest.raises(UnsatisfiedConstraint, match=f"draw_7/card_{first}'"):
        check(system, forged)


def test_a_draw_that_skips_the_seeds_card_is_rejected():
    """Draw 3 forged to take another card still in the deck (not the j-th one)."""
    system, witness = DEAL77.build(base77())
    taken = {drawn_card(system, witness, d) for d in range(14)}
    other = next(c for c in range(52) if c not in taken)
    forged = list(witness)
    for c, v in steps_for(other).items():
        forged[wire(system, f"draw_3/step_{c}")] = v
    with pytest.raises(UnsatisfiedConstraint, match=f"draw_3/card_{other}'"):
        check(system, forged)


def test_a_forged_digit_is_rejected():
    """The dealer changes draw 0's digit (a different first card): the stream's digits no
    longer recompose the seed's hash."""
    system, witness = DEAL77.build(base77())
    forged = list(witness)
    i = wire(system, "stream_0/digits/digit_0/bit_0")
    forged[i] = 1 - forged[i]
    with pytest.raises(UnsatisfiedConstraint, match="stream_0/digits/recompose"):
        check(system, forged)


def test_the_remainder_hand_in_a_full_deck_deal():
    """Cheat's last hand is every card not drawn; a commitment to anything else is refused."""
    inp = inputs_for(CHEAT6, "cheat")
    masks, _ = deal_native(entropies_of(inp, 7), 3, (9, 9, 9, 9, 8, 8))
    assert masks[5] == ((1 << 52) - 1) & ~sum(masks[:5])
    moved = masks[5] ^ (masks[5] & -masks[5]) | (masks[4] & -masks[4])
    with pytest.raises(UnsatisfiedConstraint, match="hand5/opens"):
        CHEAT6.build({**inp, "hand5_commitment": commit(moved, inp["hand5_salt"])})


# ---------------------------------------------------------------- Groth16 on mcl

def test_groth16_round_trip_on_mcl(mcl):
    system, witness = DEAL77.build(base77())
    pk = setup_insecure_seeded_for_tests(system, "deal.v2", backend=mcl)
    proof = prove(pk, witness, backend=mcl)
    public = witness[1:1 + system.n_public]
    verify(pk.vk, public, proof, backend=mcl)
    for name in ("entropy1_commitment", "hand0_commitment", "round", "board"):
        changed = list(public)
        changed[DEAL77.public.index(name)] = (changed[DEAL77.public.index(name)] + 1) % r
        with pytest.raises(InvalidProof):
            verify(pk.vk, changed, proof, backend=mcl)


# ---------------------------------------------------------------- deal frequencies

def chi_square_p(observed, expected, k=None) -> float:
    """Upper-tail p-value of Pearson's statistic with ``k`` degrees of freedom (default
    cells - 1), by the Wilson-Hilferty normal approximation."""
    stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected))
    k = k or len(observed) - 1
    z = ((stat / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return 0.5 * math.erfc(z / math.sqrt(2))


def hypergeometric(k, K=13, N=52, n=7):
    return math.comb(K, k) * math.comb(N - K, n - k) / math.comb(N, n)


def frequencies(sampler, n_deals=2500):
    first, hearts, seat_of = [0] * 52, [0] * 8, [[0] * 3 for _ in range(52)]
    rng = random.Random(20261130)
    for _ in range(n_deals):
        ents = [rng.randrange(r), rng.randrange(r)]
        order = sampler(ents)
        first[order[0]] += 1
        hand0 = order[:7]
        hearts[sum(1 for c in hand0 if c // 13 == 2)] += 1
        for c in range(52):
            seat_of[c][0 if c in hand0 else 1 if c in order[7:14] else 2] += 1
    return first, hearts, seat_of


def frequency_p_values(sampler, n_deals=2500):
    first, hearts, seat_of = frequencies(sampler, n_deals)
    p_first = chi_square_p(first, [n_deals / 52] * 52)
    # hand composition: hearts in seat 0's 7 cards is hypergeometric (0..7, 5+ pooled)
    exp = [n_deals * hypergeometric(k) for k in range(8)]
    p_hearts = chi_square_p(hearts[:5] + [sum(hearts[5:])], exp[:5] + [sum(exp[5:])])
    # where each card goes: seat 0, seat 1, undealt with 7/52, 7/52, 38/52 (a 52 x 3 table
    # whose row and column sums are fixed by construction: (52 - 1)(3 - 1) degrees of freedom)
    flat = [x for row in seat_of for x in row]
    p_seats = chi_square_p(flat, [n_deals * f for _ in range(52) for f in (7 / 52, 7 / 52, 38 / 52)], 51 * 2)
    return p_first, p_hearts, p_seats


def test_deal_frequencies_chi_square():
    """First card uniform over 52; hearts in a 7-card hand hypergeometric; each card's
    destination 7/52 : 7/52 : 38/52. Fixed seeds: deterministic, not flaky."""
    p_values = frequency_p_values(lambda ents: deck_order(ents, 0, (7, 7)))
    assert min(p_values) > 1e-4, p_values


def test_chi_square_catches_a_biased_deal():
    """The twin of the test: a deal that reduces 64 hash bits modulo the deck size
    (without the exact mixed radix) and favours low cards is caught."""
    def biased(ents):
        h = native.poseidon([native.poseidon(ents), 0, 0])
        deck, order = list(range(52)), []
        for d in range(14):
            j = min((h >> (6 * d)) % 64, 51 - d)  # 64 values into 52 - d slots: the top piles up
            order.append(deck.pop(j))
        return order
    p_values = frequency_p_values(biased, 600)
    assert min(p_values) < 1e-6, p_values


# ---------------------------------------------------------------- snarkjs reads it

@pytest.mark.interop
def test_snarkjs_checks_a_deal_witness_and_refuses_a_forged_one(snarkjs, tmp_path):
    from nodetools import run
    from zkbluff.circuit.formats import write_r1cs, write_wtns

    system, witness = DEAL77.build(base77())
    write_r1cs(tmp_path / "deal.r1cs", system)
    write_wtns(tmp_path / "deal.wtns", witness)
    ok = run(snarkjs + ["wtns", "check", str(tmp_path / "deal.r1cs"), str(tmp_path / "deal.wtns")], check=False)
    assert ok.returncode == 0 and "WITNESS IS CORRECT" in ok.stdout + ok.stderr
    first = drawn_card(system, witness, 0)
    forged = list(witness)
    for c, v in steps_for(first).items():  # a card in two hands
        forged[wire(system, f"draw_7/step_{c}")] = v
    write_wtns(tmp_path / "forged.wtns", forged)
    bad = run(snarkjs + ["wtns", "check", str(tmp_path / "deal.r1cs"), str(tmp_path / "forged.wtns")], check=False)
    assert bad.returncode != 0 or "WITNESS IS CORRECT" not in bad.stdout + bad.stderr
