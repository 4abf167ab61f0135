"""Shared fixtures: the backends, and the node tools that interop tests need.

A test that needs node or the npm tools skips with the reason when they are absent,
except under CI (``CI=true``), where their absence is a failure: CI must not skip.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from zkbluff.curve import available_backends, get_backend

settings.register_profile("zkbluff", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("zkbluff")

ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = Path(os.environ.get("ZKBLUFF_NODE_MODULES", ROOT / "node_modules"))


def _missing(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must not skip this test: the Makefile installs it)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def node() -> str:
    exe = shutil.which("node")
    if not exe:
        _missing("node is not installed")
    return exe


@pytest.fixture(scope="session")
def node_modules(node) -> Path:
    if not (NODE_MODULES / "snarkjs").is_dir():
        _missing(f"npm tools not installed in {NODE_MODULES} (run `make test`, which runs `npm ci`)")
    return NODE_MODULES


@pytest.fixture(scope="session")
def snarkjs(node_modules) -> list[str]:
    return ["node", str(node_modules / "snarkjs" / "build" / "cli.cjs")]


@pytest.fixture(params=["pyecc", "mcl"], scope="session")
def backend(request):
    if request.param not in available_backends():
        _missing(f"backend {request.param} does not load here")
    return get_backend(request.param)


@pytest.fixture(scope="session")
def mcl():
    if "mcl" not in available_backends():
        _missing("backend mcl does not load here")
    return get_backend("mcl")


@pytest.fixture(scope="session")
def pyecc():
    return get_backend("pyecc")


@pytest.fixture(scope="session")
def match_keys() -> None:
    """The keys of every whole-match test: the pinned project keys (``key_folder=None``),
    which every verifier trusts by default. A test that wants a private key set passes
    its own folder deliberately (see tests/ceremony/test_ceremony_trust.py)."""
    return None


def pytest_collection_modifyitems(config, items):
    """Tests marked ``mutate`` need the mutate extra (cosmic-ray), which `make test` does not
    install: they run only when asked for by name of marker (`-m mutate`, as `make mutate`
    does) and are deselected otherwise, whatever else ``-m`` says."""
    if "mutate" in (config.getoption("markexpr") or ""):
        return
    keep = [item for item in items if item.get_closest_marker("mutate") is None]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item.get_closest_marker("mutate")])
        items[:] = keep


@pytest.fixture
def real_clock_floors(monkeypatch):
    """For tests that run the server's real clock with limits of a second or so (a seat
    timed out in real time): the process's own floor scale is lowered, as only such a test
    does (zkbluff.games.engine.spec.FLOOR_SCALE; a header can never lower it)."""
    from zkbluff.games.engine import spec

    monkeypatch.setattr(spec, "FLOOR_SCALE", 0.01)
