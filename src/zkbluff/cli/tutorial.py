"""``zkbluff tutorial [GAME]``: a guided first match against the bots: a real match
(``zkbluff play``) with a coach that explains, between the moves, what each kind of line
did, what each kind of proof disclosed (the review's words, games/engine/review.py), and
what the prompt about to come asks for. The words are the game's own (``tutorial.py`` in
its folder: ``INTRO``, ``LINES``, ``MOVES``, ``move_kind``, ``END``); nothing here knows a
game.

The tutorial is offered once: the first ``zkbluff play`` in a terminal says that it exists
and leaves a marker in the player's home (``$ZKBLUFF_HOME``, else ``~/.zkbluff``, the
networked client's home), so it is not said again.
"""
from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import Any, Optional, Sequence

import click

from zkbluff.cli.common import typed_errors

MARKER = "tutorial-offered"


def home() -> Path:
    """The player's home (as the networked client's ``default_home``)."""
    return Path(os.environ.get("ZKBLUFF_HOME", Path.home() / ".zkbluff"))


def _mark() -> None:
    try:
        home().mkdir(parents=True, exist_ok=True, mode=0o700)
        (home() / MARKER).write_text("the tutorial was offered (`zkbluff tutorial`)\n", encoding="utf-8")
    except OSError:  # a home that cannot be written: the offer comes again, nothing else changes
        pass


def _interactive() -> bool:
    """A person at a terminal (not a script, not a test's runner)."""
    import sys

    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def offer_once(say: Any = click.echo) -> bool:
    """Say that the tutorial exists, to a person at a terminal, the first time only (the
    marker in the player's home); True when it was said."""
    if not _interactive() or (home() / MARKER).exists():
        return False
    say("New to zkbluff? `zkbluff tutorial` plays a guided first match against the bots "
        f"({', '.join(tutorial_games())}). (said once)")
    _mark()
    return True


def lesson(game: str) -> Optional[ModuleType]:
    """The game's tutorial module (its folder's ``tutorial.py``), if it has one for ``game``."""
    from zkbluff.games.registry import spec_class

    package = spec_class(game).__module__.rsplit(".", 1)[0]
    try:
        module = importlib.import_module(f"{package}.tutorial")
    except ModuleNotFoundError:
        return None
    return module if game in getattr(module, "GAMES", ()) else None


def tutorial_games() -> list[str]:
    from zkbluff.games.registry import GAMES

    return [g for g in sorted(GAMES) if lesson(g) is not None]


class Coach:
    """What the tutorial says between the moves of ``zkbluff play`` (its hooks call it)."""

    def __init__(self, lesson: ModuleType, say: Any = click.echo):
        self.lesson, self.say = lesson, say
        self.seen: set[str] = set()

    def _once(self, key: str, words: Optional[str]) -> None:
        if words and key not in self.seen:
            self.seen.add(key)
            self.say("  " + words)

    def after_line(self, line: Any, names: Sequence[str]) -> None:
        """After a line's narration: the tip for its kind, and what its proofs disclosed, the
        first time each is seen."""
        from zkbluff.games.engine.narration import second_person
        from zkbluff.games.engine.review import disclosed

        if not isinstance(line, dict):
            return
        kind = str(line.get("action"))
        self._once(f"line:{kind}", getattr(self.lesson, "LINES", {}).get(kind))
        for proof in line.get("proofs") or []:
            if isinstance(proof, dict):
                statement = str(proof.get("statement")).split("@")[0]
                self._once(f"proof:{statement}", "what the proof disclosed: " + second_person(disclosed(proof, names)))

    def before_move(self, obs: Any) -> None:
        """Before the prompt for a move of yours: what it asks for, the first time."""
        kind = self.lesson.move_kind(obs) if hasattr(self.lesson, "move_kind") else None
        if kind is not None:
            self._once(f"move:{kind}", getattr(self.lesson, "MOVES", {}).get(kind))

    def finished(self, transcript: Path) -> None:
        self.say(getattr(self.lesson, "END", "coach: the match is over."))
        self.say(f"  zkbluff transcript verify {transcript}    (checks every signature and proof)")
        self.say("  and `zkbluff review` (above) shows the match again from your seat: your hand turn by turn, and "
                 "what each proof disclosed")


def coach_of(ctx: Optional[click.Context]) -> Optional[Coach]:
    """The coach ``zkbluff tutorial`` gave ``zkbluff play`` (None in a plain match)."""
    while ctx is not None:
        coach = ctx.meta.get("zkbluff.coach")
        if coach is not None:
            return coach
        ctx = ctx.parent
    return None


@click.command("tutorial")
@click.argument("game", default="proof-or-bluff", required=False)
@click.option("--out", default=None, help="transcript file (default: zkbluff-<match>.jsonl)")
@click.option("--seed", default=None, type=int, help="for practice: the same seed deals the same match")
@click.option("--plain", is_flag=True, help="draw cards in plain letters (4h, 10s), no symbols or colour")
@click.pass_context
@typed_errors
def tutorial_cmd(ctx: click.Context, game: str, out: Optional[str], seed: Optional[int], plain: bool) -> None:
    """A guided first match of GAME against the bots (default proof-or-bluff): a real match
    with real proofs, and a coach that explains each step between the moves."""
    from zkbluff.cli.games import play_cmd

    found = lesson(game) if game in tutorial_games() else None
    if found is None:
        raise click.BadParameter(f"no tutorial for {game!r}; tutorials: {', '.join(tutorial_games())}",
                                 param_hint="GAME")
    _mark()  # offered: it is being taken
    click.echo(found.INTRO)
    click.echo("")
    ctx.meta["zkbluff.coach"] = Coach(found)
    ctx.invoke(play_cmd, game=game, mode=getattr(found, "MODE", None), table=None, seed=seed, out=out, resume=None,
               plain=plain, keys=None)
