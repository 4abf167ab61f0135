"""docs/statements.md's table and game-owned list are generated from the registry
(tools/statement_docs.py, `make docs`): the committed file is current, and the check fails
on a stale count, a missing row or a hand-edited line."""
import importlib.util
import sys

import pytest

from zkbluff.statements import all_statements
from repo_root import REPO_ROOT

ROOT = REPO_ROOT


def load_tool():
    spec = importlib.util.spec_from_file_location("zkbluff_statement_docs", ROOT / "tools" / "statement_docs.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


docs_tool = load_tool()


def test_statement_catalog_matches_the_code():
    assert docs_tool.check() == []
    text = (ROOT / "docs" / "statements.md").read_text()
    for key_id, stmt in all_statements().items():
        row = next((line for line in text.splitlines() if line.startswith(f"| `{key_id}` |")), None)
        assert row is not None, f"{key_id} is missing from docs/statements.md"
        assert f"| {stmt.system().n_constraints} |" in row, f"{key_id}: the documented count is stale"


def test_the_catalog_check_can_fail(tmp_path):
    text = (ROOT / "docs" / "statements.md").read_text()
    row = "| `card.claim.v1@deck=52` | 403 |"
    assert row in text
    stale = tmp_path / "stale.md"
    stale.write_text(text.replace(row, "| `card.claim.v1@deck=52` | 404 |"))
    problems = docs_tool.check(stale)
    assert any("stale or extra line: | `card.claim.v1@deck=52` | 404" in p for p in problems)
    assert any("missing line: | `card.claim.v1@deck=52` | 403" in p for p in problems)
    dropped = tmp_path / "dropped.md"
    dropped.write_text("\n".join(line for line in text.splitlines() if "card.absorb_many.v1@" not in line) + "\n")
    assert any("missing line: | `card.absorb_many.v1@deck=52,plays=4` | 1759" in p for p in docs_tool.check(dropped))
    unmarked = tmp_path / "unmarked.md"
    unmarked.write_text(text.replace(docs_tool.TABLE[0], ""))
    with pytest.raises(SystemExit, match="markers"):
        docs_tool.check(unmarked)
