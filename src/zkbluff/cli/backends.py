"""``zkbluff backends``: the curve backends that load here."""
from __future__ import annotations

import click

from zkbluff.cli.common import typed_errors


@click.command("backends")
@typed_errors
def backends_cmd() -> None:
    """List the curve backends that load here (the first is the default)."""
    from zkbluff.curve import available_backends, get_backend

    click.echo(f"default: {get_backend().name}")
    for name in available_backends():
        click.echo(name)

