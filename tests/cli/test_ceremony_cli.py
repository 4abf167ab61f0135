"""`zkbluff ceremony ...`: the whole flow, and bad input as a one-line error with
exit 2 (malformed) or 1 (invalid) and nothing written."""
from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner

from zkbluff.circuit import build
from zkbluff.circuit.formats import write_r1cs
from zkbluff.cli import main
from zkbluff.statements.keys import registry_dir

from sample_circuits import cube

BEACON = "0x" + "ab" * 32


def run(*args):
    return CliRunner().invoke(main, ["ceremony", *map(str, args)])


def one_line_error(res, code: int) -> None:
    assert res.exit_code == code, res.output
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output


@pytest.fixture(scope="module")
def flow(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    system, _ = build(cube, {"x": 3, "out": 35})
    write_r1cs(d / "cube.r1cs", system)
    steps = [
        ("ptau", "new", 4, d / "p0.ptau"),
        ("ptau", "contribute", d / "p0.ptau", d / "p1.ptau", "--name", "alice"),
        ("ptau", "contribute", d / "p1.ptau", d / "p2.ptau", "--name", "bob"),
        ("ptau", "beacon", d / "p2.ptau", d / "p3.ptau", BEACON, 10, "--name", "final"),
        ("ptau", "prepare", d / "p3.ptau", d / "final.ptau"),
        ("zkey", "new", d / "cube.r1cs", d / "final.ptau", d / "z0.zkey"),
        ("zkey", "contribute", d / "z0.zkey", d / "z1.zkey", "--name", "alice"),
        ("zkey", "beacon", d / "z1.zkey", d / "z2.zkey", BEACON, 10),
    ]
    for step in steps:
        res = run(*step)
        assert res.exit_code == 0, (step, res.output)
    return d


def test_flow_verifies(flow):
    res = run("ptau", "verify", flow / "final.ptau")
    assert res.exit_code == 0 and "OK" in res.output and "alice" in res.output and "(beacon)" in res.output
    res = run("zkey", "verify", flow / "cube.r1cs", flow / "final.ptau", flow / "z2.zkey")
    assert res.exit_code == 0 and "OK" in res.output, res.output


def test_no_contribution_is_invalid(flow):
    one_line_error(run("ptau", "verify", flow / "p0.ptau"), 1)


def test_truncated_files_are_malformed_and_nothing_is_written(flow, tmp_path):
    for name, args in (("final.ptau", ("ptau", "contribute")), ("z2.zkey", ("zkey", "contribute"))):
        bad = tmp_path / f"cut-{name}"
        bad.write_bytes((flow / name).read_bytes()[:1000])
        out = tmp_path / f"out-{name}"
        one_line_error(run(*args, bad, out), 2)
        assert not out.exists()
    one_line_error(run("ptau", "verify", tmp_path / "cut-final.ptau"), 2)
    one_line_error(run("zkey", "verify", flow / "cube.r1cs", flow / "final.ptau", tmp_path / "cut-z2.zkey"), 2)


def test_point_off_curve_is_malformed(flow, tmp_path):
    data = bytearray((flow / "p2.ptau").read_bytes())
    data[12 + 12 + 44 + 12 + 64 + 40] ^= 4  # tauG1[1].y
    (tmp_path / "bad.ptau").write_bytes(bytes(data))
    one_line_error(run("ptau", "contribute", tmp_path / "bad.ptau", tmp_path / "out.ptau"), 2)
    assert not (tmp_path / "out.ptau").exists()


def test_wrong_power_and_wrong_circuit(flow, tmp_path):
    big, _ = build(lambda cs, i: [cs.mul(cs.private_unchecked(f"x{k}", None), cs.private_unchecked(f"y{k}", None),
                                         f"m{k}") for k in range(40)], None)
    write_r1cs(tmp_path / "big.r1cs", big)
    one_line_error(run("zkey", "new", tmp_path / "big.r1cs", flow / "final.ptau", tmp_path / "z.zkey"), 2)
    assert not (tmp_path / "z.zkey").exists()
    other, _ = build(lambda cs, i: cs.enforce_equal(cs.mul(cs.public("a", None), cs.public("b", None), "ab"),
                                                   cs.private_unchecked("c", None), "eq"), None)
    write_r1cs(tmp_path / "other.r1cs", other)
    one_line_error(run("zkey", "verify", tmp_path / "other.r1cs", flow / "final.ptau", flow / "z2.zkey"), 1)
    one_line_error(run("zkey", "verify", tmp_path / "missing.r1cs", flow / "final.ptau", flow / "z2.zkey"), 2)
    one_line_error(run("ptau", "beacon", flow / "p2.ptau", tmp_path / "b.ptau", "nothex", 10), 2)
    one_line_error(run("ptau", "beacon", flow / "p2.ptau", tmp_path / "b.ptau", BEACON, 5), 2)
    assert not (tmp_path / "b.ptau").exists()
    one_line_error(run("ptau", "new", 0, tmp_path / "n.ptau"), 2)


def test_project_verify_rejects_a_tampered_copy(tmp_path):
    """(The committed ceremony passing `zkbluff ceremony verify` is
    test_ceremony_project.py::test_committed_ceremony_verifies.)"""
    from zkbluff.ceremony.ptau import read_ptau, write_ptau
    from zkbluff.curve import G1_GENERATOR, get_backend
    from dataclasses import replace

    copy = tmp_path / "circuits"
    shutil.copytree(registry_dir(), copy)
    f = copy / "keys" / "phase1.ptau"
    pt = read_ptau(f)
    moved = list(pt.alpha_tau_g1)
    moved[7] = get_backend().g1_add(moved[7], G1_GENERATOR)
    write_ptau(f, replace(pt, alpha_tau_g1=tuple(moved)))
    one_line_error(run("verify", "--dir", copy), 1)
    f.write_bytes(f.read_bytes()[:-7])
    one_line_error(run("verify", "--dir", copy), 2)


def test_private_key_set(tmp_path, monkeypatch):
    monkeypatch.setenv("ZKBLUFF_KEY_DIR", str(tmp_path / "cache"))
    res = run("private", "value.choice.v1", "--dir", tmp_path / "mine")
    assert res.exit_code == 0 and "PRIVATE" in res.output
    assert list((tmp_path / "mine").glob("*.vk.json"))
