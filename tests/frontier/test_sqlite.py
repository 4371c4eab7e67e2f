"""What only the SQLite store promises: crash safety under SIGKILL, quick recovery of
a dead process's leases, sharing its file, and the liveness check behind it."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from deepbot.errors import StoreError
from deepbot.frontier import RouteState, SqliteRouteStore
from deepbot.frontier.process import current_identity, is_dead

from .backends import link

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

CHILD_PRELUDE = """
import sys
from deepbot.frontier import SqliteRouteStore
from deepbot.routes import Route, Via

def link(n):
    url = f"http://site.test/page/{n}"
    return Route(key=url, url=url, via=Via.LINK, steps="", program="")

store = SqliteRouteStore(sys.argv[1])
"""


def spawn(code: str, path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD_PRELUDE + textwrap.dedent(code), str(path)],
        stdout=subprocess.PIPE,
        text=True,
    )


def recount(path: Path) -> dict[int, int]:
    """States counted from the rows themselves, bypassing the store's counters."""
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT state, count(*) FROM routes GROUP BY state").fetchall())


def counters(path: Path) -> dict[int, int]:
    with sqlite3.connect(path) as db:
        return {s: n for s, n in db.execute("SELECT state, n FROM route_counts") if n}


def test_a_killed_process_leases_come_back_on_reopen(tmp_path: Path) -> None:
    path = tmp_path / "crawl.sqlite"
    with SqliteRouteStore(path) as store:
        store.push([link(i) for i in range(8)])
    code = """
        leases = store.lease(5, "worker-0", ttl_s=3600)
        print(len(leases), flush=True)
        __import__("time").sleep(600)
    """
    with spawn(code, path) as child:
        assert child.stdout is not None and child.stdout.readline().strip() == "5"
        child.send_signal(signal.SIGKILL)

    with SqliteRouteStore(path, recover=False) as store:
        assert store.counts()[RouteState.LEASED] == 5  # an hour-long TTL, not expired
        assert store.recover() == 5  # but its owner is dead: back at once
        leases = store.lease(10, "worker-0", ttl_s=60)
        assert len(leases) == 8 and all(lease.attempt == 1 for lease in leases)
    with SqliteRouteStore(path) as store:  # opening recovers by itself
        assert store.counts()[RouteState.LEASED] == 8  # ours: this process lives


def test_sigkill_mid_push_loses_no_committed_route(tmp_path: Path) -> None:
    path = tmp_path / "crawl.sqlite"
    SqliteRouteStore(path).close()
    code = """
        batch = 0
        while True:
            store.push([link(batch * 200 + i) for i in range(200)])
            leases = store.lease(50, "w", ttl_s=3600)
            for lease in leases[:25]:
                store.ack_done(lease)
            print(batch, flush=True)
            batch += 1
    """
    with spawn(code, path) as child:
        assert child.stdout is not None
        committed = -1
        for _ in range(15):  # kill mid-stream, after a few committed batches
            committed = int(child.stdout.readline())
        child.send_signal(signal.SIGKILL)

    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert counters(path) == recount(path)  # counters moved in the same transactions
    with SqliteRouteStore(path) as store:
        assert all(store.seen(link(n).key) for n in range((committed + 1) * 200))
        assert store.counts()[RouteState.LEASED] == 0  # the dead child's leases are back
        assert store.counts()[RouteState.DONE] >= (committed + 1) * 25


def test_another_connection_can_share_the_file(tmp_path: Path) -> None:
    path = tmp_path / "crawl.sqlite"
    with SqliteRouteStore(path) as store, sqlite3.connect(path, timeout=10) as other:
        other.execute("CREATE TABLE documents (id TEXT PRIMARY KEY, body TEXT)")
        other.execute("INSERT INTO documents VALUES ('a', 'text')")
        other.commit()
        store.push([link(1)])
        [lease] = store.lease(1, "w", ttl_s=60)
        other.execute("INSERT INTO documents VALUES ('b', 'text')")
        other.commit()
        assert store.ack_done(lease) == RouteState.DONE
        assert other.execute("SELECT count(*) FROM documents").fetchone() == (2,)
        assert other.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "crawl.sqlite"
    SqliteRouteStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE frontier_meta SET value = '99' WHERE name = 'schema'")
    with pytest.raises(StoreError, match="schema 99"):
        SqliteRouteStore(path)


def test_an_unopenable_path_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot open"):
        SqliteRouteStore(tmp_path / "missing" / "dir" / "crawl.sqlite")


def test_a_closed_store_raises_store_errors(tmp_path: Path) -> None:
    store = SqliteRouteStore(tmp_path / "crawl.sqlite")
    store.close()
    with pytest.raises(StoreError):
        store.push([link(1)])


def test_liveness_of_process_identities() -> None:
    me = current_identity()
    assert not is_dead(me)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=10)
    host = me.split(":")[0]
    assert is_dead(f"{host}:{child.pid}:")  # no start time known: the pid alone decides
    assert is_dead(f"{host}:{os.getpid()}:1")  # our pid, but another start: recycled pid
    assert not is_dead(f"other-host:{child.pid}:")  # another machine: leave it to the TTL
    assert not is_dead("garbage") and not is_dead(f"{host}:notapid:")


def test_a_session_already_written_costs_no_write_again(tmp_path: Path) -> None:
    # Every page of a crawl with cookies puts its snapshot, mostly one the store has.
    from deepbot.routes import SessionState

    path = tmp_path / "f.sqlite"
    session = SessionState(cookies=({"name": "sid", "value": "42", "domain": "site.test", "path": "/"},))
    statements: list[str] = []
    with SqliteRouteStore(path) as store:
        store._file._db.set_trace_callback(statements.append)
        digest = store.put_session(session)
        assert "BEGIN IMMEDIATE" in statements
        statements.clear()
        assert store.put_session(SessionState.from_playwright(session.to_playwright())) == digest
        assert statements == []  # not even a transaction
        other = store.put_session(SessionState())  # a new one is written
        assert "BEGIN IMMEDIATE" in statements
    with SqliteRouteStore(path) as reopened:  # and both are in the file
        assert reopened.get_session(digest) == session and reopened.get_session(other) == SessionState()
