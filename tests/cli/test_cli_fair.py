import json

from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.fair import replay

REC = {"scheme": "poker_hmac_v1", "serverSeed": "srv", "table": "T", "session": "S", "hand": 2,
       "seeds": {"1": "a"}, "commitment": "0c2a7e5a5bf3c1f3e1e4f1d2c6c0e16a6eee6fc2c5bc3bcbc4a1e1b2ea5e8d2c"}


def test_fair_commands(tmp_path):
    run = CliRunner().invoke
    rec = dict(REC)
    import hashlib
    rec["commitment"] = hashlib.sha256(b"srv").hexdigest()
    (tmp_path / "rec.json").write_text(json.dumps(rec))
    out = run(main, ["fair", "replay", str(tmp_path / "rec.json")])
    assert out.exit_code == 0 and json.loads(out.output)["root"] == replay(rec)["root"]
    assert run(main, ["fair", "verify", str(tmp_path / "rec.json")]).exit_code == 0
    card = run(main, ["fair", "prove-card", str(tmp_path / "rec.json"), "7"])
    assert card.exit_code == 0
    (tmp_path / "card.json").write_text(card.output)
    root = replay(rec)["root"]
    assert run(main, ["fair", "verify-card", str(tmp_path / "card.json"), root]).exit_code == 0
    assert run(main, ["fair", "verify-card", str(tmp_path / "card.json"), "00" * 32]).exit_code == 1
    bad = {**rec, "commitment": "11" * 32}
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    assert run(main, ["fair", "verify", str(tmp_path / "bad.json")]).exit_code == 1
    (tmp_path / "v1.json").write_text(json.dumps({**rec, "scheme": "match_seed_v1"}))
    res = run(main, ["fair", "verify", str(tmp_path / "v1.json")])
    assert res.exit_code == 2 and "not supported" in res.output
    (tmp_path / "junk.json").write_text("{")
    assert run(main, ["fair", "replay", str(tmp_path / "junk.json")]).exit_code == 2
    assert run(main, ["fair", "prove-card", str(tmp_path / "rec.json"), "52"]).exit_code == 2
