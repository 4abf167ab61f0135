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


from zkbluff import cli_commands  # noqa: E402,F401  (registers the sub-commands)
