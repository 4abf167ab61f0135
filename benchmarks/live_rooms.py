"""Server memory per live room: rooms held live across ``zkbluff serve --workers K``.

The servers are started as ``benchmarks/server_load.py --servers`` starts them (its
helpers: a throwaway ``redis-server`` on loopback, ``serve --workers K`` on it, the same
long time limits and raised per-address limits). Room ``i`` is created on worker
``i mod K`` by its host seat and joined there by its guest seat: two real
:class:`~zkbluff.server.client.SeatClient` seats (their own keys, deal secrets, prover;
they check the table, the header and every line), multiplexed in ``--procs`` client
processes.

**Live** here means: both seats signed in and connected (two websocket connections per
room, held open), the header, the entropy lines and the house's deal (its proof) written
and checked, and the seat to move on its clock, which its client never answers (the
limits are an hour): the room, its referee, its connections and its clock are in the
server's memory, and the match waits at its first move. Nobody plays, so the servers'
CPU over a quiet window measures what the live rooms cost when idle (the clock's turns,
the directory's lease refreshes, pings).

The rooms are added in steps (``--steps 100,300,1000``, cumulative); after each step and
a settle the servers' resident sets (VmRSS, each worker's) are read. Memory per live room
is the slope between steps: the first step also pays for the table's keys, loaded at a
worker's first match, which the later slopes do not.

  python benchmarks/live_rooms.py [--steps 100,300,1000] [--servers 2] [--procs 2] [--write]
  python benchmarks/live_rooms.py --steps 2,4 --procs 1 --quiet 1   (a smoke run)

``--write`` replaces the "Live rooms" section of benchmarks/results.md (added at its end
the first time).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Optional

import server_load as sl  # benchmarks/server_load.py: this script's own folder (the servers and the machine)
from server_load import GAME, OPTIONS, LIMIT, ROOT

from zkbluff.server.client import SeatClient, bot_policy

MARK_START, MARK_END = "<!-- live_rooms: start -->", "<!-- live_rooms: end -->"


class IdleClient(SeatClient):
    """A seat that takes its seat, makes its deal lines and follows every line, but never
    answers its turn: ``live`` is set when it is asked for its first move."""

    def __init__(self, *args: Any, live: asyncio.Event, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.live = live

    def _ask(self) -> None:
        self.live.set()


async def _rooms(urls: list[str], first: int, work: Path, concurrency: int, threads: int, wait: float) -> None:
    """(A client process.) Reads targets from stdin: opens rooms ``first, first + 1, …``
    (this process's) until it holds that many live, answers with what it holds; ``stop``
    ends it. A room not live ``wait`` seconds after its guest joined counts as failed (and
    stays open: its seats still hold their connections)."""
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(threads))
    quiet = lambda m: None  # noqa: E731
    playing: list[asyncio.Future[Any]] = []
    live = 0
    failed: list[str] = []

    async def room(i: int, gate: asyncio.Semaphore) -> None:
        nonlocal live
        async with gate:
            url, ready = urls[i % len(urls)], asyncio.Event()
            host = IdleClient(url, work / f"h{i}", f"host{i}", bot_policy(i), quiet, live=ready, reconnect_for=LIMIT)
            guest = IdleClient(url, work / f"g{i}", f"guest{i}", bot_policy(10 ** 6 + i), quiet, live=ready,
                               reconnect_for=LIMIT)
            hosting = asyncio.ensure_future(host.host(GAME, OPTIONS))
            playing.append(hosting)
            while host.code is None and not hosting.done():
                await asyncio.sleep(0.05)
            if host.code is None:
                failed.append(f"room {i}: no code ({hosting.exception()!r:.200})")
                return
            joining = asyncio.ensure_future(guest.join(host.code))
            playing.append(joining)
            waiting = asyncio.ensure_future(ready.wait())
            done, _ = await asyncio.wait({waiting, hosting, joining}, timeout=wait,
                                         return_when=asyncio.FIRST_COMPLETED)
            if waiting in done:
                live += 1
            else:
                waiting.cancel()
                ended = [t for t in (hosting, joining) if t.done()]
                failed.append(f"room {i}: not live ({ended[0].exception() if ended else 'timeout'!r:.200})")

    opened = 0
    while True:
        cmd = json.loads(await loop.run_in_executor(None, sys.stdin.readline) or '{"stop": true}')
        if cmd.get("stop"):
            break
        gate = asyncio.Semaphore(concurrency)
        t0 = time.time()
        await asyncio.gather(*(room(first + k, gate) for k in range(opened, cmd["target"])))
        opened = max(opened, cmd["target"])
        print(json.dumps({"live": live, "failed": failed, "seconds": time.time() - t0}), flush=True)
    for t in playing:
        t.cancel()
    await asyncio.gather(*playing, return_exceptions=True)


def _worker(args: argparse.Namespace) -> None:
    from zkbluff.games.engine.parties import Prover
    from zkbluff.games.engine.registry import spec_for

    prover = Prover()
    for key_id in spec_for(GAME, OPTIONS).statements():
        prover.key(key_id)  # the per-process key cache every seat here shares
    print("ready", flush=True)
    asyncio.run(_rooms(args.url.split(","), args.first, Path(args.work), args.concurrency, args.threads, args.wait))


def _held(data: Path, servers: int) -> list[dict[str, int]]:
    """Per worker: the rooms in its folder and those whose transcript has the house's deal."""
    out = []
    for i in range(servers):
        folder = data / f"worker-{i}" if servers > 1 else data
        rooms = list(folder.glob("rooms/*/room.json"))
        dealt = 0
        for f in folder.glob("rooms/*/*.jsonl"):
            for raw in f.read_text().splitlines():
                try:
                    if json.loads(raw).get("action") == "deal":
                        dealt += 1
                        break
                except ValueError:
                    continue
        out.append({"rooms": len(rooms), "dealt": dealt})
    return out


def run(steps: list[int], servers: int, procs: int, concurrency: int, threads: int, settle: float,
        quiet: float, wait: float, work: Path, log: Any = print) -> dict[str, Any]:

    started = time.time()
    with sl._redis(work) as (directory, redis_pid):
        data = work / "data"
        server, urls, pids = sl._serve(servers, directory, data)
        clients: list[subprocess.Popen[str]] = []
        try:
            time.sleep(1.0)
            rows: list[dict[str, Any]] = [{"target": 0, "rss": [sl._rss_mb(p) for p in pids],
                                           "cpu": [sl._cpu_seconds(p) for p in pids], "live": 0,
                                           "held": _held(data, servers), "failed": 0, "seconds": 0.0}]
            procs = max(1, min(procs, steps[0]))
            for k in range(procs):
                clients.append(subprocess.Popen(
                    [sys.executable, __file__, "--worker", "--url", ",".join(urls), "--first", str(k * 10 ** 6),
                     "--concurrency", str(concurrency), "--wait", str(wait), "--threads", str(threads),
                     "--work", str(work / f"c{k}")],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
            for c in clients:
                assert c.stdout is not None
                said = c.stdout.readline()
                assert said.strip() == "ready", said
            for target in steps:
                shares = [target // procs + (1 if k < target % procs else 0) for k in range(procs)]
                t0 = time.time()
                for c, share in zip(clients, shares):
                    assert c.stdin is not None
                    c.stdin.write(json.dumps({"target": share}) + "\n")
                    c.stdin.flush()
                answers = [json.loads(c.stdout.readline()) for c in clients if c.stdout is not None]
                opening = time.time() - t0
                time.sleep(settle)
                cpu0 = [sl._cpu_seconds(p) for p in pids]
                time.sleep(quiet)
                cpu1 = [sl._cpu_seconds(p) for p in pids]
                row = {"target": target, "live": sum(a["live"] for a in answers),
                       "failed": sum(len(a["failed"]) for a in answers), "seconds": opening,
                       "rss": [sl._rss_mb(p) for p in pids], "cpu": cpu1,
                       "quiet_share": [(b - a) / quiet for a, b in zip(cpu0, cpu1)],
                       "client_rss": [sl._rss_mb(c.pid) for c in clients], "held": _held(data, servers)}
                for a in answers:
                    for f in a["failed"][:2]:
                        log(f"  {f}")
                log(f"step {target}: {row['live']} live in {opening:.0f} s; server RSS "
                    f"{' + '.join(f'{x:.0f}' for x in row['rss'])} MB; held {row['held']}; "
                    f"quiet CPU share {sum(row['quiet_share']):.3f}")
                rows.append(row)
            for c in clients:
                assert c.stdin is not None
                c.stdin.write('{"stop": true}\n')
                c.stdin.flush()
            for c in clients:
                c.wait(120)
            return {"servers": servers, "procs": procs, "started": started, "rows": rows,
                    "load": sl._load1()}
        finally:
            for c in clients:
                if c.poll() is None:
                    c.kill()
            sl._stop(server, pids)


def slopes(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Between consecutive steps: the rooms added (by the servers' own count of the rooms in
    their folders, each in memory with its two seats connected; those past the deal apart),
    the servers' RSS growth summed and per worker, and MB per room."""
    out = []
    for a, b in zip(rows, rows[1:]):
        rooms = sum(h["rooms"] for h in b["held"]) - sum(h["rooms"] for h in a["held"])
        dealt = sum(h["dealt"] for h in b["held"]) - sum(h["dealt"] for h in a["held"])
        grown = [y - x for x, y in zip(a["rss"], b["rss"])]
        per_worker = [g / max(1, hb["rooms"] - ha["rooms"]) for g, ha, hb in zip(grown, a["held"], b["held"])]
        out.append({"from": a["target"], "to": b["target"], "rooms": rooms, "dealt": dealt, "grown_mb": sum(grown),
                    "mb_per_room": sum(grown) / rooms if rooms else float("nan"), "per_worker": per_worker})
    return out


def table(result: dict[str, Any], args: argparse.Namespace) -> list[str]:
    rows, k = result["rows"], result["servers"]
    out = [MARK_START, "## Live rooms: server memory per room (`benchmarks/live_rooms.py`)", "",
           f"Machine: {sl._machine()}; shared with other work (load average {result['load']:.1f} at the end). Run of "
           f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(result['started']))}.", "",
           f"`zkbluff serve --workers {k}` on a throwaway redis-server (loopback), rooms of {GAME} "
           f"({OPTIONS['mode']}, deal {OPTIONS['deal']}) added in steps, room i on worker i mod {k}; its two seats "
           f"real clients in {result['procs']} client process(es) on the same machine. *Live*: both seats signed "
           f"in and connected, the header, entropy and the house's proved deal written and checked, the seat to "
           f"move on its clock and never answering (limits {LIMIT:.0f} s) — room, referee, two connections "
           f"and clock in the server's memory. RSS is each worker's VmRSS {args.settle:.0f} s after the step; "
           f"*quiet CPU* the workers' CPU over the next {args.quiet:.0f} s, nobody moving.", "",
           "| rooms (target) | rooms held per worker | of them past the deal | server RSS per worker | server RSS total "
           "| MB per room since the step before | quiet server CPU share | time to open the step | not live (all steps so far) |",
           "|---|---|---|---|---|---|---|---|---|"]
    per = {s["to"]: s for s in slopes(rows)}
    for r in rows:
        s = per.get(r["target"])
        slope = "—" if s is None else (f"{s['mb_per_room']:.3f} (" + " / ".join(f"{x:.3f}" for x in s["per_worker"])
                                       + ")")
        quiet = "—" if "quiet_share" not in r else f"{sum(r['quiet_share']):.3f}"
        out.append(f"| {r['target']} | {' / '.join(str(h['rooms']) for h in r['held'])} | "
                   f"{' / '.join(str(h['dealt']) for h in r['held'])} | "
                   f"{' / '.join(f'{x:.0f}' for x in r['rss'])} MB | {sum(r['rss']):.0f} MB | {slope} | {quiet} | "
                   f"{r['seconds']:.0f} s | {r['failed']} |")
    last = slopes(rows)[1:] or slopes(rows)
    if last:
        grown = sum(s["grown_mb"] for s in last)
        rooms = sum(s["rooms"] for s in last)
        out += ["", f"Memory per room held, the steps after the first (whose growth includes the table's keys, "
                    f"loaded at each worker's first match): {grown / rooms:.3f} MB "
                    f"({grown:.0f} MB for {rooms} rooms from {last[0]['from']} to {last[-1]['to']}); "
                    f"{sum(rows[-1]['rss']):.0f} MB across the {k} workers at {rows[-1]['target']} rooms "
                    f"({sum(rows[0]['rss']):.0f} MB at start). The clients' processes held "
                    f"{' + '.join(f'{x:.0f}' for x in rows[-1].get('client_rss', []))} MB for the "
                    f"{2 * sum(h['rooms'] for h in rows[-1]['held'])} seats (the load generator's, not the "
                    f"server's).", "",
                f"*not live*: rooms not past the deal within {args.wait:.0f} s of the guest's join (still held, both "
                f"seats connected: counted in the memory, not as live)."]
    return out + [""]


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", default="100,300,1000", help="live rooms after each step (cumulative)")
    ap.add_argument("--servers", type=int, default=2)
    ap.add_argument("--procs", type=int, default=2, help="client processes")
    ap.add_argument("--concurrency", type=int, default=16, help="rooms being opened at once per client process")
    ap.add_argument("--threads", type=int, default=8, help="worker threads per client process")
    ap.add_argument("--settle", type=float, default=5.0)
    ap.add_argument("--wait", type=float, default=90.0, help="seconds a room may take to be live, else failed")
    ap.add_argument("--quiet", type=float, default=10.0, help="seconds of the servers' idle CPU measured per step")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--json", help="also write the result as JSON to this file")
    ap.add_argument("--from-json", help="no run: the table of a result --json wrote")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    ap.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        _worker(args)
        return
    steps = sorted(int(x) for x in args.steps.split(","))
    if args.from_json:
        result = json.loads(Path(args.from_json).read_text())
    else:
        with tempfile.TemporaryDirectory() as tmp:
            result = run(steps, args.servers, args.procs, args.concurrency, args.threads, args.settle, args.quiet,
                         args.wait, Path(tmp))
    text = table(result, args)
    print("\n".join(text))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    if args.write:
        sl.write_section(text, MARK_START, MARK_END)


if __name__ == "__main__":
    main()
