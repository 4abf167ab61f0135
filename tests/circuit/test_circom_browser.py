"""A proof made in a real browser: headless Chromium (Debian's, driven by playwright-core) runs
snarkjs on a static page with the circom export's wasm and the pinned key; `zkbluff verify`
accepts the proofs and rejects them with a public input changed. Measures the in-browser
witness and prove times of a play, a claim and a deal."""
from __future__ import annotations

import functools
import http.server
import json
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from services import missing
from zkbluff.cli import main
from zkbluff.field import r
from zkbluff.statements import get_statement
from zkbluff.statements.circom import circom_inputs, circom_stem, export_statement
from zkbluff.statements.keys import file_stem

ROOT = Path(__file__).resolve().parents[2]
#: a play, a claim and a deal (Proof or Bluff's standard deck)
KEYS = ["card.play.v1@deck=52,max_play=4", "card.claim.v1@deck=52", "card.deal.v2@deck=52,hands=7-7,board=0,entropies=2"]


@pytest.fixture(scope="module")
def chromium(node_modules) -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        missing("chromium is not installed (apt-get install chromium; the Makefile does it as root)")
    if not (node_modules / "playwright-core").is_dir():
        missing(f"playwright-core not installed in {node_modules} (run `make test`, which runs `npm ci`)")
    return exe


@pytest.fixture(scope="module")
def served(node_modules, tmp_path_factory):
    """The page, snarkjs's browser bundle and each statement's files, served on loopback."""
    site = tmp_path_factory.mktemp("site")
    shutil.copy(ROOT / "tools" / "browser" / "prove.html", site / "prove.html")
    shutil.copy(node_modules / "snarkjs" / "build" / "snarkjs.min.js", site / "snarkjs.min.js")
    for key in KEYS:
        stmt = get_statement(key)
        stem = circom_stem(stmt)
        build = tmp_path_factory.mktemp("circom")
        circuit = export_statement(stmt)
        (build / f"{stem}.circom").write_text(circuit.source)
        subprocess.run(["node", str(node_modules / "circom2" / "cli.js"), f"{stem}.circom", "--wasm", "--O0", "-o",
                        "."], cwd=build, check=True, capture_output=True, timeout=3600)
        shutil.copy(build / f"{stem}_js" / f"{stem}.wasm", site / f"{stem}.wasm")
        (site / f"{stem}.wires.json").write_text(json.dumps({"wire_map": circuit.wire_map}))
        inputs = {k: int(v) for k, v in json.loads(
            (ROOT / "vectors" / "statements" / (file_stem(key) + ".json")).read_text())["inputs"].items()}
        (site / f"{stem}.input.json").write_text(json.dumps(circom_inputs(stmt, inputs)))
        res = CliRunner().invoke(main, ["ceremony", "zkey", "export", key, str(site / f"{stem}.zkey")])
        assert res.exit_code == 0, res.output
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/prove.html"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm"}

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def browser_run(chromium, served, node_modules):
    stems = [circom_stem(get_statement(k)) for k in KEYS]
    proc = subprocess.run(["node", str(ROOT / "tools" / "browser_prove.cjs"), str(node_modules), chromium, served,
                           *stems], capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["errors"] == []
    print(f"\n{out['browser']}: " + "; ".join(
        f"{k}: witness {out['results'][circom_stem(get_statement(k))]['witnessMs']:.0f} ms, prove "
        f"{out['results'][circom_stem(get_statement(k))]['proveMs']:.0f} ms" for k in KEYS))
    return out


def _verifies_and_tampered_is_rejected(key: str, got: dict, tmp_path: Path) -> None:
    stmt = get_statement(key)
    inputs = {k: int(v) for k, v in json.loads(
        (ROOT / "vectors" / "statements" / (file_stem(key) + ".json")).read_text())["inputs"].items()}
    assert got["publicSignals"] == [str(v) for v in stmt.public_values(inputs)]
    (tmp_path / "proof.json").write_text(json.dumps(got["proof"]))
    (tmp_path / "public.json").write_text(json.dumps(got["publicSignals"]))
    res = CliRunner().invoke(main, ["verify", key, str(tmp_path / "public.json"), str(tmp_path / "proof.json")])
    assert res.exit_code == 0, res.output
    public = list(got["publicSignals"])
    public[0] = str((int(public[0]) + 1) % r)
    (tmp_path / "public.json").write_text(json.dumps(public))
    res = CliRunner().invoke(main, ["verify", key, str(tmp_path / "public.json"), str(tmp_path / "proof.json")])
    assert res.exit_code != 0


@pytest.mark.slow
@pytest.mark.parametrize("key", KEYS)
def test_browser_proof_verifies_and_tampered_is_rejected(key, browser_run, tmp_path):
    got = browser_run["results"][circom_stem(get_statement(key))]
    assert got["keptCurveOneThread"] is False  # snarkjs's multi-threaded curve, the default
    _verifies_and_tampered_is_rejected(key, got, tmp_path)


@pytest.mark.slow
def test_browser_proof_on_the_kept_one_thread_curve_verifies(browser_run, tmp_path):
    """The page's kept single-threaded curve (put in snarkjs's curve cache) proves a play the
    pinned key accepts (benchmarks/browser.py measures it against snarkjs's own curves)."""
    assert browser_run["oneThreadKept"]["keptCurveOneThread"] is True
    _verifies_and_tampered_is_rejected(KEYS[0], browser_run["oneThreadKept"], tmp_path)
