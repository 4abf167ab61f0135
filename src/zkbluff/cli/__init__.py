"""The ``zkbluff`` command line (click), one module per command group. Nothing imports
this package.

Exit codes: 0 success, 1 invalid (a proof, a signature, a commitment, a transcript line,
an unsatisfied constraint), 2 malformed input or usage error.
"""
from __future__ import annotations

import click

from zkbluff import __version__
from zkbluff.cli import backends, ceremony, circuits, fair, games, groth16, hashing, r1cs, transcript
from zkbluff.cli import server as server_cli
from zkbluff.cli.common import typed_errors  # noqa: F401  (for extra command groups)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="zkbluff")
def main() -> None:
    """Provably fair bluff games: commitments, commit-reveal randomness, Groth16 proofs."""


main.add_command(backends.backends_cmd)
main.add_command(hashing.hash_group)
main.add_command(r1cs.r1cs_group)
main.add_command(groth16.groth16_group)
main.add_command(fair.fair_group)
main.add_command(circuits.circuits_group)
main.add_command(circuits.witness_cmd)
main.add_command(circuits.prove_cmd)
main.add_command(circuits.verify_cmd)
main.add_command(transcript.transcript_group)
main.add_command(games.play_cmd)
main.add_command(games.demo_cmd)
main.add_command(games.rules_cmd)
main.add_command(ceremony.ceremony_group)
for _cmd in server_cli.COMMANDS:
    main.add_command(_cmd)
# further command groups register here, one line each (e.g. the ceremony group):
# from zkbluff.cli.ceremony import ceremony_group; main.add_command(ceremony_group)
