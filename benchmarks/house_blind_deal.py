"""Timings of the house-blind deal's cryptographic core (docs/house-blind-deal.md), printed
as markdown.

    python benchmarks/house_blind_deal.py [runs]

On the mcl backend: for each table shape (6 seats x 52 cards as at Cheat, 4 seats x 20 cards
as at Bluffers, 2 seats x 52), each seat's own work — key and its proof, shuffle and its
argument, its decryption shares, opening its own cards — as process CPU time (every thread)
and wall time; verifying a whole deal from its JSON record (every key proof, shuffle
argument and share: one MSM); the record's size. Then the parts alone, and the measured
cost of one 52-card re-encryption (the unit a cut-and-choose shuffle proof would repeat per
round). Medians (and the worst seat) over ``runs`` deals after a warm-up one. Not wired into
the engine yet: no signatures, no transcript lines; the hand binding is timed by
benchmarks/house_blind_hand.py.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import time
from typing import Callable

from zkbluff.curve import get_backend
from zkbluff.protocol.elgamal import (
    SYSTEM,
    G,
    ProofContext,
    SeatKey,
    initial_deck,
    joint_key,
    random_scalars,
    reencrypt,
)
from zkbluff.protocol.house_blind import DealLayout, DealRecord, HouseBlindSeat, verify_deal
from zkbluff.protocol.shuffle import random_permutation, shuffle_deck, verify_shuffle

MCL = get_backend("mcl")
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5


class Clock:
    """CPU (process, every thread) and wall seconds of what runs inside ``with``."""

    def __enter__(self) -> "Clock":
        self.cpu0, self.wall0 = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cpu = time.process_time() - self.cpu0
        self.wall = time.perf_counter() - self.wall0


def ms(x: float) -> str:
    return f"{x * 1000:.0f} ms" if x >= 0.01 else f"{x * 1000:.1f} ms"


def one_deal(layout: DealLayout, tag: str) -> tuple[list[dict[str, float]], DealRecord, list[HouseBlindSeat]]:
    """A deal with each seat's steps timed: ``[{step: (cpu, wall)}]`` per seat."""
    seats = [HouseBlindSeat(k, layout, tag, 0, backend=MCL) for k in range(layout.n_seats)]
    cost: list[dict[str, float]] = [{"cpu": 0.0, "wall": 0.0} for _ in seats]
    record = DealRecord(tag, 0, layout)

    def timed(k: int, fn: Callable[[], object]) -> object:
        with Clock() as c:
            out = fn()
        cost[k]["cpu"] += c.cpu
        cost[k]["wall"] += c.wall
        return out

    for s in seats:
        record.keys.append((timed(s.seat, lambda s=s: s.key_message(f"k{s.seat}")), f"k{s.seat}"))  # type: ignore[arg-type]
    H = joint_key([k.h for k, _ in record.keys], MCL)
    deck = initial_deck(layout.deck, H, MCL)
    for s in seats:
        deck, proof = timed(s.seat, lambda s=s, deck=deck: s.shuffle_message(deck, H, f"s{s.seat}"))  # type: ignore[misc]
        record.shuffles.append((deck, proof, f"s{s.seat}"))
    for s in seats:
        record.shares.append((timed(s.seat, lambda s=s: s.share_message(deck, f"h{s.seat}")), f"h{s.seat}"))  # type: ignore[arg-type]
    keys = [k.h for k, _ in record.keys]
    for s in seats:
        timed(s.seat, lambda s=s: s.open_hand(deck, record.shares, keys))
    return cost, record, seats


def record_bytes(record: DealRecord) -> tuple[int, int]:
    """(compact JSON bytes, raw bytes: 64 per point, 32 per scalar, 4 per index)."""
    text = json.dumps(record.to_json(), separators=(",", ":"))
    n, seats = record.layout.deck, record.layout.n_seats
    shuffle = 2 * n * 64 + (3 * n + 5) * 64 + (2 * n + 4) * 32
    shares = sum(len(s) for s, _ in record.shares) * (3 * 64 + 32 + 8)
    return len(text), seats * (2 * 64 + 32) + seats * shuffle + shares


def table(layout: DealLayout, label: str) -> None:
    one_deal(layout, "warm")
    per_seat_cpu, per_seat_wall, worst_cpu, verify_cpu, verify_wall = [], [], [], [], []
    size = (0, 0)
    for run in range(RUNS):
        cost, record, _seats = one_deal(layout, f"{label}-{run}")
        per_seat_cpu += [c["cpu"] for c in cost]
        per_seat_wall += [c["wall"] for c in cost]
        worst_cpu.append(max(c["cpu"] for c in cost))
        text = json.dumps(record.to_json(), separators=(",", ":"))
        with Clock() as c:
            verify_deal(DealRecord.from_json(json.loads(text)), MCL)
        verify_cpu.append(c.cpu)
        verify_wall.append(c.wall)
        size = record_bytes(record)
    med = statistics.median
    print(f"| {label} | {ms(med(per_seat_cpu))} ({ms(med(per_seat_wall))} wall) | {ms(med(worst_cpu))} | "
          f"{ms(med(verify_wall))} ({ms(med(verify_cpu))} CPU) | {size[0] / 1000:.0f} kB ({size[1] / 1000:.0f} kB raw) |")


def parts(n: int = 52, seats: int = 6) -> None:
    keys = [SeatKey.generate() for _ in range(seats)]
    H = joint_key(MCL.g1_mul_many(G, [k.x for k in keys]), MCL)
    deck = initial_deck(n, H, MCL)
    ctx = ProofContext("bench", 0, "shuffle", "")
    rows = []
    for name, fn in (
        ("re-encrypt and permute 52 cards (no proof)",
         lambda: reencrypt(deck, random_permutation(n, SYSTEM), random_scalars(n), H, MCL)),
        ("shuffle + argument, 52 cards", lambda: shuffle_deck(deck, H, ctx, backend=MCL)),
    ):
        rows.append((name, _median_clock(fn)))
    out, proof, _ = shuffle_deck(deck, H, ctx, backend=MCL)
    rows.append(("verify one shuffle argument, 52 cards", _median_clock(lambda: verify_shuffle(deck, out, proof, H, ctx, MCL))))
    for name, (cpu, wall) in rows:
        print(f"| {name} | {ms(wall)} | {ms(cpu)} |")


def _median_clock(fn: Callable[[], object]) -> tuple[float, float]:
    fn()
    cpus, walls = [], []
    for _ in range(max(RUNS, 5)):
        with Clock() as c:
            fn()
        cpus.append(c.cpu)
        walls.append(c.wall)
    return statistics.median(cpus), statistics.median(walls)


def main() -> None:
    print(f"house-blind deal, mcl backend, {RUNS} deals per row (medians), load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print("| table | one seat's own work (CPU) | worst seat (CPU) | verify the whole deal | record |")
    print("|---|---|---|---|---|")
    table(DealLayout.hands(6, 52), "6 seats x 52 cards")
    table(DealLayout.hands(4, 20, hand=5), "4 seats x 20 cards")
    table(DealLayout.hands(2, 52, hand=7), "2 seats x 52 cards (7 each)")
    print("\n| part | wall | CPU |")
    print("|---|---|---|")
    parts()


if __name__ == "__main__":
    main()
