"""Red team of issue 26 item 6 ("envelopes are checked for size and every field before any
parsing work"): a proof envelope whose ``public`` list holds 800,000 entries (a 4 MB line,
the client's message limit) had every entry parsed as a field element (0.7 s, measured)
before its count was compared with the statement's. An envelope now lists at most
MAX_PUBLIC public inputs, refused before any is parsed."""
import pytest

import zkbluff.protocol.envelope as envelope_module
from zkbluff.ceremony.project import pinned_keys, pinned_vk
from zkbluff.errors import MalformedInput
from zkbluff.groth16.keys import MAX_PUBLIC, Proof
from zkbluff.protocol.envelope import Envelope

KEY = next(iter(pinned_keys()))


def _envelope(n_public: int) -> dict:
    vk = pinned_vk(KEY)
    return {"statement": KEY, "vk": vk.fingerprint(), "public": ["1"] * n_public,
            "proof": Proof(vk.alpha_g1, vk.beta_g2, vk.alpha_g1).to_json(), "signer": 0}


@pytest.fixture
def parses(monkeypatch):
    calls = []
    real = envelope_module.public_from_json

    def counting(obj):
        calls.append(len(obj))
        return real(obj)

    monkeypatch.setattr(envelope_module, "public_from_json", counting)
    return calls


def test_attack_an_envelope_of_800000_public_inputs_is_refused_before_any_is_parsed(parses):
    with pytest.raises(MalformedInput, match="public") as exc:
        Envelope.from_json(_envelope(800_000))
    assert exc.value.code == "proof.malformed"
    assert parses == []


def test_an_envelope_at_the_limit_is_parsed(parses):
    """Twin: up to MAX_PUBLIC entries the envelope is read (its count is compared later,
    against the statement's)."""
    env = Envelope.from_json(_envelope(MAX_PUBLIC))
    assert len(env.public) == MAX_PUBLIC and parses == [MAX_PUBLIC]
