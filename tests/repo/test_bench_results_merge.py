"""benchmarks/run.py --sections: a partial run replaces only the sections it measured in
results.md; every other table, the header and the other scripts' tables stay."""
import sys

from repo_root import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import run as bench_run  # noqa: E402

OLD = ("# zkbluff benchmarks\n\nMachine: old machine.\n\n## Alpha\n\nold alpha\n\n## Beta\n\nold beta\n\n"
       "<!-- server_load: start -->\n## Server load\n\nkept\n<!-- server_load: end -->\n")
NEW = "# zkbluff benchmarks\n\nMachine: new machine.\n\n## Beta\n\nnew beta\n\n## Gamma\n\nnew gamma\n"


def test_a_partial_run_replaces_only_its_own_sections(tmp_path):
    path = tmp_path / "results.md"
    path.write_text(OLD)
    merged = bench_run.merged_sections(path, NEW, "re-measured alone")
    assert "Machine: old machine." in merged and "new machine" not in merged
    assert "old alpha" in merged                       # not re-run: kept
    assert "new beta" in merged and "old beta" not in merged
    assert merged.index("## Alpha") < merged.index("## Beta") < merged.index("## Gamma")
    assert merged.count("_This section re-measured alone._") == 2
    assert "Server load" not in merged                 # kept_sections appends that part


def test_a_missing_results_file_takes_the_new_text_whole(tmp_path):
    assert bench_run.merged_sections(tmp_path / "absent.md", NEW, "x") == NEW
