// snarkjs's verdicts on the statement vectors, in one node process (one start-up, not
// one per case). Usage: node snarkjs_check.cjs NODE_MODULES JOB.json
// JOB.json: {"verify": [{id, vk (a path), public, proof}], "wtns": [{id, r1cs, wtns} (paths)]}
// (tests/repo/test_statement_vectors.py writes it). Prints {id: {"ok": bool, "constraint": index | null}}:
// "ok" is what `snarkjs groth16 verify` / `snarkjs wtns check` decide (the same library
// functions the CLI calls), "constraint" the index at which wtns check stops.
"use strict";
const fs = require("fs");
const path = require("path");

const snarkjs = require(path.join(path.resolve(process.argv[2]), "snarkjs"));

async function main() {
    const job = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
    const out = {};
    const vks = {};
    for (const c of job.verify) {
        const vk = vks[c.vk] || (vks[c.vk] = JSON.parse(fs.readFileSync(c.vk, "utf8")));
        let ok;
        try {
            ok = (await snarkjs.groth16.verify(vk, c.public, c.proof)) === true;
        } catch (e) {
            ok = false;  // snarkjs throws on some malformed points: a rejection
        }
        out[c.id] = { ok, constraint: null };
    }
    for (const c of job.wtns) {
        let constraint = null;
        const logger = {
            info() {}, debug() {}, error() {},
            warn(msg) {
                const m = /constraint (\d+)/.exec(msg);
                if (m) constraint = Number(m[1]);
            },
        };
        const ok = (await snarkjs.wtns.check(c.r1cs, c.wtns, logger)) === true;
        out[c.id] = { ok, constraint };
    }
    process.stdout.write(JSON.stringify(out));
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
