"""Generates vectors/groth16/vectors.json: a snarkjs verification key, proofs made by
snarkjs (circom circuit, local powers of tau), and mutations of them; each case's
`result` is what **snarkjs's own `groth16 verify`** says (valid / invalid), or
`acceptable` where snarkjs is lenient and zkbluff is strict on purpose (flags say why).

Run from the repository root after `npm ci`: python vectors/groth16/generate.py
(proofs are randomised, so a new run gives a new, equally valid file).
"""
from __future__ import annotations

import copy
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NM = ROOT / "node_modules"
SNARKJS = ["node", str(NM / "snarkjs" / "build" / "cli.cjs")]
R = 21888242871839275222246405745257275088548364400416034343698204186575808495617
P = 21888242871839275222246405745257275088696311157297823662689037894645226208583

CIRCUIT = """
pragma circom 2.0.0;
template M() {
    signal input a;
    signal input b;
    signal output c;
    signal output d;
    c <== a * b;
    d <== c * a + b;
}
component main {public [a]} = M();
"""


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        w = Path(d)
        (w / "m.circom").write_text(CIRCUIT)
        assert run(["node", str(NM / "circom2" / "cli.js"), "m.circom", "--r1cs", "--wasm", "-o", "."], w).returncode == 0
        for cmd in (["powersoftau", "new", "bn128", "6", "p0.ptau"],
                    ["powersoftau", "contribute", "p0.ptau", "p1.ptau", "--name=v", "-e=vectors"],
                    ["powersoftau", "prepare", "phase2", "p1.ptau", "p.ptau"],
                    ["groth16", "setup", "m.r1cs", "p.ptau", "m0.zkey"],
                    ["zkey", "contribute", "m0.zkey", "m.zkey", "--name=k", "-e=vectors"],
                    ["zkey", "export", "verificationkey", "m.zkey", "vk.json"]):
            assert run(SNARKJS + cmd, w).returncode == 0, cmd
        proofs = []
        for a, b in ((3, 11), (4, 5)):
            (w / "in.json").write_text(json.dumps({"a": str(a), "b": str(b)}))
            assert run(["node", "m_js/generate_witness.js", "m_js/m.wasm", "in.json", "w.wtns"], w).returncode == 0
            assert run(SNARKJS + ["groth16", "prove", "m.zkey", "w.wtns", "pr.json", "pub.json"], w).returncode == 0
            proofs.append((json.loads((w / "pr.json").read_text()), json.loads((w / "pub.json").read_text())))
        vk = json.loads((w / "vk.json").read_text())
        (p1, pub1), (p2, pub2) = proofs
        cases = []

        def case(comment, proof, public, flags, lenient=False):
            cases.append((comment, proof, public, flags, lenient))

        def mut(proof, path, value):
            q = copy.deepcopy(proof)
            node = q
            for k in path[:-1]:
                node = node[k]
            node[path[-1]] = value
            return q

        case("valid proof", p1, pub1, [])
        case("valid proof of another witness", p2, pub2, [])
        case("another witness's public inputs", p1, pub2, ["WrongPublicInput"])
        case("public inputs swapped", p1, [pub1[1], pub1[0], pub1[2]], ["WrongPublicInput"])
        case("a public input plus one", p1, [pub1[0], pub1[1], str(int(pub1[2]) + 1)], ["WrongPublicInput"])
        case("a public input plus r (c + r)", p1, [str(int(pub1[0]) + R)] + pub1[1:], ["PublicInputNotReduced"])
        case("pi_a of another proof", mut(p1, ["pi_a"], p2["pi_a"]), pub1, ["MixedProof"])
        case("pi_b of another proof", mut(p1, ["pi_b"], p2["pi_b"]), pub1, ["MixedProof"])
        case("pi_c of another proof", mut(p1, ["pi_c"], p2["pi_c"]), pub1, ["MixedProof"])
        case("pi_a and pi_c exchanged", mut(mut(p1, ["pi_a"], p1["pi_c"]), ["pi_c"], p1["pi_a"]), pub1, ["MixedProof"])
        case("pi_a off the curve (y + 1)", mut(p1, ["pi_a", 1], str(int(p1["pi_a"][1]) + 1)), pub1, ["PointNotOnCurve"])
        case("pi_a negated", mut(p1, ["pi_a", 1], str(P - int(p1["pi_a"][1]))), pub1, ["WrongProof"])
        case("pi_c off the curve (x + 1)", mut(p1, ["pi_c", 0], str(int(p1["pi_c"][0]) + 1)), pub1, ["PointNotOnCurve"])
        case("pi_b coordinates in the wrong order (c1, c0)",
             mut(mut(p1, ["pi_b", 0], p1["pi_b"][0][::-1]), ["pi_b", 1], p1["pi_b"][1][::-1]), pub1, ["G2Order"])
        case("pi_b x and y exchanged", mut(mut(p1, ["pi_b", 0], p1["pi_b"][1]), ["pi_b", 1], p1["pi_b"][0]), pub1,
             ["PointNotOnCurve"])
        case("pi_a a coordinate plus p", mut(p1, ["pi_a", 0], str(int(p1["pi_a"][0]) + P)), pub1,
             ["CoordinateNotReduced"], lenient=True)
        case("pi_a at infinity", mut(p1, ["pi_a"], ["0", "1", "0"]), pub1, ["Infinity"])
        case("pi_c at infinity", mut(p1, ["pi_c"], ["0", "1", "0"]), pub1, ["Infinity"])
        case("one public input too few", p1, pub1[:2], ["WrongCount"], lenient=True)
        case("a public input in hex", p1, [hex(int(pub1[0]))] + pub1[1:], ["HexPublicInput"], lenient=True)
        tests = []
        for comment, proof, public, flags, lenient in cases:
            (w / "p.json").write_text(json.dumps(proof))
            (w / "q.json").write_text(json.dumps(public))
            res = run(SNARKJS + ["groth16", "verify", "vk.json", "q.json", "p.json"], w)
            snark_ok = res.returncode == 0 and "OK" in res.stdout
            result = ("acceptable" if snark_ok else "invalid") if lenient else ("valid" if snark_ok else "invalid")
            tests.append({"tcId": len(tests) + 1, "comment": comment, "flags": flags, "proof": proof,
                          "public": public, "result": result, "snarkjs": "valid" if snark_ok else "invalid"})
    doc = {"algorithm": "groth16-bn254-snarkjs", "schemaVersion": 1, "generator": "vectors/groth16/generate.py",
           "header": ["result is what snarkjs groth16 verify says; 'acceptable': snarkjs is lenient (it reduces or ",
                      "guesses), zkbluff rejects on purpose (MalformedInput)."],
           "verificationKey": vk, "numberOfTests": len(tests), "tests": tests}
    (ROOT / "vectors" / "groth16" / "vectors.json").write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {len(tests)} vectors")


if __name__ == "__main__":
    main()
