"""The ``zkbluff`` command line (click), one module per command group. Nothing imports
this package.

Exit codes: 0 success, 1 invalid (a proof, a signature, a commitment, a transcript line,
an unsatisfied constraint), 2 malformed input or usage error.

Start-up: a command's module is imported only when that command runs (``zkbluff
transcript verify`` never imports the server, the ceremony or the game front ends);
``zkbluff --help`` imports them all to list them.
"""
from __future__ import annotations

import importlib
from typing import Optional

import click

from zkbluff import __version__
from zkbluff.cli.common import typed_errors  # noqa: F401  (for extra command groups)

#: command name -> "module:attribute" (further command groups register here, one line each)
COMMANDS: dict[str, str] = {
    "backends": "zkbluff.cli.backends:backends_cmd",
    "hash": "zkbluff.cli.hashing:hash_group",
    "r1cs": "zkbluff.cli.r1cs:r1cs_group",
    "groth16": "zkbluff.cli.groth16:groth16_group",
    "fair": "zkbluff.cli.fair:fair_group",
    "circuits": "zkbluff.cli.circuits:circuits_group",
    "witness": "zkbluff.cli.circuits:witness_cmd",
    "prove": "zkbluff.cli.circuits:prove_cmd",
    "verify": "zkbluff.cli.circuits:verify_cmd",
    "transcript": "zkbluff.cli.transcript:transcript_group",
    "play": "zkbluff.cli.games:play_cmd",
    "demo": "zkbluff.cli.games:demo_cmd",
    "rules": "zkbluff.cli.games:rules_cmd",
    "review": "zkbluff.cli.review:review_cmd",
    "tutorial": "zkbluff.cli.tutorial:tutorial_cmd",
    "ceremony": "zkbluff.cli.ceremony:ceremony_group",
    "serve": "zkbluff.cli.server:serve_cmd",
    "host": "zkbluff.cli.server:host_cmd",
    "join": "zkbluff.cli.server:join_cmd",
    "watch": "zkbluff.cli.server:watch_cmd",
    "leaderboard": "zkbluff.cli.server:leaderboard_cmd",
}


class LazyGroup(click.Group):
    """A group whose commands are imported from :data:`COMMANDS` when first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, _, attr = COMMANDS[cmd_name].partition(":")
            command = getattr(importlib.import_module(module), attr)
            if command.name != cmd_name:  # pragma: no cover - a wrong line in COMMANDS
                raise RuntimeError(f"zkbluff.cli.COMMANDS: {COMMANDS[cmd_name]} is command {command.name!r}")
            self.add_command(command)
        return self.commands.get(cmd_name)

    @property
    def all_commands(self) -> dict[str, click.Command]:
        """Every command, imported (for documentation and tests)."""
        ctx = click.Context(self)
        return {name: cmd for name in self.list_commands(ctx) if (cmd := self.get_command(ctx, name))}


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="zkbluff")
def main() -> None:
    """Provably fair bluff games: commitments, commit-reveal randomness, Groth16 proofs."""
