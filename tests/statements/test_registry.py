import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.statements.keys import build_registry, check_registry
from repo_root import REPO_ROOT

ROOT = REPO_ROOT


def test_committed_circuits_match_the_code():
    assert check_registry(ROOT / "circuits") == []


def test_check_fails_when_files_differ(tmp_path):
    build_registry(tmp_path)
    assert check_registry(tmp_path) == []
    m = json.loads((tmp_path / "manifest.json").read_text())
    m["statements"][0]["constraints"] += 1
    (tmp_path / "manifest.json").write_text(json.dumps(m))
    assert any("constraints" in p for p in check_registry(tmp_path))
    build_registry(tmp_path)
    victim = tmp_path / m["statements"][3]["file"]
    other = tmp_path / m["statements"][4]["file"]
    shutil.copy(other, victim)
    assert any("differs from the code" in p for p in check_registry(tmp_path))
    res = CliRunner().invoke(main, ["circuits", "check", "--dir", str(tmp_path)])
    assert res.exit_code == 1


@pytest.fixture()
def key_dir(tmp_path, monkeypatch):
    from zkbluff.statements import keys as keys_mod

    monkeypatch.setenv("ZKBLUFF_KEY_DIR", str(tmp_path / "keys"))
    monkeypatch.setattr(keys_mod, "_LOADED", {})  # a fresh install: nothing in memory either
    return tmp_path / "keys"


def test_statement_cli_flow(tmp_path, key_dir):
    run = CliRunner().invoke
    name = "value.choice.v1"
    (tmp_path / "in.json").write_text(json.dumps({"choice": 2, "choice_salt": "0x1234", "claim": "2", "context": 7}))
    t = str(tmp_path)
    assert run(main, ["circuits", "list"]).exit_code == 0
    assert run(main, ["verify", name, f"{t}/pub.json", f"{t}/proof.json"]).exit_code == 2  # no keys yet, no files
    res = run(main, ["witness", name, f"{t}/in.json", f"{t}/w.wtns"])
    assert res.exit_code == 0, res.output
    res = run(main, ["prove", name, f"{t}/in.json", f"{t}/proof.json", f"{t}/pub.json"])
    assert res.exit_code == 0, res.output
    assert not key_dir.exists()  # the pinned key is assembled from the shipped queries: nothing cached
    res = run(main, ["verify", name, f"{t}/pub.json", f"{t}/proof.json"])
    assert res.exit_code == 0, res.output
    pub = json.loads((tmp_path / "pub.json").read_text())
    pub[2] = str(1 - int(pub[2]))  # flip the verdict
    (tmp_path / "pub.json").write_text(json.dumps(pub))
    assert run(main, ["verify", name, f"{t}/pub.json", f"{t}/proof.json"]).exit_code == 1
    # inputs that satisfy no witness: refused naming the constraint
    (tmp_path / "bad.json").write_text(json.dumps({"choice": 2, "choice_salt": 1, "claim": 2, "verdict": 0, "context": 0}))
    res = run(main, ["witness", name, f"{t}/bad.json", f"{t}/w2.wtns"])
    assert res.exit_code == 1 and "verdict" in res.output
    (tmp_path / "junk.json").write_text(json.dumps({"choice": "two"}))
    assert run(main, ["witness", name, f"{t}/junk.json", f"{t}/w3.wtns"]).exit_code == 2
    assert run(main, ["circuits", "export", name, f"{t}/vk.json"]).exit_code == 0
    assert json.loads((tmp_path / "vk.json").read_text())["nPublic"] == 4
    assert run(main, ["circuits", "export", "card.nope.v1", f"{t}/vk2.json"]).exit_code == 2


def test_a_bare_statement_name_means_its_first_parameter_set():
    from zkbluff.statements import get_statement

    assert get_statement("card.claim.v1").key_id == "card.claim.v1@deck=52"
    assert get_statement("card.claim.v1@deck=20").key_id == "card.claim.v1@deck=20"
    with pytest.raises(Exception, match="unknown statement 'card.nothing.v1'"):
        get_statement("card.nothing.v1")


def test_a_missing_public_input_the_twin_cannot_compute_is_named():
    from zkbluff.errors import MalformedInput
    from zkbluff.statements import get_statement

    claim = get_statement("card.claim.v1@deck=52")
    with pytest.raises(MalformedInput, match="missing input.*'rank_mask'"):
        claim.build({"play": 1, "play_salt": 5, "context": 1})
    claim.build({"play": 1, "play_salt": 5, "rank_mask": 1 | 1 << 13, "context": 1})  # the twin: complete
