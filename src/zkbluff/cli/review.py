"""``zkbluff review``: a finished (or stopped) match turn by turn, as one seat saw it: the
narration every screen printed, that seat's own hand after each line that changed it (from
its own secrets file), and what each proof disclosed (:mod:`zkbluff.games.engine.review`)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from zkbluff.cli.common import typed_errors


def review_hint(transcript: Path, seat: int = 0) -> str:
    """The line a match's end offers its review with."""
    extra = "" if seat == 0 else f" --seat {seat}"
    return f"Review it turn by turn (your hand, what each proof disclosed): zkbluff review {transcript}{extra}"


@click.command("review")
@click.argument("transcript", type=click.Path(exists=True, dir_okay=False))
@click.option("--seat", type=int, default=None,
              help="the seat to review as (default: seat 0 when its secrets file is beside the transcript, "
                   "else a spectator's view)")
@click.option("--secrets", "secrets_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="the seat's own secrets file (default: TRANSCRIPT.seatN.secrets.json beside it; a networked "
                   "client's is under its home's tables/<CODE>/)")
@click.option("--no-proofs", is_flag=True, help="leave out what each proof disclosed")
@click.option("--plain", is_flag=True, help="draw cards in plain letters (4h, 10s), no symbols or colour")
@click.option("--keys", "keys", default=None, metavar="DIR",
              help="a private key set the match was played with (as for `transcript verify --keys`)")
@typed_errors
def review_cmd(transcript: str, seat: Optional[int], secrets_file: Optional[str], no_proofs: bool, plain: bool,
               keys: Optional[str]) -> None:
    """The review and replay of the match in TRANSCRIPT (any game): verified first, then
    every line in words from your seat, your own hand turn by turn and what each proof
    disclosed. Without a secrets file: a spectator's review (the public lines only)."""
    from zkbluff.cli.games import _terminal_style
    from zkbluff.games.engine.registry import spec_for
    from zkbluff.games.engine.review import build_review, load_secrets
    from zkbluff.games.engine.table import secrets_path
    from zkbluff.protocol.transcript import parse_chain, read_lines

    path = Path(transcript)
    secrets = None
    if secrets_file is not None:
        secrets = load_secrets(secrets_file)
    else:
        beside = secrets_path(path, f"seat{0 if seat is None else seat}")
        if beside.exists():
            secrets = load_secrets(beside)
            seat = secrets["seat"] if seat is None else seat
    for event in parse_chain(read_lines(path)):  # the game's text draws the cards
        data = event.get("data")
        header = data if isinstance(data, dict) else {}
        text = spec_for(header.get("game"), header.get("options")).text
        if hasattr(text, "configure"):
            text.configure(*((False, False) if plain else _terminal_style()))
        break
    review = build_review(path, seat, secrets, keys_dir=Path(keys) if keys else None)
    click.echo(review.text(proofs=not no_proofs))
