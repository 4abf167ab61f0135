"""benchmarks/server_load.py: what it counts in a run's transcripts, where it says the
curve bends, and a smoke run through a real server (slow: it starts processes; nothing
timed is asserted)."""
import json
import subprocess
import sys

import pytest

from repo_root import REPO_ROOT

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


def _row(n, lines_per_s, rss=100.0):
    return {"n": n, "lines_per_s": lines_per_s, "server_cpu_share": 0.2, "client_cpu_share": 0.4,
            "load_mean": 10.0, "cpu_per_line_ms": 12.0, "client_cpu_per_line_ms": 25.0, "rss_mb": rss}


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
