from pathlib import Path

from zkbluff.statements import all_statements
from repo_root import REPO_ROOT

ROOT = REPO_ROOT


def test_statement_catalog_matches_the_code():
    text = (ROOT / "docs" / "statements.md").read_text()
    for key_id, stmt in all_statements().items():
        row = next((line for line in text.splitlines() if line.startswith(f"| `{key_id}` |")), None)
        assert row is not None, f"{key_id} is missing from docs/statements.md"
        assert f"| {stmt.build()[0].n_constraints} |" in row, f"{key_id}: the documented count is stale"
        assert ", ".join(stmt.public) in row
