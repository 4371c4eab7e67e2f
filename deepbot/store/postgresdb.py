"""One PostgreSQL database shared by the route store and the document store.

Each store holds a small psycopg pool (threads share it). psycopg's errors become
``StoreError`` here and nowhere else. Every operation is one function of a connection run
in one transaction by ``run()``; when the database is out of reach (restarted, a network
cut, a connection killed by the server), ``run()`` waits and runs the function again on a
new connection, for at most ``reconnect_s`` seconds: a crawl over several machines rides
out a restart of its database instead of dying with it. Serialization failures and
deadlocks (the transaction was rolled back) are retried the same way. A function that ran
may thus run again after a commit whose answer was lost: every store operation is written
so that a second run is harmless (upserts, ``ON CONFLICT DO NOTHING``, tokens on acks).

A schema is versioned in a ``<name>_meta`` table and created or migrated under an advisory
lock, so workers that start together do not race on ``CREATE TABLE``; a database whose
schema is newer than this DeepBot's is refused.
"""

from __future__ import annotations

import logging
import re
import select
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Self, TypeVar

from deepbot.errors import StoreError

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")

log = logging.getLogger(__name__)

_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")
# What a server says when it will not take us however long we wait (libpq gives no SQLSTATE
# for a failed connection, only its message).
_REFUSALS = ("does not exist", "authentication", "password", "pg_hba.conf", "permission denied", "invalid")


def is_postgres_url(target: object) -> bool:
    """Whether a --store value names a PostgreSQL database rather than a SQLite file."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def shown(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return _PASSWORD.sub(r"\1***@", url)


def _check_idle(conn: psycopg.Connection[tuple[Any, ...]]) -> None:
    """The pool's check of a connection it hands out, without a round trip: an idle connection
    has nothing to read unless the server closed it (a restart, a terminated backend) and said
    so; then, and only then, the round trip of psycopg's own check finds out. (A check by a
    round trip each time doubled the cost of a one-statement ack; a connection that dies
    unheard is caught by run(), which runs the operation again on another.)"""
    readable = conn.closed or bool(select.select([conn.fileno()], [], [], 0)[0])
    if readable:
        conn.execute("")  # raises OperationalError when the connection is gone


class PostgresDatabase:
    def __init__(self, url: str, what: str, *, max_size: int = 8, connect_timeout_s: float = 15.0,
                 reconnect_s: float = 300.0) -> None:
        self.url = url
        self.shown = shown(url)
        self.what = what  # "route store", "document store": names it in errors
        self.reconnect_s = reconnect_s
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise StoreError(f"a {what} at postgresql:// needs psycopg:"
                             " pip install 'deepbot[postgres]'") from exc
        self._psycopg = psycopg
        # check: a connection the server dropped (a restart) is found out when taken, not used.
        self._pool: ConnectionPool[psycopg.Connection[tuple[Any, ...]]] = ConnectionPool(
            url, min_size=1, max_size=max_size, open=False, timeout=connect_timeout_s,
            check=_check_idle, name=f"deepbot {what}",
            # autocommit: a one-statement operation is one round trip (no BEGIN, no COMMIT);
            # run() opens a transaction for the others. prepare_threshold 0: every statement is
            # prepared on its first run on a connection (the same few run all crawl long).
            kwargs={"connect_timeout": max(1, int(connect_timeout_s)), "autocommit": True,
                    "prepare_threshold": 0},
        )
        try:
            self._first_connection(max(1, int(connect_timeout_s)))
            self._pool.open(wait=True, timeout=connect_timeout_s)
        except Exception as exc:  # psycopg's errors, PoolTimeout, or a malformed URL
            self._pool.close()
            raise StoreError(f"cannot open {what} {self.shown}: {self._why(exc)}") from exc

    def _first_connection(self, timeout_s: int) -> None:
        """One connection before the pool's: a wrong database, user or password fails now, in
        the server's words; a server that is down or restarting is waited for, as run() waits
        (a worker started with its database, or during a restart, goes on)."""
        deadline = time.monotonic() + self.reconnect_s
        while True:
            try:
                self._psycopg.connect(self.url, connect_timeout=timeout_s).close()
                return
            except self._psycopg.OperationalError as exc:
                said = str(exc)
                if any(word in said for word in _REFUSALS) or time.monotonic() + 1 > deadline:
                    raise
                log.warning("%s %s: %s; trying again", self.what, self.shown, self._why(exc))
                time.sleep(1)

    def _why(self, exc: BaseException) -> str:
        """The server's own message when there is one (the pool's timeout says less)."""
        return " ".join(str(exc.__cause__ or exc).split())[:300] or type(exc).__name__

    def _retryable(self, exc: BaseException) -> bool:
        errors = self._psycopg.errors
        return isinstance(exc, self._psycopg.OperationalError | errors.TransactionRollback)

    def run(self, work: Callable[[psycopg.Connection[tuple[Any, ...]]], T], *, atomic: bool = True) -> T:
        """``work`` in one transaction (``atomic=False``: one statement, which is its own); run
        again on a new connection while the database is out of reach, at most ``reconnect_s``."""
        deadline = time.monotonic() + self.reconnect_s
        pause = 0.2
        while True:
            try:
                wait = max(0.5, min(5.0, deadline - time.monotonic()))
                with self._pool.connection(timeout=wait) as conn:
                    if not atomic:
                        return work(conn)
                    with conn.transaction():
                        return work(conn)
            except self._psycopg.Error as exc:
                if not self._retryable(exc) or time.monotonic() + pause > deadline:
                    raise StoreError(f"{self.what} {self.shown}: {self._why(exc)}") from exc
                log.warning("%s %s: %s; trying again in %.1f s", self.what, self.shown, self._why(exc), pause)
                time.sleep(pause)
                pause = min(pause * 2, 5.0)

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        def query(conn: psycopg.Connection[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
            return conn.execute(sql, args).fetchall()

        return self.run(query, atomic=False)

    def exists(self, table: str) -> bool:
        return bool(self.read("SELECT to_regclass(%s) IS NOT NULL", (table,))[0][0])

    def ensure_schema(self, meta: str, version: int, statements: Sequence[str],
                      migrations: dict[int, Sequence[str]] | None = None) -> None:
        """Create the schema (``statements``, idempotent) or migrate it from an older version
        (``migrations[v]`` takes version v to v + 1); refuse a newer one."""

        def build(conn: psycopg.Connection[tuple[Any, ...]]) -> int:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('deepbot schema'))")
            conn.execute(f"CREATE TABLE IF NOT EXISTS {meta} (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
            row = conn.execute(f"SELECT value FROM {meta} WHERE name = 'schema'").fetchone()
            found = version if row is None else int(row[0])
            if found > version:
                return found
            for step in range(found, version):
                for statement in (migrations or {}).get(step, ()):
                    conn.execute(statement)
            for statement in statements:
                conn.execute(statement)
            conn.execute(f"INSERT INTO {meta} VALUES ('schema', %s) ON CONFLICT (name) DO UPDATE"
                         " SET value = excluded.value", (str(version),))
            return version

        found = self.run(build)
        if found > version:
            self.close()
            raise StoreError(f"{self.what} {self.shown} has schema {found}, newer than this DeepBot's"
                             f" {version}: upgrade DeepBot on this machine")

    def close(self) -> None:
        self._pool.close()


class OnDatabase:
    """A store on a PostgresDatabase: closing it closes its pool; usable in ``with``."""

    _db: PostgresDatabase

    @property
    def database(self) -> PostgresDatabase:
        return self._db

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
