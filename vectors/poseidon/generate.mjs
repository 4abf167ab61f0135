// Generates vectors/poseidon/vectors.json with circomlibjs's poseidon (the reference the
// circuits must equal). Inputs are deterministic (a fixed xorshift), so the file is
// reproducible: `node vectors/poseidon/generate.mjs [--check]`.
import { buildPoseidon } from "circomlibjs";
import fs from "fs";
import path from "path";
import { fileURLToPath } from "url";

const here = path.dirname(fileURLToPath(import.meta.url));
const R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
let state = 0x2545F4914F6CDD1Dn;
const rand = () => {  // xorshift64*, 4 words -> one field element below r
  let v = 0n;
  for (let i = 0; i < 4; i++) {
    state ^= state >> 12n; state ^= (state << 25n) & 0xFFFFFFFFFFFFFFFFn; state ^= state >> 27n;
    v = (v << 64n) | ((state * 0x2545F4914F6CDD1Dn) & 0xFFFFFFFFFFFFFFFFn);
  }
  return v % R;
};
const poseidon = await buildPoseidon();
const tests = [];
for (let n = 1; n <= 16; n++) {
  const cases = [
    ["zeros", Array(n).fill(0n)],
    ["r - 1 everywhere", Array(n).fill(R - 1n)],
    ["1..n", Array.from({ length: n }, (_, i) => BigInt(i + 1))],
    ["random", Array.from({ length: n }, rand)],
    ["random", Array.from({ length: n }, rand)],
  ];
  for (const [comment, inputs] of cases) {
    tests.push({ tcId: tests.length + 1, comment: `${n} input(s): ${comment}`, inputs: inputs.map(String),
                 result: "valid", flags: [`Width${n + 1}`], hash: poseidon.F.toString(poseidon(inputs)) });
  }
}
const doc = { algorithm: "poseidon-circomlib-bn254", schemaVersion: 1, generator: "vectors/poseidon/generate.mjs",
              header: ["circomlibjs poseidon([...]) over BN254's Fr, 1..16 inputs; hash is decimal."],
              numberOfTests: tests.length, tests };
const text = JSON.stringify(doc, null, 1) + "\n";
const target = path.join(here, "vectors.json");
if (process.argv.includes("--check")) {
  if (!fs.existsSync(target) || fs.readFileSync(target, "utf8") !== text) {
    console.error("vectors/poseidon/vectors.json differs from circomlibjs"); process.exit(1);
  }
  console.log("vectors/poseidon/vectors.json matches circomlibjs");
} else {
  fs.writeFileSync(target, text);
  console.log(`wrote ${tests.length} vectors`);
}
