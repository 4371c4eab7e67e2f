"""What the PostgreSQL stores add to the conformance suites: schema versions, the opener,
errors translated into StoreError, connections the server drops, several processes at once,
and the commands that read a store, pointed at a database URL."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from frontier.backends import link
from store.conftest import make_doc

from deepbot.cli import main
from deepbot.errors import StoreError
from deepbot.frontier import RouteState, SqliteRouteStore
from deepbot.frontier.open import open_route_store
from deepbot.frontier.postgres import SCHEMA_VERSION, PostgresRouteStore
from deepbot.store import SqliteDocumentStore
from deepbot.store.open import open_document_store, shown_target, store_target
from deepbot.store.postgres import PostgresDocumentStore
from postgres.database import Databases


def test_a_newer_schema_is_refused_with_a_clear_error(postgres_url: str) -> None:
    PostgresRouteStore(postgres_url).close()
    PostgresDocumentStore(postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("UPDATE frontier_meta SET value = '99' WHERE name = 'schema'")
        conn.execute("UPDATE documents_meta SET value = '7' WHERE name = 'schema'")
    newer = rf"route store .* has schema 99, newer than this DeepBot's {SCHEMA_VERSION}"
    with pytest.raises(StoreError, match=newer):
        PostgresRouteStore(postgres_url)
    with pytest.raises(StoreError, match=r"document store .* has schema 7, newer than this DeepBot's 1"):
        PostgresDocumentStore(postgres_url)


def test_reading_a_database_without_a_crawl_is_a_store_error(postgres_url: str) -> None:
    with pytest.raises(StoreError, match="no document store at postgresql://"):
        PostgresDocumentStore(postgres_url, create=False)


def test_the_server_s_errors_are_store_errors_and_hide_the_password(postgres_url: str) -> None:
    wrong = postgres_url.replace("/deepbot_test_", "/no_such_db_")
    with_password = wrong.replace("postgresql://postgres@", "postgresql://postgres:s3cret@")
    with pytest.raises(StoreError, match="cannot open route store") as caught:
        PostgresRouteStore(with_password)
    assert "s3cret" not in str(caught.value) and "postgres:***@" in str(caught.value)
    assert shown_target(with_password) == with_password.replace("s3cret", "***")


def test_the_opener_chooses_by_target(postgres_url: str, tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    assert store_target(str(path)) == path and store_target(postgres_url) == postgres_url
    with open_route_store(path) as routes, open_document_store(path) as documents:
        assert isinstance(routes, SqliteRouteStore) and isinstance(documents, SqliteDocumentStore)
    with open_route_store(postgres_url, max_attempts=5) as routes, open_document_store(postgres_url) as docs:
        assert isinstance(routes, PostgresRouteStore) and isinstance(docs, PostgresDocumentStore)
        assert routes.max_attempts == 5


def test_connections_the_server_drops_are_replaced(postgres_url: str) -> None:
    """A killed backend (as in a restart) costs a retry on a new connection, not an error."""
    with PostgresRouteStore(postgres_url) as routes, PostgresDocumentStore(postgres_url) as documents:
        routes.push([link(1), link(2)])
        documents.upsert(make_doc("/a", "Alpha"))
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            killed = admin.execute(
                "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()) t").fetchone()
        assert killed is not None and killed[0] >= 2
        [lease] = routes.lease(1, "w", ttl_s=60)
        assert routes.ack_done(lease) is RouteState.DONE
        assert documents.count() == 1 and [h.title for h in documents.search("alpha")] == ["Alpha"]


def test_a_lost_server_is_a_store_error_once_the_wait_is_over(databases: Databases) -> None:
    url = databases.create()
    name = url.rsplit("/", 1)[1]
    routes = PostgresRouteStore(url, reconnect_s=0.5)
    try:
        with psycopg.connect(databases.admin, autocommit=True) as admin:
            admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false".encode())
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                          (name,))
        with pytest.raises(StoreError, match="route store postgresql://"):
            routes.counts()
    finally:
        routes.close()
        with psycopg.connect(databases.admin, autocommit=True) as admin:
            admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true".encode())


_LEASER = """
import sys, time
from pathlib import Path
from deepbot.frontier.postgres import SCHEMA_VERSION, PostgresRouteStore
store = PostgresRouteStore(sys.argv[1])
# All start at once: a lease is so cheap that the first process up could take them all.
start = Path(sys.argv[3])
(start.parent / f"ready-{sys.argv[2]}").touch()
while not start.exists():
    time.sleep(0.01)
got = []
while leases := store.lease(3, sys.argv[2], ttl_s=600):
    for lease in leases:
        got.append(lease.route.key)
        store.ack_done(lease)
print("\\n".join(got))
"""


def test_processes_leasing_together_never_share_a_route(postgres_url: str, tmp_path: Path) -> None:
    with PostgresRouteStore(postgres_url) as routes:
        routes.push([link(i, priority=i % 4) for i in range(200)])
        start = tmp_path / "go"
        workers = [subprocess.Popen([sys.executable, "-c", _LEASER, postgres_url, f"w{n}", str(start)],
                                    stdout=subprocess.PIPE, text=True) for n in range(4)]
        deadline = time.monotonic() + 60
        while len(list(tmp_path.glob("ready-*"))) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        start.touch()
        outs = [worker.communicate(timeout=120)[0].split() for worker in workers]
        assert all(worker.returncode == 0 for worker in workers)
        every = [key for out in outs for key in out]
        assert len(every) == len(set(every)) == 200  # each route once, none lost
        assert sum(1 for out in outs if out) >= 2  # they did work side by side
        assert routes.counts()[RouteState.DONE] == 200 and routes.pending() == 0


def test_status_search_and_export_read_a_database(postgres_url: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    with PostgresRouteStore(postgres_url) as routes, PostgresDocumentStore(postgres_url) as documents:
        routes.push([link(1), link(2)])
        documents.upsert(make_doc("/java", "Thinking in Java", "by Bruce Eckel"))
        documents.upsert(make_doc("/xml", "XML in a nutshell", "elements"))
    assert main(["status", "--store", postgres_url, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["documents"], report["routes"]["queued"]) == (2, 2)
    assert main(["search", "eckel", "--store", postgres_url, "--json"]) == 0
    [hit] = json.loads(capsys.readouterr().out)
    assert hit["title"] == "Thinking in Java" and "[Eckel]" in hit["marked"]
    out = tmp_path / "docs.jsonl"
    assert main(["export", "--store", postgres_url, "--out", str(out)]) == 0
    assert [json.loads(line)["title"] for line in out.read_text().splitlines()] == [
        "Thinking in Java", "XML in a nutshell"]
