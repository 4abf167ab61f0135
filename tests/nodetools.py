"""Running the npm tools (snarkjs, circom2, circomlibjs) from tests."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path


def run(cmd: list[str], cwd: Path | None = None, check: bool = True, timeout: int = 600) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def compile_circom(node_modules: Path, workdir: Path, name: str, source: str) -> Path:
    """Compile ``source`` with circom2 (WebAssembly) into ``workdir``; return the
    folder holding NAME.r1cs and NAME_js/. circom2 sees only its working folder, so
    circomlib's circuits are copied next to the source."""
    lib = workdir / "lib" / "circomlib"
    if not lib.exists():
        shutil.copytree(node_modules / "circomlib" / "circuits", lib / "circuits")
    (workdir / f"{name}.circom").write_text(source)
    run(["node", str(node_modules / "circom2" / "cli.js"), f"{name}.circom", "--r1cs", "--wasm", "-l", "lib", "-o", "."],
        cwd=workdir)
    return workdir


def circom_witness(workdir: Path, name: str, inputs: dict) -> Path:
    (workdir / "input.json").write_text(json.dumps({k: str(v) if not isinstance(v, list) else [str(x) for x in v]
                                                    for k, v in inputs.items()}))
    out = workdir / f"{name}.wtns"
    run(["node", f"{name}_js/generate_witness.js", f"{name}_js/{name}.wasm", "input.json", str(out)], cwd=workdir)
    return out


def node_eval(node_modules: Path, script: str, workdir: Path) -> str:
    """Run an ES module script with node_modules resolvable; return its stdout."""
    f = workdir / "script.mjs"
    f.write_text(script)
    link = workdir / "node_modules"
    if not link.exists():
        link.symlink_to(node_modules)
    return run(["node", str(f)], cwd=workdir).stdout
