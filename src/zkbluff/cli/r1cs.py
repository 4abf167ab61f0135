"""``zkbluff r1cs``: circom .r1cs files."""
from __future__ import annotations

import click

from zkbluff.cli.common import typed_errors


@click.group("r1cs")
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

