import json

from click.testing import CliRunner

from zkbluff.circuit import build
from zkbluff.circuit.formats import write_r1cs, write_wtns
from zkbluff.cli import main

from sample_circuits import cube


def test_setup_prove_verify(tmp_path):
    system, witness = build(cube, {"x": 3, "out": 35})
    write_r1cs(tmp_path / "c.r1cs", system)
    write_wtns(tmp_path / "c.wtns", witness)
    bad = list(witness)
    bad[2] += 1
    write_wtns(tmp_path / "bad.wtns", bad)
    run = CliRunner().invoke
    t = str(tmp_path)
    assert run(main, ["groth16", "setup", f"{t}/c.r1cs", f"{t}/c.pk", f"{t}/vk.json"]).exit_code == 0
    assert run(main, ["groth16", "prove", f"{t}/c.pk", f"{t}/c.wtns", f"{t}/proof.json", f"{t}/public.json"]).exit_code == 0
    assert json.loads((tmp_path / "public.json").read_text()) == ["35"]
    ok = run(main, ["groth16", "verify", f"{t}/vk.json", f"{t}/public.json", f"{t}/proof.json"])
    assert ok.exit_code == 0, ok.output
    refused = run(main, ["groth16", "prove", f"{t}/c.pk", f"{t}/bad.wtns", f"{t}/p2.json", f"{t}/pub2.json"])
    assert refused.exit_code == 1 and "constraint 0" in refused.output
    (tmp_path / "public.json").write_text('["36"]')
    assert run(main, ["groth16", "verify", f"{t}/vk.json", f"{t}/public.json", f"{t}/proof.json"]).exit_code == 1
    (tmp_path / "public.json").write_text('["36", "1"]')
    assert run(main, ["groth16", "verify", f"{t}/vk.json", f"{t}/public.json", f"{t}/proof.json"]).exit_code == 2
    (tmp_path / "public.json").write_text('not json')
    assert run(main, ["groth16", "verify", f"{t}/vk.json", f"{t}/public.json", f"{t}/proof.json"]).exit_code == 2


def test_unwritable_output_is_a_clean_error(tmp_path):
    system, witness = build(cube, {"x": 3, "out": 35})
    write_r1cs(tmp_path / "c.r1cs", system)
    res = CliRunner().invoke(main, ["groth16", "setup", str(tmp_path / "c.r1cs"), str(tmp_path / "no" / "pk"),
                                    str(tmp_path / "vk.json")])
    assert res.exit_code == 2 and "error:" in res.output and "Traceback" not in res.output
