"""The embedded frontier: routes in one SQLite file (WAL), millions of them on disk.

Tables (the file is shared with the document store, so every name is ours alone):

- ``routes``: one narrow row per route key with its state and lease, rewritten by
  every lease and ack;
- ``route_payloads``: the Route as JSON, written once. Keeping the ~800-byte payload
  out of the hot rows roughly halves the pages each lease and ack writes;
- ``route_counts``: routes per state, moved in the same transactions as the rows,
  so counts() and pending() cost O(1) at any frontier size;
- ``sessions`` (snapshots by digest) and ``frontier_meta`` (schema version, and what
  a crawl's link policy has learned: put_state);
- ``pages_reached`` (claim_page) and ``forms_known`` (know_forms: forms analysed once).

PRAGMAs, chosen on purpose:

- ``journal_mode=WAL``: readers never block the writer, and a commit appends to the
  log instead of rewriting pages, so many small transactions stay cheap.
- ``synchronous=NORMAL``: in WAL mode a commit survives the death of the process
  (SIGKILL included: it is in the OS's page cache); only a power cut can lose the
  last few commits, never corrupt the file. FULL would fsync every ack for no
  gain against the failure the crawler actually meets (a killed process).
- ``cache_size`` 32 MB: the key index of a large frontier is written at random
  places; keeping its inner pages cached keeps push cost flat as it grows.
- a busy timeout (``timeout_s``): other connections (the document store, other
  worker processes) may hold the write lock briefly; wait instead of failing.

Every write is one ``BEGIN IMMEDIATE`` transaction (one per batch, never per row),
so a crash at any moment leaves each route either before or after an operation.
Leases of a dead process come back at once via recover(), run when the store is
opened, instead of after their TTL (see ``deepbot.frontier.process``).
"""

from __future__ import annotations

import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from os import PathLike
from typing import Any

from deepbot.errors import StoreError
from deepbot.frontier.base import Lease, RouteRecord, RouteState
from deepbot.frontier.process import current_identity, is_dead
from deepbot.routes import Route, SessionState
from deepbot.store.sqlitefile import SqliteFile

SCHEMA_VERSION = "1"

# Row states. DELAYED is a queued route whose not_before is still ahead: keeping it
# out of state QUEUED lets the lease query read the ready index without filtering.
QUEUED, LEASED, DONE, FAILED, DELAYED = 0, 1, 2, 3, 4
_PUBLIC = {
    QUEUED: RouteState.QUEUED,
    LEASED: RouteState.LEASED,
    DONE: RouteState.DONE,
    FAILED: RouteState.FAILED,
    DELAYED: RouteState.QUEUED,
}

# Partial indexes: each holds only the rows one query needs, so they stay small.
# Queries must repeat each index's WHERE literally for SQLite to use it.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS frontier_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS routes (
    seq INTEGER PRIMARY KEY,              -- insertion order: FIFO among equal priorities
    key TEXT NOT NULL UNIQUE,
    state INTEGER NOT NULL DEFAULT 0,
    priority REAL NOT NULL,
    not_before REAL NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    lease_no INTEGER NOT NULL DEFAULT 0,  -- the current lease's token
    lease_worker TEXT,
    lease_process TEXT,
    lease_expires REAL,
    reason TEXT
);
CREATE TABLE IF NOT EXISTS route_payloads (seq INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS routes_ready ON routes (priority DESC, seq) WHERE state = 0;
CREATE INDEX IF NOT EXISTS routes_leased ON routes (lease_expires) WHERE state = 1;
CREATE INDEX IF NOT EXISTS routes_delayed ON routes (not_before) WHERE state = 4;
CREATE INDEX IF NOT EXISTS routes_failed ON routes (reason) WHERE state = 3;
CREATE TABLE IF NOT EXISTS route_counts (state INTEGER PRIMARY KEY, n INTEGER NOT NULL);
INSERT OR IGNORE INTO route_counts (state, n) VALUES (0, 0), (1, 0), (2, 0), (3, 0), (4, 0);
CREATE TABLE IF NOT EXISTS sessions (digest TEXT PRIMARY KEY, data TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS pages_reached (identity TEXT PRIMARY KEY, route_key TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS forms_known (identity TEXT PRIMARY KEY) WITHOUT ROWID;
"""

_SESSIONS_REMEMBERED = 10_000  # digests put_session knows it wrote; forgotten all at once past this

_CLEAR_LEASE = "lease_worker = NULL, lease_process = NULL, lease_expires = NULL"
_INSERT_ROUTE = "INSERT OR IGNORE INTO routes (key, priority) VALUES (?, ?)"
_INSERT_PAYLOAD = "INSERT INTO route_payloads (seq, data) VALUES (?, ?)"


def _encode(route: Route) -> str:
    return route.model_dump_json()


def _decode(data: str) -> Route:
    return Route.model_validate_json(data)


def _prioritised(route: Route, priority: float) -> Route:
    """The route with its priority now (raise_priority may have changed it since the push)."""
    return route if route.priority == priority else route.model_copy(update={"priority": priority})


class SqliteRouteStore:
    """A RouteStore in one SQLite file; safe to share between threads and processes."""

    def __init__(
        self,
        path: str | PathLike[str],
        *,
        max_attempts: int = 3,
        timeout_s: float = 30.0,
        clock: Callable[[], float] = time.time,
        process: str | None = None,
        recover: bool = True,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.max_attempts = max_attempts
        self._clock = clock
        self._process = process or current_identity()
        self._sessions_put: set[str] = set()  # digests this store has written (put_session)
        self._file = SqliteFile(path, "route store", timeout_s=timeout_s, cache_kib=32768)
        with self._write() as db:
            for statement in filter(str.strip, _SCHEMA.split(";\n")):
                db.execute(statement)
            db.execute("INSERT OR IGNORE INTO frontier_meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            (version,) = db.execute("SELECT value FROM frontier_meta WHERE name = 'schema'").fetchone()
        if version != SCHEMA_VERSION:
            raise StoreError(f"route store {path} has schema {version}, expected {SCHEMA_VERSION}")
        if recover:
            self.recover()

    # -- transactions --------------------------------------------------------------

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        return self._file.write()

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        return self._file.read(sql, args)

    @staticmethod
    def _bump(db: sqlite3.Connection, deltas: Counter[int]) -> None:
        changed = [(n, state) for state, n in deltas.items() if n]
        if changed:
            db.executemany("UPDATE route_counts SET n = n + ? WHERE state = ?", changed)

    # -- sessions ------------------------------------------------------------------

    def put_session(self, state: SessionState) -> str:
        digest = state.digest()
        if digest in self._sessions_put:  # a snapshot is never removed: no write transaction again
            return digest
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO sessions VALUES (?, ?)", (digest, state.model_dump_json()))
        if len(self._sessions_put) >= _SESSIONS_REMEMBERED:
            self._sessions_put.clear()
        self._sessions_put.add(digest)
        return digest

    def get_session(self, digest: str) -> SessionState:
        rows = self._read("SELECT data FROM sessions WHERE digest = ?", (digest,))
        if not rows:
            raise StoreError(f"no session with digest {digest!r}")
        return SessionState.model_validate_json(rows[0][0])

    # -- a link policy's state -----------------------------------------------------

    def put_state(self, name: str, value: str) -> None:
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO frontier_meta VALUES (?, ?)", (f"state:{name}", value))

    def get_state(self, name: str) -> str | None:
        rows = self._read("SELECT value FROM frontier_meta WHERE name = ?", (f"state:{name}",))
        return str(rows[0][0]) if rows else None

    # -- routes --------------------------------------------------------------------

    def push(self, routes: Iterable[Route]) -> int:
        batch = list(routes)
        if not batch:
            return 0
        added = 0
        with self._write() as db:
            for route in batch:
                cursor = db.execute(_INSERT_ROUTE, (route.key, route.priority))
                if cursor.rowcount:  # a new key: only now is it worth serialising
                    db.execute(_INSERT_PAYLOAD, (cursor.lastrowid, _encode(route)))
                    added += 1
            self._bump(db, Counter({QUEUED: added}))
        return added

    def lease(self, n: int, worker: str, ttl_s: float) -> list[Lease]:
        if n <= 0:
            return []
        now = self._clock()
        expires = now + ttl_s
        with self._write() as db:
            self._requeue_due(db, now)
            rows = db.execute(
                "UPDATE routes SET state = 1, lease_no = lease_no + 1,"
                " lease_worker = ?, lease_process = ?, lease_expires = ?"
                " WHERE seq IN (SELECT seq FROM routes WHERE state = 0 ORDER BY priority DESC, seq LIMIT ?)"
                " RETURNING seq, lease_no, attempts, priority",
                (worker, self._process, expires, n),
            ).fetchall()
            self._bump(db, Counter({QUEUED: -len(rows), LEASED: len(rows)}))
        rows.sort(key=lambda r: (-r[3], r[0]))  # RETURNING has no defined order
        payloads = self._payloads([seq for seq, *_ in rows])  # immutable: read after commit
        return [Lease(_prioritised(payloads[seq], priority), seq, token, tries + 1, worker, expires)
                for seq, token, tries, priority in rows]

    def _payloads(self, seqs: list[int]) -> dict[int, Route]:
        found: dict[int, Route] = {}
        for start in range(0, len(seqs), 500):  # stay under SQLite's bound-parameter limit
            chunk = seqs[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._read(f"SELECT seq, data FROM route_payloads WHERE seq IN ({marks})", tuple(chunk))
            found.update((seq, _decode(data)) for seq, data in rows)
        return found

    def _requeue_due(self, db: sqlite3.Connection, now: float) -> int:
        """Make due delayed routes ready and expire overdue leases (an expiry is an attempt)."""
        moved: Counter[int] = Counter()
        promote = "UPDATE routes SET state = 0 WHERE state = 4 AND not_before <= ?"
        promoted = db.execute(promote, (now,)).rowcount
        moved.update({DELAYED: -promoted, QUEUED: promoted})
        expired = db.execute(
            f"UPDATE routes SET state = CASE WHEN attempts + 1 >= ? THEN {FAILED} ELSE {QUEUED} END,"
            " attempts = attempts + 1, reason = 'lease expired', " + _CLEAR_LEASE +
            " WHERE state = 1 AND lease_expires <= ? RETURNING state",
            (self.max_attempts, now),
        ).fetchall()  # fmt: skip
        moved[LEASED] -= len(expired)
        moved.update(state for (state,) in expired)
        self._bump(db, moved)
        return len(expired)

    def _settle(self, lease: Lease, assignments: str, args: tuple[Any, ...]) -> RouteState | None:
        """Apply one ack (SET ``assignments``) if ``lease`` is still the route's current
        lease and the route is unfinished; the new state comes back by RETURNING."""
        with self._write() as db:
            # Nearly always the route is still leased; an expired lease that was not
            # re-leased (queued or delayed, same token) may still report its outcome.
            for old in (LEASED, QUEUED, DELAYED):
                row = db.execute(
                    f"UPDATE routes SET {assignments}, {_CLEAR_LEASE}"
                    f" WHERE seq = ? AND lease_no = ? AND state = {old} RETURNING state",
                    (*args, lease.id, lease.token),
                ).fetchone()
                if row is not None:
                    moved: Counter[int] = Counter()
                    moved[old] -= 1
                    moved[row[0]] += 1
                    self._bump(db, moved)
                    return _PUBLIC[row[0]]
        return None  # stale: re-leased since, or already finished

    def ack_done(self, lease: Lease) -> RouteState | None:
        return self._settle(lease, f"state = {DONE}", ())

    def ack_failed(
        self, lease: Lease, reason: str, *, retry: bool, backoff_s: float = 0.0
    ) -> RouteState | None:
        requeue, not_before = self._requeued(backoff_s)
        # Right-hand sides of an UPDATE all see the row as it was: attempts is the old count.
        return self._settle(
            lease,
            f"state = CASE WHEN ? AND attempts + 1 < ? THEN ? ELSE {FAILED} END,"
            " attempts = attempts + 1, not_before = ?, reason = ?",
            (retry, self.max_attempts, requeue, not_before, reason),
        )

    def release(self, lease: Lease, delay_s: float = 0.0) -> RouteState | None:
        return self._settle(lease, "state = ?, not_before = ?", self._requeued(delay_s))

    def _requeued(self, delay_s: float) -> tuple[int, float]:
        if delay_s > 0:
            return DELAYED, self._clock() + delay_s
        return QUEUED, 0.0

    def expire(self) -> int:
        with self._write() as db:
            return self._requeue_due(db, self._clock())

    def reset_leases(self, worker: str | None = None) -> int:
        """Requeue, without counting an attempt, the leases of ``worker`` or, if None,
        every lease this process holds (say, on a clean shutdown)."""
        if worker is not None:
            return self._requeue_leases("lease_worker = ?", worker)
        return self._requeue_leases("lease_process = ?", self._process)

    def recover(self) -> int:
        owners = self._read("SELECT DISTINCT lease_process FROM routes WHERE state = 1")
        dead = [owner for (owner,) in owners if owner and owner != self._process and is_dead(owner)]
        return sum(self._requeue_leases("lease_process = ?", owner) for owner in dead)

    def _requeue_leases(self, where: str, arg: str) -> int:
        with self._write() as db:
            count = db.execute(
                f"UPDATE routes SET state = 0, {_CLEAR_LEASE} WHERE state = 1 AND {where}", (arg,)
            ).rowcount
            self._bump(db, Counter({LEASED: -count, QUEUED: count}))
        return count

    # -- reading -------------------------------------------------------------------

    def counts(self) -> dict[RouteState, int]:
        result = dict.fromkeys(RouteState, 0)
        for state, n in self._read("SELECT state, n FROM route_counts"):
            result[_PUBLIC[state]] += n
        return result

    def failures(self) -> dict[str, int]:
        rows = self._read("SELECT reason, count(*) FROM routes WHERE state = 3 GROUP BY reason")
        return {reason or "": n for reason, n in rows}

    def pending(self) -> int:
        rows = self._read(f"SELECT sum(n) FROM route_counts WHERE state IN ({QUEUED}, {LEASED}, {DELAYED})")
        return int(rows[0][0] or 0)

    def seen(self, key: str) -> bool:
        return bool(self._read("SELECT 1 FROM routes WHERE key = ?", (key,)))

    def get(self, key: str) -> RouteRecord | None:
        rows = self._read(
            "SELECT data, state, attempts, not_before, reason"
            " FROM routes JOIN route_payloads USING (seq) WHERE key = ?",
            (key,),
        )
        if not rows:
            return None
        data, state, attempts, not_before, reason = rows[0]
        return RouteRecord(_decode(data), _PUBLIC[state], attempts, not_before, reason)

    def raise_priority(self, keys: Iterable[str], priority: float) -> int:
        batch = [(priority, key, priority) for key in keys]
        if not batch:
            return 0
        with self._write() as db:
            before = db.total_changes
            db.executemany(f"UPDATE routes SET priority = ? WHERE key = ? AND state IN ({QUEUED}, {DELAYED})"
                           " AND priority < ?", batch)
            return db.total_changes - before

    def claim_page(self, identity: str, key: str) -> bool:
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO pages_reached VALUES (?, ?)", (identity, key))
            row = db.execute("SELECT route_key FROM pages_reached WHERE identity = ?", (identity,))
            (owner,) = row.fetchone()
        return bool(owner == key)

    def know_forms(self, identities: Iterable[str]) -> None:
        batch = [(identity,) for identity in identities]
        if batch:
            with self._write() as db:
                db.executemany("INSERT OR IGNORE INTO forms_known VALUES (?)", batch)

    def known_forms(self, identities: Iterable[str]) -> set[str]:
        asked = list(dict.fromkeys(identities))
        known: set[str] = set()
        for start in range(0, len(asked), 500):  # stay under SQLite's bound-parameter limit
            chunk = asked[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._read(f"SELECT identity FROM forms_known WHERE identity IN ({marks})", tuple(chunk))
            known.update(identity for (identity,) in rows)
        return known

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> SqliteRouteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
