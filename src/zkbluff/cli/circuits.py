"""``zkbluff circuits``, ``witness``, ``prove``, ``verify``: the statement registry and its proofs."""
from __future__ import annotations

import sys

import click

from zkbluff.cli.common import read_json, typed_errors, write_json


def _circuits_folder():
    from zkbluff.statements.keys import registry_dir

    return registry_dir()


@click.group("circuits")
def circuits_group() -> None:
    """The statement registry: list, build, check, setup keys, export keys."""


@circuits_group.command("list")
def circuits_list() -> None:
    """Names, parameters, constraint counts and public inputs of every statement."""
    from zkbluff.statements import all_statements

    for key_id, stmt in all_statements().items():
        system, _ = stmt.build()
        click.echo(f"{key_id}\n  constraints: {system.n_constraints}  wires: {system.n_wires}\n"
                   f"  public: {', '.join(stmt.public)}\n  private: {', '.join(stmt.private)}")


@circuits_group.command("build")
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=None,
              help="where to write (default: the repository's circuits/)")
def circuits_build(folder: str | None) -> None:
    """Write one .r1cs per statement and manifest.json."""
    from pathlib import Path

    from zkbluff.statements.keys import build_registry

    out = Path(folder) if folder else _circuits_folder()
    entries = build_registry(out)
    click.echo(f"wrote {len(entries)} circuits and manifest.json to {out}")


@circuits_group.command("check")
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=None)
def circuits_check(folder: str | None) -> None:
    """Exit 1 if the code and the committed circuits/ differ (a lock-file check)."""
    from pathlib import Path

    from zkbluff.statements.keys import check_registry

    out = Path(folder) if folder else _circuits_folder()
    problems = check_registry(out)
    for p in problems:
        click.echo(p, err=True)
    if problems:
        sys.exit(1)
    click.echo(f"circuits/ matches the code ({out})")


@circuits_group.command("setup")
@click.argument("name", required=False)
@typed_errors
def circuits_setup(name: str | None) -> None:
    """Make keys (into $ZKBLUFF_KEY_DIR or ~/.cache/zkbluff/keys) for NAME, or for all."""
    import time

    from zkbluff.statements import all_statements, get_statement
    from zkbluff.statements.keys import key_dir, load_keys

    ids = [get_statement(name).key_id] if name else list(all_statements())
    for key_id in ids:
        t = time.perf_counter()
        pk = load_keys(key_id, say=lambda m: click.echo(m, err=True))
        click.echo(f"{key_id}: {pk.vk.fingerprint()[:16]} ({time.perf_counter() - t:.2f} s)")
    click.echo(f"keys in {key_dir()}")


@circuits_group.command("export")
@click.argument("name")
@click.argument("verification_key", type=click.Path(dir_okay=False))
@typed_errors
def circuits_export(name: str, verification_key: str) -> None:
    """Write NAME's verification key as snarkjs JSON (for `snarkjs groth16 verify`)."""
    from zkbluff.statements.keys import verifying_key

    write_json(verification_key, verifying_key(name, create=False).to_json())


def _statement_inputs(stmt, path: str) -> dict:
    from zkbluff.errors import MalformedInput

    raw = read_json(path, "inputs")
    if not isinstance(raw, dict):
        raise MalformedInput("inputs: expected a JSON object of name -> value")
    out = {}
    for k, v in raw.items():
        if isinstance(v, str):
            try:
                v = int(v, 16) if v.lower().startswith("0x") else int(v, 10)
            except ValueError:
                raise MalformedInput(f"input {k!r}: expected a decimal or 0x-hex integer, got {v!r}") from None
        out[k] = v
    return out


@click.command("witness")
@click.argument("name")
@click.argument("inputs", type=click.Path(exists=True, dir_okay=False))
@click.argument("witness", type=click.Path(dir_okay=False))
@typed_errors
def witness_cmd(name: str, inputs: str, witness: str) -> None:
    """Compute NAME's full witness from named INPUTS (JSON); write a .wtns."""
    from zkbluff.circuit.formats import write_wtns
    from zkbluff.statements import get_statement

    stmt = get_statement(name)
    _, w = stmt.build(_statement_inputs(stmt, inputs))
    assert w is not None
    write_wtns(witness, w)
    click.echo(f"{len(w)} wires, public: " + ", ".join(f"{n}={v}" for n, v in zip(stmt.public, w[1:])))


@click.command("prove")
@click.argument("name")
@click.argument("inputs", type=click.Path(exists=True, dir_okay=False))
@click.argument("proof", type=click.Path(dir_okay=False))
@click.argument("public", type=click.Path(dir_okay=False))
@typed_errors
def prove_cmd(name: str, inputs: str, proof: str, public: str) -> None:
    """Prove statement NAME for INPUTS with the registry's keys."""
    from zkbluff.groth16 import prove, public_to_json
    from zkbluff.statements import get_statement
    from zkbluff.statements.keys import load_keys

    stmt = get_statement(name)
    system, w = stmt.build(_statement_inputs(stmt, inputs))
    assert w is not None
    pk = load_keys(stmt.key_id, say=lambda m: click.echo(m, err=True))
    write_json(proof, prove(pk, w).to_json())
    write_json(public, public_to_json(w[1: 1 + system.n_public]))


@click.command("verify")
@click.argument("name")
@click.argument("public", type=click.Path(exists=True, dir_okay=False))
@click.argument("proof", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def verify_cmd(name: str, public: str, proof: str) -> None:
    """Verify a proof of statement NAME with the registry's keys. Exit 0/1/2."""
    from zkbluff.groth16 import Proof, public_from_json, verify
    from zkbluff.statements.keys import verifying_key

    vk = verifying_key(name, create=False)
    verify(vk, public_from_json(read_json(public, "public inputs")), Proof.from_json(read_json(proof, "proof")))
    click.echo("OK: the proof is valid")

