"""Groth16 prove on BN254 in zk-Harness's circuit-log format: zkbluff, groth16py and snarkjs
on the same .zkey and .wtns, measured in one run, one CSV row per size and prover.

  PYTHONPATH=src python benchmarks/zkharness.py [--min 10] [--max 20] [--reps 3]
      [--out benchmarks/zkharness/groth16_chain.csv]

The circuit is run.py's synthetic chain (``cs.mul(x, x + i)``, 2^k - 2 constraints and one
public input, so the domain is exactly 2^k). zkbluff sets it up (mcl backend) and writes the
key as a .zkey; every prover then proves from that .zkey and .wtns, each in a fresh child
process (nothing else in its memory): zkbluff from the .zkey and the .r1cs (its constraint
check included), groth16py (arkworks) from the .zkey, snarkjs through its JS API in node.
A warm-up prove, then --reps timed ones (1 from 2^18 on); medians.

Columns: zk-Harness's circuit columns (documentation/logs/README.md of zkCollective/zk-Harness:
framework, category, backend, curve, circuit, input, operation, nbConstraints, nbSecret,
nbPublic, ram in bytes, time(ms), proofSize in bytes, count; its published CSVs head the
time column ``time(ms)``), then this project's: cpu(ms), the prove's CPU time summed over the
child's threads (getrusage / process.cpuUsage around the prove calls only); threads, the
cores the prover may use (each of the three starts a thread or worker per core); machine;
load, the 1-minute load average when the row's child started (the machine is shared). ram is
the child's peak resident set (its key in memory included; VmHWM, the child's own memory).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent

COLUMNS = ["framework", "category", "backend", "curve", "circuit", "input", "operation", "nbConstraints",
           "nbSecret", "nbPublic", "ram", "time(ms)", "proofSize", "count", "cpu(ms)", "threads", "machine", "load"]

#: a Groth16 proof on BN254 as the three write it uncompressed: A, C in G1 (2 x 32 bytes), B in G2 (4 x 32)
PROOF_SIZE = 256

SNARKJS_CHILD = r"""
const snarkjs = require(process.argv[2]);
const [zkey, wtns, reps] = [process.argv[3], process.argv[4], +process.argv[5]];
(async () => {
  const wall = [], cpu = [];
  for (let i = 0; i < reps + 1; i++) {
    const c = process.cpuUsage(), t = performance.now();
    const res = await snarkjs.groth16.prove(zkey, wtns);
    const dt = performance.now() - t, dc = process.cpuUsage(c);
    if (!res.proof) throw new Error("no proof");
    if (i > 0) { wall.push(dt / 1000); cpu.push((dc.user + dc.system) / 1e6); }  // the first warms up
  }
  // the peak resident set of this process's own memory (VmHWM: not the forking parent's, which
  // getrusage's maxrss includes on Linux)
  const m = /VmHWM:\s*(\d+) kB/.exec(require("fs").readFileSync("/proc/self/status", "utf8"));
  console.log(JSON.stringify({wall, cpu, hwm: m ? +m[1] * 1024 : null}));
  process.exit(0);
})();
"""


def _child(framework: str, d: Path, reps: int) -> None:
    """Runs in the child: load, warm up, time reps proves; one JSON line on stdout."""
    wall: list[float] = []
    cpu: list[float] = []
    if framework == "zkbluff":
        sys.path.insert(0, str(ROOT / "src"))
        from zkbluff.circuit.formats import read_r1cs, read_wtns
        from zkbluff.curve import get_backend
        from zkbluff.groth16 import prove
        from zkbluff.groth16.zkey import zkey_from_bytes

        be = get_backend("mcl")
        pk = zkey_from_bytes((d / "c.zkey").read_bytes(), system=read_r1cs(d / "c.r1cs"))
        witness = read_wtns(d / "c.wtns")

        def one() -> None:
            prove(pk, witness, backend=be)
    else:
        import groth16py  # type: ignore

        gpk = groth16py.import_zkey(str(d / "c.zkey"))
        gpk = gpk[0] if isinstance(gpk, tuple) else gpk
        wtns = str(d / "c.wtns")

        def one() -> None:
            groth16py.prove_wtns(gpk, wtns)
    for i in range(reps + 1):
        t, c = time.perf_counter(), time.process_time()
        one()
        if i:
            wall.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
    print(json.dumps({"wall": wall, "cpu": cpu, "hwm": _vm_hwm()}), flush=True)


def _vm_hwm() -> int | None:
    """This process's peak resident set in bytes (VmHWM of /proc/self/status): its own memory
    since its exec. getrusage's / wait4's maxrss on Linux also counts the parent's resident set
    at the fork, which the parent here (holding the circuit) can exceed a small prover's."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _run_child_rss(cmd: list[str], env: dict) -> tuple[dict, int]:
    """The child's JSON line and wait4's maxrss in bytes (on Linux at least the parent's
    resident set at the fork: the child's own VmHWM, in its JSON, is the figure used)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode:
            raise RuntimeError(f"{' '.join(cmd[:4])} failed ({proc.returncode}): {err.read()[-2000:]}")
        return json.loads(out.read().strip().splitlines()[-1]), int(usage.ru_maxrss) * 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--min", type=int, default=10)
    ap.add_argument("--max", type=int, default=20)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE / "zkharness" / "groth16_chain.csv")
    ap.add_argument("--frameworks", default="zkbluff,groth16py,snarkjs")
    ap.add_argument("--child", nargs=3, metavar=("FRAMEWORK", "DIR", "REPS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child[0], Path(args.child[1]), int(args.child[2]))
        return
    sys.path.insert(0, str(ROOT / "src"))
    sys.path.insert(0, str(HERE))
    from machine import cpu_model
    from run import chain_output, chain_statement, node_modules
    from zkbluff.circuit import build
    from zkbluff.circuit.formats import write_r1cs, write_wtns
    from zkbluff.curve import get_backend
    from zkbluff.groth16 import setup
    from zkbluff.groth16.zkey import write_zkey

    machine = f"{os.cpu_count()} cores {cpu_model()}, shared"
    threads = os.cpu_count() or 1
    frameworks = args.frameworks.split(",")
    nm = node_modules()
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # rows of sizes outside this run's range are kept, so `--min 19 --max 20` adds the big
    # sizes (1 repetition each, see count) to a file that already has 2^10-2^18
    kept: list[dict] = []
    if args.out.exists():
        with args.out.open(newline="") as f:
            kept = [r for r in csv.DictReader(f)
                    if not args.min <= int(r["input"].removeprefix("2^")) <= args.max]
    rows: list[dict] = []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for lg in range(args.min, args.max + 1):
        n = (1 << lg) - 2
        system, witness = build(chain_statement(n), {"out": chain_output(n)})
        pk = setup(system, backend=get_backend("mcl"))
        reps = args.reps if lg < 18 else 1
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            write_zkey(d / "c.zkey", pk)
            write_wtns(d / "c.wtns", witness)
            write_r1cs(d / "c.r1cs", system)
            del pk
            for fw in frameworks:
                if fw == "snarkjs":
                    if nm is None:
                        print("snarkjs: node_modules not found (ZKBLUFF_NODE_MODULES)", file=sys.stderr)
                        continue
                    script = d / "child.cjs"
                    script.write_text(SNARKJS_CHILD)
                    cmd = ["node", str(script), str(nm / "snarkjs"), str(d / "c.zkey"), str(d / "c.wtns"), str(reps)]
                else:
                    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", fw, str(d), str(reps)]
                load = os.getloadavg()[0]
                res, rss = _run_child_rss(cmd, env)
                rss = res.get("hwm") or rss  # wait4's maxrss only where /proc is missing
                row = {
                    "framework": fw, "category": "circuit", "backend": "groth16", "curve": "bn254",
                    "circuit": "chain", "input": f"2^{lg}", "operation": "prove",
                    "nbConstraints": system.n_constraints, "nbSecret": system.n_wires - system.n_public - 1,
                    "nbPublic": system.n_public, "ram": rss, "time(ms)": round(statistics.median(res["wall"]) * 1000),
                    "proofSize": PROOF_SIZE, "count": reps, "cpu(ms)": round(statistics.median(res["cpu"]) * 1000),
                    "threads": threads, "machine": machine, "load": f"{load:.1f}",
                }
                rows.append(row)
                print(",".join(str(row[c]) for c in COLUMNS), flush=True)
        # written after every size: a run stopped at a large size keeps the smaller ones
        with args.out.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            w.writeheader()
            w.writerows(sorted(kept + rows, key=lambda r: int(str(r["input"]).removeprefix("2^"))))
    print(f"run started {started}; wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
