"""Red team of issue 26 item 6: verification keys and proof envelopes with fields of a
wrong type or size are refused with a typed MalformedInput at once, never an untyped
crash and never after decoding work. These attacks fail; the tests pin the guards."""
import pytest

import zkbluff.groth16.keys as keys_module

from zkbluff.ceremony.project import pinned_keys, pinned_vk
from zkbluff.errors import MalformedInput
from zkbluff.groth16.keys import Proof, VerifyingKey

KEY = next(iter(pinned_keys()))


def _vk(**change):
    j = pinned_vk(KEY).to_json()
    j.update(change)
    return j


@pytest.mark.parametrize("change", [
    {"protocol": ["groth16"]}, {"protocol": None}, {"protocol": {"groth16": 1}}, {"protocol": "x" * 1_000_000},
    {"curve": ["bn128"]}, {"curve": 128}, {"curve": {"bn128": 1}},
    {"nPublic": True}, {"nPublic": 4.0}, {"nPublic": "4"}, {"nPublic": -1}, {"nPublic": 4097}, {"nPublic": 10 ** 400},
    {"nPublic": None}, {"IC": {"0": 1}}, {"IC": "IC"}, {"IC": None},
    {"nPublic": 299_999, "IC": [["1", "2", "1"]] * 300_000},
])
def test_attack_a_key_field_of_a_wrong_type_or_size_is_malformed_at_once(change, monkeypatch):
    obj = _vk(**change)

    def no_decode(*args, **kwargs):
        raise AssertionError(f"a point was decoded before the key's shape was refused: {args[1:]}")

    monkeypatch.setattr(keys_module, "g1_from_json", no_decode)
    monkeypatch.setattr(keys_module, "g2_from_json", no_decode)
    with pytest.raises(MalformedInput):
        VerifyingKey.from_json(obj)


def test_the_pinned_key_itself_is_read():
    assert VerifyingKey.from_json(_vk()).fingerprint() == pinned_vk(KEY).fingerprint()


def _proof(**change):
    vk = pinned_vk(KEY)
    j = Proof(vk.alpha_g1, vk.beta_g2, vk.alpha_g1).to_json()
    j.update(change)
    return j


@pytest.mark.parametrize("change", [
    {"protocol": ["groth16"]}, {"protocol": None}, {"protocol": 16}, {"curve": ["bn128"]}, {"curve": None},
    {"pi_a": "1"}, {"pi_a": None}, {"pi_b": [["1"]]}, {"pi_c": {"x": 1}}, {"extra": 1},
])
def test_attack_a_proof_field_of_a_wrong_type_is_malformed(change):
    with pytest.raises(MalformedInput):
        Proof.from_json(_proof(**change))


@pytest.mark.parametrize("drop", ["protocol", "curve"])
def test_a_proof_without_protocol_or_curve_is_malformed(drop):
    j = _proof()
    del j[drop]
    with pytest.raises(MalformedInput):
        Proof.from_json(j)


def test_a_well_formed_proof_is_read():
    assert isinstance(Proof.from_json(_proof()), Proof)
