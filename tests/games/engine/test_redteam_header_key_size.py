"""Red team of issue 26 item 6: "verification keys are checked for size and every field
before any parsing work". A house's header may carry, per statement, a key declaring up to
MAX_PUBLIC (4096) public inputs: VerifyingKey.from_json accepts that size, so the header's
check decoded every IC point of every key (0.4 s for six such keys, measured) before it
compared each key's count with its statement's. The count is now compared first."""
import pytest

import zkbluff.groth16.keys as keys_module
from zkbluff.ceremony.project import pinned_keys, pinned_vk
from zkbluff.errors import MalformedInput, UntrustedKey
from zkbluff.games.engine.header_keys import header_verifying_keys


@pytest.fixture
def decodes(monkeypatch):
    calls = []
    real = keys_module.g1_from_json

    def counting(*args, **kwargs):
        calls.append(args[1] if len(args) > 1 else "?")
        return real(*args, **kwargs)

    monkeypatch.setattr(keys_module, "g1_from_json", counting)
    return calls


def _ids(n=3):
    return list(pinned_keys())[:n]


def test_attack_a_header_key_of_4096_public_inputs_is_refused_before_any_point_is_decoded(decodes):
    ids = _ids()
    header = {k: pinned_vk(k).to_json() for k in ids}
    fat = header[ids[-1]]
    fat["nPublic"], fat["IC"] = 4096, [fat["IC"][0]] * 4097
    decodes.clear()
    with pytest.raises(UntrustedKey, match="4096 public inputs"):
        header_verifying_keys(header, ids)
    assert decodes == [], f"{len(decodes)} G1 points decoded before the count was compared"


def test_a_header_key_whose_count_is_no_int_is_malformed_before_any_point_is_decoded(decodes):
    ids = _ids()
    header = {k: pinned_vk(k).to_json() for k in ids}
    header[ids[-1]]["nPublic"] = "4"
    decodes.clear()
    with pytest.raises(MalformedInput, match="nPublic"):
        header_verifying_keys(header, ids)
    assert decodes == []


def test_the_pinned_keys_in_a_header_are_read(decodes):
    """Twin: the right keys are parsed (every point decoded) and returned."""
    ids = _ids()
    pinned = {k: pinned_vk(k) for k in ids}
    decodes.clear()
    got = header_verifying_keys({k: vk.to_json() for k, vk in pinned.items()}, ids)
    assert {k: v.fingerprint() for k, v in got.items()} == {k: vk.fingerprint() for k, vk in pinned.items()}
    assert len(decodes) == sum(len(vk.ic) + 1 for vk in pinned.values())
