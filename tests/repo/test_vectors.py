"""Conformance vectors made by independent implementations (circomlibjs, snarkjs)."""
import json
import subprocess
from pathlib import Path

import pytest

from zkbluff.errors import InvalidProof, MalformedInput
from zkbluff.gadgets.native import poseidon
from zkbluff.groth16 import Proof, VerifyingKey, public_from_json, verify
from repo_root import REPO_ROOT

ROOT = REPO_ROOT
POSEIDON = json.loads((ROOT / "vectors" / "poseidon" / "vectors.json").read_text())
GROTH16 = json.loads((ROOT / "vectors" / "groth16" / "vectors.json").read_text())


@pytest.mark.parametrize("case", POSEIDON["tests"], ids=lambda t: f"tc{t['tcId']}")
def test_poseidon_vector(case):
    assert str(poseidon([int(x) for x in case["inputs"]])) == case["hash"]


def test_poseidon_vectors_cover_every_width():
    assert {len(t["inputs"]) for t in POSEIDON["tests"]} == set(range(1, 17))


@pytest.mark.interop
def test_poseidon_vectors_regenerate(node):
    res = subprocess.run([node, str(ROOT / "vectors" / "poseidon" / "generate.mjs"), "--check"], capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("case", GROTH16["tests"], ids=lambda t: f"tc{t['tcId']}")
def test_groth16_vector(case, backend):
    vk = VerifyingKey.from_json(GROTH16["verificationKey"], backend=backend)
    try:
        verify(vk, public_from_json(case["public"]), Proof.from_json(case["proof"], backend=backend), backend=backend)
        ours = "valid"
    except (InvalidProof, MalformedInput):
        ours = "invalid"
    if case["result"] == "acceptable":
        assert ours == "invalid", "zkbluff is strict where snarkjs is lenient"
    else:
        assert ours == case["result"]


def test_groth16_vectors_have_both_outcomes():
    results = {t["result"] for t in GROTH16["tests"]}
    assert {"valid", "invalid"} <= results
