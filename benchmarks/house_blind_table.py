"""The house-blind deal through the match engine (games/engine/house_blind_deal.py), against
issue 29's targets, printed as markdown.

    python benchmarks/house_blind_table.py [runs] [--no-loopback]

Measured (mcl backend, pinned project keys loaded before timing; minimum / median of
``runs`` runs after a warm-up):

- **6-seat Cheat, 52 cards** (hands 9, 9, 9, 9, 8, 8): each seat's own computation — making
  its key, shuffle (with its argument), shares and hand (Groth16 + sigma) lines — as process
  CPU, per seat, the worst seat reported; the whole first deal through the engine in one
  process (``open_match``: joins, header, the 24 deal lines and the dealer's deal line, every
  line checked by the referee and by every party), wall and CPU; the same over the real
  server on loopback (a ``SeatClient`` hosting, five server bots: the deal's wall time is the
  first ``deal`` line's stamp minus the header's); verifying every proof of the deal (the
  protocol's ``verify_deal`` + ``verify_hands`` on the round the table holds, and the whole
  offline verifier on the transcript cut after the deal line); transcript bytes of the deal
  (its lines as written, canonical JSON).
- **3-seat Cheat hand** end to end (open, deal, the bots play the hand out) and a **4-seat
  Bluffers round** end to end (seeds, the table card's draw, the deal, the round played out),
  wall and CPU, with every proof made and checked by every party.
"""
from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from zkbluff.curve import get_backend  # noqa: E402
from zkbluff.games.engine import house_blind_deal as hbd  # noqa: E402
from zkbluff.games.engine.table import open_match  # noqa: E402
from zkbluff.games.engine.verifier import verify_transcript  # noqa: E402
from zkbluff.games.registry import spec_for  # noqa: E402
from zkbluff.protocol.hand_binding import verify_hands  # noqa: E402
from zkbluff.protocol.house_blind import verify_deal  # noqa: E402
from zkbluff.protocol.transcript import canonical  # noqa: E402
from zkbluff.statements.keys import load_keys  # noqa: E402

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
RUNS = int(ARGS[0]) if ARGS else 3
LOOPBACK = "--no-loopback" not in sys.argv
CHEAT6 = {"players": "6", "hands": "3", "window": "1", "deal": "house-blind"}


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def stats(xs: list[float], unit: str = "s", scale: float = 1.0) -> str:
    return f"{min(xs) * scale:.2f} / {statistics.median(xs) * scale:.2f} {unit}"


def load(game: str, options: dict[str, str]) -> None:
    for k in spec_for(game, options).statements():
        load_keys(k)


def timed_seat_lines() -> tuple[dict[int, float], Callable[[], None]]:
    """Per seat, the CPU its own deal lines cost (wrapping the scheme's line maker)."""
    spent: dict[int, float] = defaultdict(float)
    real = hbd.HouseBlindDeal._seat_line

    def wrapped(self: Any, secrets: Any, seat: int, view: Any, prover: Any) -> Any:
        c = time.process_time()
        out = real(self, secrets, seat, view, prover)
        spent[seat] += time.process_time() - c
        return out
    hbd.HouseBlindDeal._seat_line = wrapped  # type: ignore[method-assign]

    def undo() -> None:
        hbd.HouseBlindDeal._seat_line = real  # type: ignore[method-assign]
    return spent, undo


def six_seat_deal(folder: Path, i: int) -> dict[str, Any]:
    spent, undo = timed_seat_lines()
    path = folder / f"cheat6-{i}.jsonl"
    try:
        t, c = time.perf_counter(), time.process_time()
        tab = open_match("cheat", CHEAT6, transcript=path, clock=Clock(), overwrite=True)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
    finally:
        undo()
    events = tab.writer.events
    last = next(k for k, e in enumerate(events) if e["action"] == "deal")
    deal_lines = [e for e in events[1:last + 1]]
    cut = folder / f"cheat6-{i}-deal.jsonl"
    cut.write_text("".join(canonical(e) + "\n" for e in events[:last + 1]))
    x = tab.view.ledger.deal.current
    t = time.perf_counter()
    c = time.process_time()
    record = x.record(tab.view.match_id)
    opening = verify_deal(record, get_backend())
    by_size: dict[int, dict[int, Any]] = defaultdict(dict)
    for seat, msg, prev, _ in x.hands:
        by_size[len(x.layout.positions_of(seat))][seat] = (msg, prev)
    for m, hands in by_size.items():
        verify_hands(record, opening.deck, hands, tab.view.vks[hbd.binding_key_id(52, m)], m + 1)
    proto_wall, proto_cpu = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time()
    verify_transcript(cut)
    offline_wall, offline_cpu = time.perf_counter() - t, time.process_time() - c
    return {"wall": wall, "cpu": cpu, "seat_cpu": max(spent.values()), "seat_cpus": dict(spent),
            "proto_wall": proto_wall, "proto_cpu": proto_cpu, "offline_wall": offline_wall,
            "offline_cpu": offline_cpu, "bytes": sum(len(canonical(e)) + 1 for e in deal_lines),
            "lines": len(deal_lines)}


async def _loopback_once(folder: Path) -> float:
    """A 6-seat house-blind Cheat match hosted over the real server on loopback: the seconds
    from the header's stamp to the first deal line's (the client stops at its first move)."""
    from zkbluff.server.app import Server, serve
    from zkbluff.server.client import SeatClient

    class Stop(Exception):
        pass

    def policy(spec: Any, obs: Any, names: list[str]) -> Any:
        raise Stop()

    server = Server(folder / "data")
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(serve(server, "127.0.0.1", 0, lambda p, n: port.set_result(p)))
    url = f"ws://127.0.0.1:{await asyncio.wait_for(port, 60)}"
    client = SeatClient(url, folder / "ann", "ann", policy, lambda m: None,
                        add_bots=tuple(f"bot{k}" for k in range(1, 6)), reconnect_for=5.0)
    try:
        try:
            await client.host("cheat", CHEAT6)
        except Exception:  # noqa: BLE001 - the policy's Stop at the first move, however the client wraps it
            pass
    finally:
        task.cancel()
        server.close()
    events = [json.loads(x) for x in client.transcript_path(client.match_id).read_text().splitlines()]
    deal = next(e for e in events if e["action"] == "deal")
    return float(deal["at"]) - float(events[0]["at"])


def loopback(runs: int) -> list[float]:
    out = []
    for i in range(runs + 1):
        with tempfile.TemporaryDirectory() as d:
            s = asyncio.run(asyncio.wait_for(_loopback_once(Path(d)), 600))
        if i:  # the first run warms the server's keys
            out.append(s)
    return out


def play_hand(folder: Path, i: int) -> tuple[float, float]:
    """A 3-seat house-blind Cheat table from open to the first hand's end."""
    from cheat_engine_helpers import Clock as CheatClock, step

    clock = CheatClock()
    t, c = time.perf_counter(), time.process_time()
    tab = open_match("cheat", {"players": "3", "hands": "3", "window": "1", "deal": "house-blind"},
                     transcript=folder / f"cheat3-{i}.jsonl", clock=clock, overwrite=True)
    bots, rng = [tab.spec.house_bot(10 + k) for k in range(3)], random.Random(i)
    while not tab.over and not tab.rules.s.hand_penalties:
        step(tab, clock, bots, rng)
    return time.perf_counter() - t, time.process_time() - c


def play_round(folder: Path, i: int) -> tuple[float, float]:
    """A 4-seat house-blind Bluffers table from open to the first round's end."""
    from match_harness import StepClock, bots_for, step

    clock = StepClock()
    t, c = time.perf_counter(), time.process_time()
    tab = open_match("bluffers", {"players": "4", "deal": "house-blind"}, transcript=folder / f"bl4-{i}.jsonl",
                     clock=clock, overwrite=True)
    bots, rng = bots_for(tab, 20 + i), random.Random(i)
    while not tab.over and [e["action"] for e in tab.writer.events].count(hbd.KEY) <= 2 * 4:
        step(tab, clock, bots, rng)  # until round 2's first key line: the draw and deal of round 1, then its play
    return time.perf_counter() - t, time.process_time() - c


def main() -> None:
    load("cheat", CHEAT6)
    load("cheat", {"players": "3", "deal": "house-blind"})
    load("bluffers", {"players": "4", "deal": "house-blind"})
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        rows = [six_seat_deal(folder, i) for i in range(RUNS + 1)][1:]
        hands = [play_hand(folder, i) for i in range(RUNS + 1)][1:]
        rounds = [play_round(folder, i) for i in range(RUNS + 1)][1:]
    col = {k: [r[k] for r in rows] for k in rows[0] if k != "seat_cpus"}
    print("| 6-seat Cheat deal, 52 cards (9, 9, 9, 9, 8, 8) | min / median |")
    print("|---|---|")
    print(f"| worst seat's own lines (key, shuffle + argument, shares, hand binding), CPU | {stats(col['seat_cpu'])} |")
    print(f"| the whole deal in one process (every party checks every line), wall | {stats(col['wall'])} |")
    print(f"| the same, CPU (all parties) | {stats(col['cpu'])} |")
    if LOOPBACK:
        print(f"| the whole deal over the server on loopback (header to deal line), wall | {stats(loopback(RUNS))} |")
    print(f"| verify the deal's proofs (verify_deal + verify_hands), wall | {stats(col['proto_wall'], 'ms', 1e3)} |")
    print(f"| the same, CPU | {stats(col['proto_cpu'], 'ms', 1e3)} |")
    print(f"| offline verifier on the transcript to the deal line, wall | {stats(col['offline_wall'], 'ms', 1e3)} |")
    print(f"| the same, CPU | {stats(col['offline_cpu'], 'ms', 1e3)} |")
    print(f"| transcript bytes of the deal ({rows[0]['lines']} lines) | {statistics.median(col['bytes']) / 1e3:.0f} kB |")
    print(f"| 3-seat Cheat hand end to end, wall / CPU (medians) | {statistics.median([h[0] for h in hands]):.1f} s / "
          f"{statistics.median([h[1] for h in hands]):.1f} s |")
    print(f"| 4-seat Bluffers round end to end, wall / CPU (medians) | {statistics.median([h[0] for h in rounds]):.1f} s"
          f" / {statistics.median([h[1] for h in rounds]):.1f} s |")
    print("\nper seat CPU of the last run:", {k: round(v, 3) for k, v in sorted(rows[-1]["seat_cpus"].items())})


if __name__ == "__main__":
    main()
