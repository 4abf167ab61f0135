"""The README's example runs as written; the backend switch behaves as documented."""
import re
from pathlib import Path

import pytest

from zkbluff.curve import _BACKENDS, get_backend
from zkbluff.errors import BackendUnavailable, InvalidProof
from repo_root import REPO_ROOT

ROOT = REPO_ROOT


def test_readme_library_example_runs():
    text = (ROOT / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - our own documentation
    # and its negative twin: the same proof does not verify another commitment
    with pytest.raises(InvalidProof):
        scope["verify"](scope["pk"].vk, [scope["commit_native"](43, 7)], scope["proof"])


def test_backend_switch(monkeypatch):
    monkeypatch.setenv("ZKBLUFF_BACKEND", "pyecc")
    assert get_backend().name == "pyecc"
    monkeypatch.setenv("ZKBLUFF_BACKEND", "mcl")
    assert get_backend().name == "mcl"
    monkeypatch.setenv("ZKBLUFF_BACKEND", "gpu")
    with pytest.raises(BackendUnavailable, match="unknown backend"):
        get_backend()
    monkeypatch.delenv("ZKBLUFF_BACKEND")
    assert get_backend().name in _BACKENDS
