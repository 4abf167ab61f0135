"""Calling Solidity verifiers on a local EVM from tests (tools/evm_verify.cjs: solc-js and
@ethereumjs/evm from npm, installed by the Makefile)."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from repo_root import REPO_ROOT

SCRIPT = REPO_ROOT / "tools" / "evm_verify.cjs"


def evm_run(node_modules: Path, contracts: dict[str, tuple[str, str]], calls: list[tuple[str, list[int]]],
            timeout: int = 900) -> dict:
    """Compile and deploy ``contracts`` (key -> (source, contract name)), make every call
    (contract key, argument words); return the script's JSON (``calls[i]``: returned, reverted, gas)."""
    job = {"contracts": {k: {"source": src, "name": name} for k, (src, name) in contracts.items()},
           "calls": [{"contract": k, "words": [str(w) for w in words]} for k, words in calls]}
    proc = subprocess.run(["node", str(SCRIPT), str(node_modules)], input=json.dumps(job), capture_output=True,
                          text=True, timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"{SCRIPT.name} exited {proc.returncode}\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout)
