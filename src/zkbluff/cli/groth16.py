"""``zkbluff groth16``: setup, prove and verify (argument order as snarkjs)."""
from __future__ import annotations

import click

from zkbluff.cli.common import progress, read_json, typed_errors, write_json


@click.group("groth16")
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

    pk = setup(read_r1cs(circuit), progress=progress())
    write_proving_key(proving_key, pk)
    write_json(verification_key, pk.vk.to_json())
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
    say = progress()
    if say:
        say(f"proving: {pk.n_wires} wires, domain {pk.domain_size}")
    pr = prove(pk, w)
    write_json(proof, pr.to_json())
    write_json(public, public_to_json(w[1: 1 + pk.n_public]))
    click.echo(f"wrote the proof to {proof} and its {pk.n_public} public inputs to {public}")


@groth16_group.command("verify")
@click.argument("verification_key", type=click.Path(exists=True, dir_okay=False))
@click.argument("public", type=click.Path(exists=True, dir_okay=False))
@click.argument("proof", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def groth16_verify(verification_key: str, public: str, proof: str) -> None:
    """Exit 0 valid, 1 invalid, 2 malformed input."""
    from zkbluff.groth16 import Proof, VerifyingKey, public_from_json, verify

    vk = VerifyingKey.from_json(read_json(verification_key, "verification key"))
    pub = public_from_json(read_json(public, "public inputs"))
    pr = Proof.from_json(read_json(proof, "proof"))
    verify(vk, pub, pr)
    click.echo("OK: the proof is valid")

