"""``zkbluff ceremony``: the setup ceremony's command group (snarkjs-compatible files).

    zkbluff ceremony ptau new POWER OUT
    zkbluff ceremony ptau contribute IN OUT [--name N]
    zkbluff ceremony ptau beacon IN OUT BEACON_HEX ITERATIONS_EXP [--name N]
    zkbluff ceremony ptau verify FILE
    zkbluff ceremony ptau prepare IN OUT
    zkbluff ceremony zkey new R1CS PTAU OUT
    zkbluff ceremony zkey contribute IN OUT [--name N]
    zkbluff ceremony zkey beacon IN OUT BEACON_HEX ITERATIONS_EXP [--name N]
    zkbluff ceremony zkey verify R1CS PTAU ZKEY
    zkbluff ceremony zkey export NAME OUT        (a pinned project key as a full .zkey)
    zkbluff ceremony project [--beacon HEX] [--all] [--fresh-phase1] [--contributor NAME]...
    zkbluff ceremony verify [--full]
    zkbluff ceremony private [NAME] [--dir DIR]

Exit codes: 0 valid, 1 invalid (a contribution, a link, a point that does not verify),
2 malformed (a truncated file, a point off the curve or outside the subgroup, a wrong
power, an unreadable file). Bad input is a one-line error and nothing is written.
"""
from __future__ import annotations

import time
from pathlib import Path

import click

from zkbluff.cli.common import typed_errors
from zkbluff.errors import MalformedInput


def _beacon(hex_value: str, iterations_exp: int) -> bytes:
    from zkbluff.ceremony.rng import check_beacon

    try:
        value = bytes.fromhex(hex_value[2:] if hex_value.lower().startswith("0x") else hex_value)
    except ValueError:
        raise MalformedInput(f"beacon: expected hexadecimal, got {hex_value!r:.80}") from None
    check_beacon(value, iterations_exp)
    return value


def _read_r1cs(path: str):
    from zkbluff.circuit.formats import read_r1cs

    try:
        return read_r1cs(path)
    except OSError as exc:
        raise MalformedInput(f"{path}: cannot read ({exc.strerror})") from None


def _say(msg: str) -> None:
    click.echo(msg, err=True)


@click.group("ceremony")
def ceremony_group() -> None:
    """Setup ceremonies (Powers of Tau and phase 2, snarkjs formats) and the project's pinned keys."""


# ------------------------------------------------------------------ phase 1
@ceremony_group.group("ptau")
def ptau_group() -> None:
    """Powers of Tau (phase 1), snarkjs's .ptau."""


@ptau_group.command("new")
@click.argument("power", type=int)
@click.argument("out", type=click.Path(dir_okay=False))
@typed_errors
def ptau_new_cmd(power: int, out: str) -> None:
    """An accumulator of 2^POWER powers, no contribution yet."""
    from zkbluff.ceremony.ptau import first_challenge_hash, ptau_new, write_ptau

    pt = ptau_new(power)
    write_ptau(out, pt)
    click.echo(f"wrote {out}: 2^{power}, first challenge {first_challenge_hash(power).hex()[:32]}...")


def _report_ptau_contribution(pt, out: str, seconds: float) -> None:
    c = pt.contributions[-1]
    click.echo(f"wrote {out}: contribution #{len(pt.contributions)} ({c.name or 'unnamed'}) in {seconds:.2f} s")
    click.echo(f"response hash  {c.response_hash.hex()}")
    click.echo(f"next challenge {c.next_challenge.hex()}")


@ptau_group.command("contribute")
@click.argument("inp", metavar="IN", type=click.Path(dir_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("--name", default=None, help="the contributor's name, recorded in the file")
@typed_errors
def ptau_contribute_cmd(inp: str, out: str, name: str | None) -> None:
    """Add a contribution (secrets from the OS, discarded)."""
    from zkbluff.ceremony.ptau import ptau_contribute, read_ptau, write_ptau

    pt = read_ptau(inp)
    t = time.perf_counter()
    pt = ptau_contribute(pt, name)
    write_ptau(out, pt)
    _report_ptau_contribution(pt, out, time.perf_counter() - t)


@ptau_group.command("beacon")
@click.argument("inp", metavar="IN", type=click.Path(dir_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
@click.argument("beacon_hex")
@click.argument("iterations_exp", type=int)
@click.option("--name", default=None)
@typed_errors
def ptau_beacon_cmd(inp: str, out: str, beacon_hex: str, iterations_exp: int, name: str | None) -> None:
    """A public contribution from BEACON_HEX hashed 2^ITERATIONS_EXP times (as snarkjs)."""
    from zkbluff.ceremony.ptau import ptau_beacon, read_ptau, write_ptau

    value = _beacon(beacon_hex, iterations_exp)
    pt = read_ptau(inp)
    t = time.perf_counter()
    pt = ptau_beacon(pt, value, iterations_exp, name)
    write_ptau(out, pt)
    _report_ptau_contribution(pt, out, time.perf_counter() - t)


@ptau_group.command("verify")
@click.argument("file", type=click.Path(dir_okay=False))
@typed_errors
def ptau_verify_cmd(file: str) -> None:
    """Check every contribution, the points and (if prepared) the Lagrange sections."""
    from zkbluff.ceremony.ptau import ptau_verify, read_ptau

    t = time.perf_counter()
    pt = read_ptau(file)
    for c in ptau_verify(pt):
        click.echo(f"#{c.index} {c.name or ''}{' (beacon)' if c.beacon else ''}: response {c.response_hash[:32]}...")
    click.echo(f"OK: {file} (2^{pt.power}{', prepared' if pt.prepared else ''}) verified in "
               f"{time.perf_counter() - t:.2f} s")


@ptau_group.command("prepare")
@click.argument("inp", metavar="IN", type=click.Path(dir_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
@typed_errors
def ptau_prepare_cmd(inp: str, out: str) -> None:
    """Add the phase-2 (Lagrange basis) sections, as `snarkjs powersoftau prepare phase2`."""
    from zkbluff.ceremony.ptau import ptau_prepare, read_ptau, write_ptau

    pt = read_ptau(inp)
    write_ptau(out, ptau_prepare(pt))
    click.echo(f"wrote {out}")


# ------------------------------------------------------------------ phase 2
@ceremony_group.group("zkey")
def zkey_group() -> None:
    """Circuit-specific phase 2, snarkjs's .zkey."""


@zkey_group.command("new")
@click.argument("r1cs", type=click.Path(dir_okay=False))
@click.argument("ptau", type=click.Path(dir_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
@typed_errors
def zkey_new_cmd(r1cs: str, ptau: str, out: str) -> None:
    """The initial key of R1CS from phase 1 (deterministic, as `snarkjs zkey new`)."""
    from zkbluff.ceremony.phase2 import write_zkey_file, zkey_new
    from zkbluff.ceremony.ptau import read_ptau

    zk = zkey_new(_read_r1cs(r1cs), read_ptau(ptau))
    write_zkey_file(out, zk)
    click.echo(f"wrote {out}: circuit hash {zk.cs_hash.hex()}")


def _report_zkey(zk, out: str, seconds: float) -> None:
    c = zk.contributions[-1]
    click.echo(f"wrote {out}: contribution #{len(zk.contributions)} ({c.name or 'unnamed'}) in {seconds:.2f} s")
    click.echo(f"contribution hash {c.contribution_hash.hex()}")


@zkey_group.command("contribute")
@click.argument("inp", metavar="IN", type=click.Path(dir_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("--name", default=None)
@typed_errors
def zkey_contribute_cmd(inp: str, out: str, name: str | None) -> None:
    """Add a contribution (secret delta from the OS, discarded)."""
    from zkbluff.ceremony.phase2 import read_zkey, write_zkey_file, zkey_contribute

    zk = read_zkey(inp)
    t = time.perf_counter()
    zk = zkey_contribute(zk, name)
    write_zkey_file(out, zk)
    _report_zkey(zk, out, time.perf_counter() - t)


@zkey_group.command("beacon")
@click.argument("inp", metavar="IN", type=click.Path(dir_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
@click.argument("beacon_hex")
@click.argument("iterations_exp", type=int)
@click.option("--name", default=None)
@typed_errors
def zkey_beacon_cmd(inp: str, out: str, beacon_hex: str, iterations_exp: int, name: str | None) -> None:
    """A public contribution from BEACON_HEX hashed 2^ITERATIONS_EXP times (as snarkjs)."""
    from zkbluff.ceremony.phase2 import read_zkey, write_zkey_file, zkey_beacon

    value = _beacon(beacon_hex, iterations_exp)
    zk = read_zkey(inp)
    t = time.perf_counter()
    zk = zkey_beacon(zk, value, iterations_exp, name)
    write_zkey_file(out, zk)
    _report_zkey(zk, out, time.perf_counter() - t)


@zkey_group.command("verify")
@click.argument("r1cs", type=click.Path(dir_okay=False))
@click.argument("ptau", type=click.Path(dir_okay=False))
@click.argument("zkey", type=click.Path(dir_okay=False))
@typed_errors
def zkey_verify_cmd(r1cs: str, ptau: str, zkey: str) -> None:
    """Check ZKEY against R1CS and PTAU and its contribution chain (as `snarkjs zkey verify`)."""
    from zkbluff.ceremony.phase2 import read_zkey, zkey_verify
    from zkbluff.ceremony.ptau import read_ptau

    t = time.perf_counter()
    system = _read_r1cs(r1cs)
    pt, zk = read_ptau(ptau), read_zkey(zkey)
    for c in zkey_verify(zk, system, pt):
        click.echo(f"#{c.index} {c.name or ''}{' (beacon)' if c.beacon else ''}: {c.contribution_hash[:32]}...")
    click.echo(f"OK: {zkey} matches {r1cs} and {ptau} ({len(zk.contributions)} contributions, "
               f"{time.perf_counter() - t:.2f} s)")


@zkey_group.command("export")
@click.argument("name")
@click.argument("out", type=click.Path(dir_okay=False))
@typed_errors
def zkey_export_cmd(name: str, out: str) -> None:
    """Write statement NAME's pinned project key as a full snarkjs .zkey (with its record)."""
    from zkbluff.ceremony.phase2 import write_zkey_file
    from zkbluff.ceremony.project import project_key
    from zkbluff.statements import get_statement

    stmt = get_statement(name)
    zk = project_key(stmt.key_id, stmt.build()[0])
    write_zkey_file(out, zk)
    click.echo(f"wrote {out}: {stmt.key_id}, key {zk.vk.fingerprint()[:16]}")


# ------------------------------------------------------------------ the project's keys
@ceremony_group.command("project")
@click.option("--beacon", "beacon_hex", default=None,
              help="the beacon value (hex); default: SHA-256 of the circuits' fingerprints and the last challenge")
@click.option("--iterations-exp", default=12, show_default=True, type=int)
@click.option("--all", "redo_all", is_flag=True, help="make every statement's key anew, not only changed ones")
@click.option("--fresh-phase1", is_flag=True, help="make a new phase 1 even if the existing one fits")
@click.option("--contributor", "contributors", multiple=True,
              help="a contributor's name, once per contribution (at least two; default: two anonymous ones)")
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=None)
@typed_errors
def project_cmd(beacon_hex: str | None, iterations_exp: int, redo_all: bool, fresh_phase1: bool,
                contributors: tuple[str, ...], folder: str | None) -> None:
    """Run (or bring up to date) the project ceremony for every registered statement and
    pin its keys: rebuilds circuits/, keeps phase 1 and every key whose circuit is unchanged."""
    from zkbluff.statements.keys import registry_dir, run_ceremony

    beacon = _beacon(beacon_hex, iterations_exp) if beacon_hex else None
    out = Path(folder) if folder else registry_dir()
    names = list(contributors) or None
    res = run_ceremony(out, beacon=beacon, iterations_exp=iterations_exp, fresh=fresh_phase1, redo_all=redo_all,
                       contributions=len(names) if names else 2, names=names, say=_say)
    click.echo(f"project ceremony: phase 1 2^{res.power} ({'kept' if res.phase1_reused else 'new'}); "
               f"{len(res.made)} key(s) made, {len(res.kept)} kept; {res.seconds:.1f} s. "
               f"Commit {out}/keys and {out}/manifest.json.")


@ceremony_group.command("verify")
@click.option("--full", is_flag=True, help="also rebuild every key and its circuit hash, as snarkjs does")
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=None)
@typed_errors
def verify_cmd(full: bool, folder: str | None) -> None:
    """Re-check the project ceremony: phase 1's chain and points, every pinned key against
    its circuit and its pin. Exit 0 valid, 1 invalid, 2 malformed."""
    from zkbluff.statements.keys import registry_dir, verify_ceremony

    rep = verify_ceremony(Path(folder) if folder else registry_dir(), full=full)
    click.echo(f"phase 1: 2^{rep.power}, contributions: {', '.join(rep.phase1_contributions)}")
    for key_id, fp in rep.keys.items():
        click.echo(f"  {key_id}: {fp[:16]}")
    click.echo(f"OK: the project ceremony and {len(rep.keys)} pinned keys verify ({rep.seconds:.1f} s)")


@ceremony_group.command("private")
@click.argument("name", required=False)
@click.option("--dir", "folder", type=click.Path(file_okay=False), required=True,
              help="where to make the private key set")
@typed_errors
def private_cmd(name: str | None, folder: str) -> None:
    """Make a PRIVATE key set (your own setup, not the project's) for NAME or every
    statement. Verifiers accept it only when given this folder deliberately (--keys DIR)."""
    from zkbluff.statements import all_statements, get_statement
    from zkbluff.statements.keys import load_keys

    ids = [get_statement(name).key_id] if name else list(all_statements())
    for key_id in ids:
        pk = load_keys(key_id, Path(folder), say=_say, create=True)
        click.echo(f"{key_id}: PRIVATE key {pk.vk.fingerprint()[:16]}")
    click.echo(f"private keys in {folder} (verifiers: --keys {folder}, reported loudly)")
