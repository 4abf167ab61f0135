"""The house-blind deal's shuffle argument (zkbluff.protocol.shuffle): an honest shuffle
verifies; a shuffler that drops, duplicates, replaces or swaps a card is refused by a named
check; a proof does not serve in another context; malformed messages are refused."""
from __future__ import annotations

import dataclasses

import pytest

from zkbluff.curve import get_backend
from zkbluff.errors import InvalidShuffle, MalformedInput
from zkbluff.protocol.elgamal import (
    G,
    Deck,
    ProofContext,
    SeatKey,
    card_lookup,
    initial_deck,
    joint_key,
    reencrypt,
)
from zkbluff.protocol.oblivious_deal import DealRandom
from zkbluff.protocol.shuffle import (
    ShuffleProof,
    ShuffleSecret,
    prove_shuffle,
    shuffle_deck,
    shuffle_with,
    verify_shuffle,
)

N = 52
CTX = ProofContext("match-1", 1, "house-blind:0:shuffle", "ab" * 32)


@pytest.fixture(scope="module")
def table():
    """Three seats' keys, the joint key, the public starting deck and one honest shuffle of it."""
    be = get_backend()
    keys = [SeatKey.generate(DealRandom(bytes([k]) * 32)) for k in range(3)]
    H = joint_key(be.g1_mul_many(G, [k.x for k in keys]))
    deck = initial_deck(N, H)
    out, proof, secret = shuffle_deck(deck, H, CTX, DealRandom(b"shuffler" * 4))
    return keys, H, deck, out, proof, secret


def decrypt_all(keys, deck: Deck) -> list:
    """Every card of ``deck`` with every seat's key (what the attack would make the deck hold)."""
    be = get_backend()
    x = sum(k.x for k in keys)
    lookup = card_lookup(len(deck))
    xA = be.g1_scale(list(deck.A), x)
    return [lookup.get(M) for M in be.g1_batch_add(list(deck.B), [be.g1_neg(P) for P in xA])]


def refused_by(check: str, *args) -> InvalidShuffle:
    with pytest.raises(InvalidShuffle) as err:
        verify_shuffle(*args)
    assert err.value.check == check and err.value.code == check
    assert err.value.seat == CTX.seat
    return err.value


def test_honest_shuffle_verifies_and_is_a_permutation_of_the_deck(table):
    keys, H, deck, out, proof, secret = table
    verify_shuffle(deck, out, proof, H, CTX)
    assert decrypt_all(keys, out) == list(secret.order)
    assert sorted(secret.order) == list(range(N)) and list(secret.order) != list(range(N))


def test_shuffle_that_duplicates_a_card_is_refused_by_the_product_check(table):
    keys, H, deck, _out, _proof, _secret = table
    order = [0] + list(range(1, N))
    order[7] = 0  # position 7 gets card 0 again: card 7 is gone
    secret = ShuffleSecret(tuple(order), tuple(range(1, N + 1)))
    out = reencrypt(deck, order, secret.rand, H)
    proof = prove_shuffle(deck, out, secret, H, CTX, DealRandom(b"cheat" * 8))
    assert decrypt_all(keys, out).count(0) == 2 and 7 not in decrypt_all(keys, out)  # the attack is real
    refused_by("shuffle.permutation-product", deck, out, proof, H, CTX)


def test_shuffle_that_drops_a_card_is_refused_by_the_shape_check(table):
    _keys, H, deck, out, proof, _secret = table
    dropped = Deck(out.A[:-1], out.B[:-1])
    refused_by("shuffle.shape", deck, dropped, proof, H, CTX)


def test_shuffle_that_replaces_a_card_by_one_it_chose_is_refused_by_the_reencryption_check(table):
    """The shuffler proves its honest permutation over a deck in which it planted a card."""
    keys, H, deck, out, _proof, secret = table
    ace = N - 1
    planted = reencrypt(initial_deck(N, H), [ace], [12345], H)  # a fresh encryption of the ace of spades
    A, B = list(out.A), list(out.B)
    A[3], B[3] = planted.A[0], planted.B[0]
    forged = Deck(tuple(A), tuple(B))
    assert decrypt_all(keys, forged).count(ace) == 2
    proof = prove_shuffle(deck, forged, secret, H, CTX)
    refused_by("shuffle.reencryption", deck, forged, proof, H, CTX)


def test_shuffle_that_swaps_two_cards_against_its_proven_permutation_is_refused_by_the_reencryption_check(table):
    _keys, H, deck, out, _proof, secret = table
    A, B = list(out.A), list(out.B)
    A[0], A[1], B[0], B[1] = A[1], A[0], B[1], B[0]
    swapped = Deck(tuple(A), tuple(B))
    refused_by("shuffle.reencryption", deck, swapped, prove_shuffle(deck, swapped, secret, H, CTX), H, CTX)


def test_shuffle_deck_changed_after_proving_is_refused(table):
    _keys, H, deck, out, proof, _secret = table
    A = list(out.A)
    A[0], A[1] = A[1], A[0]
    with pytest.raises(InvalidShuffle):
        verify_shuffle(deck, Deck(tuple(A), out.B), proof, H, CTX)


def test_shuffle_with_a_forged_permutation_commitment_is_refused_by_the_sum_check(table):
    _keys, H, deck, out, proof, _secret = table
    c = list(proof.c)
    c[0] = get_backend().g1_add(c[0], G)
    refused_by("shuffle.permutation-sum", deck, out, dataclasses.replace(proof, c=tuple(c)), H, CTX)


def test_shuffle_with_a_changed_response_is_refused_by_the_opening_check(table):
    _keys, H, deck, out, proof, _secret = table
    s_hat = list(proof.s_hat)
    s_hat[5] = (s_hat[5] + 1)
    refused_by("shuffle.permutation-opening", deck, out, dataclasses.replace(proof, s_hat=tuple(s_hat)), H, CTX)


@pytest.mark.parametrize("other", [
    dataclasses.replace(CTX, match_id="match-2"),
    dataclasses.replace(CTX, seat=2),
    dataclasses.replace(CTX, step="house-blind:1:shuffle"),
    dataclasses.replace(CTX, prev_hash="cd" * 32),
], ids=["match", "seat", "step", "prev"])
def test_shuffle_proof_does_not_serve_in_another_context(table, other):
    _keys, H, deck, out, proof, _secret = table
    with pytest.raises(InvalidShuffle):
        verify_shuffle(deck, out, proof, H, other)
    verify_shuffle(deck, out, proof, H, CTX)  # its twin: the context it was made for


def test_shuffle_under_another_joint_key_is_refused(table):
    _keys, H, deck, out, proof, _secret = table
    with pytest.raises(InvalidShuffle):
        verify_shuffle(deck, out, proof, get_backend().g1_add(H, G), CTX)


def test_shuffle_with_an_order_that_is_no_permutation_is_not_made():
    be = get_backend()
    H = be.g1_mul(G, 99)
    deck = initial_deck(4, H)
    with pytest.raises(ValueError):
        shuffle_with(deck, H, CTX, [0, 0, 1, 2])
    shuffle_with(deck, H, CTX, [3, 1, 0, 2])


def test_shuffle_json_round_trip_and_malformed_points(table):
    _keys, H, deck, out, proof, _secret = table
    obj = proof.to_json()
    again = ShuffleProof.from_json(obj, N)
    assert again == proof
    verify_shuffle(deck, Deck.from_json(out.to_json(), N), again, H, CTX)
    off_curve = dict(obj, t1=obj["t1"][:-2] + ("00" if obj["t1"][-2:] != "00" else "01"))
    with pytest.raises(MalformedInput):
        ShuffleProof.from_json(off_curve, N)
    with pytest.raises(MalformedInput):
        ShuffleProof.from_json(dict(obj, c=obj["c"][:-1]), N)
    with pytest.raises(MalformedInput):
        ShuffleProof.from_json(dict(obj, s1="f" * 64), N)  # a scalar >= r
    with pytest.raises(MalformedInput):
        Deck.from_json({"A": out.to_json()["A"], "B": ["00" * 64] * N}, N)  # the point at infinity
