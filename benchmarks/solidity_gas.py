"""Gas of one Groth16 verification on a local EVM: zkbluff's `circuits export solidity` contract
and snarkjs's `zkey export solidityverifier` contract for the same pinned key, per statement
vector file (all, or the stems given). Prints a markdown table and the per-public-input slope.

    PATH=node_modules/.bin:$PATH python benchmarks/solidity_gas.py [STEM ...]

Per statement: the vector's valid proof with its own public inputs ("valid"), and the same proof
with every public input replaced by a random value in [2, r) ("full": every input costs a
scalar multiplication; the pairing then fails, after the same work). Gas is the call's execution
gas (tools/evm_verify.cjs: no 21,000 base cost, no calldata cost). The slope is the least-squares
line of "full" gas against the number of public inputs.
"""
from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from evm_helpers import evm_run  # noqa: E402
from zkbluff.ceremony.project import pinned_vk, resolve_pinned_id  # noqa: E402
from zkbluff.field import r  # noqa: E402
from zkbluff.groth16 import Proof, public_from_json  # noqa: E402
from zkbluff.groth16.solidity import proof_calldata, solidity_verifier  # noqa: E402

VECTORS = ROOT / "vectors" / "statements"
NODE_MODULES = Path(os.environ.get("ZKBLUFF_NODE_MODULES", ROOT / "node_modules"))


def snarkjs_source(key_id: str, tmp: Path) -> str:
    zkey, sol = tmp / "key.zkey", tmp / "snarkjs.sol"
    subprocess.run([sys.executable, "-m", "zkbluff", "ceremony", "zkey", "export", key_id, str(zkey)], check=True,
                   capture_output=True)
    subprocess.run(["node", str(NODE_MODULES / "snarkjs" / "build" / "cli.cjs"), "zkey", "export",
                    "solidityverifier", str(zkey), str(sol)], check=True, capture_output=True)
    return sol.read_text()


def measure(stem: str) -> dict:
    vectors = json.loads((VECTORS / f"{stem}.json").read_text())
    key_id = resolve_pinned_id(vectors["statement"])
    vk = pinned_vk(key_id)
    case = next(t for t in vectors["tests"] if t["kind"] == "proof" and t["result"] == "valid")
    valid = proof_calldata(Proof.from_json(case["proof"]), public_from_json(case["public"]))
    full = valid[:8] + [2 + secrets.randbelow(r - 2) for _ in range(vk.n_public)]
    with tempfile.TemporaryDirectory() as tmp:
        contracts = {"ours": (solidity_verifier(vk, key_id), "ZkbluffVerifier"),
                     "snarkjs": (snarkjs_source(key_id, Path(tmp)), "Groth16Verifier")}
    out = evm_run(NODE_MODULES, contracts, [(k, w) for k in contracts for w in (valid, full)])
    gas = [c["gas"] for c in out["calls"]]
    assert [c["returned"] for c in out["calls"]] == [True, False, True, False], out["calls"]
    return {"stem": stem, "n": vk.n_public, "ours": gas[0], "ours_full": gas[1], "snarkjs": gas[2],
            "snarkjs_full": gas[3], "bytes": {k: v["runtimeBytes"] for k, v in out["contracts"].items()}}


def slope(rows: list[dict], key: str) -> tuple[float, float]:
    xs, ys = [row["n"] for row in rows], [row[key] for row in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def main(stems: list[str]) -> None:
    rows = []
    print("| statement | public inputs | ours (valid) | snarkjs (valid) | ours (full) | snarkjs (full) | "
          "runtime bytes ours / snarkjs |\n|---|---|---|---|---|---|---|")
    for stem in stems:
        row = measure(stem)
        rows.append(row)
        print(f"| {stem} | {row['n']} | {row['ours']:,} | {row['snarkjs']:,} | {row['ours_full']:,} | "
              f"{row['snarkjs_full']:,} | {row['bytes']['ours']:,} / {row['bytes']['snarkjs']:,} |", flush=True)
    if len({row["n"] for row in rows}) > 1:
        for key in ("ours_full", "snarkjs_full"):
            a, b = slope(rows, key)
            print(f"{key}: {a:,.0f} + {b:,.1f} per public input")


if __name__ == "__main__":
    main(sys.argv[1:] or sorted(f.stem for f in VECTORS.glob("*.json") if f.stem != "schema"))
