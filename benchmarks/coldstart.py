"""Cold start (issue 31): a fresh process with an empty ``$ZKBLUFF_KEY_DIR`` until the first
move of a Proof or Bluff match, a warm second match in the same process, and every
registered statement's key, each in a child process of its own (wall, and the child's
user + system CPU over all its threads from ``getrusage``). Medians of ``--runs``. With
``--kernels``: native Poseidon, the twins that use it and the G2 subgroup check.

    PYTHONPATH=src python benchmarks/coldstart.py [--runs 3] [--all-keys] [--kernels] [--zkey-read] [--no-match]

Prints a markdown table; nothing here is a timed assertion in the test suite.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

CHILD_MATCH = r"""
import json, resource, sys, tempfile, time
from pathlib import Path
t0 = time.perf_counter()
from zkbluff.games.engine.table import open_match
from zkbluff.curve import get_backend

def cpu():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime

def match(out):
    now = [0.0]
    t = time.perf_counter()
    tab = open_match("proof-or-bluff", None, ["bot", "house"], transcript=out, overwrite=True, clock=lambda: now[0])
    ready = time.perf_counter() - t
    bots = [tab.spec.house_bot(7 + i) for i in range(2)]
    seat = tab.to_move
    tab.move(seat, bots[seat].act(tab.observation(seat)))
    return ready, time.perf_counter() - t

folder = Path(tempfile.mkdtemp())
ready1, first1 = match(folder / "one.jsonl")
first_wall, first_cpu = time.perf_counter() - t0, cpu()
cpu2 = cpu()
ready2, first2 = match(folder / "two.jsonl")
cpu2 = cpu() - cpu2
print(json.dumps({"backend": get_backend().name, "imports_s": first_wall - first1, "ready_s": ready1,
                  "first_move_s": first_wall, "first_move_cpu_s": first_cpu,
                  "warm_ready_s": ready2, "warm_first_move_s": first2, "warm_first_move_cpu_s": cpu2}))
"""

CHILD_KEYS = r"""
import json, resource, time
t0 = time.perf_counter()
from zkbluff.statements import all_statements
from zkbluff.statements.keys import load_keys
for key_id in all_statements():
    load_keys(key_id)
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"keys": len(all_statements()), "all_keys_s": time.perf_counter() - t0,
                  "all_keys_cpu_s": ru.ru_utime + ru.ru_stime}))
"""


def run_child(code: str) -> dict:
    """One fresh interpreter with an empty key folder; its JSON line and its wall time."""
    with tempfile.TemporaryDirectory() as key_dir:
        env = dict(os.environ, ZKBLUFF_KEY_DIR=key_dir)
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t
        result = json.loads(out.stdout.strip().splitlines()[-1])
        result["process_wall_s"] = wall
        leftover = os.listdir(key_dir)
    result["key_files_written"] = len(leftover)
    return result


def medians(rows: list[dict]) -> dict:
    return {k: (statistics.median(r[k] for r in rows) if isinstance(rows[0][k], (int, float)) else rows[0][k])
            for k in rows[0]}


def cpu_per_call(fn, n: int, runs: int = 5) -> float:
    """Median over ``runs`` batches of ``n`` calls: CPU seconds a call (the process's, every
    thread: the subgroup kernel runs a chunk per core)."""
    times = []
    for _ in range(runs):
        t = time.process_time()
        for _ in range(n):
            fn()
        times.append((time.process_time() - t) / n)
    return statistics.median(times)


def kernel_rows() -> list[str]:
    """Poseidon (2 inputs) through the twins' API (the sparse rounds in C), the plain rounds
    in C (before them), the sparse rounds on the portable product, and Python; deal_native
    and share_native; the G2 subgroup check a point, the psi kernel and MCL's isValidOrder."""
    import random

    from zkbluff.curve import G2_GENERATOR, get_backend, mcl_backend
    from zkbluff.field import get_kernel, r
    from zkbluff.gadgets.native import poseidon, poseidon_reference
    from zkbluff.gadgets.poseidon_params import params
    from zkbluff.gadgets.poseidon_sparse import sparse_params
    from zkbluff.statements.deal import deal_native
    from zkbluff.statements.revolver import share_native

    rng = random.Random(1)
    xs = [rng.randrange(r), rng.randrange(r)]
    entropies = [rng.randrange(2**200) for _ in range(2)]
    be = get_backend("mcl")
    points = [be.g2_mul(G2_GENERATOR, rng.randrange(1, r)) for _ in range(512)]
    structs = [be._g2(Q) for Q in points]
    kernel = get_kernel()
    C, M, r_p = params(3)
    plain_c, plain_m = kernel.from_ints(C, len(C)), kernel.from_ints([m for row in M for m in row], 9)
    sp = sparse_params(3)
    portable = kernel.poseidon_sparse(kernel.from_ints(sp.packed_ints(), len(sp.packed_ints())), sp.r_p, portable=True)
    def one_by_one(pts):
        batch_min, mcl_backend.G2_BATCH_MIN = mcl_backend.G2_BATCH_MIN, 1 << 62
        try:
            return be.g2_first_outside_subgroup(pts)
        finally:
            mcl_backend.G2_BATCH_MIN = batch_min

    rows = [
        f"| Poseidon, 2 inputs, `gadgets.native.poseidon` (C, sparse rounds) | {cpu_per_call(lambda: poseidon(xs), 2000) * 1e6:.1f} µs |",
        f"| Poseidon, 2 inputs, the plain rounds in C (before) | "
        f"{cpu_per_call(lambda: kernel.poseidon(xs, plain_c, plain_m, r_p), 2000) * 1e6:.1f} µs |",
        f"| Poseidon, 2 inputs, sparse rounds, portable product | {cpu_per_call(lambda: portable(xs), 2000) * 1e6:.1f} µs |",
        f"| Poseidon, 2 inputs, Python reference | {cpu_per_call(lambda: poseidon_reference(xs), 50) * 1e6:.0f} µs |",
        f"| `deal_native` (2 seats of 5, 52 cards) | {cpu_per_call(lambda: deal_native(entropies, 1, [5, 5]), 100) * 1e3:.2f} ms |",
        f"| `share_native` | {cpu_per_call(lambda: share_native(12345, 3, 2), 200) * 1e3:.3f} ms |",
        f"| G2 subgroup check, 512 points in one call, batched (10 combinations) | "
        f"{cpu_per_call(lambda: be.g2_first_outside_subgroup(points), 3) / 512 * 1e6:.1f} µs a point |",
        f"| G2 subgroup check, psi kernel one point at a time (512 in one call) | "
        f"{cpu_per_call(lambda: one_by_one(points), 3) / 512 * 1e6:.1f} µs a point |",
        f"| G2 subgroup check, MCL isValidOrder | "
        f"{cpu_per_call(lambda: [mcl_backend._lib.mclBnG2_isValidOrder(s) for s in structs], 3) / 512 * 1e6:.1f} µs a point |",
    ]
    return rows


def zkey_rows() -> list[str]:
    """A 2^16 .zkey (the chain of benchmarks/run.py, keys by groth16.setup) read with every
    point checked (``ceremony.phase2.zkey_from_file_bytes``), and the G2 subgroup check of its
    B2 points alone: batched (the default from ``G2_BATCH_MIN`` points) and one by one (the
    check before it), CPU of every thread, medians of 3."""
    from run import chain_statement  # benchmarks/run.py: this script's own folder

    from zkbluff.ceremony.phase2 import zkey_from_file_bytes
    from zkbluff.circuit import build
    from zkbluff.curve import get_backend, mcl_backend
    from zkbluff.groth16 import setup
    from zkbluff.groth16.zkey import zkey_to_bytes

    be = get_backend("mcl")
    system = build(chain_statement(1 << 16))[0]
    pk = setup(system, be)
    data = zkey_to_bytes(pk)
    b2 = list(pk.b_g2_query)
    batch_min = mcl_backend.G2_BATCH_MIN

    def both(fn) -> tuple[float, float]:
        batched = cpu_per_call(fn, 1, runs=3)
        mcl_backend.G2_BATCH_MIN = 1 << 62
        try:
            alone = cpu_per_call(fn, 1, runs=3)
        finally:
            mcl_backend.G2_BATCH_MIN = batch_min
        return batched, alone

    check = both(lambda: be.g2_first_outside_subgroup(b2))
    read = both(lambda: zkey_from_file_bytes(data, "bench.zkey", system))
    return [f"| G2 subgroup check of a 2^16 key's {len(b2)} B2 points | {check[0]:.2f} s | {check[1]:.2f} s |",
            f"| read of the 2^16 `.zkey` ({len(data) >> 20} MiB), every point checked | {read[0]:.2f} s | {read[1]:.2f} s |"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--all-keys", action="store_true", help="also load every statement's key (one child a run)")
    ap.add_argument("--kernels", action="store_true", help="also time Poseidon, the twins and the G2 subgroup check")
    ap.add_argument("--zkey-read", action="store_true",
                    help="also read a 2^16 .zkey with every point checked, batched and one by one")
    ap.add_argument("--no-match", action="store_true", help="leave out the fresh-process match and keys")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {load:.1f}")
    if not args.no_match:
        match_rows(args)
    if args.kernels:
        print("\n| kernel (mcl backend, native field kernel) | CPU a call, median |\n|---|---|")
        print("\n".join(kernel_rows()))
    if args.zkey_read:
        print("\n| 2^16 key (mcl backend), CPU of every thread, median of 3 | G2 batched | G2 one by one (the check before) |"
              "\n|---|---|---|")
        print("\n".join(zkey_rows()))


def match_rows(args) -> None:
    m = medians([run_child(CHILD_MATCH) for _ in range(args.runs)])
    print(f"backend {m['backend']}; medians of {args.runs} fresh processes, empty $ZKBLUFF_KEY_DIR\n")
    print("| what | wall s | CPU s |\n|---|---|---|")
    print(f"| Proof or Bluff: process start to the first move | {m['process_wall_s']:.2f} | {m['first_move_cpu_s']:.2f} |")
    print(f"| of it: keys ready and dealt (open_match) | {m['ready_s']:.2f} | |")
    print(f"| warm second match: keys ready and dealt | {m['warm_ready_s']:.2f} | |")
    print(f"| warm second match: to its first move | {m['warm_first_move_s']:.2f} | {m['warm_first_move_cpu_s']:.2f} |")
    print(f"| key files written to $ZKBLUFF_KEY_DIR | {m['key_files_written']} | |")
    if args.all_keys:
        k = medians([run_child(CHILD_KEYS) for _ in range(args.runs)])
        print(f"| all {k['keys']} statements' keys, one process | {k['process_wall_s']:.2f} | {k['all_keys_cpu_s']:.2f} |")


if __name__ == "__main__":
    main()
