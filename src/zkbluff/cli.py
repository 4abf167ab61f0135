"""The ``zkbluff`` command line (click). Nothing imports this module.

Exit codes: 0 success, 1 invalid (a proof, a commitment, a transcript line, an
unsatisfied constraint), 2 malformed input or usage error.
"""
from __future__ import annotations

import functools
import sys

import click

from zkbluff import __version__
from zkbluff.errors import ZkbluffError


def _fail(message: str, code: int):
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def typed_errors(fn):
    """Turn zkbluff errors into a one-line message and their exit code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ZkbluffError as exc:
            _fail(str(exc), exc.exit_code)

    return wrapper


@click.group()
@click.version_option(__version__, prog_name="zkbluff")
def main() -> None:
    """Provably fair bluff games: commitments, commit-reveal randomness, Groth16 proofs."""


@main.command("backends")
def backends_cmd() -> None:
    """List the curve backends that load here (the first is the default)."""
    from zkbluff.curve import available_backends, get_backend

    click.echo(f"default: {get_backend().name}")
    for name in available_backends():
        click.echo(name)


def parse_field_arg(text: str, what: str) -> int:
    """A decimal or 0x-hex field element below r; anything else is a usage error."""
    from zkbluff.field import r

    try:
        v = int(text, 16) if text.lower().startswith("0x") else int(text, 10)
    except ValueError:
        raise click.BadParameter(f"{what}: expected a decimal or 0x-hex integer, got {text!r}")
    if not 0 <= v < r:
        raise click.BadParameter(f"{what}: expected 0 <= x < r, got {text}")
    return v


# ---------------------------------------------------------------- hash
@main.group("hash")
def hash_group() -> None:
    """Hash functions of the circuits, natively."""


@hash_group.command("poseidon")
@click.argument("inputs", nargs=-1, required=True)
def hash_poseidon(inputs: tuple[str, ...]) -> None:
    """Print circomlib's Poseidon of 1..16 field elements (decimal or 0x-hex)."""
    from zkbluff.gadgets.native import poseidon

    if not 1 <= len(inputs) <= 16:
        raise click.BadParameter(f"expected 1..16 inputs, got {len(inputs)}")
    values = [parse_field_arg(x, f"input {i + 1}") for i, x in enumerate(inputs)]
    click.echo(str(poseidon(values)))


# ---------------------------------------------------------------- r1cs
@main.group("r1cs")
def r1cs_group() -> None:
    """circom .r1cs files: counts, fingerprints, satisfaction."""


@r1cs_group.command("info")
@click.argument("r1cs_file", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def r1cs_info(r1cs_file: str) -> None:
    """Counts and fingerprint of a .r1cs file."""
    from zkbluff.circuit.formats import read_r1cs

    s = read_r1cs(r1cs_file)
    click.echo(f"constraints: {s.n_constraints}")
    click.echo(f"wires: {s.n_wires}")
    click.echo(f"public inputs: {s.n_public}")
    click.echo(f"private wires: {s.n_private}")
    click.echo(f"fingerprint: {s.fingerprint()}")


@r1cs_group.command("check")
@click.argument("r1cs_file", type=click.Path(exists=True, dir_okay=False))
@click.argument("wtns_file", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def r1cs_check(r1cs_file: str, wtns_file: str) -> None:
    """Exit 0 if the witness satisfies the system, 1 naming the failing constraint, 2 if malformed."""
    from zkbluff.circuit import check
    from zkbluff.circuit.formats import read_r1cs, read_wtns

    check(read_r1cs(r1cs_file), read_wtns(wtns_file))
    click.echo("satisfied")


# ---------------------------------------------------------------- groth16
def _progress():
    """A progress callback printing to stderr when it is a terminal, else None."""
    if sys.stderr.isatty():
        return lambda msg: click.echo(msg, err=True)
    return None


def _read_json(path: str, what: str):
    import json

    from zkbluff.errors import MalformedInput

    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MalformedInput(f"{what} {path}: {exc}") from None


def _write_json(path: str, obj) -> None:
    import json

    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


@main.group("groth16")
def groth16_group() -> None:
    """Groth16 setup, prove and verify (argument order as snarkjs)."""


@groth16_group.command("setup")
@click.argument("circuit", type=click.Path(exists=True, dir_okay=False))
@click.argument("proving_key", type=click.Path(dir_okay=False))
@click.argument("verification_key", type=click.Path(dir_okay=False))
@typed_errors
def groth16_setup(circuit: str, proving_key: str, verification_key: str) -> None:
    """Circuit-specific setup from CIRCUIT.r1cs; secrets from the OS, discarded."""
    from zkbluff.circuit.formats import read_r1cs
    from zkbluff.groth16 import setup
    from zkbluff.groth16.zkey import write_proving_key

    pk = setup(read_r1cs(circuit), progress=_progress())
    write_proving_key(proving_key, pk)
    _write_json(verification_key, pk.vk.to_json())
    click.echo(f"verification key fingerprint: {pk.vk.fingerprint()}")


@groth16_group.command("prove")
@click.argument("proving_key", type=click.Path(exists=True, dir_okay=False))
@click.argument("witness", type=click.Path(exists=True, dir_okay=False))
@click.argument("proof", type=click.Path(dir_okay=False))
@click.argument("public", type=click.Path(dir_okay=False))
@typed_errors
def groth16_prove(proving_key: str, witness: str, proof: str, public: str) -> None:
    """Prove with a zkbluff key or a snarkjs .zkey (told apart by magic bytes)."""
    from zkbluff.circuit.formats import read_wtns
    from zkbluff.groth16 import prove, public_to_json
    from zkbluff.groth16.zkey import read_proving_key

    pk = read_proving_key(proving_key)
    w = read_wtns(witness)
    say = _progress()
    if say:
        say(f"proving: {pk.n_wires} wires, domain {pk.domain_size}")
    pr = prove(pk, w)
    _write_json(proof, pr.to_json())
    _write_json(public, public_to_json(w[1: 1 + pk.n_public]))


@groth16_group.command("verify")
@click.argument("verification_key", type=click.Path(exists=True, dir_okay=False))
@click.argument("public", type=click.Path(exists=True, dir_okay=False))
@click.argument("proof", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def groth16_verify(verification_key: str, public: str, proof: str) -> None:
    """Exit 0 valid, 1 invalid, 2 malformed input."""
    from zkbluff.groth16 import Proof, VerifyingKey, public_from_json, verify

    vk = VerifyingKey.from_json(_read_json(verification_key, "verification key"))
    pub = public_from_json(_read_json(public, "public inputs"))
    pr = Proof.from_json(_read_json(proof, "proof"))
    verify(vk, pub, pr)
    click.echo("OK: the proof is valid")


# ---------------------------------------------------------------- fair
@main.group("fair")
def fair_group() -> None:
    """Seed 002's provably-fair records: replay, verify, poker card proofs."""


def _emit(obj) -> None:
    import json

    click.echo(json.dumps(obj, indent=1, ensure_ascii=False))


@fair_group.command("replay")
@click.argument("record", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def fair_replay(record: str) -> None:
    """Print, as JSON, everything RECORD determines."""
    from zkbluff.fair import replay

    _emit(replay(_read_json(record, "record")))


@fair_group.command("verify")
@click.argument("record", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def fair_verify(record: str) -> None:
    """Exit 0 if the commitment and every listed outcome match, 1 on a mismatch, 2 if malformed."""
    from zkbluff.fair import verify_record

    verify_record(_read_json(record, "record"))
    click.echo("OK: the commitment opens and every recorded outcome recomputes")


@fair_group.command("prove-card")
@click.argument("record", type=click.Path(exists=True, dir_okay=False))
@click.argument("position", type=click.IntRange(0, 51))
@typed_errors
def fair_prove_card(record: str, position: int) -> None:
    """The poker card at POSITION of RECORD's deck, with its salt and Merkle path."""
    from zkbluff.errors import MalformedInput
    from zkbluff.fair import card_proof, replay

    rec = _read_json(record, "record")
    if not isinstance(rec, dict) or rec.get("scheme") != "poker_hmac_v1":
        raise MalformedInput("prove-card takes a poker_hmac_v1 record")
    out = replay(rec)
    _emit(card_proof(out["deck"], out["handValue"], position))


@fair_group.command("verify-card")
@click.argument("proof", type=click.Path(exists=True, dir_okay=False))
@click.argument("root")
@typed_errors
def fair_verify_card(proof: str, root: str) -> None:
    """Exit 0 if PROOF opens the deck commitment ROOT (hex), 1 if not, 2 if malformed."""
    from zkbluff.fair import verify_card_proof

    verify_card_proof(_read_json(proof, "card proof"), root)
    click.echo("OK: the card opens the committed root")


# ---------------------------------------------------------------- statements
def _circuits_folder() -> "Path":
    from pathlib import Path

    import zkbluff

    repo = Path(zkbluff.__file__).resolve().parents[2] / "circuits"
    return repo


@main.group("circuits")
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

    _write_json(verification_key, verifying_key(name, create=False).to_json())


def _statement_inputs(stmt, path: str) -> dict:
    from zkbluff.errors import MalformedInput

    raw = _read_json(path, "inputs")
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


@main.command("witness")
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
    write_wtns(witness, w)
    click.echo(f"{len(w)} wires, public: " + ", ".join(f"{n}={v}" for n, v in zip(stmt.public, w[1:])))


@main.command("prove")
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
    pk = load_keys(stmt.key_id, say=lambda m: click.echo(m, err=True))
    _write_json(proof, prove(pk, w).to_json())
    _write_json(public, public_to_json(w[1: 1 + system.n_public]))


@main.command("verify")
@click.argument("name")
@click.argument("public", type=click.Path(exists=True, dir_okay=False))
@click.argument("proof", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def verify_cmd(name: str, public: str, proof: str) -> None:
    """Verify a proof of statement NAME with the registry's keys. Exit 0/1/2."""
    from zkbluff.groth16 import Proof, public_from_json, verify
    from zkbluff.statements.keys import verifying_key

    vk = verifying_key(name, create=False)
    verify(vk, public_from_json(_read_json(public, "public inputs")), Proof.from_json(_read_json(proof, "proof")))
    click.echo("OK: the proof is valid")
