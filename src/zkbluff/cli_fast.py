"""What the ``zkbluff`` command runs without click: the body of ``zkbluff transcript
verify`` (:func:`transcript_verify`) and the progress line of long steps (:func:`working`).

The click command (``zkbluff.cli.transcript``) parses its options and calls
:func:`transcript_verify`; so does :mod:`zkbluff.cli_start` for the plain forms
``zkbluff transcript verify FILE`` and ``... --json FILE`` (:func:`plain_transcript_verify`),
without importing click (~8 ms of a verifier's start-up). One body, two ways in: the same
output and exit status either way.
"""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional


def say(text: str, err: bool = False) -> None:
    """One line to standard output (or error), flushed (as ``click.echo`` writes it)."""
    stream = sys.stderr if err else sys.stdout
    stream.write(text + "\n")
    stream.flush()


def emit(obj: Any) -> None:
    import json

    say(json.dumps(obj, indent=1, ensure_ascii=False))


@contextlib.contextmanager
def working(label: str, after: float = 1.0) -> Iterator[None]:
    """Show ``label`` with the seconds elapsed on a terminal's stderr while the block runs,
    once it has taken longer than ``after`` seconds (a proof on a slow backend, the deal);
    the line is cleared when the block ends. Off a terminal it shows nothing."""
    import threading
    import time

    if not sys.stderr.isatty():
        yield
        return
    stop = threading.Event()
    t0 = time.perf_counter()
    width = len(label) + 12

    def show(text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()

    def tick() -> None:
        if stop.wait(after):
            return
        while True:
            show(f"\r{label} … {time.perf_counter() - t0:.0f} s")
            if stop.wait(0.5):
                break
        show("\r" + " " * width + "\r")

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def transcript_verify(file: str, keys_dir: Optional[str] = None, seat_keys: Optional[Mapping[int, str]] = None,
                      as_json: bool = False) -> int:
    """``zkbluff transcript verify``: verify ``file``, print the verdict (text or ``--json``)
    and return the exit status (0 valid; else the error's: 1 invalid, 2 malformed). A reader
    that goes away (``| head``) ends it quietly with 0; a file error is a malformed input."""
    from zkbluff.errors import ZkbluffError
    from zkbluff.games.engine.verifier import verify_transcript

    try:
        try:
            with working(f"verifying {file}: signatures, rules, proofs"):
                report = verify_transcript(file, seat_keys=dict(seat_keys or {}),
                                           keys_dir=Path(keys_dir) if keys_dir else None)
        except ZkbluffError as exc:
            line = getattr(exc, "line", None)
            if as_json:
                emit({"valid": False, "line": line, "code": exc.code, "message": str(exc)})
            else:
                say(f"error: {exc} [{exc.code}]", err=True)
            return exc.exit_code
        _print_report(report, keys_dir, as_json)
        return 0
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a file that cannot be read: malformed input, exit 2
        where = f"{exc.filename}: " if exc.filename else ""
        say(f"error: {where}{exc.strerror or exc}", err=True)
        return 2


def _print_report(report: Mapping[str, Any], keys_dir: Optional[str], as_json: bool) -> None:
    for line in report["loud"]:
        say(line, err=True)
    if as_json:
        result = report["result"]
        emit({"valid": True, "line": None, "code": None, "message": f"OK: {report['summary']}",
              "game": report["game"], "options": report["options"], "lines": report["lines"],
              "proofs": report["proofs"], "complete": report["complete"],
              "placements": list(result.placements) if result else None, "scores": report["scores"],
              "keys": report["keys"], "key_sources": report["key_sources"]})
        return
    say(f"OK: {report['game']} ({', '.join(f'{k} {v}' for k, v in report['options'].items())}), "
        f"{report['lines']} signed lines, {report['proofs']} proofs; {report['summary']}")
    if not report["complete"]:
        say("note: the match is not finished")
    sources = sorted(set(report["key_sources"].values()))
    say("keys trusted: " + ", ".join(
        f"{s} ({sum(v == s for v in report['key_sources'].values())})" for s in sources)
        + "; " + ", ".join(f"{k} {v}" for k, v in report["keys"].items()))
    if report["loud"]:
        say(f"WARNING: {len(report['loud'])} key(s) trusted only because you passed --keys {keys_dir}: "
            "the proofs are only as good as that key set's setup")


def run_plain(file: str, as_json: bool) -> int:
    """:func:`transcript_verify` as the plain command line runs it, ended by Ctrl-C the way
    click ends a command (a new line and ``Aborted!`` on stderr, status 1)."""
    try:
        return transcript_verify(file, as_json=as_json)
    except KeyboardInterrupt:
        say("\nAborted!", err=True)
        return 1


def plain_transcript_verify(argv: list[str]) -> Optional[tuple[str, bool]]:
    """``(file, as_json)`` when ``argv`` (without the program name) is ``transcript verify
    FILE`` with at most ``--json`` beside FILE, FILE a readable regular file whose name does
    not start with ``-``; else None, and click parses the command (its other options, its
    help, its usage errors)."""
    if len(argv) not in (3, 4) or argv[:2] != ["transcript", "verify"]:
        return None
    rest = argv[2:]
    as_json = "--json" in rest
    if as_json:
        rest = [a for a in rest if a != "--json"]
    if len(rest) != 1 or rest[0].startswith("-") or len(argv) != 3 + as_json:
        return None
    file = rest[0]
    if not os.path.isfile(file) or not os.access(file, os.R_OK):
        return None
    return file, as_json
