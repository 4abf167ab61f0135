"""Where each card lands in the house-blind deal: chi-square over many real shuffles (the
argument made and checked, the deck decrypted), with biased twins caught. Seeded (every
party's randomness is a DealRandom stream), critical values at p about 1e-6."""
from __future__ import annotations

import pytest

from oblivious_helpers import chi2_critical, independence_chi2
from zkbluff.curve import get_backend
from zkbluff.protocol.elgamal import G, ProofContext, SeatKey, card_lookup, initial_deck, joint_key
from zkbluff.protocol.oblivious_deal import DealRandom
from zkbluff.protocol.shuffle import random_permutation, shuffle_with, verify_shuffle

N = 6
DEALS = 300


def sattolo(n, rng):
    """Fisher–Yates with the classic off-by-one (j < i): only n-cycles, no card stays put."""
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rng.randbelow(i)
        order[i], order[j] = order[j], order[i]
    return order


def top_card_stays(n, rng):
    """A shuffle of every card but the top one."""
    return [0] + [1 + j for j in random_permutation(n - 1, rng)]


def landings(shufflers, seed: bytes, deals: int = DEALS):
    """(card, position) of every card after each deal by two seats shuffling in turn with
    ``shufflers`` (permutation samplers), every shuffle proven and verified."""
    be = get_backend()
    keys = [SeatKey.generate(DealRandom(seed + bytes([k]))) for k in range(2)]
    H = joint_key(be.g1_mul_many(G, [k.x for k in keys]))
    x = sum(k.x for k in keys) % (1 << 256)
    lookup = card_lookup(N)
    rng = DealRandom(seed)
    pairs = []
    for d in range(deals):
        deck = initial_deck(N, H)
        for seat, sampler in enumerate(shufflers):
            ctx = ProofContext("chi2", seat, f"deal-{d}", "")
            out, proof, _ = shuffle_with(deck, H, ctx, sampler(N, rng), rng)
            verify_shuffle(deck, out, proof, H, ctx)
            deck = out
        xA = be.g1_scale(list(deck.A), x)
        cards = [lookup[M] for M in be.g1_batch_add(list(deck.B), [be.g1_neg(P) for P in xA])]
        pairs += [(card, pos) for pos, card in enumerate(cards)]
    return pairs


CRITICAL = chi2_critical((N - 1) ** 2)


@pytest.mark.slow
def test_honest_deal_lands_every_card_uniformly():
    assert independence_chi2(landings([random_permutation, random_permutation], b"fair"), N, N) < CRITICAL


@pytest.mark.slow
def test_one_honest_shuffler_keeps_the_deck_uniform_after_a_biased_one():
    pairs = landings([top_card_stays, random_permutation], b"one-honest")
    assert independence_chi2(pairs, N, N) < CRITICAL


@pytest.mark.slow
def test_biased_twin_every_seat_keeps_the_top_card_is_caught():
    pairs = landings([top_card_stays, top_card_stays], b"biased")
    assert independence_chi2(pairs, N, N) > CRITICAL


@pytest.mark.slow
def test_biased_twin_an_off_by_one_shuffle_is_caught_on_its_own_step():
    """Sattolo's bug shows on one seat's step (its output decrypted): no card stays put.
    (Two such seats in turn land nearly uniformly: only a seat's own step shows it.)"""
    pairs = landings([sattolo, lambda n, rng: list(range(n))], b"sattolo")
    assert independence_chi2(pairs, N, N) > CRITICAL
    fair = landings([random_permutation, lambda n, rng: list(range(n))], b"sattolo")
    assert independence_chi2(fair, N, N) < CRITICAL
