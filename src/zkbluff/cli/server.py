"""``zkbluff serve``, ``host``, ``join``, ``watch`` and ``leaderboard``: tables over the
network (see docs/hosting.md). The game's own text and prompts come from its spec."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import click

from zkbluff.cli.common import typed_errors
from zkbluff.server.protocol import DEFAULT_PORT

DEFAULT_URL = f"ws://127.0.0.1:{DEFAULT_PORT}"

home_option = click.option("--home", type=click.Path(file_okay=False), default=None,
                           help="this client's folder: its key and each table's secrets and transcript "
                                "(default $ZKBLUFF_HOME or ~/.zkbluff)")
bot_option = click.option("--bot", "bot_seed", type=int, default=None, metavar="SEED",
                          help="let the game's house bot choose this seat's moves (it still proves here)")
json_option = click.option("--json", "as_json", is_flag=True, help="print the final report as JSON")
expect_option = click.option("--expect", "expect", multiple=True, metavar="KEY=VALUE",
                             help="refuse a table that is not this (repeatable): game=NAME, seats=N, any game "
                                  "option (deal=oblivious, mode=casual), limit.NAME=S (also >= and <=, quoted for "
                                  "the shell: 'limit.proof>=60'), trust=NAME (oblivious deal, zk dealer), keys=project|match|"
                                  "private; checked at the seat and again at the signed header, before this "
                                  "seat signs anything (a mismatch exits 1)")


def _policy(bot_seed: Optional[int]) -> Any:
    from zkbluff.server.client import bot_policy, prompt_policy

    if bot_seed is not None:
        return bot_policy(bot_seed)
    # the game's prompt reads standard input in a thread of its own and is called off when
    # the table moves on (a timeout): the client follows the table while you think
    return prompt_policy(say=click.echo, show=lambda text: click.echo(f"{text}: ", nl=False))


def _home(home: Optional[str]) -> Path:
    from zkbluff.server.client import default_home

    return Path(home) if home else default_home()


def _finish(report: dict[str, Any], as_json: bool) -> None:
    v = report["verified"]
    if as_json:
        click.echo(json.dumps({k: v for k, v in report.items() if k != "verified"} |
                              {"verified": {"lines": v["lines"], "proofs": v["proofs"], "complete": v["complete"],
                                            "scores": v["scores"], "summary": v["summary"]}}))
        return
    click.echo(f"your transcript {report['transcript']}: {v['lines']} lines, {v['proofs']} proofs, verified "
               f"offline on this machine ({v['summary']})")
    if report.get("transcript"):  # its seat's secrets are beside it (seat.json): the review of its own view
        seat_file = Path(report["transcript"]).with_name("seat.json")
        click.echo(f"Review it turn by turn (your hand, what each proof disclosed): zkbluff review "
                   f"{report['transcript']} --secrets {seat_file}")


def _run_seat(client: Any, coro: Any, home: Optional[str]) -> dict[str, Any]:
    """Run a seat's session; Ctrl-C stops it with how to come back to the seat (the
    client's key and the table's secrets stay in its home folder)."""
    from zkbluff.server.client import run

    try:
        return dict(run(coro))
    except KeyboardInterrupt:
        coro.close()
        if client.code is None:
            click.echo("\nstopped before a room was made")
        else:
            again = f"zkbluff join {client.url} {client.code}" + (f" --home {home}" if home else "")
            if (client.home / "tables" / client.code / "seat.json").exists():
                click.echo(f"\nstopped. Your seat is kept (your key and this table's secrets are in "
                           f"{client.home}): `{again}` comes back to it where you left off; the table's clock "
                           f"runs meanwhile.")
            else:
                click.echo(f"\nstopped before you had a seat; `{again}` tries again.")
        sys.exit(2)


results_option = click.option("--results", default=None, metavar="URL|FILE",
                              help="the results database: postgresql://user@host/db (shared by many servers; "
                                   "the server extra) or a SQLite file (default: results.sqlite in --data)")


def _directory(url: Optional[str], public_url: Optional[str], lease: float = 30.0,
               rooms: Optional[str] = None) -> Any:
    if url is None:
        if public_url is not None:
            raise click.BadParameter("--public-url names this server in a --directory; give one")
        if rooms is not None:
            raise click.BadParameter("--rooms (a folder the servers share) needs --directory: the rooms' leases")
        return None
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise click.BadParameter(f"--directory: expected redis://HOST[:PORT], got {url[:60]!r}")
    try:
        from zkbluff.server.directory import RoomDirectory
    except ImportError as exc:
        from zkbluff.errors import StorageError
        raise StorageError(f"--directory needs the server extra (pip install 'zkbluff[server]'): {exc}") from None
    return RoomDirectory(url, public_url, ttl=lease)


def _supervise(params: dict[str, Any]) -> int:
    """``serve --workers N``: N ``serve`` processes on one lobby (server/workers.py)."""
    from zkbluff.server.files import private_dir
    from zkbluff.server.workers import Supervisor, worker_argv, worker_ports

    if params["directory"] is None:
        raise click.BadParameter("--workers N needs --directory redis://… (the workers share one lobby)")
    if params["public_url"] is not None:
        raise click.BadParameter("--public-url names one server; each worker is ws://--host:its port")
    _directory(params["directory"], None)  # (checked here, before any worker starts)
    private_dir(Path(params["data"]))  # (the workers' shared results.sqlite is made in it)
    ports = worker_ports(params["host"], params["port"], params["workers"])
    argvs = [worker_argv(params, i, port) for i, port in enumerate(ports)]
    return Supervisor(argvs, lambda text: click.echo(text, err=True)).run()


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=int, help="port (0: any free port)")
@click.option("--data", default="zkbluff-data", show_default=True, type=click.Path(file_okay=False),
              help="results database, rooms and transcripts")
@click.option("--proof-limit", default=60.0, show_default=True, help="seconds a seat has to prove")
@click.option("--idle-limit", default=600.0, show_default=True, help="seconds a seat has for any other turn")
@click.option("--entropy-limit", default=60.0, show_default=True,
              help="seconds the seats have for their entropy after the dealer's commitment")
@click.option("--deal-limit", default=60.0, show_default=True, help="seconds the dealer has for each deal")
@click.option("--lookups", default=2.0, show_default=True,
              help="room look-ups a second per address (bursts of 5x); raise it for many players behind one address")
@click.option("--room-rate", default=1 / 30, show_default=True,
              help="rooms an address may create a second, after a burst of --room-burst")
@click.option("--room-burst", default=5, show_default=True, type=click.IntRange(min=1),
              help="rooms an address may create at once")
@click.option("--room-expiry", default=3600.0, show_default=True,
              help="seconds an unstarted room with nobody in it is kept (then removed with its folder)")
@click.option("--signin-timeout", default=30.0, show_default=True,
              help="seconds a connection has to create, join or watch a room before it is closed")
@click.option("--max-connections", default=16, show_default=True, type=click.IntRange(min=1),
              help="open connections per address (players behind one NAT share it)")
@results_option
@click.option("--directory", default=None, metavar="redis://HOST[:PORT]",
              help="the room directory many servers share (Redis; the server extra): codes unique across "
                   "them, a join for a room another server holds is sent there")
@click.option("--public-url", default=None, metavar="ws://HOST:PORT",
              help="this server's address as the directory gives it to clients (default ws://--host:PORT)")
@click.option("--rooms", default=None, type=click.Path(file_okay=False),
              help="a rooms folder the servers share (default --data/rooms; needs --directory): a dead "
                   "server's rooms are taken over by another from their transcripts")
@click.option("--lease", default=30.0, show_default=True, type=click.FloatRange(min=1.0, max=3600.0),
              help="seconds a room's entry in the --directory lives unless its server renews it (a dead "
                   "server's rooms are taken over after it)")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(min=1, max=64),
              help="server processes on this machine (ports PORT.., folders --data/worker-<i>; needs --directory)")
@typed_errors
def serve_cmd(host: str, port: int, data: str, proof_limit: float, idle_limit: float, entropy_limit: float,
              deal_limit: float, lookups: float, room_rate: float, room_burst: int, room_expiry: float,
              signin_timeout: float, max_connections: int, results: Optional[str], directory: Optional[str],
              public_url: Optional[str], rooms: Optional[str], lease: float, workers: int) -> None:
    """Host rooms over WebSocket: the referee, the dealer and house bots run here; each
    person's seat, secrets and prover stay in their own client."""
    if workers > 1:
        sys.exit(_supervise(click.get_current_context().params))
    import asyncio
    import logging

    from zkbluff.games.engine.parties import TimeLimits
    from zkbluff.server.app import run_server
    from zkbluff.server.rooms import RoomLimits
    from zkbluff.server.storage import open_result_store

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")

    def ready(bound: int, resumed: int) -> None:
        click.echo(f"zkbluff server listening on ws://{host}:{bound} (data {data}; {resumed} match(es) resumed)")
        sys.stdout.flush()

    try:
        limits = TimeLimits(proof_limit, idle_limit, entropy_limit, deal_limit)
        room_limits = RoomLimits(room_rate, room_burst, room_expiry, signin_timeout, max_connections)
        store = None if results is None else open_result_store(results, Path(data))  # (None: the server's SQLite)
        asyncio.run(run_server(Path(data), host, port, ready, limits=limits, room_limits=room_limits,
                               lookup_rate=lookups, lookup_burst=max(1, int(5 * lookups)), store=store,
                               directory=_directory(directory, public_url, lease, rooms),
                               rooms=None if rooms is None else Path(rooms)))
    except KeyboardInterrupt:
        pass
    click.echo("stopped; every unfinished match resumes at the next start")  # (Ctrl-C or SIGTERM)


@click.command("host")
@click.argument("game")
@click.option("--server", "url", default=DEFAULT_URL, show_default=True, help="the server's ws:// address")
@click.option("--name", default="host", show_default=True, help="your name at the table")
@click.option("-o", "--option", "options", multiple=True, metavar="KEY=VALUE", help="a game option (repeatable)")
@click.option("--add-bot", "bots", multiple=True, metavar="NAME", help="a house bot in the next free seat (repeatable)")
@click.option("--start-with", "start_with", type=click.IntRange(min=2), default=None, metavar="N",
              help="start once N seats are filled (players, then the --add-bot bots), not only when every seat is")
@home_option
@bot_option
@expect_option
@json_option
@click.option("--web", is_flag=True, help="the room's lobby on a page this process serves on 127.0.0.1 (the URL it "
                                          "prints): its code with a copy button, the invite, Add bot / Remove, Start")
@typed_errors
def host_cmd(game: str, url: str, name: str, options: tuple[str, ...], bots: tuple[str, ...],
             start_with: Optional[int], home: Optional[str], bot_seed: Optional[int], expect: tuple[str, ...],
             as_json: bool, web: bool = False) -> None:
    """Create a room for GAME, take its first seat, and start once every seat is filled."""
    from zkbluff.cli.games import _options
    from zkbluff.server.client import SeatClient
    from zkbluff.server.expect import parse_expectations

    extra: list[str] = []
    for item in options:  # KEY=VALUE, checked as the game's own --NAME VALUE options
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"--option: expected KEY=VALUE, got {item!r}")
        extra += [f"--{key}={value}"]
    expected = parse_expectations(expect)
    chosen = _options(game, None, extra, spelt=lambda key: f"-o {key}")
    if web:  # the same seat; the lobby's Add bot / Remove / Start from a page (server/web_pages.py)
        from zkbluff.server.web_pages import SitePages, lobby_client

        page = SitePages()
        page.start()
        click.echo(f"your room: {page.lobby_url}  (this process's page, on this machine only)")
        lobby = lobby_client(url, _home(home), name, _policy(bot_seed), page, click.echo, add_bots=bots,
                             expect=expected, is_bot=bot_seed is not None)
        try:
            _finish(_run_seat(lobby, lobby.host(game, chosen), home), as_json)
        finally:
            page.close()
        return
    client = SeatClient(url, _home(home), name, _policy(bot_seed), click.echo, add_bots=bots, expect=expected,
                        is_bot=bot_seed is not None, start_with=start_with)
    _finish(_run_seat(client, client.host(game, chosen), home), as_json)


@click.command("join")
@click.argument("url")
@click.argument("code")
@click.option("--name", default="guest", show_default=True, help="your name at the table")
@home_option
@bot_option
@expect_option
@json_option
@click.option("--web", is_flag=True, help="the room's lobby on a page this process serves on 127.0.0.1 (the URL it "
                                          "prints): its code, the invite and the seats")
@typed_errors
def join_cmd(url: str, code: str, name: str, home: Optional[str], bot_seed: Optional[int], expect: tuple[str, ...],
             as_json: bool, web: bool = False) -> None:
    """Take a seat at room CODE on the server at URL (or come back to yours). The table's
    game and options are shown when you are seated, its limits, trust model and keys when
    its header comes; --expect refuses one that differs (exit 1) before your seat signs
    anything. A server that shows this seat two histories of the match stops it (exit 1),
    keeping both signed lines beside your transcript copy."""
    from zkbluff.server.client import SeatClient
    from zkbluff.server.expect import parse_expectations

    if web:  # the same seat; the room's lobby also on a page (server/web_pages.py)
        from zkbluff.server.web_pages import SitePages, lobby_client

        page = SitePages()
        page.start()
        click.echo(f"your room: {page.lobby_url}  (this process's page, on this machine only)")
        lobby = lobby_client(url, _home(home), name, _policy(bot_seed), page, click.echo,
                             expect=parse_expectations(expect), is_bot=bot_seed is not None)
        try:
            _finish(_run_seat(lobby, lobby.join(code), home), as_json)
        finally:
            page.close()
        return
    client = SeatClient(url, _home(home), name, _policy(bot_seed), click.echo, expect=parse_expectations(expect),
                        is_bot=bot_seed is not None)
    _finish(_run_seat(client, client.join(code), home), as_json)


@click.command("watch")
@click.argument("url")
@click.argument("code")
@click.option("--web", is_flag=True, help="watch on a page this process serves on 127.0.0.1 (the URL it prints, "
                                          "with its one-time token)")
@typed_errors
def watch_cmd(url: str, code: str, web: bool = False) -> None:
    """Watch room CODE: public lines only, each checked here as it comes."""
    from zkbluff.server.client import Spectator, run

    if web:  # the same spectator, its narration also on a page (server/web_pages.py)
        from zkbluff.server.web_pages import watch_on_page

        try:
            out = watch_on_page(url, code, click.echo)
        except KeyboardInterrupt:
            click.echo(f"\nstopped; `zkbluff watch {url} {code} --web` watches again")
            sys.exit(2)
        click.echo(f"{out['lines']} lines watched and verified")
        return

    spectator = Spectator(url, click.echo)
    try:
        out = run(spectator.watch(code))
    except KeyboardInterrupt:
        click.echo(f"\nstopped after {len(spectator.events)} lines watched and verified; "
                   f"`zkbluff watch {spectator.url} {code}` watches again")
        sys.exit(2)
    click.echo(f"{out['lines']} lines watched and verified")


@click.command("leaderboard")
@click.option("--season", default=None, help="YYYY-MM (default: this month), or 'all' for all time")
@click.option("--game", default=None, help="one game only")
@click.option("--data", default="zkbluff-data", show_default=True, type=click.Path(file_okay=False))
@click.option("--limit", default=20, show_default=True)
@results_option
@typed_errors
def leaderboard_cmd(season: Optional[str], game: Optional[str], data: str, limit: int,
                    results: Optional[str]) -> None:
    """Online points per player (matches with at least two real players), with tiers."""
    from zkbluff.errors import MalformedInput
    from zkbluff.server.storage import open_result_store
    from zkbluff.server.web_board import check_season

    season = check_season(season)
    path = Path(data) / "results.sqlite" if results is None else Path(results)
    if (results is None or "://" not in results) and not path.exists():
        raise MalformedInput(f"no results database at {path} (start `zkbluff serve --data {data}` first)")
    store = open_result_store(results, Path(data))
    try:
        rows = store.leaderboard(None if season == "all" else season, game, limit)
    finally:
        store.close()
    click.echo(f"leaderboard, {'all time' if season == 'all' else 'season ' + season}"
               f"{', ' + game if game else ''}")
    if not rows:
        click.echo("  (no online matches yet)")
    for r in rows:
        click.echo(f"{r.rank:4d}. {r.name:<24} {r.points:6d} point{'s' if r.points != 1 else ' '}  "
                   f"{r.matches:4d} match{'es' if r.matches != 1 else '  '}  {r.tier}")


COMMANDS = (serve_cmd, host_cmd, join_cmd, watch_cmd, leaderboard_cmd)
