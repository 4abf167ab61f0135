"""The ``zkbluff`` command line (click). Nothing imports this module.

Exit codes: 0 success, 1 invalid (a proof, a commitment, a transcript line, an
unsatisfied constraint), 2 malformed input or usage error.
"""
from __future__ import annotations

import functools
import sys

import click

from zkbluff import __version__
from zkbluff.errors import ZkbluffError


def _fail(message: str, code: int):
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def typed_errors(fn):
    """Turn zkbluff errors into a one-line message and their exit code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ZkbluffError as exc:
            _fail(str(exc), exc.exit_code)
        except OSError as exc:  # a file that cannot be read or written: malformed input, exit 2
            _fail(f"{exc.filename or ''}: {exc.strerror or exc}", 2)

    return wrapper


@click.group()
@click.version_option(__version__, prog_name="zkbluff")
def main() -> None:
    """Provably fair bluff games: commitments, commit-reveal randomness, Groth16 proofs."""


@main.command("backends")
def backends_cmd() -> None:
    """List the curve backends that load here (the first is the default)."""
    from zkbluff.curve import available_backends, get_backend

    click.echo(f"default: {get_backend().name}")
    for name in available_backends():
        click.echo(name)


def parse_field_arg(text: str, what: str) -> int:
    """A decimal or 0x-hex field element below r; anything else is a usage error."""
    from zkbluff.field import r

    try:
        v = int(text, 16) if text.lower().startswith("0x") else int(text, 10)
    except ValueError:
        raise click.BadParameter(f"{what}: expected a decimal or 0x-hex integer, got {text!r}") from None
    if not 0 <= v < r:
        raise click.BadParameter(f"{what}: expected 0 <= x < r, got {text}")
    return v


# ---------------------------------------------------------------- hash
@main.group("hash")
def hash_group() -> None:
    """Hash functions of the circuits, natively."""


@hash_group.command("poseidon")
@click.argument("inputs", nargs=-1, required=True)
def hash_poseidon(inputs: tuple[str, ...]) -> None:
    """Print circomlib's Poseidon of 1..16 field elements (decimal or 0x-hex)."""
    from zkbluff.gadgets.native import poseidon

    if not 1 <= len(inputs) <= 16:
        raise click.BadParameter(f"expected 1..16 inputs, got {len(inputs)}")
    values = [parse_field_arg(x, f"input {i + 1}") for i, x in enumerate(inputs)]
    click.echo(str(poseidon(values)))


# ---------------------------------------------------------------- r1cs
@main.group("r1cs")
def r1cs_group() -> None:
    """circom .r1cs files: counts, fingerprints, satisfaction."""


@r1cs_group.command("info")
@click.argument("r1cs_file", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def r1cs_info(r1cs_file: str) -> None:
    """Counts and fingerprint of a .r1cs file."""
    from zkbluff.circuit.formats import read_r1cs

    s = read_r1cs(r1cs_file)
    click.echo(f"constraints: {s.n_constraints}")
    click.echo(f"wires: {s.n_wires}")
    click.echo(f"public inputs: {s.n_public}")
    click.echo(f"private wires: {s.n_private}")
    click.echo(f"fingerprint: {s.fingerprint()}")


@r1cs_group.command("check")
@click.argument("r1cs_file", type=click.Path(exists=True, dir_okay=False))
@click.argument("wtns_file", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def r1cs_check(r1cs_file: str, wtns_file: str) -> None:
    """Exit 0 if the witness satisfies the system, 1 naming the failing constraint, 2 if malformed."""
    from zkbluff.circuit import check
    from zkbluff.circuit.formats import read_r1cs, read_wtns

    check(read_r1cs(r1cs_file), read_wtns(wtns_file))
    click.echo("satisfied")


# ---------------------------------------------------------------- groth16
def _progress():
    """A progress callback printing to stderr when it is a terminal, else None."""
    if sys.stderr.isatty():
        return lambda msg: click.echo(msg, err=True)
    return None


def _read_json(path: str, what: str):
    import json

    from zkbluff.errors import MalformedInput

    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MalformedInput(f"{what} {path}: {exc}") from None


def _write_json(path: str, obj) -> None:
    import json

    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


@main.group("groth16")
def groth16_group() -> None:
    """Groth16 setup, prove and verify (argument order as snarkjs)."""


@groth16_group.command("setup")
@click.argument("circuit", type=click.Path(exists=True, dir_okay=False))
@click.argument("proving_key", type=click.Path(dir_okay=False))
@click.argument("verification_key", type=click.Path(dir_okay=False))
@typed_errors
def groth16_setup(circuit: str, proving_key: str, verification_key: str) -> None:
    """Circuit-specific setup from CIRCUIT.r1cs; secrets from the OS, discarded."""
    from zkbluff.circuit.formats import read_r1cs
    from zkbluff.groth16 import setup
    from zkbluff.groth16.zkey import write_proving_key

    pk = setup(read_r1cs(circuit), progress=_progress())
    write_proving_key(proving_key, pk)
    _write_json(verification_key, pk.vk.to_json())
    click.echo(f"verification key fingerprint: {pk.vk.fingerprint()}")


@groth16_group.command("prove")
@click.argument("proving_key", type=click.Path(exists=True, dir_okay=False))
@click.argument("witness", type=click.Path(exists=True, dir_okay=False))
@click.argument("proof", type=click.Path(dir_okay=False))
@click.argument("public", type=click.Path(dir_okay=False))
@typed_errors
def groth16_prove(proving_key: str, witness: str, proof: str, public: str) -> None:
    """Prove with a zkbluff key or a snarkjs .zkey (told apart by magic bytes)."""
    from zkbluff.circuit.formats import read_wtns
    from zkbluff.groth16 import prove, public_to_json
    from zkbluff.groth16.zkey import read_proving_key

    pk = read_proving_key(proving_key)
    w = read_wtns(witness)
    say = _progress()
    if say:
        say(f"proving: {pk.n_wires} wires, domain {pk.domain_size}")
    pr = prove(pk, w)
    _write_json(proof, pr.to_json())
    _write_json(public, public_to_json(w[1: 1 + pk.n_public]))


@groth16_group.command("verify")
@click.argument("verification_key", type=click.Path(exists=True, dir_okay=False))
@click.argument("public", type=click.Path(exists=True, dir_okay=False))
@click.argument("proof", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def groth16_verify(verification_key: str, public: str, proof: str) -> None:
    """Exit 0 valid, 1 invalid, 2 malformed input."""
    from zkbluff.groth16 import Proof, VerifyingKey, public_from_json, verify

    vk = VerifyingKey.from_json(_read_json(verification_key, "verification key"))
    pub = public_from_json(_read_json(public, "public inputs"))
    pr = Proof.from_json(_read_json(proof, "proof"))
    verify(vk, pub, pr)
    click.echo("OK: the proof is valid")


# ---------------------------------------------------------------- fair
@main.group("fair")
def fair_group() -> None:
    """Seed 002's provably-fair records: replay, verify, poker card proofs."""


def _emit(obj) -> None:
    import json

    click.echo(json.dumps(obj, indent=1, ensure_ascii=False))


@fair_group.command("replay")
@click.argument("record", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def fair_replay(record: str) -> None:
    """Print, as JSON, everything RECORD determines."""
    from zkbluff.fair import replay

    _emit(replay(_read_json(record, "record")))


@fair_group.command("verify")
@click.argument("record", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def fair_verify(record: str) -> None:
    """Exit 0 if the commitment and every listed outcome match, 1 on a mismatch, 2 if malformed."""
    from zkbluff.fair import verify_record

    verify_record(_read_json(record, "record"))
    click.echo("OK: the commitment opens and every recorded outcome recomputes")


@fair_group.command("prove-card")
@click.argument("record", type=click.Path(exists=True, dir_okay=False))
@click.argument("position", type=click.IntRange(0, 51))
@typed_errors
def fair_prove_card(record: str, position: int) -> None:
    """The poker card at POSITION of RECORD's deck, with its salt and Merkle path."""
    from zkbluff.errors import MalformedInput
    from zkbluff.fair import card_proof, replay

    rec = _read_json(record, "record")
    if not isinstance(rec, dict) or rec.get("scheme") != "poker_hmac_v1":
        raise MalformedInput("prove-card takes a poker_hmac_v1 record")
    out = replay(rec)
    _emit(card_proof(out["deck"], out["handValue"], position))


@fair_group.command("verify-card")
@click.argument("proof", type=click.Path(exists=True, dir_okay=False))
@click.argument("root")
@typed_errors
def fair_verify_card(proof: str, root: str) -> None:
    """Exit 0 if PROOF opens the deck commitment ROOT (hex), 1 if not, 2 if malformed."""
    from zkbluff.fair import verify_card_proof

    verify_card_proof(_read_json(proof, "card proof"), root)
    click.echo("OK: the card opens the committed root")


# ---------------------------------------------------------------- statements
def _circuits_folder():
    from zkbluff.statements.keys import registry_dir

    return registry_dir()


@main.group("circuits")
def circuits_group() -> None:
    """The statement registry: list, build, check, setup keys, export keys."""


@circuits_group.command("list")
def circuits_list() -> None:
    """Names, parameters, constraint counts and public inputs of every statement."""
    from zkbluff.statements import all_statements

    for key_id, stmt in all_statements().items():
        system, _ = stmt.build()
        click.echo(f"{key_id}\n  constraints: {system.n_constraints}  wires: {system.n_wires}\n"
                   f"  public: {', '.join(stmt.public)}\n  private: {', '.join(stmt.private)}")


@circuits_group.command("build")
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=None,
              help="where to write (default: the repository's circuits/)")
def circuits_build(folder: str | None) -> None:
    """Write one .r1cs per statement and manifest.json."""
    from pathlib import Path

    from zkbluff.statements.keys import build_registry

    out = Path(folder) if folder else _circuits_folder()
    entries = build_registry(out)
    click.echo(f"wrote {len(entries)} circuits and manifest.json to {out}")


@circuits_group.command("check")
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=None)
def circuits_check(folder: str | None) -> None:
    """Exit 1 if the code and the committed circuits/ differ (a lock-file check)."""
    from pathlib import Path

    from zkbluff.statements.keys import check_registry

    out = Path(folder) if folder else _circuits_folder()
    problems = check_registry(out)
    for p in problems:
        click.echo(p, err=True)
    if problems:
        sys.exit(1)
    click.echo(f"circuits/ matches the code ({out})")


@circuits_group.command("setup")
@click.argument("name", required=False)
@typed_errors
def circuits_setup(name: str | None) -> None:
    """Make keys (into $ZKBLUFF_KEY_DIR or ~/.cache/zkbluff/keys) for NAME, or for all."""
    import time

    from zkbluff.statements import all_statements, get_statement
    from zkbluff.statements.keys import key_dir, load_keys

    ids = [get_statement(name).key_id] if name else list(all_statements())
    for key_id in ids:
        t = time.perf_counter()
        pk = load_keys(key_id, say=lambda m: click.echo(m, err=True))
        click.echo(f"{key_id}: {pk.vk.fingerprint()[:16]} ({time.perf_counter() - t:.2f} s)")
    click.echo(f"keys in {key_dir()}")


@circuits_group.command("export")
@click.argument("name")
@click.argument("verification_key", type=click.Path(dir_okay=False))
@typed_errors
def circuits_export(name: str, verification_key: str) -> None:
    """Write NAME's verification key as snarkjs JSON (for `snarkjs groth16 verify`)."""
    from zkbluff.statements.keys import verifying_key

    _write_json(verification_key, verifying_key(name, create=False).to_json())


def _statement_inputs(stmt, path: str) -> dict:
    from zkbluff.errors import MalformedInput

    raw = _read_json(path, "inputs")
    if not isinstance(raw, dict):
        raise MalformedInput("inputs: expected a JSON object of name -> value")
    out = {}
    for k, v in raw.items():
        if isinstance(v, str):
            try:
                v = int(v, 16) if v.lower().startswith("0x") else int(v, 10)
            except ValueError:
                raise MalformedInput(f"input {k!r}: expected a decimal or 0x-hex integer, got {v!r}") from None
        out[k] = v
    return out


@main.command("witness")
@click.argument("name")
@click.argument("inputs", type=click.Path(exists=True, dir_okay=False))
@click.argument("witness", type=click.Path(dir_okay=False))
@typed_errors
def witness_cmd(name: str, inputs: str, witness: str) -> None:
    """Compute NAME's full witness from named INPUTS (JSON); write a .wtns."""
    from zkbluff.circuit.formats import write_wtns
    from zkbluff.statements import get_statement

    stmt = get_statement(name)
    _, w = stmt.build(_statement_inputs(stmt, inputs))
    write_wtns(witness, w)
    click.echo(f"{len(w)} wires, public: " + ", ".join(f"{n}={v}" for n, v in zip(stmt.public, w[1:])))


@main.command("prove")
@click.argument("name")
@click.argument("inputs", type=click.Path(exists=True, dir_okay=False))
@click.argument("proof", type=click.Path(dir_okay=False))
@click.argument("public", type=click.Path(dir_okay=False))
@typed_errors
def prove_cmd(name: str, inputs: str, proof: str, public: str) -> None:
    """Prove statement NAME for INPUTS with the registry's keys."""
    from zkbluff.groth16 import prove, public_to_json
    from zkbluff.statements import get_statement
    from zkbluff.statements.keys import load_keys

    stmt = get_statement(name)
    system, w = stmt.build(_statement_inputs(stmt, inputs))
    pk = load_keys(stmt.key_id, say=lambda m: click.echo(m, err=True))
    _write_json(proof, prove(pk, w).to_json())
    _write_json(public, public_to_json(w[1: 1 + system.n_public]))


@main.command("verify")
@click.argument("name")
@click.argument("public", type=click.Path(exists=True, dir_okay=False))
@click.argument("proof", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def verify_cmd(name: str, public: str, proof: str) -> None:
    """Verify a proof of statement NAME with the registry's keys. Exit 0/1/2."""
    from zkbluff.groth16 import Proof, public_from_json, verify
    from zkbluff.statements.keys import verifying_key

    vk = verifying_key(name, create=False)
    verify(vk, public_from_json(_read_json(public, "public inputs")), Proof.from_json(_read_json(proof, "proof")))
    click.echo("OK: the proof is valid")


# ---------------------------------------------------------------- transcripts and games
@main.group("transcript")
def transcript_group() -> None:
    """Hash-chained match transcripts."""


@transcript_group.command("verify")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--trusted-keys", is_flag=True, help="require the table's keys to be the ones in your key cache")
@typed_errors
def transcript_verify(file: str, trusted_keys: bool) -> None:
    """Replay the rules, batch-verify every proof, check the reveals. Exit 0 valid,
    1 with the first bad line, 2 malformed."""
    from zkbluff.games.proof_or_bluff.verify import verify_transcript

    trusted = None
    if trusted_keys:
        from zkbluff.statements import all_statements
        from zkbluff.statements.keys import verifying_key

        trusted = {}
        for k in all_statements():
            try:
                trusted[k] = verifying_key(k, create=False)
            except Exception:  # noqa: BLE001 - a key we do not have is simply not trusted
                pass
    report = verify_transcript(file, trusted)
    outcome = "draw" if report["draw"] else (f"seat {report['winner']} won" if report["over"] else "not over")
    click.echo(f"OK: {report['lines']} lines, {report['proofs']} proofs, {report['rounds']} round(s); "
               f"{outcome}, scores {report['scores'][0]}–{report['scores'][1]}")
    if not report["complete"]:
        click.echo("note: the match has no reveal yet; the deal was not checked against the seed")
    if not trusted_keys:
        click.echo("keys: the table's own (" + ", ".join(f"{k} {v}" for k, v in report["keys"].items())
                   + "); --trusted-keys checks them against yours")


def _run_demo(out: str, seed: int, table: str, mode: str) -> int:
    import time
    from pathlib import Path

    from zkbluff.bots.proof_or_bluff import HouseBot
    from zkbluff.curve import get_backend
    from zkbluff.games.proof_or_bluff.table import Table
    from zkbluff.games.proof_or_bluff.verify import verify_transcript

    t0 = time.perf_counter()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    click.echo(f"zkbluff demo: a {mode} {table} match of Proof or Bluff, house bot against a second bot seat, "
               f"real Groth16 proofs (backend {get_backend().name})")
    tab = Table(table, mode, transcript=Path(out), seat_names=("bot", "house"),
                say=lambda m: click.echo(m), overwrite=True)  # the demo's own output file
    t_keys = time.perf_counter() - t0
    click.echo(f"keys ready in {t_keys:.2f} s; match {tab.match_id}; transcript {out}")
    bots = [HouseBot(seed), HouseBot(seed + 1)]
    shown = 0

    def show() -> None:
        nonlocal shown
        timing = {t.line: t for t in tab.timings}
        for e in tab.writer.events[shown:]:
            if e["action"] in ("header", "reveal"):
                continue
            t = timing.get(e["n"])
            extra = f"  [prove {t.prove_s * 1000:.0f} ms, verify {t.verify_s * 1000:.1f} ms]" if t and t.prove_s else ""
            click.echo(f"{e['n']:4d}  {tab.describe(e)}{extra}")
        shown = len(tab.writer.events)

    show()
    while not tab.over:
        seat = tab.to_move
        tab.apply(seat, bots[seat].act(tab.observation(seat)))
        show()
    t_match = time.perf_counter() - t0 - t_keys
    t1 = time.perf_counter()
    report = verify_transcript(out)
    t_verify = time.perf_counter() - t1
    prove_total = sum(t.prove_s for t in tab.timings)
    click.echo(f"match: {len(tab.timings)} proofs, {prove_total:.2f} s proving, {t_match:.2f} s in all")
    click.echo(f"transcript verified offline: {report['lines']} lines, {report['proofs']} proofs in "
               f"{len(report['keys'])} batches, reveals checked, in {t_verify:.2f} s")
    click.echo(f"total {time.perf_counter() - t0:.2f} s")
    return 0


@main.command("demo")
@click.option("--out", default="demo-out/match.jsonl", show_default=True, help="the transcript to write")
@click.option("--seed", default=7, show_default=True, help="the bots' random seed")
@click.option("--table", type=click.Choice(["classic", "five-up"]), default="classic", show_default=True)
@click.option("--mode", type=click.Choice(["casual", "standard", "casino"]), default="standard", show_default=True)
@typed_errors
def demo_cmd(out: str, seed: int, table: str, mode: str) -> None:
    """A whole match, house bot against a second bot seat, with real proofs; then the
    transcript is verified offline."""
    sys.exit(_run_demo(out, seed, table, mode))


def _prompt_move(tab, seat: int):
    """Ask the human for a move; re-ask with the reason until it is well-formed."""
    from zkbluff.games.proof_or_bluff.rules import SHORT_RANKS, card_name, rank_name

    s = tab.state
    obs = tab.observation(seat)
    legal = obs["legal"]
    if ("prove",) in legal:
        click.echo("You were challenged: your client proves the claim.")
        return ("prove",)
    hand = obs["hand"]
    if tab.kind == "five-up":
        board = [c for c in range(52) if s.board >> c & 1]
        click.echo(f"Board: {' '.join(card_name(c) for c in board)}   your cards: {' '.join(card_name(c) for c in hand)}"
                   f"   scores you {s.scores[seat]} – house {s.scores[1 - seat]}")
        if legal[0][0] == "claim":
            text = click.prompt("Name the board ranks you match (e.g. 'K 7', 'K K', or 'none')", default="none")
            if text.strip().lower() == "none":
                return ("claim", ())
            names = []
            for tok in text.upper().replace(",", " ").split():
                tok = "T" if tok == "10" else tok[:1]
                if tok not in SHORT_RANKS:
                    raise click.BadParameter(f"{tok!r} is not a rank (2-9, T/10, J, Q, K, A)")
                names.append(SHORT_RANKS.index(tok))
            return ("claim", tuple(names))
        claimant, names = s.claim
        click.echo(f"House claims: {', '.join(rank_name(n) for n in names)}")
    else:
        click.echo(f"Required rank: {rank_name(s.required_rank)}   pile: {s.pile}   "
                   f"scores you {s.scores[seat]} – house {s.scores[1 - seat]}   house holds {s.hand_sizes[1 - seat]}")
        click.echo("Your hand: " + "  ".join(f"{i + 1}:{card_name(c)}" for i, c in enumerate(hand)))
        if legal[0][0] == "play":
            text = click.prompt(f"Cards to play as '{rank_name(s.required_rank)}' (numbers, e.g. '1 3')")
            try:
                idx = [int(x) - 1 for x in text.replace(",", " ").split()]
            except ValueError:
                raise click.BadParameter("give the numbers of the cards, e.g. '1 3'") from None
            if not idx or any(not 0 <= i < len(hand) for i in idx) or len(set(idx)) != len(idx):
                raise click.BadParameter(f"choose 1 to 4 different numbers from 1 to {len(hand)}")
            return ("play", [hand[i] for i in idx])
        _, count, rank = s.claim
        click.echo(f"House claims: {count} × {rank_name(rank)}")
    answer = click.prompt("[a]ccept or [c]hallenge (Proof or Bluff!)", type=click.Choice(["a", "c"]))
    return ("accept",) if answer == "a" else ("challenge",)


@main.command("play")
@click.option("--table", type=click.Choice(["classic", "five-up"]), default="classic", show_default=True)
@click.option("--mode", type=click.Choice(["casual", "standard", "casino"]), default="standard", show_default=True)
@click.option("--seed", default=None, type=int, help="the house bot's seed (a match replays exactly)")
@click.option("--out", default=None, help="transcript file (default: zkbluff-<match>.jsonl)")
@click.option("--resume", "resume", default=None, type=click.Path(exists=True, dir_okay=False),
              help="continue the match in this transcript")
@typed_errors
def play_cmd(table: str, mode: str, seed: int | None, out: str | None, resume: str | None) -> None:
    """You against the house bot in the terminal. Ctrl-C leaves a transcript that can be
    verified and resumed."""
    import secrets
    from pathlib import Path

    from zkbluff.bots.proof_or_bluff import HouseBot
    from zkbluff.errors import IllegalMove
    from zkbluff.games.proof_or_bluff.table import Table

    if resume:
        tab = Table.resume(Path(resume), say=lambda m: click.echo(m, err=True))
        path = Path(resume)
    else:
        match_id = secrets.token_hex(6)
        path = Path(out or f"zkbluff-{match_id}.jsonl")
        tab = Table(table, mode, match_id=match_id, transcript=path, seat_names=("you", "house"),
                    say=lambda m: click.echo(m, err=True))
    click.echo(f"Proof or Bluff — {tab.kind} table, {tab.mode} mode; transcript {path}")
    click.echo(tab.writer.events[0]["data"]["trust"])
    house = HouseBot(seed if seed is not None else secrets.randbits(32))
    shown = len(tab.writer.events)
    human = 0
    try:
        while not tab.over:
            seat = tab.to_move
            if seat == human:
                try:
                    tab.apply(seat, _prompt_move(tab, seat))
                except (click.BadParameter, IllegalMove) as exc:
                    click.echo(f"  not allowed: {exc}")
                    continue
            else:
                tab.apply(seat, house.act(tab.observation(seat)))
            for e in tab.writer.events[shown:]:
                if e["action"] not in ("header", "reveal"):
                    click.echo("  " + tab.describe(e))
            shown = len(tab.writer.events)
    except (KeyboardInterrupt, EOFError, click.Abort):
        click.echo(f"\nstopped. The transcript {path} is intact: `zkbluff transcript verify {path}` checks it, "
                   f"`zkbluff play --resume {path}` continues it.")
        sys.exit(130)
    click.echo(f"Verify it yourself: zkbluff transcript verify {path}")

from zkbluff.cli_ceremony import ceremony_group  # noqa: E402
main.add_command(ceremony_group)
