"""``zkbluff fair``: seed 002's provably-fair records."""
from __future__ import annotations

import click

from zkbluff.cli.common import emit, read_json, typed_errors


@click.group("fair")
def fair_group() -> None:
    """Seed 002's provably-fair records: replay, verify, poker card proofs."""



@fair_group.command("replay")
@click.argument("record", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def fair_replay(record: str) -> None:
    """Print, as JSON, everything RECORD determines."""
    from zkbluff.fair import replay

    emit(replay(read_json(record, "record")))


@fair_group.command("verify")
@click.argument("record", type=click.Path(exists=True, dir_okay=False), required=False)
@click.option("--web", is_flag=True, help="serve the verifier page on 127.0.0.1 (drop a record or a transcript on it)")
@typed_errors
def fair_verify(record: str | None, web: bool = False) -> None:
    """Exit 0 if the commitment and every listed outcome match, 1 on a mismatch, 2 if malformed."""
    from zkbluff.fair import verify_record

    if web:
        if record is not None:
            raise click.UsageError("--web takes no RECORD: drop the file on the page")
        from zkbluff.server.web_pages import serve_verifier

        try:
            serve_verifier(click.echo)
        except KeyboardInterrupt:
            click.echo("\nstopped")
        return
    if record is None:
        raise click.UsageError("missing RECORD (or --web for the verifier page)")

    verify_record(read_json(record, "record"))
    click.echo("OK: the commitment opens and every recorded outcome recomputes")


@fair_group.command("prove-card")
@click.argument("record", type=click.Path(exists=True, dir_okay=False))
@click.argument("position", type=click.IntRange(0, 51))
@typed_errors
def fair_prove_card(record: str, position: int) -> None:
    """The poker card at POSITION of RECORD's deck, with its salt and Merkle path."""
    from zkbluff.errors import MalformedInput
    from zkbluff.fair import card_proof, replay

    rec = read_json(record, "record")
    if not isinstance(rec, dict) or rec.get("scheme") != "poker_hmac_v1":
        raise MalformedInput("prove-card takes a poker_hmac_v1 record")
    out = replay(rec)
    emit(card_proof(out["deck"], out["handValue"], position))


@fair_group.command("verify-card")
@click.argument("proof", type=click.Path(exists=True, dir_okay=False))
@click.argument("root")
@typed_errors
def fair_verify_card(proof: str, root: str) -> None:
    """Exit 0 if PROOF opens the deck commitment ROOT (hex), 1 if not, 2 if malformed."""
    from zkbluff.fair import verify_card_proof

    verify_card_proof(read_json(proof, "card proof"), root)
    click.echo("OK: the card opens the committed root")

