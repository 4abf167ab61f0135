"""Load on one ``zkbluff serve``: N concurrent matches on loopback, bounded in time.

The server runs in its own process (the referee and the dealer of every match: it
verifies every line and proves every deal). Each match has two seats, each a
:class:`~zkbluff.server.client.SeatClient` with its game's house bot choosing and its own
prover and referee (so every client proves its moves and verifies every line), all in
this process. After ``--seconds`` the run stops wherever the matches are and reports:

- moves per second: lines the server wrote (header excluded) per second of wall time;
- move latency p50/p99: a seat's line sent → the written line back at that seat (the
  server's check and write plus the network and queueing; the seat's proving excluded);
- server CPU per verified proof: the server process's user+system CPU over the run,
  divided by the proofs it verified (deal proving, routing and writing included);
- memory per room: the server's resident set growth divided by N.

  python benchmarks/server_load.py [--n 10,50,200] [--seconds 60] [--write]

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

GAME, OPTIONS = "proof-or-bluff", {"mode": "casual"}
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


async def _run(n: int, seconds: float, work: Path, log: Any) -> dict[str, Any]:
    port = _free_port()
    url = f"ws://127.0.0.1:{port}"
    data = work / f"data-{n}"
    server = subprocess.Popen([sys.executable, "-m", "zkbluff", "serve", "--port", str(port), "--data", str(data),
                               "--lookups", "1000"],  # every client comes from 127.0.0.1
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert "listening" in line, line
        await asyncio.sleep(0.5)
        rss0, cpu0 = _rss_mb(server.pid), _cpu_seconds(server.pid)
        quiet = lambda m: None  # noqa: E731
        hosts = [TimedClient(url, work / f"h{n}-{i}", f"host{i}", bot_policy(i), quiet, reconnect_for=seconds)
                 for i in range(n)]
        guests = [TimedClient(url, work / f"g{n}-{i}", f"guest{i}", bot_policy(10_000 + i), quiet,
                              reconnect_for=seconds) for i in range(n)]
        t0 = time.perf_counter()
        tasks = [asyncio.ensure_future(h.host(GAME, OPTIONS)) for h in hosts]

        async def guest(i: int) -> Any:
            while hosts[i].code is None:
                await asyncio.sleep(0.05)
            return await guests[i].join(hosts[i].code)

        tasks += [asyncio.ensure_future(guest(i)) for i in range(n)]
        done, pending = await asyncio.wait(tasks, timeout=seconds)
        elapsed = time.perf_counter() - t0
        cpu, rss = _cpu_seconds(server.pid) - cpu0, _rss_mb(server.pid)
        for t in pending:
            t.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        failed = [t.exception() for t in done if t.exception() is not None]
        lines, made, verified = _written(data)
        proofs = made + verified
        lat = sorted(x for c in hosts + guests for x in c.latencies)
        prove = [x for c in hosts + guests for x in c.prove_s if x > 0]
        out = {
            "n": n, "seconds": elapsed, "finished": sum(1 for t in done if t.exception() is None) // 2,
            "failed": len(failed), "lines": lines, "proofs": proofs, "deal_proofs": made, "seat_proofs": verified,
            "moves_per_s": lines / elapsed, "server_cpu_share": cpu / elapsed,
            "p50_ms": 1000 * lat[len(lat) // 2] if lat else float("nan"),
            "p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else float("nan"),
            "server_cpu_s": cpu, "cpu_per_proof_ms": 1000 * cpu / proofs if proofs else float("nan"),
            "cpu_per_seat_proof_ms": 1000 * cpu / verified if verified else float("nan"),
            "rss_mb": rss, "mb_per_room": (rss - rss0) / n,
            "prove_ms": 1000 * statistics.median(prove) if prove else float("nan"),
            "seated": sum(1 for c in hosts + guests if c.seat is not None),
        }
        if failed:
            log(f"  {len(failed)} client(s) failed, e.g. {failed[0]!r:.200}")
        return out
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


def _table(rows: list[dict[str, Any]], seconds: float, load: str) -> list[str]:
    out = [MARK_START, "## Server load (`benchmarks/server_load.py`)", "",
           f"One `zkbluff serve` process (referee and dealer of every match); N matches of {GAME} "
           f"({OPTIONS['mode']}), both seats remote clients with the house bot choosing, each proving its own moves "
           f"and verifying every line, all clients in one other process on the same machine; loopback; each run "
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
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(x) for x in args.n.split(",")]:
            print(f"N={n} …", flush=True)
            r = asyncio.run(_run(n, args.seconds, Path(tmp), print))
            print({k: (round(v, 2) if isinstance(v, float) else v) for k, v in r.items()}, flush=True)
            rows.append(r)
    text = _table(rows, args.seconds, load)
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
