"""``zkbluff play``, ``demo`` and ``rules``: any registered game, by name. The game's own
text (rules page, event lines, prompts) comes from its folder; nothing here knows a game."""
from __future__ import annotations

import sys
from typing import Any, Optional

import click

from zkbluff.cli.common import typed_errors
from zkbluff.games.registry import GAMES, spec_class

DEFAULT_GAME = "proof-or-bluff"
#: the old ``--table`` names of Proof or Bluff's two tables
TABLE_ALIASES = {"classic": "proof-or-bluff", "five-up": "five-up-two-down"}

game_argument = click.argument("game", type=click.Choice(sorted(GAMES)), default=DEFAULT_GAME, required=False)
table_option = click.option("--table", type=click.Choice(sorted(TABLE_ALIASES)), default=None, hidden=True,
                            help="old name of the game (classic = proof-or-bluff, five-up = five-up-two-down)")
mode_option = click.option("--mode", default=None, help="the game's mode (proof-or-bluff: casual, standard, casino)")
players_option = click.option("--players", default=None, type=int,
                              help="how many seats, for a game with a players option (bluffers: 2-4)")


def _game(game: str, table: Optional[str]) -> str:
    return TABLE_ALIASES[table] if table else game


def _options(game: str, mode: Optional[str], players: Optional[int] = None) -> Optional[dict[str, Any]]:
    """The header's options from the generic flags (a game without such an option refuses
    it with MalformedInput, naming the options it has)."""
    out: dict[str, Any] = {}
    if mode is not None:
        out["mode"] = mode
    if players is not None:
        out["players"] = str(players)
    return out or None


def _names(game: str, options: Optional[dict[str, Any]], first: str, others: str) -> list[str]:
    n = spec_class(game)(options).n_seats
    return [first] + ([others] if n == 2 else [f"{others} {i}" for i in range(1, n)])


@click.command("rules")
@game_argument
def rules_cmd(game: str) -> None:
    """The rules of GAME in plain words."""
    click.echo(spec_class(game).text.RULES)


def _run_demo(out: str, seed: int, game: str, mode: Optional[str], players: Optional[int] = None) -> int:
    import time
    from pathlib import Path

    from zkbluff.curve import get_backend
    from zkbluff.games.engine.table import open_match
    from zkbluff.games.engine.verifier import verify_transcript

    t0 = time.perf_counter()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    cls = spec_class(game)
    click.echo(f"zkbluff demo: a match of {cls.title}, house bot against a second bot seat, real Groth16 proofs "
               f"(backend {get_backend().name}), every line signed by its party")
    options = _options(game, mode, players)
    tab = open_match(game, options, _names(game, options, "bot", "house"), transcript=Path(out),
                     say=lambda m: click.echo(m), overwrite=True)  # the demo's own output file
    t_keys = time.perf_counter() - t0
    names = tab.header["seats"]
    click.echo(f"{tab.spec.title}, options {tab.spec.options}; keys ready and dealt in {t_keys:.2f} s; "
               f"match {tab.match_id}; transcript {out}")
    bots = [tab.spec.house_bot(seed + i) for i in range(tab.spec.n_seats)]
    shown = 0

    def show() -> None:
        nonlocal shown
        timing = {t.line: t for t in tab.timings}
        for e in tab.writer.events[shown:]:
            if e["action"] == "header" or e["action"] == tab.spec.deal.closing:
                continue
            t = timing.get(e["n"])
            extra = f"  [prove {t.prove_s * 1000:.0f} ms, verify {t.verify_s * 1000:.1f} ms]" if t and t.prove_s else ""
            click.echo(f"{e['n']:4d}  {tab.spec.text.describe(e, names)}{extra}")
        shown = len(tab.writer.events)

    show()
    while not tab.over:
        seat = tab.to_move
        assert seat is not None
        tab.move(seat, bots[seat].act(tab.observation(seat)))
        show()
    t_match = time.perf_counter() - t0 - t_keys
    t1 = time.perf_counter()
    report = verify_transcript(out)
    t_verify = time.perf_counter() - t1
    prove_total = sum(t.prove_s for t in tab.timings)
    click.echo(f"match: {len(tab.timings)} proofs, {prove_total:.2f} s proving, {t_match:.2f} s in all")
    click.echo(f"transcript verified offline: {report['lines']} signed lines, {report['proofs']} proofs in "
               f"{len(report['keys'])} batches, closing line checked, in {t_verify:.2f} s")
    click.echo(f"total {time.perf_counter() - t0:.2f} s")
    return 0


@click.command("demo")
@game_argument
@click.option("--out", default="demo-out/match.jsonl", show_default=True, help="the transcript to write")
@click.option("--seed", default=7, show_default=True, help="the bots' random seed")
@mode_option
@players_option
@table_option
@typed_errors
def demo_cmd(game: str, out: str, seed: int, mode: Optional[str], players: Optional[int],
             table: Optional[str]) -> None:
    """A whole match of GAME (default proof-or-bluff), house bots in every seat, with real
    proofs; then the transcript is verified offline."""
    sys.exit(_run_demo(out, seed, _game(game, table), mode, players))


@click.command("play")
@game_argument
@mode_option
@players_option
@table_option
@click.option("--seed", default=None, type=int, help="the house bot's seed (a match replays exactly)")
@click.option("--out", default=None, help="transcript file (default: zkbluff-<match>.jsonl)")
@click.option("--resume", "resume", default=None, type=click.Path(exists=True, dir_okay=False),
              help="continue the match in this transcript")
@typed_errors
def play_cmd(game: str, mode: Optional[str], players: Optional[int], table: Optional[str], seed: Optional[int],
             out: Optional[str], resume: Optional[str]) -> None:
    """You (seat 0) against the house bot(s) in the terminal. Ctrl-C leaves a transcript that
    can be verified and resumed."""
    import secrets
    from pathlib import Path

    from zkbluff.errors import IllegalMove, MalformedInput
    from zkbluff.games.engine.table import open_match, resume_match

    say = lambda m: click.echo(m, err=True)  # noqa: E731
    if resume:
        path = Path(resume)
        tab = resume_match(path, say=say)
    else:
        match_id = secrets.token_hex(6)
        path = Path(out or f"zkbluff-{match_id}.jsonl")
        game = _game(game, table)
        options = _options(game, mode, players)
        tab = open_match(game, options, _names(game, options, "you", "house"), transcript=path,
                         match_id=match_id, say=say)
    spec = tab.spec
    names = tab.header["seats"]
    click.echo(f"{spec.title}, {', '.join(f'{k} {v}' for k, v in spec.options.items())}; transcript {path}")
    click.echo(tab.header["trust"])
    base = seed if seed is not None else secrets.randbits(32)
    houses = {i: spec.house_bot(base + i - 1) for i in range(1, spec.n_seats)}  # one agent per seat
    human = 0
    shown = len(tab.writer.events)

    def ask(text: str) -> str:
        return str(click.prompt(text, default="", show_default=False))

    try:
        while not tab.over:
            seat = tab.to_move
            assert seat is not None
            if seat == human:
                try:
                    tab.move(seat, spec.text.prompt(tab.observation(seat), ask, click.echo, names))
                except (MalformedInput, IllegalMove) as exc:
                    click.echo(f"  not allowed: {exc}")
                    continue
            else:
                tab.move(seat, houses[seat].act(tab.observation(seat)))
            for e in tab.writer.events[shown:]:
                if e["action"] not in ("header", spec.deal.closing):
                    click.echo("  " + spec.text.describe(e, names))
            shown = len(tab.writer.events)
    except (KeyboardInterrupt, EOFError, click.Abort):
        click.echo(f"\nstopped. The transcript {path} is intact: `zkbluff transcript verify {path}` checks it, "
                   f"`zkbluff play --resume {path}` continues it.")
        sys.exit(130)
    click.echo(f"Verify it yourself: zkbluff transcript verify {path}")
