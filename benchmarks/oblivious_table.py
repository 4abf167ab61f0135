"""The first deal of a Proof or Bluff match through the match engine, house-blind and oblivious against the
house's deal in proof, printed as markdown.

    python benchmarks/oblivious_table.py [runs]

Each run opens a match in this process (every party its own key and secrets; the referee,
the dealer and both seats each check every line, proofs included) and stops once the first
round is dealt: for ``--deal oblivious`` the four exchange lines and the deal line, for
``--deal dealer`` the entropy lines and the proven deal. The pinned project keys are loaded
before timing. Wall and CPU time (the process's, both threads) of ``Table.start``, minimum
and median of ``runs`` runs after a warm-up; and, for the oblivious deal, the deck seat's
permutation proof alone (the part a table can prepare before the deal).
"""
from __future__ import annotations

import statistics
import sys
import time

from zkbluff.games.engine.table import open_match
from zkbluff.games.registry import spec_for
from zkbluff.statements.keys import load_keys

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
CASES = [("proof-or-bluff", "standard", "7+7"), ("proof-or-bluff", "casual", "5+5"),
         ("five-up-two-down", "standard", "2+2, board 5")]


def timed(fn, runs: int = RUNS) -> tuple[list[float], list[float]]:
    fn()  # warm-up
    walls, cpus = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return walls, cpus


def fmt(xs: list[float]) -> str:
    return f"{min(xs):.2f} / {statistics.median(xs):.2f} s"


def permutation_proof_s(game: str, mode: str) -> tuple[list[float], list[float]]:
    spec = spec_for(game, {"mode": mode, "deal": "oblivious"})
    from zkbluff.games.engine.parties import Prover

    prover = Prover()
    secrets = spec.deal.seat_secrets()
    return timed(lambda: spec.deal.deck_party(secrets, "bench", 1, prover).prepare())


def main() -> None:
    print(f"| table | deal | first deal: wall (min / median) | CPU (min / median) |")
    print("|---|---|---|---|")
    for game, mode, shape in CASES:
        for deal in ("house-blind", "oblivious", "dealer"):
            options = {"mode": mode, "deal": deal}
            for k in spec_for(game, options).statements():
                load_keys(k)
            walls, cpus = timed(lambda: open_match(game, options))
            print(f"| {game} {mode} ({shape}) | {deal} | {fmt(walls)} | {fmt(cpus)} |")
        walls, cpus = permutation_proof_s(game, mode)
        print(f"| {game} {mode} ({shape}) | oblivious: the permutation proof alone | {fmt(walls)} | {fmt(cpus)} |")


if __name__ == "__main__":
    main()
