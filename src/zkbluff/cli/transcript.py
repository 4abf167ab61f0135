"""``zkbluff transcript``: verify a finished (or unfinished) match of any registered game."""
from __future__ import annotations

import sys

import click

from zkbluff.cli.common import typed_errors


@click.group("transcript")
def transcript_group() -> None:
    """Hash-chained, signed match transcripts."""


@transcript_group.command("verify")
@click.argument("file", type=click.Path(exists=True, dir_okay=False), required=False)
@click.option("--web", is_flag=True, help="serve the drop-a-transcript verifier page on 127.0.0.1 (the URL it "
                                          "prints, with its one-time token) instead of verifying FILE")
@click.option("--keys", "keys_dir", type=click.Path(exists=True, file_okay=False), metavar="DIR",
              help="also trust the private key set in DIR (reported loudly); by default only the pinned "
                   "project keys and a verified per-match ceremony's keys are trusted")
@click.option("--seat-key", "seat_keys", multiple=True, metavar="SEAT:HEX",
              help="a seat's known Ed25519 public key; the header must list it (repeatable)")
@click.option("--json", "as_json", is_flag=True,
              help="print one JSON object {valid, line, code, message} (and the summary when valid) instead of text")
@typed_errors
def transcript_verify(file: str | None, keys_dir: str | None, seat_keys: tuple[str, ...], as_json: bool,
                      web: bool = False) -> None:
    """Dispatch on the header's game; check every key is trusted, every signature, replay
    the rules, batch-verify every proof, check the closing line. Exit 0 valid, 1 with the
    first bad line (an untrusted key: line 1), 2 malformed (an unknown game included).
    A failure names its line and its reason code (docs/writing-your-own-verifier.md lists
    them), e.g. ``error: line 7: ... [line.signature]``. (The body is
    :func:`zkbluff.cli_fast.transcript_verify`, which the plain forms reach without click.)

    With --web (and no FILE): a page on this machine where a dropped transcript (or seed
    002 fairness record) is verified by this process (docs/web-table.md)."""
    if web:
        if file is not None or keys_dir or seat_keys or as_json:
            raise click.UsageError("--web takes no FILE, --keys, --seat-key or --json: drop the file on the page")
        from zkbluff.server.web_pages import serve_verifier

        try:
            serve_verifier(click.echo)
        except KeyboardInterrupt:
            click.echo("\nstopped")
        return
    if file is None:
        raise click.UsageError("missing FILE (or --web for the verifier page)")
    from zkbluff.cli_fast import transcript_verify as run_verify

    known: dict[int, str] = {}
    for item in seat_keys:
        seat, _, key = item.partition(":")
        if not seat.isdigit() or not key:
            raise click.BadParameter(f"--seat-key: expected SEAT:HEX, got {item!r}")
        known[int(seat)] = key
    status = run_verify(file, keys_dir=keys_dir, seat_keys=known, as_json=as_json)
    if status:
        sys.exit(status)


@transcript_group.command("compare")
@click.argument("mine", type=click.Path(exists=True, dir_okay=False))
@click.argument("theirs", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print the comparison as one JSON object")
@typed_errors
def transcript_compare(mine: str, theirs: str, as_json: bool) -> None:
    """Hold two copies of one match's transcript against each other (a seat's own copy and
    the house's file, or two seats' copies): identical, one the start of the other, or the
    first line where they diverge, with both versions and who signed each. A key that signed
    lines on both sides of the divergence signed two histories of the match: when it is the
    referee's or the dealer's, that is proof that the house equivocated.

    Exit 0 identical or a prefix, 1 diverged (or a copy whose own hash chain is broken), 2 a
    file that is not a transcript. Only the chains and signatures are checked here; run
    `zkbluff transcript verify` on each copy for its rules and proofs."""
    from zkbluff.errors import ForkedMatch
    from zkbluff.games.engine.compare import DIVERGED, compare_transcripts, describe_line

    found = compare_transcripts(mine, theirs)
    if as_json:
        from zkbluff.cli.common import emit

        emit(found.to_json())
    else:
        click.echo(found.summary())
        if found.verdict == DIVERGED:
            for label, line, who in (("MINE  ", found.mine, found.mine_signer),
                                     ("THEIRS", found.theirs, found.theirs_signer)):
                assert line is not None
                by = "signed by no party its header lists" if who is None else f"signed by {who.name} " \
                                                                                f"(key {who.key[:16]}…)"
                click.echo(f"  {label} {describe_line(line)}  {by}")
            for e in found.equivocators:
                click.echo(f"  {e.signer.name} signed lines from line {found.line} on in both copies: MINE "
                           f"{', '.join(map(str, e.mine))}; THEIRS {', '.join(map(str, e.theirs))}")
    if found.verdict == DIVERGED:
        sys.exit(ForkedMatch.exit_code)
