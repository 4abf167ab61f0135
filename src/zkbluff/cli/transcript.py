"""``zkbluff transcript``: verify a finished (or unfinished) match of any registered game."""
from __future__ import annotations

import click

from zkbluff.cli.common import typed_errors


@click.group("transcript")
def transcript_group() -> None:
    """Hash-chained, signed match transcripts."""


@transcript_group.command("verify")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--trusted-keys", is_flag=True, help="require the table's keys to be the ones in your key cache")
@click.option("--seat-key", "seat_keys", multiple=True, metavar="SEAT:HEX",
              help="a seat's known Ed25519 public key; the header must list it (repeatable)")
@typed_errors
def transcript_verify(file: str, trusted_keys: bool, seat_keys: tuple[str, ...]) -> None:
    """Dispatch on the header's game; check every signature, replay the rules,
    batch-verify every proof, check the closing line. Exit 0 valid, 1 with the first bad
    line, 2 malformed (an unknown game included)."""
    from zkbluff.games.engine.verifier import verify_transcript

    trusted = None
    if trusted_keys:
        from zkbluff.errors import MalformedInput
        from zkbluff.statements import all_statements
        from zkbluff.statements.keys import verifying_key

        trusted = {}
        for k in all_statements():
            try:
                trusted[k] = verifying_key(k, create=False)
            except MalformedInput:  # a key we do not have is simply not trusted
                pass
    known: dict[int, str] = {}
    for item in seat_keys:
        seat, _, key = item.partition(":")
        if not seat.isdigit() or not key:
            raise click.BadParameter(f"--seat-key: expected SEAT:HEX, got {item!r}")
        known[int(seat)] = key
    from zkbluff.cli.common import working

    with working(f"verifying {file}: signatures, rules, proofs"):
        report = verify_transcript(file, trusted, known)
    click.echo(f"OK: {report['game']} ({', '.join(f'{k} {v}' for k, v in report['options'].items())}), "
               f"{report['lines']} signed lines, {report['proofs']} proofs; {report['summary']}")
    if not report["complete"]:
        click.echo("note: the match is not finished; the deal's closing line is not there yet")
    if not trusted_keys:
        click.echo("keys: the table's own (" + ", ".join(f"{k} {v}" for k, v in report["keys"].items())
                   + "); --trusted-keys checks them against yours")
