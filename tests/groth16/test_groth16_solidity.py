"""`zkbluff circuits export solidity`: the generated verifier, compiled with solc-js and run on
a local EVM (@ethereumjs/evm), beside snarkjs's `zkey export solidityverifier` contract for the
same pinned key (`zkbluff ceremony zkey export`), on every statement vector's proofs."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from evm_helpers import evm_run
from nodetools import run
from repo_root import REPO_ROOT
from zkbluff.ceremony.project import pinned_vk, resolve_pinned_id
from zkbluff.cli import main
from zkbluff.errors import MalformedInput
from zkbluff.field import p, r
from zkbluff.groth16 import Proof, public_from_json
from zkbluff.groth16.solidity import proof_calldata, solidity_verifier

VECTORS = REPO_ROOT / "vectors" / "statements"
#: a play, a claim, a deal and a one-input statement: the fast set; every other vector file is slow
QUICK = ("card.play.v1__deck-20_max_play-3", "card.claim.v1__deck-20",
         "card.deal.v2__deck-3_hands-1_board-1_entropies-3", "value.choice.v1")
STEMS = sorted(f.stem for f in VECTORS.glob("*.json") if f.stem != "schema")
#: the statement on which the contract without its range check is run (to show the check matters)
UNGUARDED_ON = "card.claim.v1__deck-20"


def _param(stem: str):
    return pytest.param(stem, id=stem) if stem in QUICK else pytest.param(stem, id=stem, marks=pytest.mark.slow)


def _without_range_check(source: str) -> str:
    out = re.sub(r"input\[\d+\] >= R \|\| ", "", source)
    assert out != source and ">= R" not in out
    return out


def _without_negation_check(source: str) -> str:
    out = source.replace("if (a[1] >= Q) return false;", "")
    assert out != source
    return out


def _extra_cases(words: list[int], n_public: int) -> list[tuple[str, list[int]]]:
    """(name, calldata words) every verifier must refuse, made from a valid proof's words:
    a (0-1), b (2-5, imaginary parts first), c (6-7), then the public inputs."""
    def changed(i: int, v: int) -> list[int]:
        out = list(words)
        out[i] = v
        return out

    first, last = 8, 8 + n_public - 1
    cases = [(f"public input {k - 8} + r", changed(k, words[k] + r)) for k in sorted({first, last})]
    cases += [("last public input + 1", changed(last, (words[last] + 1) % r)),
              ("pi_a.x + q", changed(0, words[0] + p)),
              ("pi_a.y + q", changed(1, words[1] + p)),
              ("pi_b.x imaginary + q", changed(2, words[2] + p)),
              ("pi_c.y + q", changed(7, words[7] + p)),
              ("pi_c off the curve", words[:6] + [1, 3] + words[8:]),
              ("pi_a at infinity", [0, 0] + words[2:]),
              ("pi_b real parts first", words[:2] + [words[3], words[2], words[5], words[4]] + words[6:])]
    return cases


def _cases(vectors: dict) -> list[tuple[str, bool, list[int]]]:
    """(name, expected verdict, words): each proof case of the vector file, then the extra ones."""
    out = []
    for t in vectors["tests"]:
        if t["kind"] == "proof":
            words = proof_calldata(Proof.from_json(t["proof"]), public_from_json(t["public"]))
            out.append((f"tcId {t['tcId']} {'/'.join(t['flags'])}", t["result"] == "valid", words))
    valid = next(words for _, ok, words in out if ok)
    out += [(name, False, words) for name, words in _extra_cases(valid, len(vectors["public"]))]
    return out


def _snarkjs_source(snarkjs, key_id: str, tmp: Path) -> str:
    zkey, sol = tmp / "key.zkey", tmp / "snarkjs.sol"
    res = CliRunner().invoke(main, ["ceremony", "zkey", "export", key_id, str(zkey)])
    assert res.exit_code == 0, res.output
    run(snarkjs + ["zkey", "export", "solidityverifier", str(zkey), str(sol)])
    return sol.read_text()


_RUNS: dict[str, dict] = {}


def _run(stem: str, evm_node_modules, snarkjs, tmp: Path) -> dict:
    """Every case of one vector file called on our contract (and, given ``snarkjs``, on snarkjs's
    contract for the same key too), in one EVM; kept per stem for the module."""
    if stem in _RUNS:
        return _RUNS[stem]
    vectors = json.loads((VECTORS / f"{stem}.json").read_text())
    key_id = resolve_pinned_id(vectors["statement"])
    vk = pinned_vk(key_id)
    contracts = {"ours": (solidity_verifier(vk, key_id), "ZkbluffVerifier")}
    if snarkjs is not None:
        contracts["snarkjs"] = (_snarkjs_source(snarkjs, key_id, tmp), "Groth16Verifier")
    cases = _cases(vectors)
    calls = [(k, words) for k in contracts for _, _, words in cases]
    out = evm_run(evm_node_modules, contracts, calls)
    results = {k: out["calls"][i * len(cases):(i + 1) * len(cases)] for i, k in enumerate(contracts)}
    _RUNS[stem] = {"stem": stem, "n_public": vk.n_public, "cases": cases, "results": results,
                   "contracts": out["contracts"]}
    return _RUNS[stem]


@pytest.fixture(scope="module", params=[_param(s) for s in STEMS])
def evm(request, snarkjs, evm_node_modules, tmp_path_factory):
    """Our contract on every vector file; snarkjs's beside it on the fast set (its contract
    needs the full `.zkey` exported, which is what makes the other files slow)."""
    stem = request.param
    return _run(stem, evm_node_modules, snarkjs if stem in QUICK else None, tmp_path_factory.mktemp("sol"))


@pytest.fixture(scope="module", params=QUICK)
def evm_beside_snarkjs(request, snarkjs, evm_node_modules, tmp_path_factory):
    """Our contract and snarkjs's for the same key, on the fast set's vector files."""
    return _run(request.param, evm_node_modules, snarkjs, tmp_path_factory.mktemp("sol"))


pytestmark = pytest.mark.interop


def test_our_contract_accepts_the_valid_proofs(evm):
    for (name, expected, _), res in zip(evm["cases"], evm["results"]["ours"]):
        if expected:
            assert res == {**res, "returned": True, "reverted": False}, name


def test_our_contract_returns_false_for_every_bad_case(evm):
    """Every tampered vector (wrong public input, another context, another statement) and every
    extra case (input + r, a coordinate + q, a point off the curve, A at infinity, G2's
    coordinates in the wrong order) returns false; none reverts."""
    bad = [(name, res) for (name, expected, _), res in zip(evm["cases"], evm["results"]["ours"]) if not expected]
    assert len(bad) >= 10
    for name, res in bad:
        assert res["returned"] is False and res["reverted"] is False, (name, res)


def test_snarkjs_contract_reaches_the_same_verdicts(evm_beside_snarkjs):
    run = evm_beside_snarkjs
    for (name, _, _), ours, theirs in zip(run["cases"], run["results"]["ours"], run["results"]["snarkjs"]):
        assert (ours["returned"] is True) == (theirs["returned"] is True), (name, ours, theirs)


def test_gas_of_a_valid_verification_is_in_the_expected_range(evm):
    """The pairing check of four pairs costs 45,000 + 4 * 34,000 = 181,000 gas on its own;
    each public input adds at most one scalar multiplication (6,000) and one addition (150)
    through the precompiles, plus its calls' bookkeeping (allowed: 1,000 an input, 30,000 in
    all)."""
    n = evm["n_public"]
    for k in evm["results"]:
        gas = [res["gas"] for (_, ok, _), res in zip(evm["cases"], evm["results"][k]) if ok]
        assert all(181_000 < g < 181_000 + 30_000 + (6_150 + 1_000) * n for g in gas), (k, gas)


@pytest.fixture(scope="module")
def unguarded(evm_node_modules):
    """The claim's cases on two mutants of our contract: without its `input >= R` checks, and
    without its `a[1] >= Q` check. Per mutant, per case name, the call's result."""
    vectors = json.loads((VECTORS / f"{UNGUARDED_ON}.json").read_text())
    key_id = resolve_pinned_id(vectors["statement"])
    source = solidity_verifier(pinned_vk(key_id), key_id)
    mutants = {"no range check": _without_range_check(source), "no a[1] check": _without_negation_check(source)}
    cases = _cases(vectors)
    out = evm_run(evm_node_modules, {k: (src, "ZkbluffVerifier") for k, src in mutants.items()},
                  [(k, w) for k in mutants for _, _, w in cases])
    calls = iter(out["calls"])
    return {k: {name: next(calls) for name, _, _ in cases} for k in mutants}


def test_the_range_check_is_what_refuses_input_plus_r(unguarded):
    """Without its `input >= R` lines the contract accepts a valid proof with input + r (the
    scalar precompile reduces it mod r): the guard is needed, and the bad-case test sees it."""
    verdicts = unguarded["no range check"]
    plus_r = [name for name in verdicts if name.endswith("+ r")]
    assert plus_r and all(verdicts[name]["returned"] is True for name in plus_r)
    assert verdicts["last public input + 1"]["returned"] is False


def test_the_a_y_check_is_what_keeps_a_y_plus_q_from_reverting(unguarded):
    """Without `a[1] >= Q` the negation Q - a[1] underflows: the call reverts instead of
    returning false (the bad-case test asserts no revert)."""
    res = unguarded["no a[1] check"]["pi_a.y + q"]
    assert res["reverted"] is True and res["returned"] is None


# ---------------------------------------------------------------- the generator and the CLI, no EVM
def test_calldata_puts_the_imaginary_parts_first():
    proof = Proof(a=(1, 2), b=((3, 4), (5, 6)), c=(7, 8))
    assert proof_calldata(proof, [9, 10]) == [1, 2, 4, 3, 6, 5, 7, 8, 9, 10]


def test_calldata_refuses_a_point_at_infinity():
    with pytest.raises(MalformedInput, match="pi_a"):
        proof_calldata(Proof(a=None, b=((3, 4), (5, 6)), c=(7, 8)), [])


def test_generator_refuses_a_name_that_would_leave_its_comment():
    vk = pinned_vk(resolve_pinned_id("value.choice.v1"))
    with pytest.raises(MalformedInput, match="printable"):
        solidity_verifier(vk, "x\ncontract Evil {}")
    with pytest.raises(MalformedInput, match="identifier"):
        solidity_verifier(vk, "value.choice.v1", contract="Bad Name")


def test_cli_export_solidity_writes_the_contract(tmp_path):
    out = tmp_path / "v.sol"
    res = CliRunner().invoke(main, ["circuits", "export", "solidity", "value.choice.v1", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    vk = pinned_vk(resolve_pinned_id("value.choice.v1"))
    assert "contract ZkbluffVerifier" in text and vk.fingerprint() in text
    assert f"uint256[{vk.n_public}] calldata input" in text


def test_cli_export_refuses_an_unknown_form_and_statement(tmp_path):
    out = tmp_path / "v.sol"
    assert CliRunner().invoke(main, ["circuits", "export", "wasm", "value.choice.v1", str(out)]).exit_code == 2
    assert CliRunner().invoke(main, ["circuits", "export", "solidity", "card.nope.v1", str(out)]).exit_code == 2
    assert CliRunner().invoke(main, ["circuits", "export", "solidity", "value.choice.v1"]).exit_code != 0
    assert not out.exists()
