"""benchmarks/server_load.py: what it counts in a run's transcripts, where it says the
curve bends, and a smoke run through a real server (slow: it starts processes; nothing
timed is asserted)."""
import json
import shutil
import subprocess
import sys

import pytest

from repo_root import REPO_ROOT
from services import missing

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import server_load  # noqa: E402


def _room(data, code, lines):
    folder = data / "rooms" / code
    folder.mkdir(parents=True)
    (folder / "room.json").write_text("{}")
    (folder / "m.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))


def _line(n, seat, action, at, proofs=0, **extra):
    return {"n": n, "seat": seat, "action": action, "at": at, "data": {}, "proofs": [{}] * proofs, **extra}


def test_count_reads_the_window_by_the_lines_stamps(tmp_path):
    _room(tmp_path, "AAAA", [
        _line(1, None, "header", 99.0),             # a header never counts
        _line(2, None, "entropy.dealer", 99.5),     # before the window
        _line(3, 0, "entropy.seat", 100.0),         # the window's first instant counts
        _line(4, None, "deal", 101.0, proofs=1),    # the dealer's proof: made, not verified
        _line(5, 0, "play", 102.0, proofs=2),       # a seat's proofs: verified
        _line(6, None, "timeout", 103.0, clock={"deadline": 102.5}),  # the referee's clock
        _line(7, None, "end", 104.0),
        _line(8, 1, "play", 110.0, proofs=1),       # the window's end does not count
    ])
    _room(tmp_path, "BBBB", [_line(1, None, "header", 100.0), _line(2, None, "entropy.forfeit", 105.0)])
    got = server_load._count(tmp_path, 100.0, 110.0)
    assert {k: got[k] for k in ("lines", "seat_lines", "seat_proofs", "deal_proofs", "clock", "ends", "rooms")} == \
        {"lines": 6, "seat_lines": 2, "seat_proofs": 2, "deal_proofs": 1, "clock": 2, "ends": 1, "rooms": 2}
    assert got["gap_p50_s"] == 1.0  # room A's gaps 0.5, 1, 1, 1, 1 ending in the window
    wider = server_load._count(tmp_path, 99.0, 111.0)  # its twin: the lines outside now inside
    assert (wider["lines"], wider["seat_proofs"]) == (8, 3)


def test_count_reads_every_workers_rooms(tmp_path):
    _room(tmp_path / "worker-0", "AAAA", [_line(1, None, "header", 99.0), _line(2, 0, "play", 100.0, proofs=1)])
    _room(tmp_path / "worker-1", "BBBB", [_line(1, None, "header", 99.0), _line(2, 1, "play", 101.0, proofs=2)])
    got = server_load._count(tmp_path, 100.0, 110.0)
    assert (got["lines"], got["seat_proofs"], got["rooms"]) == (2, 3, 2)
    alone = server_load._count(tmp_path / "worker-1", 100.0, 110.0)  # its twin: one worker's folder, its own rooms
    assert (alone["lines"], alone["seat_proofs"], alone["rooms"]) == (1, 2, 1)


def _row(n, lines_per_s, rss=100.0, servers=1, p99=200.0, rss_idle=80.0):
    return {"n": n, "lines_per_s": lines_per_s, "server_cpu_share": 0.2, "client_cpu_share": 0.4,
            "load_mean": 10.0, "cpu_per_line_ms": 12.0, "client_cpu_per_line_ms": 25.0, "rss_mb": rss,
            "servers": servers, "directory": True, "p99_ms": p99, "rss_idle_mb": rss_idle}


def test_scaling_compares_each_server_count_with_one_at_the_same_n():
    rows = [_row(50, 10.0, servers=1, p99=300.0), _row(50, 17.0, servers=2, p99=310.0),
            _row(50, 8.0, servers=4, p99=900.0), _row(10, 5.0, servers=2)]  # N = 10 has no one-server row
    lines = server_load._scaling(rows)
    assert lines[0].startswith("N = 50: 2 servers carry 1.70× the lines/s of one (17.0 against 10.0)")
    assert "p99 move latency of 310 ms against 300 ms (target for 2" in lines[0]
    assert lines[1].startswith("N = 50: 4 servers carry 0.80×") and "target" not in lines[1]
    assert not any(line.startswith("N = 10") for line in lines)
    assert "The clients used this share of the machine's" in lines[2] and "(servers 2, N = 10)" in lines[2]
    per_core = [line for line in lines if "per server core" in line]
    assert len(per_core) == 2 and per_core[0].startswith("N = 50, per server core: 2 servers")  # not N = 10
    assert "PROJECTED with a core per server process: 167 against 83 lines/s, 2.00×" in per_core[0]


def test_per_server_core_counts_the_cpu_each_line_cost_the_servers():
    base, two = _row(10, 20.0, servers=1), _row(10, 20.0, servers=2)
    two["cpu_per_line_ms"] = 15.0  # the same lines/s, a quarter less server CPU per line
    (line,) = server_load._per_server_core([base, two])
    assert "15.0 ms of server CPU per line against 12.0 ms for one (0.80×" in line
    assert "133 against 83 lines/s, 1.60×" in line  # 2 × 1000 / 15 against 1000 / 12
    assert "the machine's other work up to 1.40 (load average 10.0)" in line  # 2 cores − 0.2 − 0.4
    assert server_load._per_server_core([two]) == []  # its twin: no one-server row, nothing to compare


def test_memory_per_room_is_a_slope_and_its_extrapolation_is_marked():
    below = server_load._memory_per_room([_row(100, 1.0, rss=300.0), _row(500, 1.0, rss=700.0)], 2)
    assert "1.00 MB (the slope" in below[0] and "EXTRAPOLATED, not measured" in below[0]
    assert "about 1200 MB across the 2 process(es)" in below[0]  # 700 + 1.0 × 500
    full = server_load._memory_per_room([_row(100, 1.0, rss=300.0), _row(1000, 1.0, rss=1200.0)], 2)
    assert "1.00 MB (the slope" in full[0] and "EXTRAPOLATED" not in full[0]  # its twin: measured at 1,000
    one = server_load._memory_per_room([_row(4, 1.0, rss=120.0, rss_idle=80.0)], 2)
    assert "at most 10.00 MB" in one[0] and "EXTRAPOLATED" not in one[0]  # (120 - 80) / 4, no slope to extend


def test_the_bend_is_the_first_n_near_the_best_throughput():
    flat = server_load._summary([_row(1, 4.0, 90.0), _row(10, 11.0), _row(50, 12.0), _row(200, 11.5, 150.0)])
    assert "at N = 10 and stays within 15 % beyond" in flat[0]
    assert "27.0, 27.0, 27.0, 27.0 (" in flat[1]  # lines per CPU-second: 1000 / (12 + 25) ms
    assert "Memory per live room" in flat[2] and "0.30 MB" in flat[2]  # (150 - 90) / (200 - 1)
    falling = server_load._summary([_row(1, 4.0), _row(10, 12.0), _row(200, 6.0)])
    assert "at N = 10 (beyond it: 6.0 at N = 200)" in falling[0]


@pytest.mark.slow
def test_a_smoke_run_plays_through_one_server(tmp_path):
    out = tmp_path / "rows.json"
    run = subprocess.run([sys.executable, str(REPO_ROOT / "benchmarks" / "server_load.py"), "--n", "1",
                          "--window", "4", "--ramp", "0", "--settle", "2", "--procs", "1", "--json", str(out)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    (row,) = json.loads(out.read_text())
    assert row["n"] == 1 and row["failed"] == 0 and row["clock"] == 0 and row["rooms"] >= 1
    assert "| 1 | 4 s |" in run.stdout  # the table row


@pytest.mark.slow
def test_a_smoke_run_plays_through_two_servers_on_a_redis_directory(tmp_path):
    if not shutil.which("redis-server"):
        missing("redis-server is not installed (`make test` installs Debian's redis-server)")
    out = tmp_path / "rows.json"
    run = subprocess.run([sys.executable, str(REPO_ROOT / "benchmarks" / "server_load.py"), "--servers", "2",
                          "--n", "2", "--window", "4", "--ramp", "0", "--settle", "2", "--procs", "1",
                          "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    (row,) = json.loads(out.read_text())
    assert (row["servers"], row["directory"], row["failed"], row["clock"]) == (2, True, 0, 0)
    assert len(row["rooms_by_server"]) == 2 and min(row["rooms_by_server"]) >= 1  # slot i on worker i mod 2
    assert row["server_cpu_s"] > 0 and row["lines"] > 0
    assert "| 2 | 2 | 4 s |" in run.stdout and "memory per live room" in run.stdout


def test_live_rooms_slope_counts_the_rooms_the_servers_hold():
    import live_rooms

    def step(target, rss, held, dealt):
        return {"target": target, "rss": rss, "held": [{"rooms": h, "dealt": d} for h, d in zip(held, dealt)]}
    rows = [step(0, [40.0, 40.0], [0, 0], [0, 0]), step(100, [100.0, 90.0], [50, 50], [50, 50]),
            step(300, [130.0, 110.0], [150, 148], [149, 140])]
    first, second = live_rooms.slopes(rows)
    assert (first["rooms"], first["grown_mb"], first["mb_per_room"]) == (100, 110.0, 1.1)
    assert second["rooms"] == 198 and second["mb_per_room"] == 50.0 / 198  # the servers' count, not the target
    assert second["dealt"] == 189 and second["per_worker"] == [30.0 / 100, 20.0 / 98]


@pytest.mark.slow
def test_a_smoke_run_holds_rooms_live_on_two_servers(tmp_path):
    if not shutil.which("redis-server"):
        missing("redis-server is not installed (`make test` installs Debian's redis-server)")
    out = tmp_path / "live.json"
    run = subprocess.run([sys.executable, str(REPO_ROOT / "benchmarks" / "live_rooms.py"), "--steps", "2,4",
                          "--procs", "1", "--settle", "1", "--quiet", "1", "--json", str(out)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    rows = json.loads(out.read_text())["rows"]
    assert [r["target"] for r in rows] == [0, 2, 4] and rows[-1]["live"] == 4 and rows[-1]["failed"] == 0
    assert [h["dealt"] for h in rows[-1]["held"]] == [2, 2]  # room i on worker i mod 2, each past its deal
    assert "| 4 | 2 / 2 | 2 / 2 |" in run.stdout
