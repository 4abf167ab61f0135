"""``zkbluff play``, ``demo`` and ``rules``: any registered game, by name. The game's own
text (rules page, event lines, prompts) comes from its folder; nothing here knows a game."""
from __future__ import annotations

import math
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional

import click

from zkbluff.cli.common import load_keys_with_progress, typed_errors, working
from zkbluff.games.engine.narration import (
    Narrator, clock_notice, clock_words, move_clock, second_person, time_up_words,
)
from zkbluff.games.engine.table import may_act
from zkbluff.games.registry import GAMES, spec_class
from zkbluff.server.terminal import discard_typeahead

DEFAULT_GAME = "proof-or-bluff"
#: the old ``--table`` names of Proof or Bluff's two tables
TABLE_ALIASES = {"classic": "proof-or-bluff", "five-up": "five-up-two-down"}

def _known_game(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A registered game (looked up when the command runs, so any registered game works)."""
    from zkbluff.games.engine.registry import games

    if isinstance(value, str) and value.startswith("--"):  # a game option with GAME left out (`play --deal dealer`):
        ctx.meta["zkbluff.option_as_game"] = value      # the default game; the flag goes back to the options
        return DEFAULT_GAME
    if value not in games():
        raise click.BadParameter(f"unknown game {value!r}; known: {', '.join(sorted(games()))}")
    return value


game_argument = click.argument("game", default=DEFAULT_GAME, required=False, callback=_known_game,
                               metavar=f"[GAME: {'|'.join(sorted(GAMES))}]")
table_option = click.option("--table", type=click.Choice(sorted(TABLE_ALIASES)), default=None, hidden=True,
                            help="old name of the game (classic = proof-or-bluff, five-up = five-up-two-down)")
mode_option = click.option("--mode", default=None, help="the game's mode (proof-or-bluff: casual, standard, casino)")

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


def _game_args(ctx: click.Context) -> list[str]:
    """The game's ``--NAME VALUE`` arguments, with a flag click took for GAME put back first."""
    flag = ctx.meta.get("zkbluff.option_as_game")
    return ([flag] if flag else []) + list(ctx.args)


def _game(game: str, table: Optional[str]) -> str:
    return TABLE_ALIASES[table] if table else game


#: commands that take a game's own options as ``--NAME VALUE`` (declared by its spec)
GAME_OPTIONS = {"ignore_unknown_options": True, "allow_extra_args": True}


def _options(game: str, mode: Optional[str], extra: Optional[list[str]] = None,
             spelt: Callable[[str], str] = lambda name: f"--{name}") -> Optional[dict[str, Any]]:
    """The game's options from ``--mode`` and ``--NAME VALUE`` / ``--NAME=VALUE`` for every
    option the game's spec declares (``option_values``); the spec checks the values.
    ``spelt``: how the command the person typed spells an option NAME (``host``: ``-o
    NAME=VALUE``), for the messages."""
    declared = spec_class(game).option_values
    out: dict[str, Any] = {} if mode is None else {"mode": mode}
    args = list(extra or [])
    while args:
        flag = args.pop(0)
        name, eq, value = flag[2:].partition("=") if flag.startswith("--") else ("", "", "")
        name = name.replace("-", "_")
        if name not in declared:
            import difflib

            known = ", ".join(spelt(k) for k in declared) or "none"
            close = difflib.get_close_matches(name, list(declared), n=1)
            hint = f"did you mean {spelt(close[0])}? " if close else ""
            typed = spelt(name) + (f"={value}" if eq and not spelt(name).startswith("--") else "")
            raise click.UsageError(f"{game}: unknown option {typed!r} ({hint}its options: {known})")
        if not eq:
            if not args:
                raise click.UsageError(f"{game}: {spelt(name)} needs a value ({'|'.join(declared[name])})")
            value = args.pop(0)
        out[name] = value
    return out or None


def _names(first: str, second: str, n_seats: int) -> list[str]:
    return [first, second] + [f"bot {i}" for i in range(2, n_seats)]


def _n_seats(game: str, options: Optional[dict[str, Any]]) -> int:
    from zkbluff.games.registry import spec_class as _cls

    return _cls(game)(options).n_seats


def _waiting_seats(tab: Any, rng: Any) -> list[int]:
    """The seats that may act while the table waits on the referee's clock (a calling
    window), in a random order: who is quickest."""
    seats = [i for i in range(tab.spec.n_seats) if may_act(tab.view, i)]
    rng.shuffle(seats)
    return seats


@click.command("rules")
@game_argument
def rules_cmd(game: str) -> None:
    """The rules of GAME in plain words, and its options (given as --NAME VALUE)."""
    cls = spec_class(game)
    click.echo(cls.text.RULES)
    if cls.option_values:
        click.echo("\noptions: " + "; ".join(f"{k}: {', '.join(v)} (default {cls.default_options.get(k, '-')})"
                                              for k, v in cls.option_values.items()))


def _read_line() -> str:
    """The line typed (stripped); :class:`EOFError` at the end of input (a script that
    ran out), which stops the match, never an endless round of empty answers."""
    line = sys.stdin.readline()
    if not line:
        raise EOFError("no more input")
    return line.strip()


class TimeUp(Exception):
    """The referee's clock passed the deadline of the move a prompt was asking for."""


def wait_out_pause(tab: Any, seat: int, say: Optional[Callable[[str], None]] = None,
                   sleep: Callable[[float], None] = time.sleep) -> float:
    """Sleep while the rules hold all play (Mind Bluff: 4.5 s after a doubt, game 3's 10-second
    coin animation), by the seat's own clock; returns the seconds waited. A seat's line made
    inside the pause would be refused (``move.paused``)."""
    left = tab.seats[seat].pause_left()
    if left > 0:
        if say is not None:
            say(f"  (play is paused for {left:.1f} s)")
        sleep(left)
    return left


def _run_demo(out: str, seed: int, game: str, mode: Optional[str], extra: Optional[list[str]] = None,
              keys: Optional[str] = None) -> int:
    import random
    import time
    from pathlib import Path

    from zkbluff.curve import get_backend
    from zkbluff.games.engine.table import open_match
    from zkbluff.games.engine.verifier import verify_transcript

    t0 = time.perf_counter()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    cls = spec_class(game)
    options = _options(game, mode, extra)
    n_seats = _n_seats(game, options)
    click.echo(f"zkbluff demo: a match of {cls.title}, house bots in all {n_seats} seats, real Groth16 "
               f"proofs (backend {get_backend().name}), every line signed by its party")
    now = [0.0]  # the referee's clock, run by the demo: a wait on it (a calling window) passes at once

    def clock() -> float:
        return now[0]

    tab = open_match(game, options, _names("bot", "house", n_seats), transcript=Path(out),
                     say=lambda m: click.echo(m), overwrite=True, clock=clock,
                     **_keys(keys))  # the demo's own output file
    t_keys = time.perf_counter() - t0
    names = tab.header["seats"]
    click.echo(f"{tab.spec.title}, options {tab.spec.options}; keys ready and dealt in {t_keys:.2f} s; "
               f"match {tab.match_id}; transcript {out}")
    bots = [tab.spec.house_bot(seed + i) for i in range(n_seats)]
    rng = random.Random(seed)
    shown = 0
    narrator = Narrator(tab.spec, names)

    def show() -> None:
        nonlocal shown
        timing = {t.line: t for t in tab.timings}
        for e in tab.writer.events[shown:]:
            said = narrator.lines(e)
            if not said:
                continue
            t = timing.get(e["n"])
            extra = f"  [prove {t.prove_s * 1000:.0f} ms, verify {t.verify_s * 1000:.1f} ms]" if t and t.prove_s else ""
            click.echo(f"{e['n']:4d}  {said[0]}{extra}")
            for more in said[1:]:
                click.echo(f"        {more}")
        shown = len(tab.writer.events)

    show()
    while not tab.over:
        seat = tab.to_move
        if seat is None:  # the table waits on the clock: any seat may act before the deadline
            for s in _waiting_seats(tab, rng):
                intent = bots[s].act(tab.observation(s))
                if intent is not None:
                    tab.move(s, intent)
                    break
            else:
                now[0] = max(now[0], tab.referee.deadline + 1.0)  # a timeout comes strictly after its deadline
                tab.poll()
        else:
            now[0] = max(now[0], tab.view.paused_until)  # a pause the rules hold play for (Mind Bluff's doubt)
            tab.move(seat, bots[seat].act(tab.observation(seat)))
        show()
    t_match = time.perf_counter() - t0 - t_keys
    t1 = time.perf_counter()
    report = verify_transcript(out, keys_dir=Path(keys) if keys not in (None, "match") else None)
    t_verify = time.perf_counter() - t1
    prove_total = sum(t.prove_s for t in tab.timings)
    # what each count counts: the moves' proofs (a line may carry several), and all the
    # transcript's, the deal's own proofs (inside its lines) included
    moves = sum(len(e.get("proofs") or []) for e in tab.writer.events)
    deal = report["proofs"] - moves
    click.echo(f"match: {moves} move proof{'s' if moves != 1 else ''} made at the seats' moves, "
               f"{prove_total:.2f} s proving, {t_match:.2f} s in all")
    click.echo(f"transcript verified offline: {report['lines']} signed lines, {report['proofs']} proofs in all "
               f"({'the deal' + chr(39) + 's ' + str(deal) + ' and ' if deal > 0 else ''}the moves' {moves}) in "
               f"{len(report['keys'])} batches" +
               (", closing line checked" if tab.spec.deal.closing else ", nothing revealed") + f", in {t_verify:.2f} s")
    for line in report["loud"]:
        click.echo(line)
    click.echo(f"total {time.perf_counter() - t0:.2f} s")
    return 0


@click.command("demo", context_settings=GAME_OPTIONS)
@game_argument
@click.option("--out", default="demo-out/match.jsonl", show_default=True, help="the transcript to write")
@click.option("--seed", default=7, show_default=True, help="the bots' random seed")
@mode_option
@table_option
@keys_option
@click.pass_context
@typed_errors
def demo_cmd(ctx: click.Context, game: str, out: str, seed: int, mode: Optional[str], table: Optional[str],
             keys: Optional[str]) -> None:
    """A whole match of GAME (default proof-or-bluff), house bot against bot seats, with
    real proofs; then the transcript is verified offline. The game's own options follow
    as --NAME VALUE (e.g. cheat: --players 4 --hands 3 --window 3)."""
    sys.exit(_run_demo(out, seed, _game(game, table), mode, _game_args(ctx), keys))


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


def _coach(ctx: click.Context, resume: bool) -> Any:
    """The tutorial's coach for this match (cli/tutorial.py), if ``zkbluff tutorial`` runs
    it; else, the first time only, the offer of the tutorial."""
    from zkbluff.cli.tutorial import coach_of, offer_once

    coach = coach_of(ctx)
    if coach is None and not resume:
        offer_once()
    return coach


def _after_match(path: Path, seat: int, keys: str) -> None:
    """What a match's end offers (cli/review.py, cli/tutorial.py): its review."""
    from zkbluff.cli.review import review_hint

    click.echo(review_hint(path, seat) + keys)


@click.command("play", context_settings=GAME_OPTIONS)
@game_argument
@mode_option
@table_option
@click.option("--seed", default=None, type=int,
              help="for practice: every party's randomness (deal entropy, salts, match id) and the house bots "
                   "come from this number, so the same seed and the same moves replay the same match. "
                   "Not fair: anyone who knows the seed knows the cards")
@click.option("--out", default=None, help="transcript file (default: zkbluff-<match>.jsonl)")
@click.option("--resume", "resume", default=None, type=click.Path(exists=True, dir_okay=False),
              help="continue the match in this transcript")
@click.option("--plain", is_flag=True, help="draw cards in plain letters (4h, 10s), no symbols or colour")
@click.option("--web", is_flag=True, help="play on a web page this process serves on 127.0.0.1 (the URL it prints "
                                          "carries a one-time token)")
@keys_option
@click.pass_context
@typed_errors
def play_cmd(ctx: click.Context, game: str, mode: Optional[str], table: Optional[str], seed: Optional[int],
             out: Optional[str], resume: Optional[str], plain: bool, keys: Optional[str], web: bool = False) -> None:
    """You (seat 0) against the house bot (and more bots where the game seats more) in the
    terminal. `zkbluff rules GAME` explains the game. The game's own options follow as
    --NAME VALUE (e.g. cheat: --players 4 --hands 3 --window 3). Ctrl-C leaves a transcript
    that can be verified and resumed; each party's secrets are kept beside it in
    TRANSCRIPT.PARTY.secrets.json (readable by you only)."""
    import contextlib
    import os
    import random
    import secrets
    import time

    from zkbluff.cli.common import seeded_randomness
    from zkbluff.errors import IllegalMove, MalformedInput
    from zkbluff.games.engine.table import open_match, resume_match

    if resume and (table or mode or _game_args(ctx) or out or game != DEFAULT_GAME):
        raise MalformedInput("--resume continues the match as its transcript says: give no GAME, --table, "
                             "--mode, game options or --out with it")
    if web and not resume:
        from zkbluff.server.web_table import WEB_GAMES

        if _game(game, table) not in WEB_GAMES:
            raise MalformedInput(f"--web draws the table of {', '.join(WEB_GAMES)}, not {_game(game, table)}")
    say = lambda m: click.echo(m, err=True)  # noqa: E731
    os.umask(0o077)  # the secrets files beside the transcript: readable by their owner only
    randomness = seeded_randomness(seed) if seed is not None and not resume else contextlib.nullcontext()
    with randomness:
        if resume:
            path = Path(resume)
            _check_resume_files(path)
            load_keys_with_progress(list(_header_keys(path)))
            tab = resume_match(path, say=say, key_folder=_keys(keys).get("key_folder"))
        else:
            if seed is not None:
                click.echo(f"practice match: seed {seed} fixes every party's randomness, so it replays exactly; "
                           f"it is not a fair match (whoever knows the seed knows the cards)")
            match_id = secrets.token_hex(6)
            path = Path(out or f"zkbluff-{match_id}.jsonl")
            game = _game(game, table)
            options = _options(game, mode, _game_args(ctx))
            new_spec = spec_class(game)(options)
            load_keys_with_progress(new_spec.statements())
            dealing = "the seats deal by oblivious transfer" if new_spec.options.get("deal") == "oblivious" \
                else "the dealer proves the deal"
            with working(f"dealing: {dealing}"):
                tab = open_match(game, options, _names("you", "house", new_spec.n_seats), transcript=path,
                                 match_id=match_id, say=say, **_keys(keys))
            os.chmod(path, 0o644)  # the transcript is public: anyone may verify it
        spec = tab.spec
        names = tab.header["seats"]
        if hasattr(spec.text, "configure"):
            spec.text.configure(*((False, False) if plain else _terminal_style()))
        click.echo(f"{spec.title}, {', '.join(f'{k} {v}' for k, v in spec.options.items())}; transcript {path}")
        click.echo(tab.header["trust"])
        click.echo(f"(`zkbluff rules {spec.game}` explains the game)")
        base = seed if seed is not None else secrets.randbits(32)
        bots = {i: spec.house_bot(base + i - 1) for i in range(1, spec.n_seats)}
        rng = random.Random(base)
        human = 0
        if web:  # the same seat and match, its moves from a page (server/web_table.py)
            from zkbluff.server.web_pages import SitePages
            from zkbluff.server.web_table import play_on_page

            private = f" --keys {keys}" if keys not in (None, "match") else ""
            try:
                play_on_page(tab, path, bots, human, click.echo, server=SitePages(),
                             verify_command=f"zkbluff transcript verify {path}{private}", rng=rng)
            except KeyboardInterrupt:
                click.echo(f"\nstopped. The transcript {path} is intact: `zkbluff play --resume {path}` continues it.")
                sys.exit(2)
            click.echo(f"Verify it yourself: zkbluff transcript verify {path}{private}")
            return
        narrator = Narrator(spec, names, viewer=human)
        coach = _coach(ctx, bool(resume))  # `zkbluff tutorial`'s (cli/tutorial.py), or the offer of it
        shown = 0
        if resume:
            before_resume = len(tab.writer.events)
            tab.poll()  # a deadline that passed while the match was stopped: its timeout is written now
            events = tab.writer.events
            narrator.follow(events[:before_resume])  # the narration follows every line in order
            shown = before_resume
            if shown < len(events):
                click.echo("while the match was stopped:")
        if resume and tab.over and shown == len(tab.writer.events):
            end = [e for e in tab.writer.events if e["action"] == "end"]
            said = second_person(spec.text.describe(end[-1], names)) if end and "you" in names else \
                (spec.text.describe(end[-1], names) if end else "it has ended")
            click.echo("this match is over: " + said)
            click.echo(f"Verify it yourself: zkbluff transcript verify {path}")
            _after_match(path, human, "")
            return

        def ask(text: str) -> str:
            discard_typeahead()  # keys pressed during a proof do not answer this prompt
            return str(click.prompt(text, default="", show_default=False))

        def ask_until(deadline: float) -> Any:
            """``ask`` that gives up ("" answered) when the referee's clock reaches ``deadline``."""
            def timed(text: str) -> str:
                import select

                try:
                    stdin = sys.stdin.fileno()
                except (AttributeError, OSError, ValueError):
                    return ask(text)  # not a terminal (a script): no time limit to enforce here
                discard_typeahead()
                click.echo(f"{text} ", nl=False)
                ready, _, _ = select.select([stdin], [], [], max(0.0, deadline - tab.referee.clock()))
                if not ready:
                    click.echo("")
                    return ""
                return _read_line()
            return timed

        def ask_by(deadline: float, warn_at: float) -> Any:
            """``ask`` for the seat's own move against the referee's clock: the seconds left are
            in the prompt, a warning is printed ``warn_at`` seconds before the deadline, and the
            prompt is withdrawn when it passes (:class:`TimeUp`). Input that is not a terminal
            (a script) is read without a limit: the referee's clock still applies to the move."""
            def timed(text: str) -> str:
                import select

                try:
                    stdin = sys.stdin.fileno()
                except (AttributeError, OSError, ValueError):
                    return ask(f"[{clock_words(deadline - tab.referee.clock())} left] {text}")
                discard_typeahead()
                warned = False
                while True:
                    left = deadline - tab.referee.clock()
                    if left <= 0:
                        click.echo("")
                        raise TimeUp()
                    click.echo(f"[{clock_words(left)} left] {text} ", nl=False)
                    wait = left - warn_at if not warned and left > warn_at else left
                    ready, _, _ = select.select([stdin], [], [], max(0.0, wait))
                    if ready:
                        return _read_line()
                    if not warned and left > warn_at:
                        warned = True
                        click.echo(f"\n  {clock_words(warn_at)} left!")
            return timed

        def waiting() -> None:
            """The table waits on the clock (a calling window): bots answer after a human-like
            delay, you answer by typing before the deadline; nobody: the window closes."""
            deadline = tab.referee.deadline
            start = tab.referee.clock()
            first: Optional[tuple[float, int, Any]] = None
            for s in _waiting_seats(tab, rng):
                if s != human:
                    intent = bots[s].act(tab.observation(s))
                    if intent is not None:
                        at = start + (deadline - start) * rng.uniform(0.3, 0.9)
                        first = min(first or (at, s, intent), (at, s, intent), key=lambda x: x[0])
            until = deadline if first is None else first[0]
            if tab.rules.legal_actions(human):
                intent = spec.text.prompt(tab.observation(human), ask_until(until), click.echo, names)
                if intent is not None:
                    tab.move(human, intent)
                    return
            wait = until - tab.referee.clock()
            if wait > 0:
                time.sleep(wait)
            if first is not None and tab.referee.clock() < deadline:
                tab.move(first[1], first[2])
            else:
                tab.poll()

        def show() -> None:
            nonlocal shown
            for e in tab.writer.events[shown:]:
                for i, said in enumerate(narrator.lines(e)):
                    click.echo(("  " if i == 0 else "    ") + said)
                if coach is not None:
                    coach.after_line(e, names)
            shown = len(tab.writer.events)

        def not_allowed(exc: Exception) -> None:
            # the rules' messages start with the action's name ("play: ..."): not for a person
            click.echo(f"  not allowed: {re.sub(r'^[a-z_]+: ', '', str(exc))}")

        explained: set[Any] = set()  # the limits whose consequence was said
        try:
            show()
            while not tab.over:
                seat = tab.to_move
                if seat is None:
                    try:
                        waiting()
                    except (MalformedInput, IllegalMove) as exc:
                        not_allowed(exc)
                elif seat == human:
                    wait_out_pause(tab, seat, click.echo)
                    if coach is not None:
                        coach.before_move(tab.observation(seat))
                    asker = ask
                    clock = move_clock(tab.view, seat)  # a decision the clock takes away (not a proof)
                    if clock is not None and math.isfinite(tab.referee.deadline):
                        notice = clock_notice(spec, tab.view, seat, tab.referee.clock(), explained)
                        if notice:
                            click.echo("  " + notice)
                        asker = ask_by(tab.referee.deadline, 10.0 if clock[1] <= 60 else 60.0)
                    try:
                        intent = spec.text.prompt(tab.observation(seat), asker, click.echo, names)
                        with working("your client proves your move"):
                            tab.move(seat, intent)
                    except TimeUp:
                        click.echo(f"  time is up: {time_up_words(spec, tab.rules, human)}")
                        tab.poll()
                        show()
                        continue
                    except (MalformedInput, IllegalMove) as exc:
                        if tab.over or len(tab.writer.events) > shown:  # the clock moved the table meanwhile
                            show()
                            if tab.over:
                                break
                        not_allowed(exc)
                        continue
                else:
                    wait_out_pause(tab, seat, click.echo)
                    with working(f"{names[seat]} moves and proves"):
                        tab.move(seat, bots[seat].act(tab.observation(seat)))
                show()
        except (KeyboardInterrupt, EOFError, click.Abort):
            click.echo(f"\nstopped. The transcript {path} is intact: `zkbluff transcript verify {path}` checks it, "
                       f"`zkbluff play --resume {path}` continues it.")
            sys.exit(2)
    private = f" --keys {keys}" if keys not in (None, "match") else ""
    click.echo(f"Verify it yourself: zkbluff transcript verify {path}{private}")
    _after_match(path, human, private)
    if coach is not None:
        coach.finished(path)
