"""``zkbluff transcript verify`` and ``zkbluff verify`` end without the interpreter's teardown
(its cost comes after the answer is printed), yet exit like ``sys.exit``: the same status,
everything printed flushed, the ``atexit`` handlers run. Other commands exit as usual."""
import json
import os
import subprocess
import sys

import pytest

from repo_root import REPO_ROOT

# run like ``python -m zkbluff ARGS`` (as the benchmark does), with an atexit handler and an
# object whose finaliser runs only in the interpreter's teardown
_PROBE = """
import atexit, runpy, sys

class Tell:
    def __del__(self):
        sys.stderr.write("teardown ran\\n")

keeper = Tell()
atexit.register(lambda: sys.stderr.write("atexit ran\\n"))
sys.argv = ["zkbluff"] + sys.argv[1:]
runpy.run_module("zkbluff", run_name="__main__", alter_sys=True)
"""

VECTOR = REPO_ROOT / "vectors" / "transcripts" / "proof-or-bluff-casual.jsonl"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=os.environ)


def test_a_valid_transcript_exits_0_flushed_with_atexit_and_without_teardown():
    out = _run("transcript", "verify", "--json", str(VECTOR))
    assert out.returncode == 0
    assert json.loads(out.stdout)["valid"] is True  # the whole of what it printed, flushed
    assert "atexit ran" in out.stderr and "teardown ran" not in out.stderr


def test_a_bad_transcript_keeps_its_status_and_message(tmp_path):
    lines = VECTOR.read_text().splitlines()
    bad = tmp_path / "edited.jsonl"
    bad.write_text("\n".join([lines[0], lines[1].replace('"round":1', '"round":2', 1), *lines[2:]]) + "\n")
    out = _run("transcript", "verify", str(bad))
    assert out.returncode == 1
    assert "error: line 2:" in out.stderr and "atexit ran" in out.stderr and "teardown ran" not in out.stderr
    malformed = tmp_path / "not-json.jsonl"
    malformed.write_text("{nope\n")
    out = _run("transcript", "verify", str(malformed))
    assert out.returncode == 2 and "[line.json]" in out.stderr and "teardown ran" not in out.stderr


def test_a_usage_error_of_a_verifying_command_keeps_click_s_status():
    out = _run("verify")
    assert out.returncode == 2 and "Missing argument" in out.stderr and "teardown ran" not in out.stderr


@pytest.mark.parametrize("args", [("hash", "--help"), ("--version",)])
def test_other_commands_exit_as_usual(args):
    """The negative twin: the same probe sees the teardown of a command that is not a
    verifying one."""
    out = _run(*args)
    assert out.returncode == 0 and out.stdout
    assert "atexit ran" in out.stderr and "teardown ran" in out.stderr


def test_exit_now_maps_sys_exit_codes():
    code = ("import sys\nfrom zkbluff.cli_start import exit_now\nprint('kept', end='')\n"
            "exit_now(None if sys.argv[1] == 'none' else int(sys.argv[1]) if sys.argv[1].isdigit() else sys.argv[1])")
    for arg, status in (("none", 0), ("0", 0), ("1", 1), ("2", 2), ("boom", 1)):
        out = subprocess.run([sys.executable, "-c", code, arg], capture_output=True, text=True)
        assert (out.returncode, out.stdout) == (status, "kept")
        assert ("boom" in out.stderr) == (arg == "boom")
