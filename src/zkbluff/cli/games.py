"""``zkbluff play``, ``demo`` and ``rules``: any registered game, by name. The game's own
text (rules page, event lines, prompts) comes from its folder; nothing here knows a game."""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Optional

import click

from zkbluff.cli.common import load_keys_with_progress, typed_errors, working
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


def _run_demo(out: str, seed: int, game: str, options: Optional[dict[str, Any]]) -> int:
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
    load_keys_with_progress(cls(options).statements())
    tab = open_match(game, options, _names(n_seats, "bot", "house"), transcript=Path(out),
                     say=lambda m: click.echo(m), overwrite=True)  # the demo's own output file
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
@option_option
@table_option
@typed_errors
def demo_cmd(game: str, out: str, seed: int, mode: Optional[str], options: tuple[str, ...],
             table: Optional[str]) -> None:
    """A whole match of GAME (default proof-or-bluff), house bots in every seat, with real
    proofs; then the transcript is verified offline."""
    sys.exit(_run_demo(out, seed, _game(game, table), _options(mode, options)))


def _check_resume_files(path: Path) -> None:
    """Before resuming: every party's secrets file beside the transcript is a JSON object
    whose signing key is the one the transcript's header names (another match's file, or
    one of the wrong shape, is refused before anything is shown)."""
    import json

    from zkbluff.errors import MalformedInput
    from zkbluff.games.engine.table import secrets_path
    from zkbluff.protocol.signing import SigningKey
    from zkbluff.protocol.transcript import parse_chain, read_lines

    events = list(parse_chain(read_lines(path)))
    if not events or events[0]["action"] != "header":
        raise MalformedInput(f"{path}: the first line must be the header")
    parties = events[0]["data"].get("parties") or {}
    expected = {"referee": parties.get("referee"), "dealer": parties.get("dealer")}
    for i, pub in enumerate(parties.get("seats") or []):
        expected[f"seat{i}"] = pub
    for party, public in expected.items():
        file = secrets_path(path, party)
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise MalformedInput(f"cannot resume: {file} is missing (each party's secrets are kept beside "
                                 f"the transcript)") from None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise MalformedInput(f"cannot resume: {file} is not JSON ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("key"), str):
            raise MalformedInput(f"cannot resume: {file} is not a secrets file (expected a JSON object with a "
                                 f"'key'), got {type(data).__name__}")
        try:
            mine = SigningKey.from_secret_hex(data["key"]).public_hex
        except Exception:  # noqa: BLE001  (any unreadable key is the same malformed file)
            raise MalformedInput(f"cannot resume: {file} holds no readable signing key") from None
        if public is not None and mine != public:
            raise MalformedInput(f"cannot resume: {file} belongs to another match (its key is not the "
                                 f"{party}'s in {path})")


def _header_keys(path: Path) -> list[str]:
    from zkbluff.protocol.transcript import parse_chain, read_lines

    for event in parse_chain(read_lines(path)):
        return list((event["data"].get("keys") or {}).keys())
    return []


def _terminal_style() -> tuple[bool, bool]:
    """(suit symbols, colour) for stdout: symbols where its encoding has them, colour where
    it is a terminal and NO_COLOR is not set."""
    import os

    enc = (getattr(sys.stdout, "encoding", None) or "ascii").lower()
    try:
        "♣♦♥♠".encode(enc)
        symbols = True
    except (LookupError, UnicodeEncodeError):
        symbols = False
    colour = symbols and sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    return symbols, bool(colour)


@click.command("play")
@game_argument
@mode_option
@option_option
@table_option
@click.option("--seed", default=None, type=int,
              help="for practice: every party's randomness (deal entropy, salts, match id) and the house bots "
                   "come from this number, so the same seed and the same moves replay the same match. "
                   "Not fair: anyone who knows the seed knows the cards")
@click.option("--out", default=None, help="transcript file (default: zkbluff-<match>.jsonl)")
@click.option("--resume", "resume", default=None, type=click.Path(exists=True, dir_okay=False),
              help="continue the match in this transcript")
@click.option("--plain", is_flag=True, help="draw cards in plain letters (4h, 10s), no symbols or colour")
@typed_errors
def play_cmd(game: str, mode: Optional[str], options: tuple[str, ...], table: Optional[str], seed: Optional[int],
             out: Optional[str], resume: Optional[str], plain: bool) -> None:
    """You (seat 0) against house bots in the terminal. `zkbluff rules GAME` explains the
    game. Ctrl-C leaves a transcript that can be verified and resumed; each party's secrets
    are kept beside it in TRANSCRIPT.PARTY.secrets.json (readable by you only)."""
    import contextlib
    import copy
    import os
    import secrets
    from pathlib import Path

    from zkbluff.cli.common import seeded_randomness
    from zkbluff.errors import IllegalMove, MalformedInput
    from zkbluff.games.engine.table import open_match, resume_match

    if resume and (table or mode or options or out or game != DEFAULT_GAME):
        raise MalformedInput("--resume continues the match as its transcript says: give no GAME, --table, "
                             "--mode, -o or --out with it")
    say = lambda m: click.echo(m, err=True)  # noqa: E731
    os.umask(0o077)  # the secrets files beside the transcript: readable by their owner only
    randomness = seeded_randomness(seed) if seed is not None and not resume else contextlib.nullcontext()
    with randomness:
        if resume:
            path = Path(resume)
            _check_resume_files(path)
            load_keys_with_progress(list(_header_keys(path)))
            tab = resume_match(path, say=say)
        else:
            if seed is not None:
                click.echo(f"practice match: seed {seed} fixes every party's randomness, so it replays exactly; "
                           f"it is not a fair match (whoever knows the seed knows the cards)")
            match_id = secrets.token_hex(6)
            path = Path(out or f"zkbluff-{match_id}.jsonl")
            game = _game(game, table)
            opts = _options(mode, options)
            new_spec = spec_class(game)(opts)
            names = _names(new_spec.n_seats, "you", "house")
            load_keys_with_progress(new_spec.statements())
            with working("dealing: the dealer proves the deal"):
                tab = open_match(game, opts, names, transcript=path, match_id=match_id, say=say)
            os.chmod(path, 0o644)  # the transcript is public: anyone may verify it
        spec = tab.spec
        names = tab.header["seats"]
        if hasattr(spec.text, "configure"):
            spec.text.configure(*((False, False) if plain else _terminal_style()))
        click.echo(f"{spec.title}, {', '.join(f'{k} {v}' for k, v in spec.options.items())}; transcript {path}")
        click.echo(tab.header["trust"])
        click.echo(f"(`zkbluff rules {spec.game}` explains the game)")
        base = seed if seed is not None else secrets.randbits(32)
        human = 0
        houses = {i: spec.house_bot(base + i) for i in range(spec.n_seats) if i != human}
        if resume:
            shown = len(tab.writer.events)
            if tab.over:
                end = [e for e in tab.writer.events if e["action"] == "end"]
                click.echo("this match is over: " + (spec.text.describe(end[-1], names) if end else "it has ended"))
                click.echo(f"Verify it yourself: zkbluff transcript verify {path}")
                return
        else:
            shown = 0

        def ask(text: str) -> str:
            return str(click.prompt(text, default="", show_default=False))

        def show(before: Any) -> None:
            nonlocal shown
            after = tab.state
            for e in tab.writer.events[shown:]:
                if e["action"] in ("header", spec.deal.closing):
                    continue
                click.echo("  " + spec.text.describe(e, names))
                if before is not None and hasattr(spec.text, "outcome"):
                    for extra in spec.text.outcome(e, before, after, names):
                        click.echo("    " + extra)
                    before = None  # only the move's own line changed the state we compare
            shown = len(tab.writer.events)

        try:
            show(None)
            while not tab.over:
                seat = tab.to_move
                assert seat is not None
                before = copy.deepcopy(tab.state)
                if seat == human:
                    try:
                        intent = spec.text.prompt(tab.observation(seat), ask, click.echo, names)
                        with working("your client proves your move"):
                            tab.move(seat, intent)
                    except (MalformedInput, IllegalMove) as exc:
                        # the rules' messages start with the action's name ("play: ..."): not for a person
                        click.echo(f"  not allowed: {re.sub(r'^[a-z_]+: ', '', str(exc))}")
                        continue
                else:
                    with working(f"{names[seat]} moves and proves"):
                        tab.move(seat, houses[seat].act(tab.observation(seat)))
                show(before)
        except (KeyboardInterrupt, EOFError, click.Abort):
            click.echo(f"\nstopped. The transcript {path} is intact: `zkbluff transcript verify {path}` checks it, "
                       f"`zkbluff play --resume {path}` continues it.")
            sys.exit(2)
    click.echo(f"Verify it yourself: zkbluff transcript verify {path}")
