"""A match ceremony refuses seat keys of small order: under the identity key the signature
R = identity, s = 0 verifies for every message, so a contribution signed that way would
prove nobody made it."""
import pytest

from zkbluff.ceremony.match import SeatKey, start_match_ceremony, verify_signature
from zkbluff.errors import MalformedInput
from zkbluff.circuit import build
from sample_circuits import cube

IDENTITY_KEY = bytes([1]) + bytes(31)          # the neutral point (x = 0, y = 1)
ORDER_2_KEY = ((2 ** 255 - 19) - 1).to_bytes(32, "little")  # y = -1, x = 0: the point of order 2
FORGED = IDENTITY_KEY + bytes(32)              # R = the neutral point, s = 0


@pytest.mark.parametrize("key", [IDENTITY_KEY, ORDER_2_KEY], ids=["identity", "order-2"])
def test_a_small_order_key_verifies_no_signature(key):
    assert not verify_signature(key, b"any contribution", FORGED)


def test_a_real_key_still_verifies_its_own_signature():
    seat = SeatKey.generate()
    assert verify_signature(seat.public, b"a contribution", seat.sign(b"a contribution"))
    assert not verify_signature(seat.public, b"another contribution", seat.sign(b"a contribution"))


@pytest.mark.parametrize("key", [IDENTITY_KEY, ORDER_2_KEY], ids=["identity", "order-2"])
def test_a_ceremony_refuses_a_small_order_seat_key(key):
    with pytest.raises(MalformedInput, match=r"seat 1: not a usable Ed25519 public key \(a point of small order"):
        start_match_ceremony("m", [SeatKey.generate().public, key], {"cube": build(cube, {"x": 3, "out": 35})[0]})


def test_a_ceremony_takes_real_seat_keys():
    mc = start_match_ceremony("m", [SeatKey.generate().public, SeatKey.generate().public], {"cube": build(cube, {"x": 3, "out": 35})[0]})
    assert len(mc.seat_keys) == 2
