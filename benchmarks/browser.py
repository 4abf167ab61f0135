"""Browser proofs (issue 34): tools/browser/prove.html in headless Chromium (playwright-core,
benchmarks/browser_bench.cjs), snarkjs's browser bundle proving a play, a claim and a deal from the
circom export's wasm and the pinned key. Cold (the first proof in a fresh page: fetching the files,
building snarkjs's curve) and warm (later proofs in the same page) separately; snarkjs's
multi-threaded curve (web workers, built once a page) against its single-threaded one (built
again for every proof); the files fetched once a page or for every proof. Medians of the page's
own milliseconds, the wall clock of the call, and the CPU seconds of Chromium's processes from
/proc, with the load average before and after. One proof of each kind is checked with
`zkbluff verify`.

    PYTHONPATH=src python benchmarks/browser.py [--pages 3] [--warm 5] [--site DIR] [--no-deal]

Needs chromium and playwright-core (``ZKBLUFF_NODE_MODULES`` or ./node_modules). Prints a
markdown section; nothing here is a timed assertion in the test suite.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from click.testing import CliRunner  # noqa: E402

from zkbluff.cli import main  # noqa: E402
from zkbluff.statements import get_statement  # noqa: E402
from zkbluff.statements.circom import circom_inputs, circom_stem, export_statement  # noqa: E402
from zkbluff.statements.keys import file_stem  # noqa: E402

PLAY = "card.play.v1@deck=52,max_play=4"
CLAIM = "card.claim.v1@deck=52"
DEAL = "card.deal.v2@deck=52,hands=7-7,board=0,entropies=2"


CURVES = {"workers": "web workers, kept", "one-thread": "one thread, built each proof",
          "one-thread-kept": "one thread, kept"}


def vector_inputs(key: str) -> dict[str, int]:
    data = json.loads((ROOT / "vectors" / "statements" / (file_stem(key) + ".json")).read_text())
    return {k: int(v) for k, v in data["inputs"].items()}


def build_site(site: Path, keys: list[str], node_modules: Path) -> None:
    """The page, snarkjs's bundle and each statement's wasm, wire map, inputs and key (as
    tests/circuit/test_circom_browser.py serves them); a statement already there is kept."""
    site.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "tools" / "browser" / "prove.html", site / "prove.html")
    shutil.copy(node_modules / "snarkjs" / "build" / "snarkjs.min.js", site / "snarkjs.min.js")
    for key in keys:
        stmt = get_statement(key)
        stem = circom_stem(stmt)
        if (site / f"{stem}.zkey").exists():
            continue
        circuit = export_statement(stmt)
        with tempfile.TemporaryDirectory() as build:
            (Path(build) / f"{stem}.circom").write_text(circuit.source)
            subprocess.run(["node", str(node_modules / "circom2" / "cli.js"), f"{stem}.circom", "--wasm", "--O0", "-o",
                            "."], cwd=build, check=True, capture_output=True, timeout=3600)
            shutil.copy(Path(build) / f"{stem}_js" / f"{stem}.wasm", site / f"{stem}.wasm")
        (site / f"{stem}.wires.json").write_text(json.dumps({"wire_map": circuit.wire_map}))
        (site / f"{stem}.input.json").write_text(json.dumps(circom_inputs(stmt, vector_inputs(key))))
        res = CliRunner().invoke(main, ["ceremony", "zkey", "export", key, str(site / f"{stem}.zkey")])
        if res.exit_code != 0:
            raise SystemExit(res.output)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm"}

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def check_proof(key: str, got: dict) -> None:
    stmt = get_statement(key)
    if got["publicSignals"] != [str(v) for v in stmt.public_values(vector_inputs(key))]:
        raise SystemExit(f"{key}: the browser's public signals differ from the statement's")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "proof.json").write_text(json.dumps(got["proof"]))
        (Path(tmp) / "public.json").write_text(json.dumps(got["publicSignals"]))
        res = CliRunner().invoke(main, ["verify", key, f"{tmp}/public.json", f"{tmp}/proof.json"])
    if res.exit_code != 0:
        raise SystemExit(f"{key}: zkbluff verify rejected the browser's proof: {res.output}")


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def fmt_ms(x: float) -> str:
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"


def main_(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=3, help="fresh pages (cold proofs) a configuration")
    ap.add_argument("--warm", type=int, default=5, help="warm proofs a page after the cold one")
    ap.add_argument("--site", type=Path, help="build the site here and keep it (default: a temporary folder)")
    ap.add_argument("--no-deal", action="store_true", help="leave out the deal (~6 s a proof)")
    args = ap.parse_args(argv)

    node_modules = Path(os.environ.get("ZKBLUFF_NODE_MODULES", ROOT / "node_modules"))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium or not (node_modules / "playwright-core").is_dir():
        raise SystemExit("needs chromium and playwright-core (see tests/circuit/test_circom_browser.py)")
    keys = [PLAY, CLAIM] + ([] if args.no_deal else [DEAL])
    tmp = None
    site = args.site
    if site is None:
        tmp = tempfile.TemporaryDirectory()
        site = Path(tmp.name)
    build_site(site, keys, node_modules)

    stem = {k: circom_stem(get_statement(k)) for k in keys}
    plan = []
    curves = ("workers", "one-thread", "one-thread-kept")
    for key in (PLAY, CLAIM):
        for curve in curves:
            plan.append({"key": key, "stem": stem[key], "curve": curve, "refetch": False, "pages": args.pages,
                         "warm": args.warm})
    for curve in ("workers", "one-thread-kept"):
        plan.append({"key": PLAY, "stem": stem[PLAY], "curve": curve, "refetch": True, "pages": 1, "warm": args.warm})
    if not args.no_deal:
        for curve in ("workers", "one-thread-kept"):
            plan.append({"key": DEAL, "stem": stem[DEAL], "curve": curve, "refetch": False, "pages": 1, "warm": 2})

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/prove.html"
    load_before = os.getloadavg()
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(plan, f)
        proc = subprocess.run(["node", str(ROOT / "benchmarks" / "browser_bench.cjs"), str(node_modules), chromium, url,
                               f.name], capture_output=True, text=True, timeout=3600)
    finally:
        os.unlink(f.name)
        server.shutdown()
        server.server_close()
    load_after = os.getloadavg()
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    out = json.loads(proc.stdout)
    if out["errors"]:
        raise SystemExit(f"page errors: {out['errors']}")

    checked = set()
    for entry in out["results"]:
        if entry["key"] not in checked:
            check_proof(entry["key"], entry["runs"][0][0])
            check_proof(entry["key"], entry["runs"][0][-1])
            checked.add(entry["key"])

    print(f"## Browser proofs ({out['browser']}, headless, snarkjs's browser bundle; medians)")
    print()
    print(f"Load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load_before)}; "
          f"after: {', '.join(f'{x:.2f}' for x in load_after)}; {os.cpu_count()} cores. "
          "Cold: the first proof in a fresh page (its files fetched, snarkjs's curve built); warm: the "
          "later proofs in that page. Setup: fetching the files and building the kept one-thread curve "
          "(snarkjs builds its own curves inside prove); witness: the circuit's wasm and the reorder into zkbluff's wires; "
          "prove: `snarkjs.groth16.prove`; call: the whole call seen from the driver; CPU: Chromium's "
          "processes over the call (every thread, 10 ms ticks). Every proof checked by `zkbluff verify` "
          "for the first and last of each statement.")
    print()
    print("| statement | snarkjs's curve | files | proofs | cold: setup / witness / prove / call / CPU | "
          "warm: setup / witness / prove / call / CPU |")
    print("|---|---|---|---:|---|---|")
    for entry in out["results"]:
        cold = [run[0] for run in entry["runs"]]
        warm = [p for run in entry["runs"] for p in run[1:]]

        def cells(ps: list[dict]) -> str:
            return (f"{fmt_ms(med([p['fetchMs'] + p['curveMs'] for p in ps]))} / "
                    f"{fmt_ms(med([p['witnessMs'] for p in ps]))} / {fmt_ms(med([p['proveMs'] for p in ps]))} / "
                    f"{fmt_ms(med([p['wallMs'] for p in ps]))} ms / {med([p['cpuS'] for p in ps]) * 1000:.0f} ms")

        curve = CURVES[entry["curve"]]
        files = "every proof" if entry["refetch"] else "once a page"
        print(f"| {entry['key']} | {curve} | {files} | {len(cold)} + {len(warm)} | {cells(cold)} | {cells(warm)} |")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main_()
