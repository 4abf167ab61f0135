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


def _stated_counts(text: str) -> list[tuple[str, int]]:
    """The ``today … for N statements`` and ``the N compact keys`` counts a doc states."""
    return [("today", int(n)) for n in re.findall(r"today, for (\d+) statements", text)] + \
        [("keys", int(n)) for n in re.findall(r"the (\d+) compact keys", text)]


def test_the_trust_doc_states_todays_count_of_statements_and_keys():
    """docs/who-can-forge-a-proof.md says how many statements the ceremony serves and how
    many compact keys it ships: the manifest's and the key folder's numbers (issue 28: the
    doc said 14 and 34 long after the registry had grown)."""
    import json

    statements = len(json.loads((ROOT / "circuits" / "manifest.json").read_text())["statements"])
    keys = len(list((ROOT / "circuits" / "keys").glob("*.phase2")))
    stated = _stated_counts((ROOT / "docs" / "who-can-forge-a-proof.md").read_text())
    assert {what for what, _ in stated} == {"today", "keys"}
    assert stated == [(what, statements if what == "today" else keys) for what, _ in stated]
    # the negative twin: an old count is read as a number that differs
    assert _stated_counts("(2^10 today, for 14 statements)") == [("today", 14)] != [("today", statements)]
