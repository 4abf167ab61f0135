"""The ``zkbluff`` command's entry point (``python -m zkbluff`` too).

For a command that verifies proofs it first starts loading MCL in a background thread
(:func:`zkbluff.curve.preload_backend`: its initialisation is C that releases the GIL), so
that the ~25 ms overlap the CLI's Python imports on a second core; then it runs the click
CLI (:data:`zkbluff.cli.main`), except for the plain ``zkbluff transcript verify [--json]
FILE``, whose body (:func:`zkbluff.cli_fast.transcript_verify`, the click command's too) it
runs without importing click. It imports nothing heavy itself: this module sits beside the
``cli`` package so that starting it does not import click.

The console script and ``python -m zkbluff`` enter through :func:`main`, which ends a
verifying command without the interpreter's teardown (see :func:`exit_now`); :func:`run`
is the same command for a caller that goes on afterwards (tests).
"""
from __future__ import annotations

import sys
from typing import Any

#: the commands whose every run pairs: MCL is loaded ahead for them. They only read (their
#: files, the key cache) and print, so they may also end without the interpreter's teardown.
VERIFYING_COMMANDS = frozenset({"transcript", "verify"})


def run() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in VERIFYING_COMMANDS:
        from zkbluff.curve import preload_backend

        preload_backend()
    if sys.argv[1:3] == ["transcript", "verify"]:
        from zkbluff.cli_fast import plain_transcript_verify, run_plain

        plain = plain_transcript_verify(sys.argv[1:])
        if plain is not None:  # ``transcript verify [--json] FILE``: the command's own body, without click
            sys.exit(run_plain(*plain))
    from zkbluff.cli import main as cli_main

    cli_main()


def main() -> None:
    """:func:`run` as a process's entry point: a verifying command's exit (its status,
    whatever it printed) goes through :func:`exit_now`; every other command exits as usual."""
    verifying = len(sys.argv) > 1 and sys.argv[1] in VERIFYING_COMMANDS
    try:
        run()
    except SystemExit as exc:
        if not verifying:
            raise
        exit_now(exc.code)
    if verifying:
        exit_now(0)


def exit_now(code: Any) -> None:
    """End the process with ``sys.exit(code)``'s status, skipping the interpreter's teardown.

    Tearing down a verifier's ~250 modules (clearing them, collecting and freeing their
    objects, pycryptodome's and MCL's included) costs ~15-25 ms of wall time after the
    answer is printed; a read-only command has nothing left to do there. What an exit must
    still do is done first: the ``atexit`` handlers run (coverage, a caller's probes), and
    standard output and error are flushed. The background thread that loads MCL is a daemon,
    which the usual exit does not wait for either."""
    import atexit
    import os

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"): printed, status 1
        print(code, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away, a closed stream: nothing to keep
            pass
    os._exit(status & 0xFF)
