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
