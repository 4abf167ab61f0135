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
    with pytest.raises(MalformedInput, match=exactly("signature of seat 1: expected 128 lowercase hex digits, got 'zz'")):
        check_line_signature({**EVENT, "sig": "zz"}, key.public_hex, "seat 1")
    with pytest.raises(MalformedInput, match="^signature of seat 1: expected 128 lowercase hex digits, got 'zzzz"):
        check_line_signature({**EVENT, "sig": "zz" * 64}, key.public_hex, "seat 1")  # the right length, not hex
    with pytest.raises(MalformedInput, match=exactly("public key: expected 64 lowercase hex digits, got 7")):
        check_public_key(7)
    with pytest.raises(MalformedInput, match=exactly("seat 2's key: not an Ed25519 public key")):
        check_public_key(NOT_A_POINT, "seat 2's key")
    with pytest.raises(MalformedInput, match=exactly("public key of seat 1: expected 64 lowercase hex digits, got 'ab'")):
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
    with pytest.raises(MalformedInput, match="expected 64 lowercase hex digits"):
        check_public_key(text)


def test_a_signing_key_is_an_ed25519_private_key():
    with pytest.raises(MalformedInput, match="^signing key: expected an Ed25519 private key$"):
        SigningKey(ECC.generate(curve="P-256"))
    with pytest.raises(MalformedInput, match="expected an Ed25519 private key"):
        SigningKey(ECC.generate(curve="Ed25519").public_key())
    with pytest.raises(MalformedInput, match="signing key seed: expected 64 lowercase hex digits"):
        SigningKey.from_secret_hex("0" * 66)
    seed = "11" * 32
    key = SigningKey.from_secret_hex(seed)
    assert key.secret_hex() == seed and len(key.public_hex) == 64
    assert repr(key) == f"SigningKey(public={key.public_hex[:16]}…)" and seed not in repr(key)
    assert SigningKey.generate().public_hex != SigningKey.generate().public_hex


# ---------------------------------------------------------------- the proof envelope

from zkbluff.errors import IllegalMove, InvalidProof, TranscriptError  # noqa: E402
from zkbluff.groth16 import prove, setup_insecure_seeded_for_tests  # noqa: E402
from zkbluff.protocol.context import context_value  # noqa: E402
from zkbluff.protocol.envelope import FIELDS, Envelope, ProofBatch, check_envelope, make_envelope  # noqa: E402
from zkbluff.statements import get_statement  # noqa: E402

CLAIM = "card.claim.v1@deck=52"
MASK = sum(1 << (5 + 13 * s) for s in range(4))


@pytest.fixture(scope="module")
def claim():
    stmt = get_statement(CLAIM)
    pk = setup_insecure_seeded_for_tests(stmt.build()[0], "mutation envelope")
    system, w = stmt.build({"play": 1 << 5, "play_salt": 9, "rank_mask": MASK,
                            "context": context_value("m", 4, "00" * 32)})
    return stmt, pk, make_envelope(CLAIM, pk.vk, w[1:1 + system.n_public], prove(pk, w), 2)


def check(stmt, pk, env, pinned=None, signer=2, verify_now=True):
    return check_envelope(env, statement=CLAIM, vk=pk.vk, names=stmt.public,
                          pinned={"rank_mask": MASK, "verdict": 1} if pinned is None else pinned,
                          match_id="m", line=4, prev="00" * 32, signer=signer, verify_now=verify_now)


def test_the_envelope_json_shape(claim):
    stmt, pk, env = claim
    assert FIELDS == ("statement", "vk", "public", "proof", "signer")
    assert set(env) == set(FIELDS) and env["statement"] == CLAIM and env["vk"] == pk.vk.fingerprint()
    assert env["signer"] == 2 and all(isinstance(x, str) for x in env["public"])
    e = Envelope.from_json(env)
    assert e.to_json() == env and e.named(stmt.public)["verdict"] == 1
    assert Envelope.from_json({**env, "signer": None}).signer is None


@pytest.mark.parametrize("change, message", [
    (lambda e: e.update(statement=5), "^proof envelope: statement and vk must be strings$"),
    (lambda e: e.update(vk=None), "^proof envelope: statement and vk must be strings$"),
    (lambda e: e.update(signer="2"), "^proof envelope: signer must be a seat number or null, got '2'$"),
    (lambda e: e.update(signer=False), "^proof envelope: signer must be a seat number or null, got False$"),
    (lambda e: e.update(extra=1), r"^proof envelope: fields \['extra', 'proof', 'public', 'signer', 'statement', "
                                  r"'vk'\], expected \['proof', 'public', 'signer', 'statement', 'vk'\]$"),
])
def test_a_malformed_envelope(claim, change, message):
    stmt, pk, env = claim
    bad = dict(env)
    change(bad)
    with pytest.raises(MalformedInput, match=message):
        check(stmt, pk, bad)
    with pytest.raises(MalformedInput, match="^proof envelope: fields list, expected"):
        check(stmt, pk, [env])


def test_each_refusal_before_pairing_with_its_message(claim):
    stmt, pk, env = claim
    with pytest.raises(IllegalMove, match=f"^expected a proof of {CLAIM}, got one of 'x'$"):
        check(stmt, pk, {**env, "statement": "x"})
    with pytest.raises(IllegalMove, match=f"^the proof names key 'ab', not the table's key for {CLAIM}$"):
        check(stmt, pk, {**env, "vk": "ab"})
    with pytest.raises(IllegalMove, match="^the proof names signer 2, but the line is made by 1$"):
        check(stmt, pk, env, signer=1)
    with pytest.raises(IllegalMove, match=f"^{CLAIM}: public input verdict is not what the table holds "
                                          r"\(mismatch\)$"):
        check(stmt, pk, env, pinned={"rank_mask": MASK, "verdict": 0})
    with pytest.raises(MalformedInput, match=f"^{CLAIM}: no public input named 'count'$"):
        check(stmt, pk, env, pinned={"count": 1})
    with pytest.raises(MalformedInput, match=f"^{CLAIM}: 3 public inputs, expected {len(stmt.public)}$"):
        check(stmt, pk, {**env, "public": env["public"][:3]})
    # the context binds the match, the line and the previous hash
    for kw in ({"match_id": "n", "line": 4, "prev": "00" * 32}, {"match_id": "m", "line": 5, "prev": "00" * 32},
               {"match_id": "m", "line": 4, "prev": "11" * 32}):
        with pytest.raises(IllegalMove, match=r"public input context is not what the table holds \(a proof from "
                                              r"another turn or match: not made for line \d+ of this match\)$"):
            check_envelope(env, statement=CLAIM, vk=pk.vk, names=stmt.public, pinned={}, signer=2, **kw)
    got_env, publics = check(stmt, pk, env, pinned={})  # nothing pinned but the context: accepted
    assert publics["context"] == context_value("m", 4, "00" * 32)


def test_verify_now_pairs_and_the_batch_is_per_key(claim):
    stmt, pk, env = claim
    lying = {**env, "public": [env["public"][0], env["public"][1], "0"] + env["public"][3:]}
    lie_at = stmt.public.index("verdict")
    assert lie_at == 2
    with pytest.raises(InvalidProof):
        check(stmt, pk, lying, pinned={})
    check(stmt, pk, lying, pinned={}, verify_now=False)
    with pytest.raises(InvalidProof):  # verifying is the default
        check_envelope(lying, statement=CLAIM, vk=pk.vk, names=stmt.public, pinned={}, match_id="m", line=4,
                       prev="00" * 32, signer=2)
    batch = ProofBatch()
    batch.add(pk.vk, Envelope.from_json(env), 7)
    batch.verify()
    assert len(batch) == 0
    batch.add(pk.vk, Envelope.from_json(env), 7)
    batch.add(pk.vk, Envelope.from_json(lying), 9)
    assert len(batch) == 2
    with pytest.raises(TranscriptError) as exc:
        batch.verify()
    assert exc.value.line == 9 and str(exc.value) == f"line 9: the {CLAIM} proof does not verify"
    batch = ProofBatch()
    batch.add(pk.vk, Envelope.from_json(lying), 11)  # the first item of its batch is bad
    batch.add(pk.vk, Envelope.from_json(env), 12)
    with pytest.raises(TranscriptError) as exc:
        batch.verify()
    assert exc.value.line == 11
    with pytest.raises(Exception):
        Envelope.from_json(env).signer = 0  # type: ignore[misc]  # frozen


def test_check_envelope_takes_what_it_checks_against_by_keyword_only(claim):
    """statement, vk, names, pinned, ... are keyword-only: a call cannot swap them by position."""
    stmt, pk, env = claim
    with pytest.raises(TypeError):
        check_envelope(env, CLAIM, pk.vk, stmt.public, {}, "m", 4, "00" * 32, 2)  # type: ignore[misc]


def test_two_bad_proofs_on_one_line_name_the_first_added(claim):
    """Two batches (two keys) failing on the same line: the line is named once, with the
    statement of the proof added first (a later batch never displaces an equal line)."""
    stmt, pk, env = claim
    other = setup_insecure_seeded_for_tests(stmt.build()[0], "mutation envelope, another key")
    lying = {**env, "public": [env["public"][0], env["public"][1], "0"] + env["public"][3:]}
    batch = ProofBatch()
    batch.add(pk.vk, Envelope.from_json({**lying, "statement": "first.v1"}), 5)
    batch.add(other.vk, Envelope.from_json({**env, "statement": "second.v1"}), 5)  # pk's proof under another key
    with pytest.raises(TranscriptError) as exc:
        batch.verify()
    assert exc.value.line == 5 and str(exc.value) == "line 5: the first.v1 proof does not verify"
