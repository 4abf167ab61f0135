"""Cold start (issue 31): a fresh process with an empty ``$ZKBLUFF_KEY_DIR`` until the first
move of a Proof or Bluff match, a warm second match in the same process, and every
registered statement's key, each in a child process of its own (wall, and the child's
user + system CPU over all its threads from ``getrusage``). Medians of ``--runs``.

    PYTHONPATH=src python benchmarks/coldstart.py [--runs 3] [--all-keys]

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
ready2, first2 = match(folder / "two.jsonl")
print(json.dumps({"backend": get_backend().name, "imports_s": first_wall - first1, "ready_s": ready1,
                  "first_move_s": first_wall, "first_move_cpu_s": first_cpu,
                  "warm_ready_s": ready2, "warm_first_move_s": first2}))
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--all-keys", action="store_true", help="also load every statement's key (one child a run)")
    args = ap.parse_args()
    m = medians([run_child(CHILD_MATCH) for _ in range(args.runs)])
    load = os.getloadavg()[0]
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {load:.1f}; "
          f"backend {m['backend']}; medians of {args.runs} fresh processes, empty $ZKBLUFF_KEY_DIR\n")
    print("| what | wall s | CPU s |\n|---|---|---|")
    print(f"| Proof or Bluff: process start to the first move | {m['process_wall_s']:.2f} | {m['first_move_cpu_s']:.2f} |")
    print(f"| of it: keys ready and dealt (open_match) | {m['ready_s']:.2f} | |")
    print(f"| warm second match: keys ready and dealt | {m['warm_ready_s']:.2f} | |")
    print(f"| warm second match: to its first move | {m['warm_first_move_s']:.2f} | |")
    print(f"| key files written to $ZKBLUFF_KEY_DIR | {m['key_files_written']} | |")
    if args.all_keys:
        k = medians([run_child(CHILD_KEYS) for _ in range(args.runs)])
        print(f"| all {k['keys']} statements' keys, one process | {k['process_wall_s']:.2f} | {k['all_keys_cpu_s']:.2f} |")


if __name__ == "__main__":
    main()
