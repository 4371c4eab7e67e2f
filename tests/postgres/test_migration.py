"""A frontier of schema version 1, made by version 1's own DDL, opened by this DeepBot: migrated to
version 2 on open, in one transaction, with every route in every state found again as it was."""

from __future__ import annotations

import time

import psycopg
import pytest
from frontier.backends import link

from deepbot.errors import StoreError
from deepbot.frontier import RouteState
from deepbot.frontier.base import Lease
from deepbot.frontier.postgres import SCHEMA_VERSION, PostgresRouteStore

# Version 1's tables, as deepbot/frontier/postgres.py made them until version 2 (ee09adf), and
# the meta table ensure_schema makes: the frontier an older DeepBot left behind.
_V1 = (
    "CREATE TABLE frontier_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "INSERT INTO frontier_meta VALUES ('schema', '1')",
    "CREATE TABLE IF NOT EXISTS routes (seq BIGSERIAL PRIMARY KEY, key TEXT NOT NULL UNIQUE,"
    " state INTEGER NOT NULL DEFAULT 0, priority DOUBLE PRECISION NOT NULL,"
    " not_before DOUBLE PRECISION NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,"
    " lease_no INTEGER NOT NULL DEFAULT 0, lease_worker TEXT, lease_process TEXT,"
    " lease_expires DOUBLE PRECISION, reason TEXT)",
    "CREATE TABLE IF NOT EXISTS route_payloads (seq BIGINT PRIMARY KEY, data TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS routes_ready ON routes (priority DESC, seq) WHERE state = 0",
    "CREATE INDEX IF NOT EXISTS routes_leased ON routes (lease_expires) WHERE state = 1",
    "CREATE INDEX IF NOT EXISTS routes_delayed ON routes (not_before) WHERE state = 4",
    "CREATE INDEX IF NOT EXISTS routes_failed ON routes (reason) WHERE state = 3",
    """CREATE TABLE IF NOT EXISTS route_counts (
        state INTEGER NOT NULL, shard INTEGER NOT NULL, n BIGINT NOT NULL, PRIMARY KEY (state, shard))""",
    "CREATE TABLE IF NOT EXISTS sessions (digest TEXT PRIMARY KEY, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS pages_reached (identity TEXT PRIMARY KEY, route_key TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS forms_known (identity TEXT PRIMARY KEY)",
)

FUTURE = time.time() + 3600
# (page, state, attempts, not_before, lease_no, lease_expires, reason): every state of v1, a done
# route as pushed and one retried and delayed before it was done.
_ROWS = [
    (1, 0, 0, 0.0, 0, None, None),
    (2, 0, 1, 0.0, 1, None, "timeout"),
    (3, 1, 0, 0.0, 1, FUTURE, None),
    (4, 2, 0, 0.0, 1, None, None),
    (5, 2, 1, 12.5, 2, None, "timeout"),
    (6, 3, 3, 0.0, 3, None, "http 500"),
    (7, 4, 1, FUTURE, 1, None, "slow down"),
]


def _make_v1(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        for statement in _V1:
            conn.execute(statement)
        counts: dict[int, int] = {}
        for page, state, attempts, not_before, lease_no, expires, reason in _ROWS:
            route = link(page, priority=-page)
            seq = conn.execute(
                "INSERT INTO routes (key, state, priority, not_before, attempts, lease_no, lease_worker,"
                " lease_process, lease_expires, reason) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " RETURNING seq",
                (route.key, state, route.priority, not_before, attempts, lease_no,
                 "w" if state == 1 else None, "host:1:x" if state == 1 else None, expires, reason),
            ).fetchone()
            assert seq is not None
            conn.execute("INSERT INTO route_payloads VALUES (%s, %s)", (seq[0], route.model_dump_json()))
            counts[state] = counts.get(state, 0) + 1
        for state, n in counts.items():  # v1's counters, split over two shards as its backends left them
            conn.execute("INSERT INTO route_counts VALUES (%s, 3, %s), (%s, 40, 1)", (state, n - 1, state))


def test_a_version_1_frontier_is_migrated_on_open_and_keeps_every_route(postgres_url: str) -> None:
    _make_v1(postgres_url)
    with PostgresRouteStore(postgres_url, recover=False) as store:
        found = {page: store.get(link(page).key) for page, *_ in _ROWS}
        counts = store.counts()
        assert store.push([link(page) for page, *_ in _ROWS]) == 0  # every key still known
        assert store.seen(link(4).key) and not store.seen(link(8).key)
        assert store.push([link(8, priority=-1)]) == 1  # numbered after the old routes: after page 1
        leased = store.lease(10, "w2", ttl_s=60)
        # The leased route of v1, acked with its v1 token: done now.
        assert store.ack_done(Lease(link(3), 3, 1, 1, "w", FUTURE)) is RouteState.DONE
        after = store.counts()
        done = store.get(link(3).key)
    public = {0: RouteState.QUEUED, 1: RouteState.LEASED, 2: RouteState.DONE, 3: RouteState.FAILED,
              4: RouteState.QUEUED}
    for page, state, attempts, not_before, _, _, reason in _ROWS:
        record = found[page]
        assert record is not None, page
        assert (record.route, record.state, record.attempts, record.not_before, record.reason) == (
            link(page, priority=-page), public[state], attempts, not_before, reason), page
    assert counts == {RouteState.QUEUED: 3, RouteState.LEASED: 1, RouteState.DONE: 2, RouteState.FAILED: 1}
    assert [lease.route.key for lease in leased] == [link(1).key, link(8).key, link(2).key]
    assert after == {RouteState.QUEUED: 1, RouteState.LEASED: 3, RouteState.DONE: 3, RouteState.FAILED: 1}
    assert done is not None and done.state is RouteState.DONE
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("SELECT value FROM frontier_meta WHERE name = 'schema'").fetchone() == (
            str(SCHEMA_VERSION),)
        # The view of every route and its state reads the migrated rows as v1's table held them.
        states = dict(conn.execute("SELECT state, count(*) FROM route_states GROUP BY state").fetchall())
    assert states == {1: 3, 2: 3, 3: 1, 4: 1}


def test_a_migration_that_fails_leaves_version_1_as_it_was(postgres_url: str) -> None:
    _make_v1(postgres_url)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        # A table in the way of the migration's: its CREATE fails, and with it the whole transaction.
        conn.execute("CREATE TABLE routes_done (x INTEGER)")
    with pytest.raises(StoreError):
        PostgresRouteStore(postgres_url, recover=False, reconnect_s=1)
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("SELECT value FROM frontier_meta WHERE name = 'schema'").fetchone() == ("1",)
        assert conn.execute("SELECT count(*) FROM routes").fetchone() == (len(_ROWS),)
        assert conn.execute("SELECT to_regclass('route_keys')").fetchone() == (None,)
