"""SignatureBatch: a transcript's line signatures checked with one random linear combination
of pycryptodome's own (cofactored) equations, and one by one only to name the first bad
line. Its verdict is the one-by-one verdict: on valid sets, on each way a signature can be
wrong, on signatures with a small-order component, and on random mixes (hypothesis)."""
import hashlib
import importlib
import random

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.errors import MalformedInput, TranscriptError
from zkbluff.protocol.signing import (
    ED25519_ORDER, InvalidSignature, SignatureBatch, SigningKey, check_line_signature, line_message, sign_line,
)

from signature_batch_helpers import first_bad_batched, first_bad_one_by_one

signing = importlib.import_module("zkbluff.protocol.signing")
KEYS = [SigningKey.from_secret_hex(f"{i:02x}" * 32) for i in range(1, 4)]


def line(n: int, key: SigningKey, **data) -> dict:
    return sign_line(key, {"n": n, "prev": f"{n:064x}", "seat": n % 2, "action": "play", "data": data})


def lines(count: int = 9) -> list[tuple[dict, SigningKey]]:
    return [(line(n, KEYS[n % len(KEYS)], count=n), KEYS[n % len(KEYS)]) for n in range(2, 2 + count)]


one_by_one, batched = first_bad_one_by_one, first_bad_batched


def with_sig(event: dict, sig: bytes) -> dict:
    return {**event, "sig": sig.hex()}


def tampered(event: dict, key: SigningKey, how: str) -> dict:
    sig = bytes.fromhex(event["sig"])
    R, s = sig[:32], int.from_bytes(sig[32:], "little")
    if how == "message":
        return {**event, "data": {**event["data"], "count": -1}}
    if how == "s+1":
        return with_sig(event, R + ((s + 1) % ED25519_ORDER).to_bytes(32, "little"))
    if how == "s+L":  # the same s mod L, not reduced: refused by RFC 8032 (malleability)
        return with_sig(event, R + (s + ED25519_ORDER).to_bytes(32, "little"))
    if how == "R other":  # another valid point
        return with_sig(event, bytes.fromhex(KEYS[2].public_hex) + sig[32:])
    if how == "R no point":
        return with_sig(event, (2).to_bytes(32, "little") + sig[32:])
    if how == "other key":
        return sign_line(KEYS[(KEYS.index(key) + 1) % len(KEYS)], event)
    raise AssertionError(how)


HOWS = ["message", "s+1", "s+L", "R other", "R no point", "other key"]


def test_valid_signatures_by_several_keys_pass_together():
    items = lines()
    assert one_by_one(items) is None and batched(items) is None


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("where", [0, 4, 8])
def test_each_wrong_signature_names_its_line_like_one_by_one(how, where):
    items = lines()
    event, key = items[where]
    items[where] = (tampered(event, key, how), key)
    assert batched(items) == one_by_one(items) == event["n"]


def test_the_first_of_several_bad_lines_is_named_with_the_single_message():
    items = lines()
    for where, how in ((6, "s+1"), (3, "message")):
        event, key = items[where]
        items[where] = (tampered(event, key, how), key)
    batch = SignatureBatch()
    for event, key in items:
        batch.add_line(event, key.public_hex, "seat 1 (b)", event["n"])
    with pytest.raises(TranscriptError) as exc:
        batch.verify()
    single = pytest.raises(InvalidSignature, check_line_signature, items[3][0], items[3][1].public_hex, "seat 1 (b)")
    assert (exc.value.line, exc.value.reason) == (items[3][0]["n"], str(single.value))


def test_malformed_signatures_are_refused_when_added():
    batch = SignatureBatch()
    event = line(2, KEYS[0], count=1)
    with pytest.raises(InvalidSignature, match="not signed"):
        batch.add_line({k: v for k, v in event.items() if k != "sig"}, KEYS[0].public_hex, "p", 2)
    with pytest.raises(MalformedInput, match="128 lowercase hex digits"):
        batch.add_line({**event, "sig": event["sig"].upper()}, KEYS[0].public_hex, "p", 2)
    with pytest.raises(MalformedInput, match="public key of p"):
        batch.add_line(event, "00" * 31, "p", 2)
    assert len(batch) == 0
    batch.add_line(event, KEYS[0].public_hex, "p", 2)  # the positive twin
    assert len(batch) == 1


def _small_order_R_signature(key: SigningKey, event: dict, torsion: bytes, s_shift: int = 0) -> dict:
    """A signature whose R has a small-order component T (R = rB + T): the cofactored
    equation holds for it (the signer made it on purpose), the cofactorless one does not."""
    from Crypto.PublicKey import ECC
    from Crypto.PublicKey._point import EccPoint

    a = int(key._key.d)
    r = 123456789
    T = EccPoint._decode_eddsa(torsion, "Ed25519")
    R = key._key._curve.G * r + T
    R_bytes = ECC.construct(curve="Ed25519", point_x=int(R.x), point_y=int(R.y)).export_key(format="raw")
    body = {k: v for k, v in event.items() if k != "sig"}
    k = int.from_bytes(hashlib.sha512(R_bytes + bytes.fromhex(key.public_hex) + line_message(body)).digest(),
                       "little") % ED25519_ORDER
    s = (r + k * a + s_shift) % ED25519_ORDER
    return {**body, "sig": (R_bytes + s.to_bytes(32, "little")).hex()}


# (0, -1): order 2; the point with y = 0 above it: order 4
ORDER_2 = (2 ** 255 - 19 - 1).to_bytes(32, "little")


def test_a_small_order_component_is_judged_as_one_by_one(monkeypatch):
    # odd weights (seeded): an even weight would hide the order-2 component from the batch
    # itself, and the test would then not tell [8] from any other multiplier at the end
    draws = random.Random(7)
    monkeypatch.setattr(signing.secrets, "randbits", lambda bits: draws.getrandbits(bits) | 1)
    items = lines(4)
    event, key = items[1]
    items[1] = (_small_order_R_signature(key, event, ORDER_2), key)
    assert one_by_one(items) is None and batched(items) is None  # cofactored: both accept
    items[1] = (_small_order_R_signature(key, event, ORDER_2, s_shift=1), key)
    assert one_by_one(items) == batched(items) == event["n"]  # and both refuse it wrong


def test_the_weights_are_fresh_128_bit_draws_per_signature(monkeypatch):
    asked = []
    real = signing.secrets.randbits
    monkeypatch.setattr(signing.secrets, "randbits", lambda n: asked.append(n) or real(n))
    assert batched(lines(5)) is None
    assert asked == [128] * 5


def test_two_errors_that_cancel_under_one_weight_fail_under_weights_per_signature(monkeypatch):
    """s + 1 on one line and s - 1 on another by the same key: their errors cancel when all
    weights are equal (forced here), and the batch passes; drawn per signature, it fails."""
    items = lines(6)
    (e1, k1), (e2, k2) = items[0], items[3]
    assert k1 is k2
    for where, shift in ((0, 1), (3, -1)):
        event, key = items[where]
        sig = bytes.fromhex(event["sig"])
        s = (int.from_bytes(sig[32:], "little") + shift) % ED25519_ORDER
        items[where] = (with_sig(event, sig[:32] + s.to_bytes(32, "little")), key)
    assert batched(items) == one_by_one(items) == e1["n"]
    # the hazard this guards against: with one weight for all, the two errors cancel and the
    # forged pair passes (so an implementation that shared a weight would fail the line above)
    monkeypatch.setattr(signing.secrets, "randbits", lambda n: 7)
    assert batched(items) is None


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from([None, *HOWS])), min_size=1, max_size=7))
def test_the_batch_verdict_is_the_one_by_one_verdict(plan):
    items = []
    for n, (k, how) in enumerate(plan, start=2):
        event = line(n, KEYS[k], count=n)
        items.append((event if how is None else tampered(event, KEYS[k], how), KEYS[k]))
    assert batched(items) == one_by_one(items)


def test_a_batch_that_fails_while_each_signature_passes_fails_closed(monkeypatch):
    """A fault (the sum refused, every signature alone accepted) is never a pass: the
    batch raises, naming its last line, with the signature code."""
    monkeypatch.setattr(signing, "_batch_equation_holds", lambda items: False)
    batch = SignatureBatch()
    for event, key in lines(3):
        batch.add_line(event, key.public_hex, "p", event["n"])
    with pytest.raises(TranscriptError, match="do not verify together, though each does") as caught:
        batch.verify()
    assert caught.value.line == 4 and caught.value.code == "line.signature"


def test_a_batch_whose_sum_holds_passes(monkeypatch):
    monkeypatch.setattr(signing, "_batch_equation_holds", lambda items: True)
    batch = SignatureBatch()
    for event, key in lines(3):
        batch.add_line(event, key.public_hex, "p", event["n"])
    batch.verify()
    assert len(batch) == 0
