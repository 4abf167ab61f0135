"""ProofBatch checks every key's proofs in one multi-pairing and, only when that fails,
key by key to name the first bad line; a product that fails while every key's batch
passes fails closed."""
import importlib

import pytest

from zkbluff.circuit import build
from zkbluff.errors import InvalidProof, TranscriptError
from zkbluff.groth16 import prove, setup_insecure_seeded_for_tests
from zkbluff.protocol import envelope
from zkbluff.protocol.envelope import ProofBatch
from backend_spies import PairingSpy

verify_module = importlib.import_module("zkbluff.groth16.verify")


def square(cs, inputs):
    y = cs.public("y", inputs and inputs["y"])
    x = cs.private_unchecked("x", inputs and inputs["x"])
    cs.enforce_equal(cs.mul(x, x, "x2"), y, "square")


def double(cs, inputs):
    y = cs.public("y", inputs and inputs["y"])
    x = cs.private_unchecked("x", inputs and inputs["x"])
    cs.enforce_equal(cs.mul(x, 2 * x, "twice"), y, "double")


@pytest.fixture(scope="module")
def keyed(mcl):
    out = []
    for circuit, x in ((square, 5), (double, 4)):
        y = x * x if circuit is square else 2 * x * x
        system, witness = build(circuit, {"x": x, "y": y})
        pk = setup_insecure_seeded_for_tests(system, f"proof-batch-{circuit.__name__}", mcl)
        out.append((pk.vk, circuit.__name__, [y], prove(pk, witness, mcl)))
    return out


@pytest.fixture
def spy(mcl, monkeypatch):
    s = PairingSpy(mcl)
    monkeypatch.setattr(verify_module, "get_backend", lambda name=None: s)
    return s


def _batch(keyed, bad_tags=()):
    batch = ProofBatch()
    tag = 0
    for _ in range(3):
        for vk, name, public, proof in keyed:
            tag += 1
            batch.add_proof(vk, name, [public[0] + 1] if tag in bad_tags else public, proof, tag)
    return batch


def test_all_keys_in_one_pairing(keyed, spy):
    batch = _batch(keyed)
    assert len(batch) == 6
    batch.verify()
    assert spy.pairings == 1 and len(batch) == 0


@pytest.mark.parametrize("bad, first", [((4,), 4), ((5, 2), 2), ((6, 3), 3)])
def test_a_failing_product_names_the_first_bad_line_whatever_its_key(keyed, spy, bad, first):
    names = {1: "square", 2: "double"}
    with pytest.raises(TranscriptError) as exc:
        _batch(keyed, bad).verify()
    assert (exc.value.line, exc.value.code) == (first, "proof.invalid")
    assert names[2 - first % 2] in str(exc.value)
    assert spy.pairings > 1  # the product, then key by key


def test_a_product_failing_while_each_key_passes_fails_closed(keyed, monkeypatch):
    def fault(groups, backend=None):
        raise InvalidProof("a backend fault")

    monkeypatch.setattr(envelope, "batch_verify_keys", fault)
    with pytest.raises(TranscriptError, match="do not verify together") as exc:
        _batch(keyed).verify()
    assert (exc.value.line, exc.value.code) == (6, "proof.invalid")
