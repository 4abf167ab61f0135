"""``zkbluff rules/play cheat`` and ``transcript verify`` through the engine's generic CLI
(a game's own options as --NAME VALUE, as many seats as the options say)."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.games.cheat.text import rules_text


def test_rules_cheat():
    res = CliRunner().invoke(main, ["rules", "cheat"])
    assert res.exit_code == 0 and rules_text() in res.output and "put aside" in res.output


def test_options_outside_the_spec_are_usage_errors(tmp_path):
    for args, word in ((["--players", "7"], "'7'"), (["--colour", "red"], "--colour"), (["--players"], "needs a value")):
        res = CliRunner().invoke(main, ["play", "cheat", *args, "--out", str(tmp_path / "x.jsonl")])
        assert res.exit_code == 2 and word in res.output, res.output
    res = CliRunner().invoke(main, ["play", "proof-or-bluff", "--players", "3", "--out", str(tmp_path / "y.jsonl")])
    assert res.exit_code == 2 and "--mode" in res.output  # another game's options are its own


def test_play_cheat_with_bots_then_verify_and_resume(tmp_path):
    out = tmp_path / "p.jsonl"
    script = "\n1\n7 1\nx\n" * 2  # windows let pass, plays, an opening, a bad answer (asked again)
    res = CliRunner().invoke(main, ["play", "cheat", "--players", "3", "--hands", "3", "--window=1", "--seed", "2",
                                    "--out", str(out)], input=script)
    assert res.exit_code in (0, 2), res.output  # 2: the scripted input ran out (EOF), transcript intact
    assert "not allowed" in res.output and "commits to its entropy" in res.output
    assert re.search(r"deals? the whole deck", res.output)  # ("you deal": the narration's second person)
    header = json.loads(out.read_text().splitlines()[0])["data"]
    assert header["options"] == {"players": "3", "hands": "3", "window": "1", "deal": "dealer"} and len(header["seats"]) == 3
    res = CliRunner().invoke(main, ["transcript", "verify", str(out)])
    assert res.exit_code == 0 and "cheat" in res.output
    n = len(out.read_text().splitlines())
    resumed = CliRunner().invoke(main, ["play", "--resume", str(out)], input="\n1\n7 1\n")
    assert resumed.exit_code in (0, 2), resumed.output
    assert len(out.read_text().splitlines()) > n
    assert CliRunner().invoke(main, ["transcript", "verify", str(out)]).exit_code == 0
    lines = out.read_text().splitlines()
    forged = json.loads(lines[-1])
    forged["data"] = {**forged["data"], "x": 1}
    (tmp_path / "bad.jsonl").write_text("\n".join(lines[:-1] + [json.dumps(forged)]) + "\n")
    assert CliRunner().invoke(main, ["transcript", "verify", str(tmp_path / "bad.jsonl")]).exit_code in (1, 2)


@pytest.mark.slow
def test_demo_cheat_runs_through_its_calling_windows_to_a_verified_transcript(tmp_path):
    """The demo runs the referee's clock itself: a calling window nobody answers must close,
    which takes a clock strictly past its deadline (it hung at the first window when the demo
    set the clock to the deadline itself). Run as a process with a time limit, so a hang fails."""
    out = tmp_path / "cheat.jsonl"
    res = subprocess.run([sys.executable, "-m", "zkbluff", "demo", "cheat", "--players", "3", "--hands", "3",
                          "--out", str(out)], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert "transcript verified offline" in res.stdout
    assert any(json.loads(x)["action"] == "end" for x in out.read_text().splitlines())
