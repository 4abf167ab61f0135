"""1-out-of-n oblivious transfer (zkbluff.protocol.ot): correctness at every position,
one position per transfer, every binding of the key derivation, malformed messages
refused with nothing delivered, and the sender's view independent of the choice."""
import random

import pytest

from zkbluff.curve.codec import g1_to_bytes
from zkbluff.errors import DealerFault, InvalidComplaint, MalformedInput
from zkbluff.field import p, r
from oblivious_helpers import chi2_critical, independence_chi2
from zkbluff.protocol.ot import (
    OTReceiver, OTSender, TAG_BYTES, _decrypt, derive_key, hkdf_sha256, open_revealed,
)

PAYLOAD = 33


def payloads(n, seed=0):
    rng = random.Random(seed)
    return [bytes(rng.getrandbits(8) for _ in range(PAYLOAD)) for _ in range(n)]


def run(be, n, choices, session="s", sender_session=None, pay=None):
    pay = pay or payloads(n)
    S = OTSender(sender_session or session, n, len(choices), PAYLOAD, be)
    R = OTReceiver(session, n, choices, PAYLOAD, be)
    setup = S.setup()
    request = R.request(setup)
    response = S.respond(request, pay)
    return S, R, setup, request, response, pay


# ---------------------------------------------------------------- key derivation

def test_hkdf_is_rfc5869():
    # RFC 5869, test case 1
    okm = hkdf_sha256(bytes([0x0b] * 22), bytes(range(13)), bytes(range(0xf0, 0xfa)), 42)
    assert okm.hex() == ("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
                         "34007208d5b887185865")
    from Crypto.Hash import SHA256
    from Crypto.Protocol.KDF import HKDF

    for length in (1, 32, 33, 65, 200):
        assert hkdf_sha256(b"ikm", b"salt", b"info", length) == HKDF(b"ikm", length, b"salt", SHA256,
                                                                      context=b"info")
    assert hkdf_sha256(b"ikm", b"salt", b"info", 42) != hkdf_sha256(b"ikm", b"salt", b"inf0", 42)


def test_key_binds_session_transfer_position_and_both_points():
    A, B, K = g1_to_bytes((1, 2)), bytes(64), (1, 2)
    base = derive_key("s", 0, 0, A, B, K, PAYLOAD)
    others = [derive_key("t", 0, 0, A, B, K, PAYLOAD), derive_key("s", 1, 0, A, B, K, PAYLOAD),
              derive_key("s", 0, 1, A, B, K, PAYLOAD), derive_key("s", 0, 0, B, A, K, PAYLOAD),
              derive_key("s", 0, 0, A, A, K, PAYLOAD), derive_key("s", 0, 0, A, B, None, PAYLOAD)]
    assert all(o[0] != base[0] and o[1] != base[1] for o in others)
    assert derive_key("s", 0, 0, A, B, K, PAYLOAD) == base


# ---------------------------------------------------------------- correctness

def test_every_position_of_a_small_n(backend):
    n = 5
    _, R, *_, response, pay = run(backend, n, list(range(n)))
    assert R.receive(response) == pay
    _, R, *_, response, pay = run(backend, n, [4, 4, 0])  # the same position in several transfers
    assert R.receive(response) == [pay[4], pay[4], pay[0]]


def test_n52_every_position(mcl):
    n = 52
    choices = list(range(n))
    random.Random(1).shuffle(choices)
    _, R, *_, response, pay = run(mcl, n, choices)
    assert R.receive(response) == [pay[c] for c in choices]


def test_n52_a_hand(mcl):
    choices = [0, 51, 13, 7, 26, 39, 50]
    _, R, *_, response, pay = run(mcl, 52, choices)
    assert R.receive(response) == [pay[c] for c in choices]


def test_backends_agree_on_the_wire_format(mcl, pyecc):
    """A pyecc receiver and an mcl sender (and the reverse) complete a transfer."""
    pay = payloads(6)
    for be_s, be_r in ((mcl, pyecc), (pyecc, mcl)):
        S = OTSender("s", 6, 2, PAYLOAD, be_s)
        R = OTReceiver("s", 6, [5, 2], PAYLOAD, be_r)
        assert R.receive(S.respond(R.request(S.setup()), pay)) == [pay[5], pay[2]]


# ---------------------------------------------------------------- one position per transfer

def test_receiver_cannot_decrypt_a_second_position(mcl):
    n, c = 52, 17
    S, R, setup, request, response, pay = run(mcl, n, [c])
    A = bytes.fromhex(setup["A"])
    B = bytes.fromhex(request["B"][0])
    b = int(R.reveal(0)["b"])
    A_pt = (int.from_bytes(A[:32], "big"), int.from_bytes(A[32:], "big"))
    K = mcl.g1_mul(A_pt, b)  # the one Diffie-Hellman value the receiver can compute
    blobs = [bytes.fromhex(x) for x in response["ciphertexts"][0]]
    # positive twin: K opens position c
    assert _decrypt(*derive_key("s", 0, c, A, B, K, PAYLOAD), blobs[c]) == pay[c]
    for j in range(n):
        if j == c:
            continue
        # the same K under position j's label, and K shifted by the known multiples of A
        shifted = mcl.g1_add(K, mcl.g1_mul(A_pt, (c - j) % r))
        for guess in (K, shifted):
            assert _decrypt(*derive_key("s", 0, j, A, B, guess, PAYLOAD), blobs[j]) is None


def test_a_tampered_chosen_ciphertext_is_a_dealer_fault_and_others_go_unnoticed(mcl):
    S, R, setup, request, response, pay = run(mcl, 8, [3, 6])
    other = [list(row) for row in response["ciphertexts"]]
    other[0][5] = "00" * (PAYLOAD + TAG_BYTES)  # a position the receiver did not choose
    assert R.receive({"ciphertexts": other}) == [pay[3], pay[6]]
    bad = [list(row) for row in response["ciphertexts"]]
    blob = bytearray(bytes.fromhex(bad[1][6]))
    blob[0] ^= 1
    bad[1][6] = blob.hex()
    with pytest.raises(DealerFault, match="transfer 1") as info:
        R.receive({"ciphertexts": bad})
    assert info.value.transfer == 1


@pytest.mark.parametrize("change", ["session", "transfer_order", "position_shift"])
def test_every_binding_breaks_decryption(mcl, change):
    n = 6
    if change == "session":
        _, R, *_, response, _ = run(mcl, n, [1, 2], session="s", sender_session="other")
    else:
        _, R, *_, response, _ = run(mcl, n, [1, 2])
        rows = response["ciphertexts"]
        if change == "transfer_order":
            response = {"ciphertexts": [rows[1], rows[0]]}
        else:
            response = {"ciphertexts": [row[1:] + row[:1] for row in rows]}
    with pytest.raises(DealerFault):
        R.receive(response)


# ---------------------------------------------------------------- malformed messages

OFF_CURVE = (1).to_bytes(32, "big") + (3).to_bytes(32, "big")
NOT_BELOW_P = p.to_bytes(32, "big") + (2).to_bytes(32, "big")
INFINITY = bytes(64)

BAD_POINTS = {
    "off the curve": (OFF_CURVE.hex(), "not on the curve"),
    "infinity": (INFINITY.hex(), "infinity"),
    "coordinate not below p": (NOT_BELOW_P.hex(), "not below p"),
    "short": (OFF_CURVE.hex()[:-2], "expected 128 hex digits"),
    "long": (OFF_CURVE.hex() + "00", "expected 128 hex digits"),
    "not hex": ("zz" * 64, "not lowercase hex"),
    "upper-case hex": (NOT_BELOW_P.hex().upper(), "not lowercase hex"),
    "hex with spaces": ("00 " * 42 + "00", "not lowercase hex"),
    "not a string": (12, "expected 128 hex digits"),
}


@pytest.mark.parametrize("case", sorted(BAD_POINTS))
def test_a_malformed_A_is_refused_before_use(mcl, case):
    x, message = BAD_POINTS[case]
    R = OTReceiver("s", 5, [1], PAYLOAD, mcl)
    with pytest.raises(MalformedInput, match=message):
        R.request({"A": x})
    with pytest.raises(MalformedInput, match="no request"):  # nothing was set up
        R.receive({"ciphertexts": [["00"] * 5]})


@pytest.mark.parametrize("case", sorted(BAD_POINTS))
def test_a_malformed_B_is_refused_and_nothing_is_sent(mcl, case):
    x, message = BAD_POINTS[case]
    S = OTSender("s", 5, 2, PAYLOAD, mcl)
    R = OTReceiver("s", 5, [1, 3], PAYLOAD, mcl)
    good = R.request(S.setup())
    with pytest.raises(MalformedInput, match=message):
        S.respond({"B": [good["B"][0], x]}, payloads(5))
    assert not S.answered
    pay = payloads(5)
    assert R.receive(S.respond(good, pay)) == [pay[1], pay[3]]  # the session is intact


def test_a_wrong_count_of_requests_is_refused(mcl):
    S = OTSender("s", 5, 2, PAYLOAD, mcl)
    R = OTReceiver("s", 5, [1, 3, 4], PAYLOAD, mcl)
    req = R.request(S.setup())
    with pytest.raises(MalformedInput, match="expected 2 entries, got 3"):
        S.respond(req, payloads(5))
    with pytest.raises(MalformedInput, match="expected 2 entries, got 1"):
        S.respond({"B": req["B"][:1]}, payloads(5))
    with pytest.raises(MalformedInput, match="missing field 'B'"):
        S.respond({}, payloads(5))
    with pytest.raises(MalformedInput, match="JSON object"):
        S.respond([req["B"]], payloads(5))
    assert not S.answered


def test_a_second_request_is_refused(mcl):
    S = OTSender("s", 5, 1, PAYLOAD, mcl)
    R = OTReceiver("s", 5, [2], PAYLOAD, mcl)
    req = R.request(S.setup())
    S.respond(req, payloads(5))
    with pytest.raises(MalformedInput, match="already answered"):
        S.respond(req, payloads(5))


@pytest.mark.parametrize("case", ["rows", "columns", "length", "hex", "type"])
def test_a_malformed_response_is_refused_and_nothing_delivered(mcl, case):
    _, R, _, _, response, pay = run(mcl, 5, [0, 4])
    rows = [list(row) for row in response["ciphertexts"]]
    bad, message = {
        "rows": (rows[:1], "expected 2 entries, got 1"),
        "columns": ([rows[0], rows[1][:4]], r"ciphertexts\[1\]: expected 5 entries, got 4"),
        "length": ([rows[0], rows[1][:4] + [rows[1][4] + "00"]], r"\[1\]\[4\]: expected 98 hex digits"),
        "hex": ([rows[0], ["zz" * 49] * 5], "not lowercase hex"),
        "type": ("nope", "expected a list of 2"),
    }[case]
    with pytest.raises(MalformedInput, match=message):
        R.receive({"ciphertexts": bad})
    assert R.receive(response) == [pay[0], pay[4]]  # a well-formed response still works


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        OTReceiver("s", 5, [5], PAYLOAD)
    with pytest.raises(ValueError):
        OTSender("s", 5, 6, PAYLOAD)
    with pytest.raises(MalformedInput, match="session"):
        OTSender("", 5, 1, PAYLOAD)
    S = OTSender("s", 5, 1, PAYLOAD)
    R = OTReceiver("s", 5, [0], PAYLOAD)
    with pytest.raises(ValueError, match="payloads"):
        S.respond(R.request(S.setup()), payloads(4))


# ---------------------------------------------------------------- reveals (complaints)

def test_a_reveal_lets_a_third_party_open_exactly_that_transfer(mcl):
    S, R, setup, request, response, pay = run(mcl, 52, [9, 40])
    assert open_revealed("s", 52, PAYLOAD, setup, request, response, R.reveal(1), mcl) == pay[40]
    lie = {**R.reveal(1), "choice": 41}
    with pytest.raises(InvalidComplaint, match="does not open request"):
        open_revealed("s", 52, PAYLOAD, setup, request, response, lie, mcl)
    wrong_b = {**R.reveal(1), "b": R.reveal(0)["b"]}
    with pytest.raises(InvalidComplaint):
        open_revealed("s", 52, PAYLOAD, setup, request, response, wrong_b, mcl)
    rows = [list(row) for row in response["ciphertexts"]]
    rows[1][40] = "11" * (PAYLOAD + TAG_BYTES)
    with pytest.raises(DealerFault, match="does not decrypt"):
        open_revealed("s", 52, PAYLOAD, setup, request, {"ciphertexts": rows}, R.reveal(1), mcl)
    with pytest.raises(MalformedInput):
        open_revealed("s", 52, PAYLOAD, setup, request, response, {"transfer": 1, "choice": 40, "b": "x"}, mcl)


# ---------------------------------------------------------------- the sender's view

def sender_view_pairs(be, randbelow, receivers=50, n=52, buckets=4):
    """(choice, bucket of the sender's view) over many receivers: each receiver makes n
    transfers, one per position in a shuffled order; the view is B_i's x-coordinate mod
    ``buckets``."""
    S = OTSender("view", n, n, PAYLOAD, be)
    setup = S.setup()
    rng = random.Random(7)
    pairs = []
    for _ in range(receivers):
        choices = list(range(n))
        rng.shuffle(choices)
        R = OTReceiver("view", n, choices, PAYLOAD, be, randbelow=randbelow)
        for c, x in zip(choices, R.request(setup)["B"]):
            pairs.append((c, int(x[:64], 16) % buckets))
    return pairs


def test_the_senders_view_is_independent_of_the_choice(mcl):
    import secrets

    pairs = sender_view_pairs(mcl, secrets.randbelow)
    stat = independence_chi2(pairs, 52, 4)
    assert stat < chi2_critical(51 * 3), stat


def test_the_independence_test_catches_a_leaky_receiver(mcl):
    """Negative twin: a receiver whose blinding b comes from a tiny range leaks its choice."""
    rng = random.Random(3)
    pairs = sender_view_pairs(mcl, lambda n: rng.randrange(1, 3))
    assert independence_chi2(pairs, 52, 4) > chi2_critical(51 * 3)
