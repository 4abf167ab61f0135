"""Load on one ``zkbluff serve``: N concurrent matches on loopback, bounded in time.

The server runs in its own process (the referee and the dealer of every match: it
verifies every line and proves every deal). Each match has two seats, each a
:class:`~zkbluff.server.client.SeatClient` — its own Ed25519 key, deal secrets and
prover; it proves its own moves and verifies every line it is sent — with its game's
house bot choosing. The seats are multiplexed in ``--procs`` client processes (default 2),
whole matches each, many seats to one asyncio loop: the seats of a process share its
loaded proving keys (the library's per-process key cache) and nothing else.

The run keeps N matches live: N *slots*, each playing one match after another (a new
room, two new clients) until the run ends. The slots start staggered over a ramp, the
run then settles, and only a window after that is measured:

    [keys loaded in every process] → ramp (slots start) → settle → measured window → stop

Measured over the window (lines by the ``at`` stamp each line carries):

- lines per second: the lines the server wrote (headers excluded), every party's;
- move latency p50/p99: a seat's move sent → that line, written, back at the seat's socket
  (the server's queue, checks and write, and the loopback; neither the seat's proving nor
  its process's queue to follow the line);
- server CPU per verified proof: the server process's user+system CPU over the window
  divided by the seats' proofs it verified (its deal proving, routing and writing
  included), and per line;
- the server's responsiveness: a probe connection sends a message the server refuses at
  once (an unknown type) five times a second; its round trip is the event loop's lag plus
  the loopback;
- memory per room: the server's resident set growth since it started, divided by the
  rooms it holds (live and finished);
- the clients' CPU per line (the load generator's cost), and the load average.

The server runs with long time limits (``--*-limit 3600``): on a loaded machine a slow
load generator must not turn into forfeits. Lines the referee's clock wrote are counted
(the ``clock timeouts`` column); a run with any is not a steady-state measure.

  python benchmarks/server_load.py [--n 10,50,200] [--window S] [--procs 2] [--write]
  python benchmarks/server_load.py --n 2 --window 5 --ramp 1 --settle 2   (a smoke run)

``--servers 1,2,4`` runs the same for each count K of server processes instead:
``zkbluff serve --workers K`` on one room directory, a throwaway ``redis-server`` on a free
loopback port with its folder temporary (K = 1: one ``serve`` on that directory, so the
curve compares like with like). Slot ``i`` plays on worker ``i mod K`` (its host creates the
room there, its guest joins there). The server's CPU and resident set are summed over the
worker processes (the supervisor, which only waits, is left out; Redis's CPU is its own
column); the probe talks to worker 0. The summary gives the ratio of K servers' lines/s to
one's at each N, their p99s side by side, the share of the machine the clients used, and
the servers' memory per live room (extrapolated to 1,000 tables, marked so, when the largest
N is smaller).

  python benchmarks/server_load.py --servers 1,2,4 --n 50
  python benchmarks/server_load.py --servers 2 --n 2 --window 4 --ramp 0 --settle 2 --procs 1   (a smoke run)

``--write`` replaces the "Server load" section of benchmarks/results.md.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterator, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from zkbluff.server.client import SeatClient, bot_policy  # noqa: E402

GAME, OPTIONS = "proof-or-bluff", {"mode": "casual", "deal": "dealer"}  # the house's deal in proof
MARK_START, MARK_END = "<!-- server_load: start -->", "<!-- server_load: end -->"
LIMIT = 3600.0  # the server's time limits in this benchmark (seconds)
#: every client comes from 127.0.0.1: the per-address limits (look-ups, rooms created,
#: open connections; shared by every server through a directory) raised out of the way
PER_ADDRESS = ["--lookups", "1000", "--room-rate", "1000", "--room-burst", "1000000", "--max-connections", "1000000",
               "--signin-timeout", "3600"]  # the probe sends no sign-in: it must outlive the ramp and settle


class TimedClient(SeatClient):
    """A seat that records, for each move it sends, when it left (wall clock) and how long
    until the written line reached this client's socket (the server's part and the
    network's; not this process's queue to follow it, which its other seats share)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.sent_at: dict[int, tuple[float, float]] = {}
        self.latencies: list[tuple[float, float]] = []  # (sent, wall clock; seconds until back)

    async def _loop(self, conn: Any) -> bool:
        recv = conn.recv

        async def timed() -> dict[str, Any]:
            msg = await recv()
            n = msg.get("line", {}).get("n") if msg.get("type") == "line" else None
            if n in self.sent_at:
                wall, t = self.sent_at.pop(n)
                self.latencies.append((wall, time.perf_counter() - t))
            return msg

        conn.recv = timed
        return await super()._loop(conn)

    async def _move(self, conn: Any) -> None:
        assert self.seat is not None and self.seat.view is not None
        n = self.seat.view.next_line
        await super()._move(conn)
        self.sent_at[n] = (time.time(), time.perf_counter())


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _load1() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _machine() -> str:
    from machine import cpu_model  # benchmarks/machine.py: this script's own folder

    model = cpu_model()
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{os.cpu_count()} cores ({model}){mem}; Python {platform.python_version()}; {platform.system()}"


def _rooms_files(data: Path, name: str) -> list[Path]:
    """``rooms/*/<name>`` of one server's data folder, or of every ``--workers`` worker's in it."""
    return [*data.glob(f"rooms/*/{name}"), *data.glob(f"worker-*/rooms/*/{name}")]


def _count(data: Path, t0: float, t1: float) -> dict[str, int]:
    """What the server wrote with stamps in ``[t0, t1)``: lines (headers excluded), the
    seats' proofs it verified, the deal proofs it made, lines its clock wrote (timeouts,
    forfeits), the rooms it holds, and the median gap between a match's consecutive lines
    (how often a match moves on: it grows with N once the machine is saturated)."""
    out: dict[str, Any] = {"lines": 0, "seat_lines": 0, "seat_proofs": 0, "deal_proofs": 0, "clock": 0, "ends": 0}
    gaps: list[float] = []
    for f in _rooms_files(data, "*.jsonl"):
        last: Optional[float] = None
        for raw in f.read_text().splitlines():
            try:
                event = json.loads(raw)
            except ValueError:  # a line cut by the stop
                continue
            at = event.get("at", 0)
            if event["action"] == "header" or not t0 <= at < t1:
                last = at if event["action"] != "header" else None
                continue
            if last is not None:
                gaps.append(at - last)
            last = at
            out["lines"] += 1
            k = len(event.get("proofs", []))
            if event["seat"] is None:
                out["deal_proofs"] += k
                out["clock"] += "clock" in event or event["action"].endswith("forfeit")
                out["ends"] += event["action"] == "end"
            else:
                out["seat_lines"] += 1
                out["seat_proofs"] += k
    out["rooms"] = len(list(_rooms_files(data, "room.json")))
    out["gap_p50_s"] = _pct(gaps, 0.5)
    return out


# ---------------------------------------------------------------- the client processes

async def _slots(urls: list[str], first: int, count: int, times: dict[str, float], work: Path,
                 threads: int) -> dict[str, Any]:
    """Slots ``first .. first + count - 1``: each plays match after match (both seats in
    this process) from its start in the ramp until the run's end."""
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(threads))
    quiet = lambda m: None  # noqa: E731
    clients: list[TimedClient] = []
    failed: list[str] = []
    finished = 0
    cpu: dict[str, float] = {}

    async def slot(i: int) -> None:
        nonlocal finished
        await asyncio.sleep(max(0.0, times["start"] + times["ramp"] * (i - first) / count - time.time()))
        k, url = 0, urls[i % len(urls)]
        while time.time() < times["end"]:
            host = TimedClient(url, work / f"h{i}-{k}", f"host{i}", bot_policy(i * 1000 + k), quiet,
                               reconnect_for=LIMIT)
            guest = TimedClient(url, work / f"g{i}-{k}", f"guest{i}", bot_policy(10 ** 6 + i * 1000 + k), quiet,
                                reconnect_for=LIMIT)
            clients.extend((host, guest))
            hosting = asyncio.ensure_future(host.host(GAME, OPTIONS))
            while host.code is None and not hosting.done():
                await asyncio.sleep(0.05)
            playing = [hosting] + ([asyncio.ensure_future(guest.join(host.code))] if host.code else [])
            results = await asyncio.gather(*playing, return_exceptions=True)
            bad = [repr(r)[:200] for r in results if isinstance(r, BaseException)]
            failed.extend(bad)
            finished += not bad
            k += 1

    async def sample() -> None:
        await asyncio.sleep(max(0.0, times["warm"] - time.time()))
        cpu["warm"] = time.process_time()

    sampler = asyncio.ensure_future(sample())
    tasks = [asyncio.ensure_future(slot(i)) for i in range(first, first + count)]
    await asyncio.wait(tasks, timeout=max(0.0, times["end"] - time.time()))
    cpu["end"] = time.process_time()
    for t in tasks + [sampler]:
        t.cancel()
    await asyncio.gather(*tasks, sampler, return_exceptions=True)
    lat = [d for c in clients for (w, d) in c.latencies if times["warm"] <= w < times["end"]]
    return {"latencies": lat, "finished": finished, "failed": failed,
            "cpu": cpu.get("end", 0.0) - cpu.get("warm", cpu.get("end", 0.0)),
            "seats": len(clients)}


def _worker(args: argparse.Namespace) -> None:
    """One client process (``--worker``): loads the table's keys, says ready, reads the
    run's timeline, plays, prints its measures as one JSON line."""
    from zkbluff.games.engine.parties import Prover
    from zkbluff.games.engine.registry import spec_for

    prover = Prover()
    for key_id in spec_for(GAME, OPTIONS).statements():
        prover.key(key_id)  # the per-process key cache every seat here shares
    print("ready", flush=True)
    times = json.loads(sys.stdin.readline())
    out = asyncio.run(_slots(args.url.split(","), args.first, args.count, times, Path(args.work), args.threads))
    print(json.dumps(out), flush=True)


# ---------------------------------------------------------------- the probe and the run

def _probe(url: str, pids: list[int], times: dict[str, float], out: dict[str, Any],
           redis_pid: Optional[int] = None) -> None:
    """(A thread.) The server's round trip for a refused message, 5 a second, and the
    server's CPU and RSS (summed over its processes ``pids``), Redis's CPU, and the load
    average at the window's ends."""
    from websockets.asyncio.client import connect

    async def run() -> None:
        rtts: list[float] = []
        loads: list[float] = []
        async with connect(url, open_timeout=60) as ws:
            await ws.recv()  # hello
            while time.time() < times["end"]:
                now = time.time()
                if "cpu_warm" not in out and now >= times["warm"]:
                    out["cpu_warm"], out["rss_warm"] = _usage(pids)
                    if redis_pid:
                        out["redis_warm"] = _cpu_seconds(redis_pid)
                t = time.perf_counter()
                await ws.send(json.dumps({"type": "probe"}))
                await ws.recv()
                if now >= times["warm"]:
                    rtts.append(time.perf_counter() - t)
                    if not loads or len(rtts) % 25 == 0:
                        loads.append(_load1())
                await asyncio.sleep(0.2)
        out["cpu_end"], out["rss_end"] = _usage(pids)
        if redis_pid:
            out["redis_end"] = _cpu_seconds(redis_pid)
        out["rtts"], out["loads"] = rtts, loads

    try:
        asyncio.run(run())
    except Exception as exc:  # the probe is a measure, not the run: say why it has none
        out["probe_error"] = repr(exc)[:200]


def _usage(pids: list[int]) -> tuple[float, float]:
    """CPU seconds and resident MB summed over processes."""
    return sum(_cpu_seconds(p) for p in pids), sum(_rss_mb(p) for p in pids)


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))] if xs else float("nan")


@contextlib.contextmanager
def _redis(work: Path) -> Iterator[tuple[str, int]]:
    """A throwaway redis-server on a free loopback port, no persistence, its folder in
    ``work`` (as tests/services.py starts one; that module needs pytest): its URL and pid."""
    exe = shutil.which("redis-server")
    if not exe:
        raise SystemExit("--servers needs redis-server (the room directory): install Debian's redis-server")
    folder = Path(tempfile.mkdtemp(prefix="redis-", dir=work))
    port = _free_port()
    proc = subprocess.Popen([exe, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder), "--save", "",
                             "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not _redis_answers(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not come up on port {port} (exit {proc.poll()})")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0", proc.pid
    finally:
        proc.terminate()
        proc.wait(30)


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _serve(servers: int, directory: Optional[str], data: Path) -> tuple[subprocess.Popen[str], list[str], list[int]]:
    """``zkbluff serve`` (one process; ``--workers K`` on ``directory`` if given): the
    process, its servers' URLs and their pids, once every one of them is listening."""
    limits = [f"--{k}-limit" for k in ("proof", "idle", "entropy", "deal")]
    argv = [sys.executable, "-m", "zkbluff", "serve", "--data", str(data),
            *PER_ADDRESS, *[x for k in limits for x in (k, str(LIMIT))]]
    if directory is not None:  # (K > 1: port 0, the supervisor picks K free ports and gives each its own)
        argv += ["--directory", directory, "--workers", str(servers)]
    argv += ["--port", str(_free_port() if servers == 1 else 0)]
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert server.stdout is not None
    ports: list[int] = []
    pids: list[int] = [] if servers > 1 else [server.pid]
    try:
        while len(ports) < servers or len(pids) < servers:
            line = server.stdout.readline()
            if not line:
                raise RuntimeError(f"zkbluff serve exited ({server.wait()}) before {servers} server(s) listened")
            if m := re.search(r"listening on ws://[^:]+:(\d+)", line):
                ports.append(int(m.group(1)))
            elif m := re.match(r"worker \d+: pid (\d+)", line):
                pids.append(int(m.group(1)))
    except BaseException:
        _stop(server, pids)
        raise
    threading.Thread(target=server.stdout.read, daemon=True).start()  # (its log, never a full pipe)
    return server, [f"ws://127.0.0.1:{port}" for port in ports], pids


def _stop(server: subprocess.Popen[str], pids: list[int]) -> None:
    """SIGTERM (a supervisor stops its workers, each checkpointing, within 60 s); a supervisor
    still there after 90 s is killed, and its workers with it."""
    server.terminate()
    try:
        server.wait(90)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        for pid in pids:
            if pid != server.pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, 9)


def _run(n: int, work: Path, log: Any, procs: int, threads: int, ramp: float, settle: float,
         window: float, servers: int = 1, directory: Optional[tuple[str, int]] = None) -> dict[str, Any]:
    """N slots through ``servers`` server processes (on ``directory``, Redis's URL and pid,
    if given), spread over ``procs`` client processes."""
    data = work / f"data-{servers}-{n}"
    server, urls, pids = _serve(servers, directory[0] if directory else None, data)
    url = urls[0]
    workers: list[subprocess.Popen[str]] = []
    try:
        time.sleep(0.5)
        rss0 = _usage(pids)[1]
        procs = max(1, min(procs, n))
        shares = [n // procs + (1 if k < n % procs else 0) for k in range(procs)]
        first = 0
        for k, count in enumerate(shares):
            workers.append(subprocess.Popen(
                [sys.executable, __file__, "--worker", "--url", ",".join(urls), "--first", str(first),
                 "--count", str(count),
                 "--threads", str(threads), "--work", str(work / f"w{n}-{k}")],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
            first += count
        for w in workers:  # every process has its keys loaded before the clock starts
            assert w.stdout is not None
            said = w.stdout.readline()
            assert said.strip() == "ready", said
        start = time.time() + 1.0
        times = {"start": start, "ramp": ramp, "warm": start + ramp + settle, "end": start + ramp + settle + window}
        for w in workers:
            assert w.stdin is not None
            w.stdin.write(json.dumps(times) + "\n")
            w.stdin.flush()
        probe: dict[str, Any] = {}
        prober = threading.Thread(target=_probe, args=(url, pids, times, probe, directory and directory[1]))
        prober.start()
        results = []
        for w in workers:
            text, _ = w.communicate(timeout=times["end"] - time.time() + 600)
            results.append(json.loads(text.strip().splitlines()[-1]))
        prober.join()
        counted = _count(data, times["warm"], times["end"])
        by_server = [len(list(data.glob(f"worker-{i}/rooms/*/room.json"))) for i in range(servers)] \
            if servers > 1 else [counted["rooms"]]
        cpu = probe.get("cpu_end", float("nan")) - probe.get("cpu_warm", float("nan"))
        failed = [f for r in results for f in r["failed"]]
        lat = [x for r in results for x in r["latencies"]]
        client_cpu = sum(r["cpu"] for r in results)
        loads = probe.get("loads", [])
        out = {
            "n": n, "servers": servers, "directory": directory is not None, "started": start, "procs": len(workers), "window": window, "ramp": ramp, "settle": settle,
            **counted, "rooms_by_server": by_server, "finished": sum(r["finished"] for r in results), "failed": len(failed),
            "lines_per_s": counted["lines"] / window, "seat_lines_per_s": counted["seat_lines"] / window,
            "p50_ms": 1000 * _pct(lat, 0.5), "p99_ms": 1000 * _pct(lat, 0.99), "latency_samples": len(lat),
            "server_cpu_s": cpu, "server_cpu_share": cpu / window,
            "redis_cpu_share": (probe.get("redis_end", float("nan")) - probe.get("redis_warm", float("nan"))) / window,
            "cpu_per_proof_ms": 1000 * cpu / counted["seat_proofs"] if counted["seat_proofs"] else float("nan"),
            "cpu_per_line_ms": 1000 * cpu / counted["lines"] if counted["lines"] else float("nan"),
            "client_cpu_s": client_cpu, "client_cpu_share": client_cpu / window,
            "client_cpu_per_line_ms": 1000 * client_cpu / counted["lines"] if counted["lines"] else float("nan"),
            "probe_p50_ms": 1000 * _pct(probe.get("rtts", []), 0.5),
            "probe_p99_ms": 1000 * _pct(probe.get("rtts", []), 0.99),
            "rss_idle_mb": rss0, "rss_mb": probe.get("rss_end", float("nan")),
            "load_min": min(loads) if loads else float("nan"), "load_max": max(loads) if loads else float("nan"),
            "load_mean": statistics.mean(loads) if loads else float("nan"),
        }
        if failed:
            log(f"  {len(failed)} match(es) failed, e.g. {failed[0]}")
        if "probe_error" in probe:
            log(f"  probe: {probe['probe_error']}")
        return out
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
        _stop(server, pids)


def _table(rows: list[dict[str, Any]], args: argparse.Namespace) -> list[str]:
    def ms(x: float) -> str:
        return "—" if x != x else (f"{x / 1000:.1f} s" if x >= 10_000 else f"{x:.0f} ms")

    def f1(x: float) -> str:
        return "—" if x != x else f"{x:.1f}"
    out = [MARK_START, "## Server load (`benchmarks/server_load.py`)", "",
           f"Machine: {_machine()}; shared with other work (load average below). Run of "
           f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(rows[0].get('started', time.time()) if rows else None))}."
           , "",
           f"{_servers_prose(rows)}; N matches of {GAME} "
           f"({OPTIONS['mode']}, deal {OPTIONS['deal']}) kept live (a finished match is followed by a new one in its "
           f"slot), both seats remote clients with the house bot choosing, each proving its own moves and verifying "
           f"every line; the seats multiplexed in {args.procs} client processes on the same machine (keys loaded "
           f"before the start); loopback. The slots start over a ramp of 0.3 s × N (at least 10 s), the run settles "
           f"{args.settle:.0f} s, then a window of max({args.window:.0f} s, 0.6 s × N) is measured (lines by their "
           f"stamps). CPU times are the processes' user + system time over the window: on a shared machine they "
           f"are the steady measures, the wall-clock ones (lines/s, latency) depend on the load.", "",
           "| servers | N | window | load avg (min–max) | lines/s | seat lines/s | p50 move latency "
           "| p99 move latency "
           "| a match's next line (p50) | server CPU per seat proof verified | server CPU per line | server CPU share "
           "| server probe p50 / p99 | clients' CPU per line | clients' CPU share | server RSS idle → end "
           "| rooms held | matches finished | clock timeouts |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(
            f"| {r.get('servers', 1)} | {r['n']} | {r['window']:.0f} s | {f1(r['load_min'])}–{f1(r['load_max'])} | "
            f"{r['lines_per_s']:.1f} | "
            f"{r['seat_lines_per_s']:.1f} | {ms(r['p50_ms'])} | {ms(r['p99_ms'])} | {ms(1000 * r['gap_p50_s'])} | "
            f"{f1(r['cpu_per_proof_ms'])} ms | "
            f"{f1(r['cpu_per_line_ms'])} ms | {r['server_cpu_share']:.2f} | {ms(r['probe_p50_ms'])} / "
            f"{ms(r['probe_p99_ms'])} | {f1(r['client_cpu_per_line_ms'])} ms | {r['client_cpu_share']:.2f} | "
            f"{r['rss_idle_mb']:.0f} → {r['rss_mb']:.0f} MB | {r['rooms']} | {r['finished']} | {r['clock']} |")
    out += ["", *[x for line in _summaries(rows) for x in (line, "")],
            "Columns: *servers* the server processes (their CPU and resident set summed), *lines* every line "
            "the servers wrote in the window (headers excluded; the dealer's and "
            "the referee's too), *seat lines* those the seats signed; *move latency* a seat's move sent → "
            "written and back at its socket (the server's part and the loopback's; the seat's proving and its "
            "process's queue excluded: those show in *a match's next line*); *server CPU per seat proof* the server's CPU "
            "over the window (its verifying, routing, writing and its own deal proofs) divided by the seats' "
            "proofs it verified; *CPU share* CPU seconds per second of window (1.0 = one core of the "
            f"{os.cpu_count()}); *probe* the round trip of a message the server refuses at once (its event "
            "loop's lag plus the loopback); *a match's next line* the median time between a match's consecutive "
            "lines; *rooms held* live and finished rooms (a finished match nobody is connected to is dropped "
            "from memory); *clock timeouts* lines the referee's clock wrote (the limits "
            f"are {LIMIT:.0f} s here, so none is expected).", ""]
    return out


def _servers_prose(rows: list[dict[str, Any]]) -> str:
    if not any(r.get("directory") for r in rows):
        return "One `zkbluff serve` process (the referee and the dealer of every match)"
    return ("`zkbluff serve --workers K` (K server processes, each the referee and the dealer of its matches; "
            "K = 1: one `serve`) on one room directory, a throwaway redis-server on loopback; slot i plays on "
            "worker i mod K; server CPU and memory are the workers' summed")


def _summaries(rows: list[dict[str, Any]]) -> list[str]:
    """:func:`_summary` per server count, then how the counts compare (:func:`_scaling`)."""
    counts = sorted({r.get("servers", 1) for r in rows})
    if len(counts) == 1 and not any(r.get("directory") for r in rows):
        return _summary(rows)
    out = []
    for k in counts:
        out += [f"{k} server(s): {line}" for line in _summary([r for r in rows if r.get("servers", 1) == k])]
    return out + _scaling(rows)


def _scaling(rows: list[dict[str, Any]]) -> list[str]:
    """K servers against one at each N (issue 30's target: 2 ≥ 1.6× the lines/s of one at
    the same p99), the share of the machine the clients used, and the servers' memory per
    live room (extrapolated to 1,000 tables when the largest N is smaller, and said so)."""
    cores = os.cpu_count() or 1
    one = {r["n"]: r for r in rows if r.get("servers", 1) == 1}
    out = []
    for r in sorted(rows, key=lambda r: (r["n"], r.get("servers", 1))):
        k, base = r.get("servers", 1), one.get(r["n"])
        if k == 1 or base is None or not base["lines_per_s"]:
            continue
        ratio = r["lines_per_s"] / base["lines_per_s"]
        out.append(f"N = {r['n']}: {k} servers carry {ratio:.2f}× the lines/s of one ({r['lines_per_s']:.1f} "
                   f"against {base['lines_per_s']:.1f}) at a p99 move latency of {r['p99_ms']:.0f} ms against "
                   f"{base['p99_ms']:.0f} ms" + (" (target for 2: ≥ 1.6× at the same p99)" if k == 2 else "") + ".")
    shares = ", ".join(f"{r['client_cpu_share'] / cores:.0%} (servers {r.get('servers', 1)}, N = {r['n']})"
                       for r in rows)
    out.append(f"The clients used this share of the machine's {cores} cores: {shares}.")
    return out + [line for k in sorted({r.get("servers", 1) for r in rows})
                  for line in _memory_per_room([r for r in rows if r.get("servers", 1) == k], k)] + \
        _per_server_core(rows)


def _per_server_core(rows: list[dict[str, Any]]) -> list[str]:
    """The servers' side alone, at each N with a one-server row: their CPU per line and lines
    per server CPU-second, K processes against one, and the machine's CPU as the run shared it
    (servers, clients, the rest). When the clients and the machine's other work leave the
    servers less than a core, lines/s cannot show a second process's core; the work per line
    can: K processes with a core each would carry K × 1000 / (CPU ms per line) lines/s,
    PROJECTED from the measured CPU per line (it assumes one process tops out at one core,
    its event loop's), not measured."""
    cores = os.cpu_count() or 1
    one = {r["n"]: r for r in rows if r.get("servers", 1) == 1}
    out = []
    for r in sorted(rows, key=lambda r: (r["n"], r.get("servers", 1))):
        k, base = r.get("servers", 1), one.get(r["n"])
        if k == 1 or base is None or not (r["cpu_per_line_ms"] > 0 and base["cpu_per_line_ms"] > 0):
            continue
        mine, theirs = r["cpu_per_line_ms"], base["cpu_per_line_ms"]
        rest = max(0.0, min(cores, r["load_mean"]) - r["server_cpu_share"] - r["client_cpu_share"])
        out.append(
            f"N = {r['n']}, per server core: {k} servers spent {mine:.1f} ms of server CPU per line against "
            f"{theirs:.1f} ms for one ({theirs / mine:.2f}× the lines per server CPU-second: {1000 / mine:.0f} "
            f"against {1000 / theirs:.0f}); of the {cores} cores the servers had {r['server_cpu_share']:.2f} "
            f"(one server: {base['server_cpu_share']:.2f}), the clients {r['client_cpu_share']:.2f} "
            f"({base['client_cpu_share']:.2f}), the machine's other work up to {rest:.2f} (load average "
            f"{r['load_mean']:.1f}); PROJECTED with a core per server process: {k * 1000 / mine:.0f} against "
            f"{1000 / theirs:.0f} lines/s, {k * theirs / mine:.2f}× (target for 2: ≥ 1.6×).")
    return out


def _memory_per_room(rows: list[dict[str, Any]], k: int) -> list[str]:
    """The servers' resident set per live room: the slope between the smallest and the largest
    N (the keys and caches every server loads once cancel out), extrapolated to 1,000 tables,
    marked so, when the largest N is below it. With one N only its growth since the start over
    N, an upper bound (the proving and verifying keys loaded at the first match count), and no
    extrapolation."""
    small, large = min(rows, key=lambda r: r["n"]), max(rows, key=lambda r: r["n"])
    head = f"{k} server(s): memory per live room"
    if large["n"] == small["n"]:
        per = (large["rss_mb"] - large["rss_idle_mb"]) / large["n"]
        return [f"{head} at most {per:.2f} MB (the growth since the start over N = {large['n']}, the keys loaded "
                f"at the first match included; two N give the slope)."]
    per = (large["rss_mb"] - small["rss_mb"]) / (large["n"] - small["n"])
    line = (f"{head} {per:.2f} MB (the slope of the resident set from N = {small['n']} to N = {large['n']}; "
            f"{large['rss_mb']:.0f} MB at N = {large['n']})")
    if large["n"] < 1000:
        line += (f"; EXTRAPOLATED, not measured: 1,000 live tables would hold about "
                 f"{large['rss_mb'] + per * (1000 - large['n']):.0f} MB across the {k} process(es)")
    return [line + "."]


def _summary(rows: list[dict[str, Any]]) -> list[str]:
    """Where the curve bends, from the rows themselves: the smallest N whose lines/s is
    within 15 % of the best, the CPU the run had then, and the memory slope per live room."""
    if not rows:
        return []
    best = max(r["lines_per_s"] for r in rows)
    bend = min((r for r in rows if r["lines_per_s"] >= 0.85 * best), key=lambda r: r["n"])
    cores = os.cpu_count() or 1
    used = bend["server_cpu_share"] + bend["client_cpu_share"]
    server_ms = ", ".join(f"{r['cpu_per_line_ms']:.1f}" for r in rows)
    client_ms = ", ".join(f"{r['client_cpu_per_line_ms']:.1f}" for r in rows)
    beyond = [r for r in rows if r["n"] > bend["n"]]
    flat = all(r["lines_per_s"] >= 0.85 * best for r in beyond)
    after = ("" if not beyond else " and stays within 15 % beyond" if flat else
             " (beyond it: " + ", ".join(f"{r['lines_per_s']:.1f} at N = {r['n']}" for r in beyond) + ")")
    out = [f"Where it bends (computed from this table): lines/s reaches {bend['lines_per_s']:.1f} (within 15 % of "
           f"the best, {best:.1f}) at N = {bend['n']}{after}; there the server and the clients "
           f"together used {used:.2f} CPU-seconds per second of the {cores} cores, with a load average of "
           f"{bend['load_mean']:.1f} from the machine's other work. Beyond the bend more matches only queue: "
           f"each match's lines come more slowly and latency grows. The server's CPU per line "
           f"({server_ms} ms from the smallest N to the largest) and "
           f"the clients' ({client_ms} ms) say which side "
           f"needs the CPU: one core of this machine would carry about "
           f"{1000 / statistics.median(r['cpu_per_line_ms'] for r in rows):.0f} lines/s of this server's work."]
    per_cpu = ", ".join(f"{1000 / (r['cpu_per_line_ms'] + r['client_cpu_per_line_ms']):.1f}" for r in rows)
    out.append(f"Lines per CPU-second of the server and the clients together, from the smallest N to the "
               f"largest: {per_cpu} (the same work per line whatever the load; where this falls, the work per "
               f"line grows with N).")
    small, large = min(rows, key=lambda r: r["n"]), max(rows, key=lambda r: r["n"])
    if large["n"] > small["n"]:
        slope = (large["rss_mb"] - small["rss_mb"]) / (large["n"] - small["n"])
        out.append(f"Memory per live room (the server's resident set from N = {small['n']} to N = {large['n']}): "
                   f"{slope:.2f} MB.")
    return out


def _run_one(n: int, servers: int, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One row: N slots through ``servers`` processes on a fresh Redis directory (0: one
    ``serve`` and no directory, as before ``--servers``)."""
    ramp = args.ramp if args.ramp is not None else max(10.0, 0.3 * n)
    window = max(args.window, 0.6 * n)
    print(f"N={n}, servers {servers or 1}: ramp {ramp:.0f} s, settle {args.settle:.0f} s, window {window:.0f} s …",
          flush=True)
    with contextlib.ExitStack() as stack:
        directory = stack.enter_context(_redis(work)) if servers else None
        r = _run(n, work, print, args.procs, args.threads, ramp, args.settle, window, max(1, servers), directory)
    print({k: (round(v, 2) if isinstance(v, float) else v) for k, v in r.items()}, flush=True)
    return r


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", default="10,50,200")
    ap.add_argument("--window", type=float, default=60.0, help="the measured window at least (0.6 s × N if more)")
    ap.add_argument("--ramp", type=float, default=None, help="the slots' start spread (default 0.3 s × N, ≥ 10 s)")
    ap.add_argument("--settle", type=float, default=30.0)
    ap.add_argument("--procs", type=int, default=2, help="client processes (whole matches each)")
    ap.add_argument("--threads", type=int, default=8, help="worker threads per client process")
    ap.add_argument("--servers", default=None, metavar="K,…",
                    help="server process counts: `serve --workers K` on a throwaway Redis directory each")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--json", help="also write the rows as JSON to this file")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    ap.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        _worker(args)
        return
    rows = []
    counts = [int(x) for x in args.servers.split(",")] if args.servers else [0]  # 0: one server, no directory
    with tempfile.TemporaryDirectory() as tmp:
        for servers in counts:
            for n in [int(x) for x in args.n.split(",")]:
                rows.append(_run_one(n, servers, Path(tmp), args))
    text = _table(rows, args)
    print("\n".join(text))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if args.write:
        write_section(text, MARK_START, MARK_END)


def write_section(text: list[str], start: str, end: str) -> None:
    """Replace the section between the markers ``start`` and ``end`` of benchmarks/results.md
    with ``text`` (which begins with ``start``), or add it at the end the first time."""
    path = ROOT / "benchmarks" / "results.md"
    old = path.read_text()
    section = "\n".join(text) + end + "\n"
    if start in old and end in old:
        new = re.sub(re.escape(start) + ".*?" + re.escape(end) + "\n?", lambda m: section, old, flags=re.S)
    else:
        new = old.rstrip("\n") + "\n\n" + section
    path.write_text(new)


if __name__ == "__main__":
    main()
