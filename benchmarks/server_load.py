"""Load on one ``zkbluff serve``: N concurrent matches on loopback, bounded in time.

The server runs in its own process (the referee and the dealer of every match: it
verifies every line and proves every deal). Each match has two seats, each a
:class:`~zkbluff.server.client.SeatClient` with its game's house bot choosing and its own
prover and referee (so every client proves its moves and verifies every line); the
clients are spread over ``--procs`` worker processes (default 2, one per core), whole
matches each, so the load generator is not one Python process. After ``--seconds`` the run stops wherever the matches are and reports:

- moves per second: lines the server wrote (header excluded) per second of wall time;
- move latency p50/p99: a seat's line sent → the written line back at that seat (the
  server's check and write plus the network and queueing; the seat's proving excluded);
- server CPU per verified proof: the server process's user+system CPU over the run,
  divided by the proofs it verified (deal proving, routing and writing included);
- memory per room: the server's resident set growth divided by N.

  python benchmarks/server_load.py [--n 10,50,200] [--seconds 60] [--procs 2] [--write]

``--write`` replaces the "Server load" section of benchmarks/results.md.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from zkbluff.server.client import SeatClient, bot_policy  # noqa: E402

GAME, OPTIONS = "proof-or-bluff", {"mode": "casual", "deal": "dealer"}  # the house's deal in proof (as measured)
MARK_START, MARK_END = "<!-- server_load: start -->", "<!-- server_load: end -->"


class TimedClient(SeatClient):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.sent_at: dict[int, float] = {}
        self.latencies: list[float] = []
        self.prove_s: list[float] = []

    async def _move(self, conn: Any) -> None:
        assert self.seat is not None and self.seat.view is not None
        n = self.seat.view.next_line
        await super()._move(conn)
        self.sent_at[n] = time.perf_counter()
        self.prove_s.append(self.seat.prover.last_seconds)

    def _on_line(self, msg: Any) -> None:
        n = msg.get("line", {}).get("n")
        super()._on_line(msg)
        if n in self.sent_at:
            self.latencies.append(time.perf_counter() - self.sent_at.pop(n))


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _written(data: Path) -> tuple[int, int, int]:
    """(lines other than headers, proofs the server made (deals), proofs the seats made and
    the server verified) in every transcript under ``data``."""
    lines = made = verified = 0
    for f in data.glob("rooms/*/*.jsonl"):
        for raw in f.read_text().splitlines():
            event = json.loads(raw)
            if event["action"] == "header":
                continue
            lines += 1
            k = len(event.get("proofs", []))
            if event["seat"] is None:
                made += k
            else:
                verified += k
    return lines, made, verified


async def _clients(url: str, first: int, count: int, seconds: float, work: Path) -> dict[str, Any]:
    """Matches ``first .. first + count - 1``: both seats of each in this process, played
    until they finish or ``seconds`` pass; what the seats measured."""
    quiet = lambda m: None  # noqa: E731
    idx = range(first, first + count)
    hosts = {i: TimedClient(url, work / f"h-{i}", f"host{i}", bot_policy(i), quiet, reconnect_for=seconds)
             for i in idx}
    guests = {i: TimedClient(url, work / f"g-{i}", f"guest{i}", bot_policy(10_000 + i), quiet,
                             reconnect_for=seconds) for i in idx}
    tasks = [asyncio.ensure_future(h.host(GAME, OPTIONS)) for h in hosts.values()]

    async def guest(i: int) -> Any:
        while hosts[i].code is None:
            await asyncio.sleep(0.05)
        return await guests[i].join(hosts[i].code)

    tasks += [asyncio.ensure_future(guest(i)) for i in idx]
    done, pending = await asyncio.wait(tasks, timeout=seconds)
    for t in pending:
        t.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    failed = [repr(t.exception())[:200] for t in done if t.exception() is not None]
    everyone = list(hosts.values()) + list(guests.values())
    return {"latencies": [x for c in everyone for x in c.latencies],
            "prove": [x for c in everyone for x in c.prove_s if x > 0],
            "finished": sum(1 for t in done if t.exception() is None) // 2, "failed": failed,
            "seated": sum(1 for c in everyone if c.seat is not None)}


def _worker(args: argparse.Namespace) -> None:
    """One client process of a run (``--worker``): prints its measures as one JSON line."""
    out = asyncio.run(_clients(args.url, args.first, args.count, args.seconds, Path(args.work)))
    print(json.dumps(out), flush=True)


def _run(n: int, seconds: float, work: Path, log: Any, procs: int) -> dict[str, Any]:
    """N matches through one server, their 2N seats spread over ``procs`` client processes
    (whole matches per process), each bounded by ``seconds``."""
    port = _free_port()
    url = f"ws://127.0.0.1:{port}"
    data = work / f"data-{n}"
    server = subprocess.Popen([sys.executable, "-m", "zkbluff", "serve", "--port", str(port), "--data", str(data),
                               "--lookups", "1000"],  # every client comes from 127.0.0.1
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    workers: list[subprocess.Popen[str]] = []
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert "listening" in line, line
        time.sleep(0.5)
        rss0, cpu0 = _rss_mb(server.pid), _cpu_seconds(server.pid)
        t0 = time.perf_counter()
        shares = [n // procs + (1 if k < n % procs else 0) for k in range(procs)]
        first = 0
        for k, count in enumerate(shares):
            if count:
                workers.append(subprocess.Popen(
                    [sys.executable, __file__, "--worker", "--url", url, "--first", str(first), "--count", str(count),
                     "--seconds", str(seconds), "--work", str(work / f"w{n}-{k}")],
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
            first += count
        results = []
        for w in workers:
            text, _ = w.communicate(timeout=seconds + 120)
            results.append(json.loads(text.strip().splitlines()[-1]))
        elapsed = time.perf_counter() - t0
        cpu, rss = _cpu_seconds(server.pid) - cpu0, _rss_mb(server.pid)
        failed = [f for r in results for f in r["failed"]]
        lines, made, verified = _written(data)
        proofs = made + verified
        lat = sorted(x for r in results for x in r["latencies"])
        prove = [x for r in results for x in r["prove"]]
        out = {
            "n": n, "procs": len(workers), "seconds": elapsed, "finished": sum(r["finished"] for r in results),
            "failed": len(failed), "lines": lines, "proofs": proofs, "deal_proofs": made, "seat_proofs": verified,
            "moves_per_s": lines / elapsed, "server_cpu_share": cpu / elapsed,
            "p50_ms": 1000 * lat[len(lat) // 2] if lat else float("nan"),
            "p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else float("nan"),
            "server_cpu_s": cpu, "cpu_per_proof_ms": 1000 * cpu / proofs if proofs else float("nan"),
            "cpu_per_seat_proof_ms": 1000 * cpu / verified if verified else float("nan"),
            "rss_mb": rss, "mb_per_room": (rss - rss0) / n,
            "prove_ms": 1000 * statistics.median(prove) if prove else float("nan"),
            "seated": sum(r["seated"] for r in results),
        }
        if failed:
            log(f"  {len(failed)} client(s) failed, e.g. {failed[0]}")
        return out
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


def _table(rows: list[dict[str, Any]], seconds: float, load: str, procs: int) -> list[str]:
    out = [MARK_START, "## Server load (`benchmarks/server_load.py`)", "",
           f"One `zkbluff serve` process (referee and dealer of every match); N matches of {GAME} "
           f"({OPTIONS['mode']}, deal {OPTIONS['deal']}), both seats remote clients with the house bot choosing, each proving its own moves "
           f"and verifying every line, the clients spread over {procs} other processes (whole matches each) on the "
           f"same machine; loopback; each run "
           f"stopped after {seconds:.0f} s wherever the matches were. Machine load average at the start: {load}.", "",
           "Server CPU per proof: the server process's whole CPU time (routing, writing, verifying the seats' "
           "proofs *and proving every deal*) divided by the proofs it handled (deal proofs it made + seat proofs "
           "it verified); the share column is that CPU time over the wall time (1.0 = one core).", "",
           "| N | moves/s | p50 move latency | p99 move latency | proofs handled (deals made + seat proofs verified) "
           "| server CPU per proof | server CPU share | server RSS | memory per room | client prove (median) "
           "| seats seated | matches finished |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def ms(x: float) -> str:
        return "—" if x != x else f"{x:.0f} ms"
    for r in rows:
        out.append(f"| {r['n']} | {r['moves_per_s']:.1f} | {ms(r['p50_ms'])} | {ms(r['p99_ms'])} | "
                   f"{r['proofs']} ({r['deal_proofs']} + {r['seat_proofs']}) | {r['cpu_per_proof_ms']:.1f} ms | "
                   f"{r['server_cpu_share']:.2f} | {r['rss_mb']:.0f} MB | {r['mb_per_room']:.2f} MB | "
                   f"{ms(r['prove_ms'])} | {r['seated']}/{2 * r['n']} | {r['finished']} |")
    out.append("")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", default="10,50,200")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--procs", type=int, default=2, help="client processes (whole matches each)")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    ap.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        _worker(args)
        return
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(x) for x in args.n.split(",")]:
            print(f"N={n} …", flush=True)
            r = _run(n, args.seconds, Path(tmp), print, args.procs)
            print({k: (round(v, 2) if isinstance(v, float) else v) for k, v in r.items()}, flush=True)
            rows.append(r)
    text = _table(rows, args.seconds, load, args.procs)
    print("\n".join(text))
    if args.write:
        path = ROOT / "benchmarks" / "results.md"
        old = path.read_text()
        section = "\n".join(text) + MARK_END + "\n"
        if MARK_START in old and MARK_END in old:
            new = re.sub(re.escape(MARK_START) + ".*?" + re.escape(MARK_END) + "\n?", lambda m: section, old,
                         flags=re.S)
        else:
            new = old.rstrip("\n") + "\n\n" + section
        path.write_text(new)


if __name__ == "__main__":
    main()
