"""The plain ``zkbluff transcript verify [--json] FILE`` runs the command's body without
importing click, with the same output and exit status as the click command; every other
form (its options, help, a missing file) goes through click."""
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from repo_root import REPO_ROOT
from zkbluff.cli import main
from zkbluff.cli_fast import plain_transcript_verify

VECTOR = REPO_ROOT / "vectors" / "transcripts" / "proof-or-bluff-casual.jsonl"


def _cases(tmp_path):
    lines = VECTOR.read_text().splitlines()
    edited = tmp_path / "edited.jsonl"
    i = next(i for i, x in enumerate(lines) if i > 5 and json.loads(x)["seat"] == 0)  # a seat 0 line after the deal
    other = json.loads(lines[i])
    other["seat"] = 1  # the line now in seat 1's name, signed by seat 0
    edited.write_text("\n".join([*lines[:i], json.dumps(other, sort_keys=True, separators=(",", ":")),
                                 *lines[i + 1:]]) + "\n")
    unfinished = tmp_path / "unfinished.jsonl"
    unfinished.write_text("\n".join(lines[:12]) + "\n")
    malformed = tmp_path / "malformed.jsonl"
    malformed.write_text("{nope\n")
    return [VECTOR, edited, unfinished, malformed]


def _fast(args):
    out = subprocess.run([sys.executable, "-m", "zkbluff", *args], capture_output=True, text=True, env=os.environ)
    return out.returncode, out.stdout, out.stderr


def _click(args):
    res = CliRunner().invoke(main, args, prog_name="zkbluff")
    return res.exit_code, res.stdout, res.stderr


@pytest.mark.parametrize("as_json", [False, True])
def test_the_fast_path_prints_and_exits_like_the_click_command(tmp_path, as_json):
    seen = set()
    for path in _cases(tmp_path):
        args = ["transcript", "verify", *(["--json"] if as_json else []), str(path)]
        assert plain_transcript_verify(args) == (str(path), as_json)
        fast, slow = _fast(args), _click(args)
        assert fast == slow, path.name
        seen.add(fast[0])
        if as_json:
            json.loads(fast[1])
    assert seen == {0, 1, 2}  # valid, invalid, malformed: each status met


_PROBE = """
import json, sys
from zkbluff.cli_start import run
sys.argv = ["zkbluff"] + sys.argv[1:]
try:
    run()
except SystemExit:
    pass
print(json.dumps("click" in sys.modules))
"""


def _imports_click(*args) -> bool:
    out = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=os.environ)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_plain_forms_import_no_click_and_the_others_do(tmp_path):
    assert not _imports_click("transcript", "verify", str(VECTOR))
    assert not _imports_click("transcript", "verify", str(VECTOR), "--json")
    assert _imports_click("transcript", "verify", "--keys", str(tmp_path), str(VECTOR))  # the negative twin
    assert _imports_click("transcript", "verify", str(tmp_path / "missing.jsonl"))


def test_only_the_plain_forms_are_taken(tmp_path, monkeypatch):
    f = str(VECTOR)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-dash.jsonl").write_text("")  # a file whose name click would read as an option
    for argv in (["transcript", "verify", f], ["transcript", "verify", "--json", f],
                 ["transcript", "verify", f, "--json"]):
        assert plain_transcript_verify(argv) == (f, "--json" in argv)
    for argv in (["transcript", "verify"], ["transcript", "verify", "--help"], ["transcript", "verify", "-h", f],
                 ["transcript", "verify", f, f], ["transcript", "verify", "--json", "--json", f],
                 ["transcript", "verify", "--seat-key", "0:ab", f], ["transcript", "verify", "--", f],
                 ["transcript", "compare", f, f], ["verify", f], ["transcript", "verify", str(tmp_path)],
                 ["transcript", "verify", str(tmp_path / "missing")], ["transcript", "verify", "-dash.jsonl"]):
        assert plain_transcript_verify(argv) is None, argv


def test_usage_errors_and_help_still_come_from_click(tmp_path):
    code, out, err = _fast(["transcript", "verify", str(tmp_path / "missing.jsonl")])
    assert code == 2 and "does not exist" in err
    code, out, err = _fast(["transcript", "verify", "--help"])
    assert code == 0 and "--seat-key" in out


def test_ctrl_c_ends_both_ways_alike(monkeypatch):
    from zkbluff import cli_fast
    from zkbluff.games.engine import verifier

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(verifier, "verify_transcript", interrupted)
    args = ["transcript", "verify", str(VECTOR)]
    code, out, err = _click(args)
    assert (code, out) == (1, "") and err.endswith("Aborted!\n")
    import io

    captured = io.StringIO()
    monkeypatch.setattr(sys, "stderr", captured)
    assert cli_fast.run_plain(str(VECTOR), False) == 1
    assert captured.getvalue() == err
