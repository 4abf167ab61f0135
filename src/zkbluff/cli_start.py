"""The ``zkbluff`` command's entry point (``python -m zkbluff`` too).

For a command that verifies proofs it first starts loading MCL in a background thread
(:func:`zkbluff.curve.preload_backend`: its initialisation is C that releases the GIL), so
that the ~25 ms overlap the CLI's Python imports on a second core; then it runs the click
CLI (:data:`zkbluff.cli.main`). It imports nothing heavy itself: this module sits beside the
``cli`` package so that starting it does not import click.
"""
from __future__ import annotations

import sys

#: the commands whose every run pairs: MCL is loaded ahead for them
VERIFYING_COMMANDS = frozenset({"transcript", "verify"})


def run() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in VERIFYING_COMMANDS:
        from zkbluff.curve import preload_backend

        preload_backend()
    from zkbluff.cli import main

    main()
