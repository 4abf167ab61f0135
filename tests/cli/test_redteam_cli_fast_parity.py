"""Red team: the plain ``transcript verify [--json] FILE`` (cli_start, no click) answers a bad
file with the same exit status, standard output and standard error as the click command:
a missing file, a folder, a non-UTF-8 file, a truncated line, an empty file, a NUL byte,
a non-UTF-8 file name, a line nested too deep to decode. Both ways run in a child process (the console script's own exit)."""
import os
import subprocess
import sys

import pytest

from repo_root import REPO_ROOT

VECTOR = REPO_ROOT / "vectors" / "transcripts" / "proof-or-bluff-casual.jsonl"
CLICK = "import sys; from zkbluff.cli import main; main(prog_name='python -m zkbluff')"


def _run(argv: list, fast: bool) -> tuple[int, bytes, bytes]:
    head = [sys.executable, "-m", "zkbluff"] if fast else [sys.executable, "-c", CLICK]
    out = subprocess.run([*head, *argv], capture_output=True, env=os.environ)
    return out.returncode, out.stdout, out.stderr


def _bad_files(tmp: bytes) -> dict[str, bytes]:
    lines = VECTOR.read_bytes().splitlines(keepends=True)
    files = {
        "non-utf8": b"\xff\xfe" + lines[0],
        "non-utf8-later": lines[0] + lines[1][:20] + b"\xc3\x28" + lines[1][20:],
        "truncated": b"".join(lines[:5]) + lines[5][: len(lines[5]) // 2],
        "truncated-header": lines[0][: len(lines[0]) // 2],
        "empty": b"",
        "nul": lines[0] + b"\x00\n",
        "malformed-json": b"{nope\n",
        "deep": lines[0] + b"[" * 100000 + b"]" * 100000 + b"\n",
    }
    paths = {}
    for name, body in files.items():
        path = os.path.join(tmp, name.encode() + b".jsonl")
        with open(path, "wb") as f:
            f.write(body)
        paths[name] = path
    odd = os.path.join(tmp, b"caf\xe9-\xff.jsonl")  # a file name that is not UTF-8
    with open(odd, "wb") as f:
        f.write(b"{nope\n")
    paths["non-utf8-name"] = odd
    paths["missing"] = os.path.join(tmp, b"missing.jsonl")
    paths["folder"] = tmp
    return paths


CASES = ["deep", "non-utf8", "non-utf8-later", "truncated", "truncated-header", "empty", "nul", "malformed-json",
         "non-utf8-name", "missing", "folder"]


@pytest.mark.parametrize("as_json", [False, True])
def test_redteam_bad_files_answer_alike_both_ways(tmp_path, as_json):
    paths = _bad_files(os.fsencode(tmp_path))
    for name in CASES:
        argv = [b"transcript", b"verify", *([b"--json"] if as_json else []), paths[name]]
        fast, slow = _run(argv, True), _run(argv, False)
        assert fast == slow, name
        assert fast[0] in (1, 2), name  # refused (not valid), a typed status either way
