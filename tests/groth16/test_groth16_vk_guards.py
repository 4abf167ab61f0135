"""A verification key is checked for size and every field before any point is decoded
(issue 26.6): a header key with 300,000 IC points was decoded for ~10 s before ``nPublic``
refused it. Each refusal is a typed MalformedInput; each has its negative twin."""
import copy
import json

import pytest

from zkbluff.ceremony.project import file_stem, registry_dir
from zkbluff.errors import MalformedInput
from zkbluff.groth16 import keys as keys_module
from zkbluff.groth16.keys import MAX_PUBLIC, VerifyingKey
from zkbluff.statements import get_statement

CLAIM = "card.claim.v1@deck=52"


@pytest.fixture(scope="module")
def vk_json():
    return json.loads((registry_dir() / "keys" / f"{file_stem(CLAIM)}.vk.json").read_text())


@pytest.fixture
def decoded(monkeypatch):
    """Counts the G1 points decoded (every IC point goes through g1_from_json)."""
    calls = []
    real = keys_module.g1_from_json

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(keys_module, "g1_from_json", counting)
    return calls


def test_attack_300000_ic_points_are_refused_before_any_decoding(vk_json, decoded):
    bloated = dict(vk_json, IC=vk_json["IC"][:1] * 300_000)  # nPublic still the statement's
    with pytest.raises(MalformedInput, match="IC must list nPublic"):
        VerifyingKey.from_json(bloated)
    assert decoded == []


def test_attack_a_huge_declared_npublic_is_refused_before_any_decoding(vk_json, decoded):
    bloated = dict(vk_json, nPublic=299_999, IC=vk_json["IC"][:1] * 300_000)
    with pytest.raises(MalformedInput, match=f"nPublic must be an int in \\[0, {MAX_PUBLIC}\\]"):
        VerifyingKey.from_json(bloated)
    assert decoded == []


def test_a_key_for_another_public_count_is_refused_before_decoding_when_the_statement_is_known(vk_json, decoded):
    n = len(get_statement(CLAIM).public)
    other = dict(vk_json, nPublic=n + 1, IC=vk_json["IC"] + vk_json["IC"][:1])
    assert VerifyingKey.from_json(other).n_public == n + 1  # a well-formed key of another shape...
    decoded.clear()
    with pytest.raises(MalformedInput, match=f"the statement has {n} public inputs"):
        VerifyingKey.from_json(other, n_public=n)  # ...is not this statement's
    assert decoded == []


@pytest.mark.parametrize("field", ["protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2", "vk_gamma_2",
                                   "vk_delta_2", "IC"])
def test_every_field_is_required_before_decoding(vk_json, decoded, field):
    broken = copy.deepcopy(vk_json)
    del broken[field]
    with pytest.raises(MalformedInput, match=f"missing \\['{field}'\\]"):
        VerifyingKey.from_json(broken)
    assert decoded == []


@pytest.mark.parametrize("field,value", [("protocol", "plonk"), ("curve", "bls12381"), ("nPublic", "3"),
                                         ("nPublic", True), ("nPublic", -1), ("IC", {}), ("unknown", 1)])
def test_a_wrong_field_is_refused_before_decoding(vk_json, decoded, field, value):
    with pytest.raises(MalformedInput, match="verification key"):
        VerifyingKey.from_json(dict(vk_json, **{field: value}))
    assert decoded == []


def test_the_complete_key_reads_with_its_statements_count_and_snarkjs_extra(vk_json, decoded):
    """The negative twin: the pinned key reads (every IC point decoded), with or without the
    statement's count, and snarkjs's vk_alphabeta_12 is allowed."""
    n = len(get_statement(CLAIM).public)
    vk = VerifyingKey.from_json(vk_json, n_public=n)
    assert vk.n_public == n and len(decoded) == n + 2  # alpha and every IC point
    assert VerifyingKey.from_json(dict(vk_json, vk_alphabeta_12=[[["1", "2"]]])) == vk
    assert vk.to_json() == vk_json
