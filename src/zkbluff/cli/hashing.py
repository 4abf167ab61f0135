"""``zkbluff hash``: the circuits' hash functions, natively."""
from __future__ import annotations

import click

from zkbluff.cli.common import parse_field_arg


@click.group("hash")
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

