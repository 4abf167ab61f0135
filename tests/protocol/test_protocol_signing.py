"""Ed25519 line signatures: the right party's signature verifies, anyone else's does not."""
import pytest

from zkbluff.errors import InvalidProof, MalformedInput
from zkbluff.protocol.signing import (
    InvalidSignature, SigningKey, check_line_signature, check_public_key, sign_line, verify_signature,
)

EVENT = {"n": 3, "prev": "ab" * 32, "seat": 1, "action": "accept", "data": {}}


def test_a_signed_line_verifies_under_its_partys_key_only():
    alice, bob = SigningKey.generate(), SigningKey.generate()
    signed = sign_line(alice, EVENT)
    check_line_signature(signed, alice.public_hex, "seat 1")
    with pytest.raises(InvalidSignature, match="not signed by seat 1"):
        check_line_signature(signed, bob.public_hex, "seat 1")
    assert issubclass(InvalidSignature, InvalidProof) and InvalidSignature("x").exit_code == 1


@pytest.mark.parametrize("field, value", [("n", 4), ("prev", "cd" * 32), ("seat", 0), ("action", "challenge"),
                                          ("data", {"x": 1})])
def test_every_field_of_the_line_is_signed(field, value):
    key = SigningKey.generate()
    signed = sign_line(key, EVENT)
    check_line_signature(signed, key.public_hex, "seat 1")
    with pytest.raises(InvalidSignature):
        check_line_signature({**signed, field: value}, key.public_hex, "seat 1")


def test_unsigned_and_malformed_signatures():
    key = SigningKey.generate()
    with pytest.raises(InvalidSignature, match="not signed"):
        check_line_signature(EVENT, key.public_hex, "seat 1")
    for bad in ("zz" * 64, "00" * 63, 5, None):
        with pytest.raises(MalformedInput):
            check_line_signature({**EVENT, "sig": bad}, key.public_hex, "seat 1")
    with pytest.raises(InvalidSignature):
        verify_signature(key.public_hex, b"m", "00" * 64, "seat 1")


def test_keys_round_trip_and_public_key_checks():
    key = SigningKey.generate()
    again = SigningKey.from_secret_hex(key.secret_hex())
    assert again.public_hex == key.public_hex and key.public_hex not in repr(key)[30:]
    assert key.secret_hex() not in repr(key)
    check_line_signature(sign_line(again, EVENT), key.public_hex, "seat 1")
    assert check_public_key(key.public_hex) == key.public_hex
    for bad in ("00" * 31, "xy" * 32, 7):
        with pytest.raises(MalformedInput):
            check_public_key(bad)
    with pytest.raises(MalformedInput):
        SigningKey.from_secret_hex("00" * 31)
