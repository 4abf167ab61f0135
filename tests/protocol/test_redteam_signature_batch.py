"""Red team against SignatureBatch: a house that reuses, swaps or re-encodes line signatures,
or makes two errors that would cancel under one weight, gets the one-by-one verdict (the
same first bad line, ``line.signature``), never a pass. Keys are fixed seeds; the weights'
randomness decides nothing here (a bad set fails except with probability 2^-128)."""
import pytest

from zkbluff.errors import MalformedInput
from zkbluff.protocol.signing import (
    ED25519_ORDER, InvalidSignature, SignatureBatch, SigningKey, check_line_signature, check_public_key,
    sign_line,
)
from signature_batch_helpers import first_bad_batched, first_bad_one_by_one

P = 2 ** 255 - 19
KEYS = [SigningKey.from_secret_hex(f"{i:02x}" * 32) for i in range(7, 10)]


def _lines(count: int = 8) -> list[tuple[dict, SigningKey]]:
    out = []
    for n in range(2, 2 + count):
        key = KEYS[n % len(KEYS)]
        out.append((sign_line(key, {"n": n, "prev": f"{n:064x}", "seat": n % 3, "action": "bid",
                                     "data": {"count": n}}), key))
    return out


_one_by_one, _batched = first_bad_one_by_one, first_bad_batched


def _judged_alike(items, expected: int) -> None:
    assert _one_by_one(items) == expected
    assert _batched(items) == expected


def test_redteam_a_signature_reused_from_another_line_of_the_same_key_is_named():
    items = _lines()
    (a, key), (b, key_b) = items[1], items[4]
    assert key is key_b  # the same signer (KEYS cycle by 3)
    items[4] = ({**b, "sig": a["sig"]}, key)
    _judged_alike(items, b["n"])


def test_redteam_two_lines_signatures_swapped_name_the_first():
    items = _lines()
    (a, key), (b, _) = items[2], items[5]
    items[2], items[5] = ({**a, "sig": b["sig"]}, key), ({**b, "sig": a["sig"]}, key)
    _judged_alike(items, a["n"])


def test_redteam_a_signature_by_another_seat_on_the_same_line_is_named():
    items = _lines()
    event, key = items[3]
    other = next(k for k in KEYS if k is not key)
    items[3] = (sign_line(other, event), key)
    _judged_alike(items, event["n"])


@pytest.mark.parametrize("delta", [1, 8, ED25519_ORDER // 8, 2 ** 127])
def test_redteam_errors_that_cancel_in_an_unweighted_sum_fail(delta):
    # s_a + delta and s_b - delta under the same key: the plain sum of the equations holds
    items = _lines()
    (a, key), (b, _) = items[0], items[3]

    def shifted(event, d):
        sig = bytes.fromhex(event["sig"])
        s = (int.from_bytes(sig[32:], "little") + d) % ED25519_ORDER
        return {**event, "sig": (sig[:32] + s.to_bytes(32, "little")).hex()}

    items[0], items[3] = (shifted(a, delta), key), (shifted(b, -delta), key)
    _judged_alike(items, a["n"])


def _encode(y: int, sign: int) -> bytes:
    return (y | (sign << 255)).to_bytes(32, "little")


# R encodings a decoder may get wrong: y not reduced (y >= p), x = 0 with the sign bit set,
# small-order points (the identity, order 2 and 4)
ODD_R = {
    "identity y=1+p": _encode(1 + P, 0),
    "identity sign set": _encode(1, 1),
    "order 2 y=-1 sign set": _encode(P - 1, 1),
    "order 2 y=-1": _encode(P - 1, 0),
    "order 4 y=0": _encode(0, 0),
    "order 4 y=p": _encode(P, 0),
    "all ones": b"\xff" * 32,
    "identity": _encode(1, 0),
}


@pytest.mark.parametrize("name", sorted(ODD_R))
@pytest.mark.parametrize("s", [0, 1, "own"])
def test_redteam_odd_R_encodings_are_judged_as_one_by_one(name, s):
    items = _lines()
    event, key = items[2]
    sig = bytes.fromhex(event["sig"])
    s_bytes = sig[32:] if s == "own" else s.to_bytes(32, "little")
    items[2] = ({**event, "sig": (ODD_R[name] + s_bytes).hex()}, key)
    _judged_alike(items, event["n"])


TORSION = {  # the eight points of small order, by an encoding of each
    "identity": _encode(1, 0), "order 2": _encode(P - 1, 0), "order 4": _encode(0, 0),
    "order 4 other": _encode(0, 1),
    "order 8": bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
    "order 8 b": bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
    "order 8 c": bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa"),
    "order 8 d": bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85"),
}


def _forged(key_hex: str) -> dict:
    # R = the identity, s = 0: [8]0 = [8]0 + [8][k]A for every message when 8A = 0
    return {"n": 2, "prev": "00" * 32, "seat": 0, "action": "bid", "data": {"count": 1},
            "sig": (_encode(1, 0) + bytes(32)).hex()}


@pytest.mark.parametrize("name", sorted(TORSION))
def test_redteam_a_small_order_public_key_is_refused_so_no_line_is_forged_under_it(name):
    """Found by the red team (before the batch too): the identity as a key verified
    (R = 0, s = 0) for any message; now every small-order key is refused as malformed,
    one by one, in the batch and as a header's key."""
    from Crypto.PublicKey import ECC
    from Crypto.Signature import eddsa

    key_hex = TORSION[name].hex()
    point = eddsa.import_public_key(TORSION[name]).pointQ  # a point: the refusal is its order
    assert (point * 8).is_point_at_infinity()
    with pytest.raises(MalformedInput, match="small order"):
        check_public_key(key_hex, "seat 0's public key")
    with pytest.raises(MalformedInput, match="small order"):
        check_line_signature(_forged(key_hex), key_hex, "p")
    with pytest.raises(MalformedInput, match="small order"):
        SignatureBatch().add_line(_forged(key_hex), key_hex, "p", 2)


def test_redteam_a_key_with_a_torsion_component_is_still_a_key():
    # negative twin: A + T (T of order 2) has order 2L, not small: accepted, and a real
    # signature under A does not verify under A + T
    from Crypto.PublicKey import ECC
    from Crypto.Signature import eddsa

    key = KEYS[0]
    A = eddsa.import_public_key(bytes.fromhex(key.public_hex)).pointQ
    T = eddsa.import_public_key(TORSION["order 2"]).pointQ
    M = A + T
    mixed = ECC.construct(curve="Ed25519", point_x=int(M.x), point_y=int(M.y)).export_key(format="raw").hex()
    assert not (M * 8).is_point_at_infinity()
    assert check_public_key(mixed) == mixed
    event = _lines(1)[0][0]
    with pytest.raises(InvalidSignature):
        check_line_signature(dict(event), mixed, "p")
