"""``zkbluff circuits``, ``witness``, ``prove``, ``verify``: the statement registry and its proofs."""
from __future__ import annotations

import sys

import click

from zkbluff.cli.common import read_json, typed_errors, write_json


def _circuits_folder():
    """The folder build/check work on: the current checkout's circuits/ (a lock-file check:
    never the trust root, which is zkbluff.ceremony.project.registry_dir's alone)."""
    from zkbluff.ceremony.project import working_registry_dir

    return working_registry_dir()


@click.group("circuits")
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


def _installed_copy(folder) -> bool:
    """True for the registry an install carries inside the package (``zkbluff/registry``):
    never written by ``circuits build``."""
    from pathlib import Path

    import zkbluff

    package = Path(zkbluff.__file__).resolve().parent
    try:
        Path(folder).resolve().relative_to(package)
    except ValueError:
        return False
    return True


def _read_manifest(folder) -> dict:
    """The registry's manifest, or MalformedInput (exit 2) naming what is wrong."""
    import json

    from zkbluff.errors import MalformedInput

    if not folder.is_dir():
        raise MalformedInput(f"{folder}: no such registry folder (expected a folder with manifest.json)")
    path = folder / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        entries = {e["id"]: e for e in manifest["statements"]}
    except FileNotFoundError:
        raise MalformedInput(f"{path}: no manifest (expected the one `zkbluff circuits build` writes)") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise MalformedInput(f"{path}: not JSON ({exc})") from None
    except (KeyError, TypeError):
        raise MalformedInput(f'{path}: expected {{"statements": [{{"id": ...}}, ...]}}') from None
    return entries


@circuits_group.command("build")
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=None,
              help="where to write (default: the checkout's circuits/)")
@typed_errors
def circuits_build(folder: str | None) -> None:
    """Write one .r1cs per statement and manifest.json."""
    from pathlib import Path

    from zkbluff.errors import MalformedInput
    from zkbluff.statements.keys import build_registry

    out = Path(folder) if folder else _circuits_folder()
    if folder is None and _installed_copy(out):
        raise MalformedInput(f"no source checkout here: the registry an install carries ({out}) is not rebuilt in "
                             f"place; run this in a checkout, or give --dir FOLDER to write one elsewhere")
    entries = build_registry(out)
    click.echo(f"wrote {len(entries)} circuits and manifest.json to {out}")


@circuits_group.command("check")
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=None,
              help="the registry to check (default: the checkout's circuits/, else the installed copy)")
@typed_errors
def circuits_check(folder: str | None) -> None:
    """Exit 1 if the code and the committed circuits/ differ (a lock-file check); an install
    carries the manifest without the .r1cs files, and then only the manifest is compared."""
    from pathlib import Path

    from zkbluff.statements import all_statements
    from zkbluff.statements.keys import check_registry, manifest_entry

    out = Path(folder) if folder else _circuits_folder()
    recorded = _read_manifest(out)
    has_r1cs = any(out.glob("*.r1cs"))
    if has_r1cs:
        problems = check_registry(out)
    else:
        problems = []
        code = all_statements()
        for key_id, stmt in code.items():
            entry = manifest_entry(stmt)
            if key_id not in recorded:
                problems.append(f"{key_id}: not in the manifest")
            elif recorded[key_id] != entry:
                diff = [k for k in entry if recorded[key_id].get(k) != entry[k]]
                problems.append(f"{key_id}: the manifest differs in {', '.join(diff)}")
        problems += [f"{k}: in the manifest but no longer in the code" for k in recorded if k not in code]
    for p in problems:
        click.echo(p, err=True)
    if problems:
        sys.exit(1)
    if has_r1cs:
        click.echo(f"circuits/ matches the code ({out})")
    else:
        click.echo(f"the manifest matches the code: {len(recorded)} statements, constraint counts and "
                   f"fingerprints ({out}); no .r1cs files here (an install carries none), so they were not compared")


@circuits_group.command("setup")
@click.argument("name", required=False)
@typed_errors
def circuits_setup(name: str | None) -> None:
    """Ready the pinned proving keys of NAME, or of all (from the shipped queries; rebuilt
    into $ZKBLUFF_KEY_DIR or ~/.cache/zkbluff/keys where a registry ships none)."""
    import time

    from zkbluff.statements import all_statements, get_statement
    from zkbluff.statements.keys import key_dir, load_keys

    ids = [get_statement(name).key_id] if name else list(all_statements())
    for key_id in ids:
        t = time.perf_counter()
        pk = load_keys(key_id, say=lambda m: click.echo(m, err=True))
        click.echo(f"{key_id}: {pk.vk.fingerprint()[:16]} ({time.perf_counter() - t:.2f} s)")
    click.echo(f"keys ready (rebuilt keys are cached in {key_dir()})")


def _export_verification_key(name: str, out: str) -> None:
    from zkbluff.statements.keys import verifying_key

    vk = verifying_key(name, create=False)
    write_json(out, vk.to_json())
    click.echo(f"wrote the verification key of {name} to {out} (fingerprint {vk.fingerprint()[:16]})")


def _write_text_whole(path: str, text: str) -> None:
    """Write ``text`` beside ``path`` first, then rename it into place: never half a file."""
    import os

    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _export_solidity(name: str, out: str) -> None:
    from zkbluff.groth16.solidity import solidity_verifier
    from zkbluff.statements import get_statement
    from zkbluff.statements.keys import verifying_key

    key_id = get_statement(name).key_id
    vk = verifying_key(key_id, create=False)
    _write_text_whole(out, solidity_verifier(vk, key_id))
    click.echo(f"wrote a Solidity verifier of {key_id} to {out} (contract ZkbluffVerifier, {vk.n_public} public "
               f"inputs, key {vk.fingerprint()[:16]})")


def _export_circom(name: str, out: str) -> None:
    """``export circom NAME DIR``: DIR/STEM.circom and DIR/STEM.wires.json (the wire map)."""
    import json
    from pathlib import Path

    from zkbluff.circuit.circom import normal_form
    from zkbluff.statements import get_statement
    from zkbluff.statements.circom import circom_stem, export_statement

    stmt = get_statement(name)
    circuit = export_statement(stmt)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    stem = circom_stem(stmt)
    system = stmt.system()
    _write_text_whole(str(folder / f"{stem}.circom"), circuit.source)
    _write_text_whole(str(folder / f"{stem}.wires.json"), json.dumps({
        "statement": stmt.key_id, "template": circuit.template, "fingerprint": system.fingerprint(),
        "circom_fingerprint": normal_form(system).fingerprint(), "constraints": system.n_constraints,
        "wires": system.n_wires, "circom_wires": circuit.n_circom_wires, "public_inputs": circuit.public_inputs,
        "private_inputs": circuit.private_inputs, "wire_map": circuit.wire_map}, indent=1) + "\n")
    click.echo(f"wrote {folder / (stem + '.circom')} ({system.n_constraints} constraints; compile with "
               f"`circom2 {stem}.circom --r1cs --wasm --O0`) and {stem}.wires.json (zkbluff wire -> circom wire)")


#: the forms ``circuits export FORM NAME FILE`` writes besides the verification key
EXPORT_FORMS = {"solidity": _export_solidity, "circom": _export_circom}


@circuits_group.command("export", context_settings={"ignore_unknown_options": False})
@click.argument("args", nargs=-1, required=True, metavar="[FORM] NAME FILE")
@typed_errors
def circuits_export(args: tuple[str, ...]) -> None:
    """Write NAME's pinned verification key as snarkjs JSON (`export NAME FILE`, for `snarkjs
    groth16 verify`), or another FORM of its verifier: `export solidity NAME FILE` writes a
    Solidity contract, verifyProof(a, b, c, input) -> bool; `export circom NAME DIR` writes
    circom 2 source of the statement and its wire map (docs/interop.md)."""
    if len(args) == 2:
        _export_verification_key(*args)
    elif len(args) == 3 and args[0] in EXPORT_FORMS:
        EXPORT_FORMS[args[0]](args[1], args[2])
    else:
        raise click.UsageError(f"expected NAME FILE, or FORM NAME FILE with FORM one of "
                               f"{', '.join(sorted(EXPORT_FORMS))}; got {' '.join(args)!r}")


def _statement_inputs(stmt, path: str) -> dict:
    from zkbluff.errors import MalformedInput

    raw = read_json(path, "inputs")
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
    if "context" in stmt.public and "context" not in out:
        raise MalformedInput("inputs: missing 'context' (the value the proof is bound to: a match's context, "
                             "or 0 for a proof bound to nothing; give it explicitly)")
    return out


@click.command("witness")
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
    assert w is not None
    write_wtns(witness, w)
    click.echo(f"{len(w)} wires, public: " + ", ".join(f"{n}={v}" for n, v in zip(stmt.public, w[1:])))


@click.command("prove")
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
    assert w is not None
    pk = load_keys(stmt.key_id, say=lambda m: click.echo(m, err=True))
    write_json(proof, prove(pk, w).to_json())
    write_json(public, public_to_json(w[1: 1 + system.n_public]))
    click.echo(f"wrote the proof to {proof} and its {system.n_public} public inputs to {public}")


@click.command("verify")
@click.argument("name")
@click.argument("public", type=click.Path(exists=True, dir_okay=False))
@click.argument("proof", type=click.Path(exists=True, dir_okay=False))
@typed_errors
def verify_cmd(name: str, public: str, proof: str) -> None:
    """Verify a proof of statement NAME with the registry's keys. Exit 0/1/2."""
    from zkbluff.ceremony.project import pinned_vk, resolve_pinned_id
    from zkbluff.groth16 import Proof, public_from_json, verify

    # the pinned verifying key alone, found through the manifest: no circuit built or imported
    vk = pinned_vk(resolve_pinned_id(name))
    verify(vk, public_from_json(read_json(public, "public inputs")), Proof.from_json(read_json(proof, "proof")))
    click.echo("OK: the proof is valid")

