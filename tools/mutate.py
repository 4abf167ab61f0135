"""Mutation testing, module by module: ``make mutate`` (or ``python tools/mutate.py``).

Reads ``mutation/targets.toml`` (each target: one module, the test files that exercise
it, optionally the functions in scope) and every game folder's own targets
(``src/zkbluff/games/<game>/mutation.toml``: its ``[[target]]`` entries only, paths from the
repository root) and, for each target, runs cosmic-ray in a
private copy of the tree, so the checkout is never mutated and targets run side by side
(``--jobs``). Mutants listed in ``mutation/equivalent.txt`` are skipped and counted
apart; mutants inside type annotations, outside the target's functions, of an operator
the config does not keep, or on a line marked ``# pragma: no mutate`` are out of scope.

The score of a module is killed / (killed + survived); a timeout counts as killed (the
mutant changed behaviour) and a mutant that could not run (``incompetent``) is left out.
The report (per-module scores, then every survivor with its equivalents-file key and
diff) is written to ``benchmarks/mutation-results.md`` unless ``--report`` says otherwise.
See docs/mutation-testing.md.
"""
from __future__ import annotations

import argparse
import ast
import concurrent.futures
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "mutation" / "targets.toml"
#: a game folder's own targets (its rules, its statements), read beside CONFIG's
GAME_CONFIGS = "src/zkbluff/games/*/mutation.toml"
EQUIVALENTS = ROOT / "mutation" / "equivalent.txt"
REPORT = ROOT / "benchmarks" / "mutation-results.md"
WORK = ROOT / "build" / "mutation"
# the copy shares these read-only with the checkout (symlinks); src/ and tests/ are real copies
NOT_COPIED = {".git", ".venv", "build", "dist", ".mypy_cache", ".pytest_cache", ".hypothesis", "keys-cache"}
COPIED = {"src", "tests"}


@dataclass
class Target:
    name: str
    module: str                      # path relative to the repository root
    tests: list[str]                 # pytest arguments: files, node ids
    functions: list[str] = field(default_factory=list)   # empty: the whole module
    pytest_args: list[str] = field(default_factory=list)
    timeout: float | None = None


@dataclass
class Outcome:
    key: str                         # the equivalents-file key of the mutant
    line: int
    status: str                      # killed | timeout | survived | incompetent | equivalent | out-of-scope
    reason: str = ""
    diff: str = ""


def _toml(text: str) -> dict:
    try:
        import tomllib  # Python 3.11+
        return tomllib.loads(text)
    except ModuleNotFoundError:  # 3.10: the toml package cosmic-ray depends on
        import toml
        return toml.loads(text)


def load_config(path: Path = CONFIG, games: str | None = GAME_CONFIGS) -> tuple[dict, list[Target]]:
    """The settings and targets of ``path``, then those of every game folder's own file
    (``games``, a glob from the repository root; None: ``path`` alone)."""
    data = _toml(path.read_text())
    settings = data.get("settings", {})
    found = sorted(Path(f) for f in glob.glob(str(ROOT / games))) if games else []
    sources = [(path, data)] + [(game, _toml(game.read_text())) for game in found]
    targets, where = [], {}
    for source, doc in sources:
        if source != path and set(doc) - {"target"}:
            raise SystemExit(f"{source}: a game's file holds [[target]] entries only, got {sorted(set(doc) - {'target'})}")
        for t in doc.get("target", []):
            unknown = set(t) - {"name", "module", "tests", "functions", "pytest-args", "timeout"}
            if unknown:
                raise SystemExit(f"{source}: target {t.get('name')!r}: unknown keys {sorted(unknown)}")
            targets.append(Target(name=t["name"], module=t["module"], tests=list(t["tests"]),
                                  functions=list(t.get("functions", [])), pytest_args=list(t.get("pytest-args", [])),
                                  timeout=t.get("timeout")))
            where[id(targets[-1])] = source
    names = [t.name for t in targets]
    if len(set(names)) != len(names):
        raise SystemExit(f"{path}: duplicate target names: {sorted({n for n in names if names.count(n) > 1})}")
    for t in targets:
        if not (ROOT / t.module).is_file():
            raise SystemExit(f"{where[id(t)]}: target {t.name!r}: no module {t.module}")
        t.tests = [resolve_test(test, f"{where[id(t)]}: target {t.name!r}") for test in t.tests]
    return settings, targets


def resolve_test(test: str, where: str) -> str:
    """``tests/test_x.py[::node]`` as written, or, when tests/ has been reorganised, the one
    file of that name anywhere under tests/ (test file names are unique in the project)."""
    file, sep, node = test.partition("::")
    if (ROOT / file).exists():
        return test
    found = sorted((ROOT / "tests").rglob(Path(file).name))
    if len(found) != 1:
        raise SystemExit(f"{where}: no test file {file}" if not found else
                         f"{where}: {len(found)} test files named {Path(file).name}: {found}")
    return str(found[0].relative_to(ROOT)) + sep + node


# ---- mutant identity and the equivalents file -------------------------------------------------

def short_name(operator: str) -> str:
    """``core/NumberReplacer`` -> ``NumberReplacer`` (ours: ``zkbluff/RemoveCall`` -> ``RemoveCall``)."""
    return operator.split("/", 1)[-1]


def mutant_key(module: str, definition: str, operator: str, line_text: str, occurrence: int) -> str:
    """A key that survives edits elsewhere in the file: module and the enclosing definition
    (``module::Class.method``; ``<module>`` outside any), operator, the stripped text of the
    mutated line, and which match of that operator it is on the lines of that definition
    with that text (0, 1, ...: left to right, then top to bottom; for a line whose text
    occurs once in its definition, simply which match on the line). The definition keeps a
    line that recurs in the file (``continue``, ``@dataclass(frozen=True)``, ``raise
    NotImplementedError``) from matching the same mutant in every place it occurs."""
    short = short_name(operator)
    return f"{module}::{definition} | {short} | {line_text.strip()} | #{occurrence}"


def split_key(key: str) -> tuple[str, str, str, str, str]:
    """``module::definition | operator | line | #k`` -> its five parts (the line may hold ' | ')."""
    fields = key.split(" | ")
    if len(fields) < 4 or "::" not in fields[0]:
        raise ValueError(f"not a mutant key 'module::definition | operator | line | #k': {key!r}")
    module, definition = fields[0].split("::", 1)
    return module, definition, fields[1], " | ".join(fields[2:-1]), fields[-1]


def definitions(tree: ast.AST) -> list[tuple[int, int, str]]:
    """(first line, last line, qualified name) of every def and class in the module, the
    decorators included in its lines (a decorator's mutant belongs to what it decorates);
    nested ones are named ``Outer.inner``."""
    out: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                out.append((first, child.end_lineno, qual))
                visit(child, f"{qual}.")
            else:
                visit(child, prefix)
    visit(tree, "")
    return out


def enclosing_definition(defs: list[tuple[int, int, str]], line: int) -> str:
    """The innermost definition holding ``line`` (see :func:`definitions`), or ``<module>``."""
    inside = [d for d in defs if d[0] <= line <= d[1]]
    return max(inside, key=lambda d: (d[0], -d[1]))[2] if inside else "<module>"


def mutant_keys(module: str, source: str, mutations: list) -> list[str]:
    """The key of each mutation (cosmic-ray ``MutationSpec``s, or anything with ``operator_name``,
    ``occurrence`` and ``start_pos``) of ``source``, the text of ``module``. cosmic-ray's own
    ``definition_name`` is the bare name (``result`` of any class), hence the syntax tree."""
    lines = source.splitlines()
    defs = definitions(ast.parse(source))
    where = {}
    same: dict[tuple[str, str, str], list[tuple[int, int, int]]] = {}
    for m in mutations:  # the k-th match of an operator on the definition's lines of this text
        line_no, col = m.start_pos
        group = (enclosing_definition(defs, line_no), _norm(lines[line_no - 1]), m.operator_name)
        where[id(m)] = group
        same.setdefault(group, []).append((line_no, col, m.occurrence))
    keys = []
    for m in mutations:
        group = where[id(m)]
        k = sorted(same[group]).index((m.start_pos[0], m.start_pos[1], m.occurrence))
        keys.append(mutant_key(module, group[0], m.operator_name, lines[m.start_pos[0] - 1], k))
    return keys


def kept_operators(settings: dict) -> "re.Pattern[str]":
    return re.compile("|".join(f"(?:{k})$" for k in settings.get("operators", [".*"])))


def current_mutants(module: str, settings: dict, root: Path = ROOT) -> list[str]:
    """The keys of the mutants cosmic-ray makes of ``module`` as it is now, for the operators the
    config keeps (no session, no test run; needs the mutate extra). Used to check that every
    listed equivalent still names a mutant."""
    import cosmic_ray.plugins
    from cosmic_ray.ast import ast_nodes, get_ast_from_path

    cosmic_ray.plugins.OPERATOR_PROVIDERS.setdefault("zkbluff", _operators())
    keep = kept_operators(settings)
    path = root / module
    module_ast = get_ast_from_path(path)
    nodes = list(ast_nodes(module_ast))

    @dataclass
    class _M:
        operator_name: str
        occurrence: int
        start_pos: tuple[int, int]

    found = []
    for name in cosmic_ray.plugins.operator_names():
        if not keep.match(short_name(name)):
            continue
        op = cosmic_ray.plugins.get_operator(name)
        if op.arguments():
            continue
        op = op()
        positions = [start for node in nodes for start, _ in op.mutation_positions(node)]
        found += [_M(name, occ, tuple(start)) for occ, start in enumerate(positions)]
    return mutant_keys(module, path.read_text(), found)


def load_equivalents(path: Path = EQUIVALENTS) -> dict[str, str]:
    """``key -- reason`` per line (see mutant_key); '#' starts a comment line."""
    out: dict[str, str] = {}
    if not path.exists():
        return out
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if " -- " not in raw or "::" not in raw.split(" | ", 1)[0] or raw.count(" | ") < 3:
            raise SystemExit(f"{path}:{n}: expected 'module::definition | operator | line | #k -- reason', got {raw!r}")
        key, reason = raw.split(" -- ", 1)
        if not reason.strip():
            raise SystemExit(f"{path}:{n}: an equivalent mutant needs a one-line reason")
        if _norm(key) in out:
            raise SystemExit(f"{path}:{n}: listed twice: {_norm(key)!r}")
        out[_norm(key)] = reason.strip()
    return out


def _norm(key: str) -> str:
    return " ".join(key.split())


# ---- scope: which mutants count -------------------------------------------------------------

def _annotation_spans(tree: ast.AST) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    spans = []
    for node in ast.walk(tree):
        anns = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if a is not None and a.annotation is not None:
                    anns.append(a.annotation)
            if node.returns is not None:
                anns.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            anns.append(node.annotation)
        for a in anns:
            spans.append(((a.lineno, a.col_offset), (a.end_lineno, a.end_col_offset)))
    return spans


def _function_spans(tree: ast.AST, names: list[str]) -> list[tuple[int, int]]:
    """Line spans of the named functions (``f`` or ``Class.f``) and everything nested in them."""
    spans = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}{child.name}"
                if qual in names or child.name in names:
                    first = min([child.lineno, *(d.lineno for d in getattr(child, "decorator_list", []))])
                    spans.append((first, child.end_lineno))
                visit(child, f"{qual}.")
    visit(tree, "")
    return spans


def _within(pos: tuple[int, int], span: tuple[tuple[int, int], tuple[int, int]]) -> bool:
    return span[0] <= pos <= span[1]


# ---- our operators: deleting a check ---------------------------------------------------------
# cosmic-ray changes operators and constants but never deletes a statement, and a deleted check
# is the bug that matters most here (a guard that no longer raises, a constraint no longer
# added). These two run under the provider name "zkbluff/" beside cosmic-ray's "core/".

def _operators() -> dict:
    import parso
    from cosmic_ray.operators.operator import Example, Operator

    def _pass(node):
        return parso.python.tree.Keyword("pass", node.start_pos, prefix=node.get_first_leaf().prefix)

    class RemoveRaise(Operator):
        """Replace a ``raise`` by ``pass``: the check it ends lets everything through."""

        def mutation_positions(self, node):
            if node.type == "raise_stmt" or (node.type == "keyword" and node.value == "raise"
                                             and node.parent is not None and node.parent.type == "simple_stmt"):
                yield (node.start_pos, node.end_pos)

        def mutate(self, node, index):
            return _pass(node)

        @classmethod
        def examples(cls):
            return (Example("if x:\n    raise E(x)\n", "if x:\n    pass\n"),)

    class RemoveCall(Operator):
        """Replace a call made for its effect (``cs.enforce(...)``, ``_same_length(a, b)``) by ``pass``."""

        def mutation_positions(self, node):
            if node.type in ("atom_expr", "power") and node.parent is not None and node.parent.type == "simple_stmt":
                last = node.children[-1]
                if last.type == "trailer" and last.children[0].type == "operator" and last.children[0].value == "(":
                    yield (node.start_pos, node.end_pos)

        def mutate(self, node, index):
            return _pass(node)

        @classmethod
        def examples(cls):
            return (Example("cs.enforce(a, b, c)\n", "pass\n"),)

    return {"RemoveRaise": RemoveRaise, "RemoveCall": RemoveCall}


def cosmic_ray_cli(argv: list[str]) -> int:
    """cosmic-ray's command line with our operators registered (run in a subprocess)."""
    import cosmic_ray.cli
    import cosmic_ray.plugins

    cosmic_ray.plugins.OPERATOR_PROVIDERS["zkbluff"] = _operators()
    return cosmic_ray.cli.main(argv) or 0


# ---- running one target -----------------------------------------------------------------------

def _prepare_copy(target: Target, work: Path) -> Path:
    if work.exists():
        shutil.rmtree(work)
    return _fill_tree(work / "tree")


def _fill_tree(tree: Path) -> Path:
    """``tree`` as a fresh copy of the checkout: src/ and tests/ copied, the rest symlinked."""
    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    for entry in ROOT.iterdir():
        if entry.name in NOT_COPIED:
            continue
        if entry.name in COPIED:
            shutil.copytree(entry, tree / entry.name, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            (tree / entry.name).symlink_to(entry)
    return tree


def _env(work: Path, tree: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree / "src")        # ahead of the editable install's path entry
    env["ZKBLUFF_KEY_DIR"] = str(work / "keys")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("ZKBLUFF_NODE_MODULES", str(ROOT / "node_modules"))
    env["PATH"] = f"{ROOT / 'node_modules' / '.bin'}:{env.get('PATH', '')}"
    env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(work / "hypothesis")
    return env


def _cosmic(args: list[str], cwd: Path, env: dict[str, str], log: Path) -> int:
    with log.open("a") as fh:
        fh.write(f"$ cosmic-ray {' '.join(args)}\n")
        fh.flush()
        return subprocess.run([sys.executable, str(Path(__file__).resolve()), "--cosmic-ray", *args], cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT).returncode


def _baseline_and_config(target: Target, settings: dict, work: Path, tree: Path, env: dict[str, str],
                         dry_run: bool = False) -> tuple[Path, float, float]:
    """Run the target's tests once on the unmutated tree (they must pass: a red baseline is an
    error, not a 100% score; this also warms the key cache) and write the session's config."""
    pytest_args = [*settings.get("pytest-args", []), *target.pytest_args]
    command = shlex.join([sys.executable, "-m", "pytest", *pytest_args, *target.tests])
    t0 = time.monotonic()
    base = subprocess.run(["true"] if dry_run else shlex.split(command), cwd=tree, env=env, capture_output=True,
                          text=True)
    baseline = time.monotonic() - t0
    if base.returncode != 0:
        tail = "\n".join((base.stdout + base.stderr).splitlines()[-15:])
        raise RuntimeError(f"{target.name}: the tests fail on the unmutated code:\n{tail}")
    timeout = target.timeout or max(float(settings.get("timeout-min", 30)),
                                    float(settings.get("timeout-factor", 4)) * baseline)
    config = work / "cosmic-ray.toml"
    config.write_text(
        f"[cosmic-ray]\nmodule-path = {json.dumps(str(tree / target.module))}\ntimeout = {timeout:.1f}\n"
        f"excluded-modules = []\ntest-command = {json.dumps(command)}\n"
        '[cosmic-ray.distributor]\nname = "local"\n')
    return config, baseline, timeout


def _record_time(work: Path, seconds: float, what: str) -> None:
    """Add a run's wall time to the session's record (``run.json``: the report's time column)."""
    record = work / "run.json"
    runs = json.loads(record.read_text()) if record.exists() else []
    runs.append({"what": what, "seconds": round(seconds, 1), "at": time.strftime("%Y-%m-%d %H:%M:%S")})
    record.write_text(json.dumps(runs, indent=1) + "\n")


def _recorded_time(work: Path) -> float | None:
    record = work / "run.json"
    return sum(r["seconds"] for r in json.loads(record.read_text())) if record.exists() else None


def run_target(target: Target, settings: dict, equivalents: dict[str, str], say, dry_run: bool = False) -> dict:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    started = time.monotonic()
    work = (WORK / "dry-run" if dry_run else WORK) / target.name  # a dry run never touches a real run's copy
    tree = _prepare_copy(target, work)
    env = _env(work, tree)
    log = work / "cosmic-ray.log"
    module_path = tree / target.module
    source = module_path.read_text()

    config, baseline, timeout = _baseline_and_config(target, settings, work, tree, env, dry_run)
    db = work / "session.sqlite"
    if _cosmic(["init", str(config), str(db)], tree, env, log) != 0:
        raise RuntimeError(f"{target.name}: cosmic-ray init failed (see {log})")

    with use_db(str(db), WorkDB.Mode.open) as wdb:
        outcomes = _classify(target, source, list(wdb.work_items), settings, equivalents)
        for job_id, o in outcomes.items():
            if o.status != "pending":
                wdb.set_result(job_id, WorkResult(worker_outcome=WorkerOutcome.SKIPPED, output=o.reason))
    pending = sum(o.status == "pending" for o in outcomes.values())
    say(f"{target.name}: {pending} mutants to run (baseline {baseline:.1f}s, timeout {timeout:.0f}s)")
    if dry_run:
        counts = {"to run": pending}
        for o in outcomes.values():
            if o.status != "pending":
                counts[o.status] = counts.get(o.status, 0) + 1
        return {"target": target, "counts": counts, "dry_run": True}
    if _cosmic(["exec", str(config), str(db)], tree, env, log) != 0:
        raise RuntimeError(f"{target.name}: cosmic-ray exec failed (see {log})")

    _record_time(work, time.monotonic() - started, "run")
    res = _collect(target, outcomes, db, time.monotonic() - started, baseline)
    say(f"{target.name}: score {100 * res['score']:.1f}% ({res['killed']} killed, {res['survived']} survived) "
        f"in {res['seconds']:.0f}s")
    return res


def rerun_survivors(target: Target, settings: dict, equivalents: dict[str, str], say) -> dict:
    """Run the survivors of a target's last session again, against today's tests (after new
    tests were written for them), in that same session: every mutant killed before stays
    killed, as the module must be unchanged since that session (its mutants are positions in
    it). The tree is copied afresh (today's src/ and tests/), the test command is today's.
    Mutants a stopped session never ran stay unrun (counted as pending, not in the score)."""
    import sqlite3

    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    started = time.monotonic()
    work = WORK / target.name
    db = work / "session.sqlite"
    if not db.exists():
        raise RuntimeError(f"{target.name}: no session in {work} (run the target first)")
    then = (work / "tree" / target.module).read_text()
    if then != (ROOT / target.module).read_text():
        raise RuntimeError(f"{target.name}: {target.module} changed since its last session: run the target again")
    tree = _fill_tree(work / "tree")
    env = _env(work, tree)
    config, baseline, timeout = _baseline_and_config(target, settings, work, tree, env)
    with use_db(str(db), WorkDB.Mode.open) as wdb:
        outcomes = _classify(target, then, list(wdb.work_items), settings, equivalents)
        again = [item.job_id for item, result in wdb.completed_work_items
                 if outcomes[item.job_id].status == "pending" and result.worker_outcome == WorkerOutcome.NORMAL
                 and result.test_outcome == TestOutcome.SURVIVED]
        # a stopped session's mutants never run stay so (a whole run, or cosmic-ray exec, runs them)
        never_run = [item.job_id for item in wdb.pending_work_items]
        for job_id in never_run:
            wdb.set_result(job_id, WorkResult(worker_outcome=WorkerOutcome.SKIPPED, output="never run"))
    con = sqlite3.connect(db)
    with con:  # the session may come from another checkout: its mutants are this tree's module now
        con.execute("UPDATE mutation_specs SET module_path = ?", (str(tree / target.module),))
        con.executemany("DELETE FROM work_results WHERE job_id = ?", [(j,) for j in again])
    say(f"{target.name}: {len(again)} survivors to run again (baseline {baseline:.1f}s, timeout {timeout:.0f}s)")
    try:
        if again and _cosmic(["exec", str(config), str(db)], tree, env, work / "cosmic-ray.log") != 0:
            raise RuntimeError(f"{target.name}: cosmic-ray exec failed (see {work / 'cosmic-ray.log'})")
    finally:
        with con:
            con.executemany("DELETE FROM work_results WHERE job_id = ?", [(j,) for j in never_run])
        con.close()
    _record_time(work, time.monotonic() - started, f"survivors ({len(again)})")
    res = _collect(target, outcomes, db, _recorded_time(work) or 0.0, baseline)
    say(f"{target.name}: score {100 * res['score']:.1f}% ({res['killed']} killed, {res['survived']} survived)")
    return res


def _classify(target: Target, source: str, items: list, settings: dict, equivalents: dict[str, str]) -> dict:
    """job id -> Outcome: "pending" (to run), "out-of-scope" or "equivalent" (with the reason)."""
    lines = source.splitlines()
    ast_tree = ast.parse(source)
    keep = kept_operators(settings)
    ann = _annotation_spans(ast_tree)
    funcs = _function_spans(ast_tree, target.functions) if target.functions else None
    if target.functions and not funcs:
        raise RuntimeError(f"{target.name}: none of the functions {target.functions} is in {target.module}")
    keys = mutant_keys(target.module, source, [item.mutations[0] for item in items])
    outcomes: dict[str, Outcome] = {}
    for item, key in zip(items, keys):
        m = item.mutations[0]
        line_no = m.start_pos[0]
        text = lines[line_no - 1]
        o = Outcome(key=key, line=line_no, status="pending")
        if not keep.match(short_name(m.operator_name)):
            o.status, o.reason = "out-of-scope", "operator not kept"
        elif any(_within(tuple(m.start_pos), sp) for sp in ann):
            o.status, o.reason = "out-of-scope", "in a type annotation"
        elif funcs is not None and not any(a <= line_no <= b for a, b in funcs):
            o.status, o.reason = "out-of-scope", "outside the target's functions"
        elif "pragma: no mutate" in text:
            o.status, o.reason = "out-of-scope", "pragma: no mutate"
        elif _norm(key) in equivalents:
            o.status, o.reason = "equivalent", equivalents[_norm(key)]
        outcomes[item.job_id] = o
    return outcomes


def _collect(target: Target, outcomes: dict, db: Path, seconds: float, baseline: float) -> dict:
    """The results of a session: each pending mutant killed, timed out, survived or incompetent."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    wrong: list[str] = []
    with use_db(str(db), WorkDB.Mode.open) as wdb:
        for item, result in wdb.completed_work_items:
            o = outcomes[item.job_id]
            if o.status == "equivalent" and result.worker_outcome != WorkerOutcome.SKIPPED \
                    and result.test_outcome == TestOutcome.KILLED:
                o.status, o.reason = "killed", "listed as equivalent but killed: a wrong entry"  # see the report
                wrong.append(o.key)
                continue
            if o.status != "pending":
                continue
            o.diff = result.diff or ""
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                o.status = "not run"  # skipped by an earlier run's scope (re-run to count it)
            elif result.worker_outcome == WorkerOutcome.NO_TEST or result.test_outcome == TestOutcome.INCOMPETENT:
                o.status = "incompetent"
            elif result.test_outcome == TestOutcome.SURVIVED:
                o.status = "survived"
            elif result.output == "timeout":
                o.status = "timeout"
            else:
                o.status = "killed"
    counts: dict[str, int] = {}
    for o in outcomes.values():
        counts[o.status] = counts.get(o.status, 0) + 1
    killed = counts.get("killed", 0) + counts.get("timeout", 0)
    survived = counts.get("survived", 0)
    score = killed / (killed + survived) if killed + survived else 1.0
    used = {o.key for o in outcomes.values() if o.status == "equivalent"}
    return {"target": target, "counts": counts, "score": score, "killed": killed, "survived": survived,
            "seconds": seconds, "baseline": baseline,
            "survivors": sorted((o for o in outcomes.values() if o.status == "survived"), key=lambda o: o.line),
            "equivalents_used": used, "wrong_equivalents": wrong}


def report_only(target: Target, settings: dict, equivalents: dict[str, str]) -> dict:
    """A target's result from its last session (build/mutation/<target>), with today's
    equivalents file: no test runs. The source is the copy that session mutated."""
    from cosmic_ray.work_db import WorkDB, use_db

    work = WORK / target.name
    db = work / "session.sqlite"
    if not db.exists():
        raise RuntimeError(f"{target.name}: no session in {work} (run the target first)")
    source = (work / "tree" / target.module).read_text()
    with use_db(str(db), WorkDB.Mode.open) as wdb:
        outcomes = _classify(target, source, list(wdb.work_items), settings, equivalents)
    return _collect(target, outcomes, db, _recorded_time(work), 0.0)


# ---- report -----------------------------------------------------------------------------------

def _previous_report(path: Path) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The table rows and survivor sections of the report at ``path``, by target name."""
    rows: dict[str, str] = {}
    sections: dict[str, list[str]] = {}
    if not path.exists():
        return rows, sections
    current = None
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 9 and cells[0] not in ("target", "**all**") and not cells[0].startswith("-"):
            rows[cells[0]] = line
        if line.startswith("## "):
            current = None
        elif line.startswith("### "):
            current = line[4:].strip()
            sections[current] = []
        if current is not None and not line.startswith("### "):
            sections[current].append(line)
    return rows, sections


def write_report(results: list[dict], errors: dict[str, str], path: Path, equivalents: dict[str, str],
                 wall: float, jobs: int, targets: list[Target] | None = None) -> None:
    """The report of ``results``. The rows (and survivors) of the other ``targets`` are kept
    from the report already at ``path``, so a run of some targets updates their rows only."""
    done = {r["target"].name for r in results} | set(errors)
    old_rows, old_sections = _previous_report(path)
    kept = [t.name for t in (targets or []) if t.name not in done and t.name in old_rows]
    how = ("Written by `tools/mutate.py` (cosmic-ray) from each target's last session; a run of some targets "
           "keeps the other targets' rows from the previous report. The time is the wall time of the "
           "target's runs (its run plus any re-runs of its survivors; — where none was recorded). ")
    out = ["# Mutation testing results", "", how +
           "Score = killed / (killed + survived); timeouts count as killed; equivalent mutants "
           "(mutation/equivalent.txt) and out-of-scope ones (see docs/mutation-testing.md) are left out.", "",
           "| target | module | tests | killed | survived | equivalent | incompetent | score | time |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    by_name = {r["target"].name: r for r in results}
    total_k = total_s = 0
    for name in [t.name for t in (targets or [])] + [n for n in by_name if n not in {t.name for t in targets or []}]:
        if name in by_name:
            r = by_name[name]
            t, c = r["target"], r["counts"]
            seconds = "—" if r["seconds"] is None else f"{r['seconds']:.0f}s"
            out.append(f"| {t.name} | {t.module} | {len(t.tests)} | {r['killed']} | {r['survived']} | "
                       f"{c.get('equivalent', 0)} | {c.get('incompetent', 0)} | {100 * r['score']:.1f}% | {seconds} |")
            total_k, total_s = total_k + r["killed"], total_s + r["survived"]
        elif name in kept:
            out.append(old_rows[name])
            cells = [c.strip() for c in old_rows[name].strip().strip("|").split("|")]
            total_k, total_s = total_k + int(cells[3]), total_s + int(cells[4])
    for name, err in errors.items():
        out.append(f"| {name} | — | — | — | — | — | — | error | — |")
    if total_k + total_s:
        out.append(f"| **all** | | | {total_k} | {total_s} | | | {100 * total_k / (total_k + total_s):.1f}% | |")
    unrun = [(r["target"].name, r["counts"]["pending"]) for r in results if r["counts"].get("pending")]
    if unrun:
        out += ["", "Not run (a stopped session; its score counts the mutants run): "
                + ", ".join(f"{name} {n} mutants" for name, n in unrun) + "."]
    if errors:
        out += ["", "## Errors", ""]
        for name, err in errors.items():
            out += [f"### {name}", "", "```", err, "```", ""]
    out += ["", "## Survivors", "",
            "Each survivor is a real gap (add a test that kills it) or an equivalent mutant (copy its key "
            "line into mutation/equivalent.txt and append ` -- <one-line reason>`).", ""]
    for name in [t.name for t in (targets or [])] + [n for n in by_name if n not in {t.name for t in targets or []}]:
        if name in by_name and by_name[name]["survivors"]:
            out += [f"### {name}", ""]
            for o in by_name[name]["survivors"]:
                out += [f"- line {o.line}: `{o.key}`", "", "```diff", *_diff_body(o.diff), "```", ""]
        elif name in kept and any(ln.strip() for ln in old_sections.get(name, [])):
            out += [f"### {name}", *old_sections[name]]
    ran = {r["target"].module for r in results}
    used = {_norm(x) for r in results for x in r["equivalents_used"]}
    stale = [k for k in equivalents if split_key(k)[0] in ran and k not in used]
    if stale:
        out += ["## Stale equivalents", "", "These entries of mutation/equivalent.txt matched no mutant "
                "(the line changed): re-check them.", ""] + [f"- `{k}`" for k in stale] + [""]
    wrong = [k for r in results for k in r.get("wrong_equivalents", [])]
    if wrong:
        out += ["## Wrong equivalents", "", "These entries of mutation/equivalent.txt name mutants the tests kill "
                "(counted as killed): remove or correct them.", ""] + [f"- `{k}`" for k in wrong] + [""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out).rstrip() + "\n")


def _diff_body(diff: str) -> list[str]:
    return [ln for ln in diff.splitlines() if not ln.startswith(("---", "+++"))][:12]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--cosmic-ray"]:
        return cosmic_ray_cli(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("targets", nargs="*", help="target names (default: all); a name ending in * is a prefix")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="targets run side by side (default 2)")
    ap.add_argument("--report", type=Path, default=REPORT, help=f"report file (default {REPORT.relative_to(ROOT)})")
    ap.add_argument("--list", action="store_true", help="list the targets and exit")
    ap.add_argument("--dry-run", action="store_true", help="count the mutants of each target, run nothing")
    ap.add_argument("--config", type=Path, default=CONFIG, help="targets file (default mutation/targets.toml)")
    ap.add_argument("--survivors", action="store_true",
                    help="run the survivors of the targets' last sessions again, against today's tests "
                         "(the module must be unchanged since)")
    ap.add_argument("--report-only", action="store_true",
                    help="write the report from the targets' last sessions (no test runs; today's equivalents)")
    args = ap.parse_args(argv)
    settings, targets = load_config(args.config)
    every_target = list(targets)
    if args.targets:
        chosen = [t for t in targets if any(t.name == n or (n.endswith("*") and t.name.startswith(n[:-1]))
                                            for n in args.targets)]
        unknown = [n for n in args.targets if not any(t.name == n or (n.endswith("*") and t.name.startswith(n[:-1]))
                                                     for t in targets)]
        if unknown:
            ap.error(f"unknown target(s) {unknown}; known: {[t.name for t in targets]}")
        targets = chosen
    if args.list:
        for t in targets:
            print(f"{t.name:28} {t.module}  <- {' '.join(t.tests)}")
        return 0
    equivalents = load_equivalents()
    started = time.monotonic()
    results: dict[str, dict] = {}
    errors: dict[str, str] = {}

    def say(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        if args.report_only:
            futures = {pool.submit(report_only, t, settings, equivalents): t for t in targets}
        elif args.survivors:
            futures = {pool.submit(rerun_survivors, t, settings, equivalents, say): t for t in targets}
        else:
            futures = {pool.submit(run_target, t, settings, equivalents, say, args.dry_run): t for t in targets}
        for fut in concurrent.futures.as_completed(futures):
            t = futures[fut]
            try:
                results[t.name] = fut.result()
            except Exception as exc:  # reported, and the run fails
                errors[t.name] = str(exc)
                say(f"{t.name}: ERROR {exc}")
    ordered = [results[t.name] for t in targets if t.name in results]
    if args.dry_run:
        for r in ordered:
            print(f"{r['target'].name:24} " + ", ".join(f"{k} {v}" for k, v in sorted(r["counts"].items())))
        return 1 if errors else 0
    write_report(ordered, errors, args.report, equivalents, time.monotonic() - started,
                 0 if args.report_only else args.jobs, every_target)
    say(f"report written to {args.report}")
    floor = float(settings.get("fail-under", 0))
    low = [r["target"].name for r in ordered if 100 * r["score"] < floor]
    if errors or low:
        if low:
            say(f"below the {floor}% floor: {low}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
