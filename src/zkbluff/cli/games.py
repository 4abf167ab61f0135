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

def _known_game(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A registered game (looked up when the command runs, so any registered game works)."""
    from zkbluff.games.engine.registry import games

    if value not in games():
        raise click.BadParameter(f"unknown game {value!r}; known: {', '.join(sorted(games()))}")
    return value


game_argument = click.argument("game", default=DEFAULT_GAME, required=False, callback=_known_game,
                               metavar=f"[GAME: {'|'.join(sorted(GAMES))}]")
table_option = click.option("--table", type=click.Choice(sorted(TABLE_ALIASES)), default=None, hidden=True,
                            help="old name of the game (classic = proof-or-bluff, five-up = five-up-two-down)")
mode_option = click.option("--mode", default=None, help="the game's mode (proof-or-bluff: casual, standard, casino)")
option_option = click.option("-o", "--option", "options", multiple=True, metavar="KEY=VALUE",
                             help="a game option (repeatable; `zkbluff rules GAME` lists them); --mode X is -o mode=X")

keys_option = click.option("--keys", "keys", default=None, metavar="DIR|match",
                           help="the table's keys: the pinned project keys by default; `match`: a per-match "
                                "ceremony in which every seat contributes before the deal; DIR: a private key "
                                "set (made there if missing; trusted only because you asked, and said so loudly)")


def _keys(keys: Optional[str]) -> dict[str, Any]:
    """open_match's key arguments for ``--keys``."""
    from pathlib import Path

    if keys is None:
        return {}
    if keys == "match":
        return {"match_ceremony": True}
    click.echo(f"WARNING: --keys {keys}: a PRIVATE key set, not the project's pinned keys; a verifier "
               f"accepts this match only with `--keys {keys}`", err=True)
    return {"key_folder": Path(keys)}


def _game(game: str, table: Optional[str]) -> str:
    return TABLE_ALIASES[table] if table else game


def _options(mode: Optional[str], items: tuple[str, ...] = ()) -> Optional[dict[str, Any]]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"--option: expected KEY=VALUE, got {item!r}")
        out[key] = value
    if mode is not None:
        out["mode"] = mode
    return out or None


def _names(n_seats: int, first: str, others: str) -> list[str]:
    if n_seats == 2:
        return [first, others]
    return [first] + [f"{others} {i}" for i in range(1, n_seats)]


@click.command("rules")
@game_argument
def rules_cmd(game: str) -> None:
    """The rules of GAME in plain words, and its options."""
    cls = spec_class(game)
    click.echo(cls.text.RULES)
    if cls.option_values:
        click.echo("\noptions: " + "; ".join(f"{k}: {', '.join(v)} (default {cls.default_options.get(k, '-')})"
                                              for k, v in cls.option_values.items()))


def _run_demo(out: str, seed: int, game: str, options: Optional[dict[str, Any]], keys: Optional[str] = None) -> int:
    import time
    from pathlib import Path

    from zkbluff.curve import get_backend
    from zkbluff.games.engine.table import open_match
    from zkbluff.games.engine.verifier import verify_transcript

    t0 = time.perf_counter()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    cls = spec_class(game)
    n_seats = cls(options).n_seats  # a bad option is refused before anything is printed
    click.echo(f"zkbluff demo: a match of {cls.title}, house bots in all {n_seats} seats, real Groth16 proofs "
               f"(backend {get_backend().name}), every line signed by its party")
    tab = open_match(game, options, _names(n_seats, "bot", "house"), transcript=Path(out),
                     say=lambda m: click.echo(m), overwrite=True, **_keys(keys))  # the demo's own output file
    t_keys = time.perf_counter() - t0
    names = tab.header["seats"]
    click.echo(f"{tab.spec.title}, options {tab.spec.options}; keys ready and dealt in {t_keys:.2f} s; "
               f"match {tab.match_id}; transcript {out}")
    bots = [tab.spec.house_bot(seed + i) for i in range(n_seats)]
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
    report = verify_transcript(out, keys_dir=Path(keys) if keys not in (None, "match") else None)
    t_verify = time.perf_counter() - t1
    prove_total = sum(t.prove_s for t in tab.timings)
    click.echo(f"match: {len(tab.timings)} proofs, {prove_total:.2f} s proving, {t_match:.2f} s in all")
    click.echo(f"transcript verified offline: {report['lines']} signed lines, {report['proofs']} proofs in "
               f"{len(report['keys'])} batches, closing line checked, in {t_verify:.2f} s")
    for line in report["loud"]:
        click.echo(line)
    click.echo(f"total {time.perf_counter() - t0:.2f} s")
    return 0


@click.command("demo")
@game_argument
@click.option("--out", default="demo-out/match.jsonl", show_default=True, help="the transcript to write")
@click.option("--seed", default=7, show_default=True, help="the bots' random seed")
@mode_option
@option_option
@table_option
@keys_option
@typed_errors
def demo_cmd(game: str, out: str, seed: int, mode: Optional[str], options: tuple[str, ...],
             table: Optional[str], keys: Optional[str]) -> None:
    """A whole match of GAME (default proof-or-bluff), house bots in every seat, with real
    proofs; then the transcript is verified offline."""
    sys.exit(_run_demo(out, seed, _game(game, table), _options(mode, options), keys))


@click.command("play")
@game_argument
@mode_option
@option_option
@table_option
@click.option("--seed", default=None, type=int, help="the house bots' seed (a match replays exactly)")
@click.option("--out", default=None, help="transcript file (default: zkbluff-<match>.jsonl)")
@click.option("--resume", "resume", default=None, type=click.Path(exists=True, dir_okay=False),
              help="continue the match in this transcript")
@keys_option
@typed_errors
def play_cmd(game: str, mode: Optional[str], options: tuple[str, ...], table: Optional[str], seed: Optional[int],
             out: Optional[str], resume: Optional[str], keys: Optional[str]) -> None:
    """You (seat 0) against house bots in the terminal. Ctrl-C leaves a transcript that can
    be verified and resumed."""
    import secrets
    from pathlib import Path

    from zkbluff.errors import IllegalMove, MalformedInput
    from zkbluff.games.engine.table import open_match, resume_match

    say = lambda m: click.echo(m, err=True)  # noqa: E731
    if resume:
        path = Path(resume)
        tab = resume_match(path, say=say, key_folder=_keys(keys).get("key_folder"))
    else:
        match_id = secrets.token_hex(6)
        path = Path(out or f"zkbluff-{match_id}.jsonl")
        game = _game(game, table)
        opts = _options(mode, options)
        names = _names(spec_class(game)(opts).n_seats, "you", "house")
        tab = open_match(game, opts, names, transcript=path, match_id=match_id, say=say, **_keys(keys))
    spec = tab.spec
    names = tab.header["seats"]
    click.echo(f"{spec.title}, {', '.join(f'{k} {v}' for k, v in spec.options.items())}; transcript {path}")
    click.echo(tab.header["trust"])
    base = seed if seed is not None else secrets.randbits(32)
    human = 0
    houses = {i: spec.house_bot(base + i) for i in range(spec.n_seats) if i != human}
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
    private = f" --keys {keys}" if keys not in (None, "match") else ""
    click.echo(f"Verify it yourself: zkbluff transcript verify {path}{private}")
