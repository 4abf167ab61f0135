from click.testing import CliRunner

from zkbluff.circuit import build
from zkbluff.circuit.formats import write_r1cs, write_wtns
from zkbluff.cli import main
from zkbluff.field import r
from zkbluff.gadgets.native import poseidon


def test_hash_poseidon():
    res = CliRunner().invoke(main, ["hash", "poseidon", "1", "0x2"])
    assert res.exit_code == 0 and res.output.strip() == str(poseidon([1, 2]))
    for bad in (["hash", "poseidon", str(r)], ["hash", "poseidon", "abc"], ["hash", "poseidon"],
                ["hash", "poseidon", *["1"] * 17]):
        assert CliRunner().invoke(main, bad).exit_code == 2


def square(cs, inputs):
    y = cs.public("y", inputs and inputs["y"])
    x = cs.private_unchecked("x", inputs and inputs["x"])
    cs.enforce(x, x, y, "square")


def test_r1cs_info_and_check(tmp_path):
    system, witness = build(square, {"x": 4, "y": 16})
    write_r1cs(tmp_path / "s.r1cs", system)
    write_wtns(tmp_path / "good.wtns", witness)
    write_wtns(tmp_path / "bad.wtns", [1, 16, 5])
    (tmp_path / "junk.wtns").write_bytes(b"junk")
    run = CliRunner().invoke
    info = run(main, ["r1cs", "info", str(tmp_path / "s.r1cs")])
    assert info.exit_code == 0 and "constraints: 1" in info.output and system.fingerprint() in info.output
    assert run(main, ["r1cs", "check", str(tmp_path / "s.r1cs"), str(tmp_path / "good.wtns")]).exit_code == 0
    bad = run(main, ["r1cs", "check", str(tmp_path / "s.r1cs"), str(tmp_path / "bad.wtns")])
    assert bad.exit_code == 1 and "constraint 0" in bad.output
    assert run(main, ["r1cs", "check", str(tmp_path / "s.r1cs"), str(tmp_path / "junk.wtns")]).exit_code == 2
