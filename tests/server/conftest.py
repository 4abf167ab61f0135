"""Real PostgreSQL and Redis for the scale-out tests (tests/services.py): one server of each
per session, started on first use; each test gets a fresh database (PostgreSQL) or an
emptied one (Redis). Absent, they skip with the reason, or fail under CI."""
from __future__ import annotations

import itertools

import pytest

from services import Postgres, Redis, missing

_databases = itertools.count(1)


def _client(module: str) -> None:
    try:
        __import__(module)
    except ImportError:
        missing(f"the Python client {module} is not installed (the server extra; `make test` installs it)")


@pytest.fixture(scope="session")
def postgres_server():
    _client("psycopg")
    server = Postgres()
    yield server
    server.close()


@pytest.fixture
def postgres_url(postgres_server) -> str:
    """A new, empty database on the session's PostgreSQL (started again if a test stopped it)."""
    if not postgres_server.running:
        postgres_server.start()
    return postgres_server.fresh_database(f"t{next(_databases)}")


@pytest.fixture(scope="session")
def redis_server():
    _client("redis")
    server = Redis()
    yield server
    server.close()


@pytest.fixture
def redis_url(redis_server) -> str:
    import redis

    if redis_server.proc is None:
        redis_server.start()
    with redis.Redis.from_url(redis_server.url) as r:
        r.flushall()
    return redis_server.url
