"""Shared fixtures: the backends, the node tools that interop tests need, and seeded
randomness for tests whose assertions depend on a deal.

A test that needs node or the npm tools skips with the reason when they are absent,
except under CI (``CI=true``), where their absence is a failure: CI must not skip.
"""
from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from services import missing
from zkbluff.curve import available_backends, get_backend

# No deadline and no too_slow health check: a loaded 2-core machine is slow, never wrong.
# Under CI the examples are derandomized (drawn from a hash of each test), so a CI run
# checks the same examples every time and cannot fail by the luck of the draw; a
# developer's run still explores fresh examples.
settings.register_profile("zkbluff", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("zkbluff-ci", parent=settings.get_profile("zkbluff"), derandomize=True, database=None)
settings.load_profile("zkbluff-ci" if os.environ.get("CI") else "zkbluff")

ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = Path(os.environ.get("ZKBLUFF_NODE_MODULES", ROOT / "node_modules"))


_missing = missing  # skip with the reason, fail under CI (tests/services.py)


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
def evm_node_modules(node_modules) -> Path:
    """node_modules with solc-js and @ethereumjs/evm (tools/evm_verify.cjs)."""
    for pkg in ("solc", "@ethereumjs/evm", "@ethereumjs/util"):
        if not (node_modules / pkg).is_dir():
            _missing(f"{pkg} not installed in {node_modules} (run `make test`, which runs `npm ci`)")
    return node_modules


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


@pytest.fixture
def seed_secrets():
    """``seed_secrets(n)``: from then to the end of the test, every draw of the ``secrets``
    module (each party's deal entropy and salts, the oblivious deal's choices, match ids,
    proof blinding) comes from one generator seeded with ``n``: the library's own
    :func:`zkbluff.cli.common.seeded_randomness`, which ``zkbluff play --seed`` uses. For
    a test whose assertions depend on the deal (a call that catches a lie, an accept to
    forge): with seeded bots the whole match is the same on every run. A module-scoped
    fixture uses ``with seeded_randomness(n):`` itself."""
    from zkbluff.cli.common import seeded_randomness

    with contextlib.ExitStack() as stack:
        yield lambda seed: stack.enter_context(seeded_randomness(seed))


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


@pytest.fixture(scope="session", autouse=True)
def fixed_randomness_in_tests():
    """This is a test process: ``open_match(seed=..., seat_secrets=...)`` is allowed here
    without marking the match practice (zkbluff.games.engine.table.FIXED_RANDOMNESS_IN_TESTS;
    anywhere else a seed is refused)."""
    from zkbluff.games.engine import table

    table.FIXED_RANDOMNESS_IN_TESTS = True
    yield
    table.FIXED_RANDOMNESS_IN_TESTS = False
