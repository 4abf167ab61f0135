"""protocol/signing.py checks that a mutant could remove with the signing tests still
passing (issue 21): the domain prefix, what the signature covers, the key checks, whole
messages."""
import re

import pytest
from Crypto.PublicKey import ECC
from Crypto.Signature import eddsa

from zkbluff.errors import MalformedInput
from zkbluff.protocol.signing import (
    LINE_DOMAIN, PUBLIC_KEY_BYTES, SIGNATURE_BYTES, InvalidSignature, SigningKey, check_line_signature,
    check_public_key, line_message, sign_line, verify_signature,
)
from zkbluff.protocol.transcript import canonical

EVENT = {"n": 3, "prev": "ab" * 32, "seat": 1, "action": "accept", "data": {"name": "Zoë"}}


def exactly(text):
    return "^" + re.escape(text) + "$"


def test_the_signed_message_is_the_domain_and_the_canonical_line_without_sig():
    assert LINE_DOMAIN == "zkbluff:line:v1:" and PUBLIC_KEY_BYTES == 32 and SIGNATURE_BYTES == 64
    assert line_message(EVENT) == ("zkbluff:line:v1:" + canonical(EVENT)).encode("utf-8")
    assert line_message({**EVENT, "sig": "00"}) == line_message(EVENT)
    key = SigningKey.generate()
    signed = sign_line(key, EVENT)
    raw = bytes.fromhex(signed["sig"])
    pub = eddsa.import_public_key(bytes.fromhex(key.public_hex))
    eddsa.new(pub, "rfc8032").verify(line_message(EVENT), raw)  # an independent check of the bytes
    with pytest.raises(ValueError):  # not the bare canonical line: the domain is signed too
        eddsa.new(pub, "rfc8032").verify(canonical(EVENT).encode(), raw)


def test_sign_line_replaces_an_old_signature_and_keeps_the_event():
    key = SigningKey.generate()
    once = sign_line(key, EVENT)
    again = sign_line(key, {**once, "data": {"x": 1}})
    check_line_signature(again, key.public_hex, "seat 1")
    assert {k: v for k, v in again.items() if k != "sig"} == {**EVENT, "data": {"x": 1}}
    assert "sig" not in EVENT  # the input is not changed


def test_a_signature_over_another_line_does_not_verify():
    key = SigningKey.generate()
    other = sign_line(key, {**EVENT, "n": 4})
    with pytest.raises(InvalidSignature, match=exactly(
            f"the line is not signed by seat 1 (the signature does not verify under seat 1's public key "
            f"{key.public_hex[:16]}…)")):
        check_line_signature({**EVENT, "sig": other["sig"]}, key.public_hex, "seat 1")


def test_the_messages():
    key = SigningKey.generate()
    with pytest.raises(InvalidSignature, match=exactly("the line is not signed (expected a signature of the dealer)")):
        check_line_signature(EVENT, key.public_hex, "the dealer")
    with pytest.raises(MalformedInput, match=exactly("signature of seat 1: expected 128 hex digits, got 'zz'")):
        check_line_signature({**EVENT, "sig": "zz"}, key.public_hex, "seat 1")
    with pytest.raises(MalformedInput, match="^signature of seat 1: expected 128 hex digits, got 'zzzz"):
        check_line_signature({**EVENT, "sig": "zz" * 64}, key.public_hex, "seat 1")  # the right length, not hex
    with pytest.raises(MalformedInput, match=exactly("public key: expected 64 hex digits, got 7")):
        check_public_key(7)
    with pytest.raises(MalformedInput, match=exactly("seat 2's key: not an Ed25519 public key")):
        check_public_key(NOT_A_POINT, "seat 2's key")
    with pytest.raises(MalformedInput, match=exactly("public key of seat 1: expected 64 hex digits, got 'ab'")):
        verify_signature("ab", b"m", "00" * 64, "seat 1")


#: 32 bytes that decode to no Ed25519 point (y = 2 has no x on the curve)
NOT_A_POINT = (2).to_bytes(32, "little").hex()


def test_a_public_key_must_be_a_point():
    with pytest.raises(ValueError):
        eddsa.import_public_key(bytes.fromhex(NOT_A_POINT))  # the premise
    with pytest.raises(MalformedInput, match="not an Ed25519 public key"):
        check_public_key(NOT_A_POINT)
    key = SigningKey.generate()
    assert check_public_key(key.public_hex, "x") == key.public_hex


@pytest.mark.parametrize("text", ["", "0" * 63, "0" * 65, "g" * 64, " " + "0" * 63, None, b"0" * 64, 0])
def test_hex_of_the_wrong_shape(text):
    with pytest.raises(MalformedInput, match="expected 64 hex digits"):
        check_public_key(text)


def test_a_signing_key_is_an_ed25519_private_key():
    with pytest.raises(MalformedInput, match="expected an Ed25519 private key"):
        SigningKey(ECC.generate(curve="P-256"))
    with pytest.raises(MalformedInput, match="expected an Ed25519 private key"):
        SigningKey(ECC.generate(curve="Ed25519").public_key())
    with pytest.raises(MalformedInput, match="signing key seed: expected 64 hex digits"):
        SigningKey.from_secret_hex("0" * 66)
    seed = "11" * 32
    key = SigningKey.from_secret_hex(seed)
    assert key.secret_hex() == seed and len(key.public_hex) == 64
    assert repr(key) == f"SigningKey(public={key.public_hex[:16]}…)" and seed not in repr(key)
    assert SigningKey.generate().public_hex != SigningKey.generate().public_hex
