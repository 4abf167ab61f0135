"""docs/api.md: every ``python`` block runs, each on its own in a fresh folder (with the
repository's examples/ and vectors/ beside it), and prints without an error; the blocks
that play a whole match are slow. A doc that shows an API which no longer works fails."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from repo_root import REPO_ROOT

DOC = REPO_ROOT / "docs" / "api.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
SLOW = ("open_match", "SeatClient")


def _param(i, code):
    marks = [pytest.mark.slow] if any(s in code for s in SLOW) else []
    return pytest.param(code, id=f"block{i + 1}", marks=marks)


def test_the_doc_has_its_examples():
    assert len(BLOCKS) >= 6
    assert any("InvalidProof" in b for b in BLOCKS) and any("verify_transcript" in b for b in BLOCKS)


@pytest.mark.parametrize("code", [_param(i, b) for i, b in enumerate(BLOCKS)])
def test_every_example_runs(code, tmp_path):
    shutil.copytree(REPO_ROOT / "examples", tmp_path / "examples")
    (tmp_path / "vectors").mkdir()
    shutil.copytree(REPO_ROOT / "vectors" / "transcripts", tmp_path / "vectors" / "transcripts")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src"), "ZKBLUFF_HOME": str(tmp_path / "home")}
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.strip()
    if "refused" in code:  # the failure examples: each refusal happened, with its typed error
        assert res.stdout.count("refused") == code.count('print("refused')
