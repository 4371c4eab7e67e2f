"""The shared frontier: routes in a PostgreSQL database that workers on several machines lease from.

The same tables as the SQLite frontier (``deepbot.frontier.sqlite``), and the same row
states, with what PostgreSQL changes:

- a lease picks its rows ``FOR UPDATE SKIP LOCKED``: concurrent workers never wait for
  each other's rows and never get the same route; priority order holds per lease, and
  across workers up to the rows another worker holds at that moment;
- expired leases and due delayed routes are moved by whichever worker leases next, again
  skipping rows another transaction holds;
- the hot table ``routes`` holds the routes not done, without their keys: every key is in
  ``route_keys``, written once at push (the dedupe), and an ack of a route done deletes its
  row, so a lease adds entries to two indexes and an ack to none (an update, as in schema
  version 1, adds a new row version with an entry in every index, the key's B-tree too);
- ``route_counts`` is sharded by connection (``pg_backend_pid() % 64``), a row per shard with
  a column per state: one counter row would be a lock every lease and ack of every worker
  waits for; counts() sums at most 64 rows; a statement that moves routes moves their
  counters too (one row), so no counter lock outlives it;
- a lease is one statement (``deepbot_lease()``: due routes requeued, then a batch leased),
  an ack one statement: one round trip each, and no transaction outlives its statement;
- times are the workers' wall clocks (``time.time()``), as in SQLite: machines sharing a
  frontier need synchronised clocks (NTP), as leases expire by them.

Every operation is one transaction, run again by ``PostgresDatabase.run`` when the
database is out of reach; each is safe to run twice (a push of known keys adds nothing, an
ack with a stale token changes nothing, a lease whose answer was lost expires by its TTL).
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from deepbot.errors import StoreError
from deepbot.frontier.base import Lease, RouteRecord, RouteState
from deepbot.frontier.process import current_identity, is_dead

# The row states and helpers of the SQLite frontier: the two share one design.
from deepbot.frontier.sqlite import (
    _CLEAR_LEASE,
    _PUBLIC,
    _SESSIONS_REMEMBERED,
    DELAYED,
    DONE,
    FAILED,
    LEASED,
    QUEUED,
    _prioritised,
)
from deepbot.routes import Route, SessionState
from deepbot.store.postgresdb import OnDatabase, PostgresDatabase

if TYPE_CHECKING:
    import psycopg

    Conn = psycopg.Connection[tuple[Any, ...]]

# Version 2 (v1 kept the key and the done routes in the hot table: see _MIGRATE_1_TO_2). host_slots
# came later within version 1: _SCHEMA's statements, which every start runs, make it.
SCHEMA_VERSION = 2

_SHARDS = 64

# The per-state columns of a route_counts row, in state order.
_COUNTED = ((QUEUED, "queued"), (LEASED, "leased"), (DONE, "done"), (FAILED, "failed"), (DELAYED, "delayed"))

_ROUTE_KEYS = """CREATE TABLE IF NOT EXISTS route_keys (
        key TEXT PRIMARY KEY, seq BIGINT NOT NULL DEFAULT nextval('route_seq'))"""
_ROUTES_DONE = """CREATE TABLE IF NOT EXISTS routes_done (
        seq BIGINT PRIMARY KEY, attempts INTEGER NOT NULL, not_before DOUBLE PRECISION NOT NULL,
        reason TEXT)"""
_ROUTE_COUNTS = ("CREATE TABLE IF NOT EXISTS route_counts (shard INTEGER PRIMARY KEY, "
    + ", ".join(f"{name} BIGINT NOT NULL DEFAULT 0" for _, name in _COUNTED) + ")")

_SCHEMA = (
    # Every key ever pushed, written once: a push of a known key adds nothing (the dedupe), and
    # the hot table's row versions (a lease, an ack) add no entry to a text B-tree.
    "CREATE SEQUENCE IF NOT EXISTS route_seq",  # insertion order: FIFO among equal priorities
    _ROUTE_KEYS,
    # The routes not done: a done route is deleted (a deleted row adds no index entries, an
    # updated one a new entry in every index) and known by its key and payload.
    """CREATE TABLE IF NOT EXISTS routes (
        seq BIGINT PRIMARY KEY,
        state INTEGER NOT NULL DEFAULT 0,
        priority DOUBLE PRECISION NOT NULL,
        not_before DOUBLE PRECISION NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        lease_no INTEGER NOT NULL DEFAULT 0,  -- the current lease's token
        lease_worker TEXT,
        lease_process TEXT,
        lease_expires DOUBLE PRECISION,
        reason TEXT
    )""",
    # What a done route keeps of its row when it is not the pushed route's (attempts 0,
    # not_before 0, no reason): written only for a route that was retried or delayed.
    _ROUTES_DONE,
    # The Route as JSON, written once: the hot rows above stay narrow, so the new row
    # version each lease writes (MVCC) is small.
    "CREATE TABLE IF NOT EXISTS route_payloads (seq BIGINT PRIMARY KEY, data TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS routes_ready ON routes (priority DESC, seq) WHERE state = 0",
    "CREATE INDEX IF NOT EXISTS routes_leased ON routes (lease_expires) WHERE state = 1",
    "CREATE INDEX IF NOT EXISTS routes_delayed ON routes (not_before) WHERE state = 4",
    "CREATE INDEX IF NOT EXISTS routes_failed ON routes (reason) WHERE state = 3",
    # A shard's counts of every state in one row: a statement that moves routes bumps one row.
    _ROUTE_COUNTS,
    # Every route and its state, as v1's routes table had them: for an operator's own queries.
    f"""CREATE OR REPLACE VIEW route_states AS SELECT k.seq, k.key, coalesce(r.state, {DONE}) AS state,
        coalesce(r.priority, 0) AS priority, coalesce(r.not_before, d.not_before, 0) AS not_before,
        coalesce(r.attempts, d.attempts, 0) AS attempts, r.lease_no, r.lease_worker, r.lease_process,
        r.lease_expires, CASE WHEN r.seq IS NULL THEN d.reason ELSE r.reason END AS reason
        FROM route_keys k LEFT JOIN routes r USING (seq) LEFT JOIN routes_done d USING (seq)""",
    "CREATE TABLE IF NOT EXISTS sessions (digest TEXT PRIMARY KEY, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS pages_reached (identity TEXT PRIMARY KEY, route_key TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS forms_known (identity TEXT PRIMARY KEY)",
    # The worker registry (`deepbot status`): one row per process that worked on the crawl.
    """CREATE TABLE IF NOT EXISTS workers (
        identity TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL,
        started DOUBLE PRECISION NOT NULL, last_seen DOUBLE PRECISION NOT NULL,
        routes_done BIGINT NOT NULL DEFAULT 0, state TEXT NOT NULL)""",
    # Politeness over every worker: when each host may be asked next (HostTurns).
    "CREATE TABLE IF NOT EXISTS host_turns (host TEXT PRIMARY KEY, next_at DOUBLE PRECISION NOT NULL)",
    # ... and its per_host_concurrency slots: a free slot has no holder, or one whose time is up.
    """CREATE TABLE IF NOT EXISTS host_slots (
        host TEXT NOT NULL, slot INTEGER NOT NULL, holder TEXT, expires DOUBLE PRECISION NOT NULL DEFAULT 0,
        PRIMARY KEY (host, slot))""",
)

# Version 1 to 2, in the transaction and under the advisory lock of ensure_schema, before
# _SCHEMA's statements make the new tables: the keys out of routes (into route_keys, with the
# sequence that numbered them), the done routes out of it (what _ACK_DONE would have kept,
# kept), and the counters recounted from the rows into one row of the new shape.
_MIGRATE_1_TO_2 = (
    "CREATE SEQUENCE route_seq",
    "SELECT setval('route_seq', last_value, is_called) FROM routes_seq_seq",
    _ROUTE_KEYS,
    "INSERT INTO route_keys (key, seq) SELECT key, seq FROM routes",
    _ROUTES_DONE,
    f"INSERT INTO routes_done SELECT seq, attempts, not_before, reason FROM routes WHERE state = {DONE}"
    " AND (attempts <> 0 OR not_before <> 0 OR reason IS NOT NULL)",
    "DROP TABLE route_counts",
    _ROUTE_COUNTS,
    "INSERT INTO route_counts SELECT 0, "
    + ", ".join(f"count(*) FILTER (WHERE state = {state})" for state, _ in _COUNTED) + " FROM routes",
    f"DELETE FROM routes WHERE state = {DONE}",
    "ALTER TABLE routes DROP COLUMN key, ALTER COLUMN seq DROP DEFAULT",
    "DROP SEQUENCE routes_seq_seq",
)

# A free slot of the host taken, skipping one another worker is taking: one statement, so one
# round trip and no transaction of its own.
_TAKE_SLOT = (
    "UPDATE host_slots h SET holder = %(holder)s, expires = %(expires)s FROM ("
    " SELECT slot FROM host_slots WHERE host = %(host)s AND slot < %(limit)s"
    "  AND (holder IS NULL OR expires <= %(now)s) ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED) AS free"
    " WHERE h.host = %(host)s AND h.slot = free.slot RETURNING h.slot"
)


@dataclass(frozen=True, slots=True)
class WorkerRecord:
    """One process of a shared crawl, as it last reported itself."""

    host: str
    pid: int
    routes_done: int  # routes this process acknowledged done
    started: float  # wall-clock seconds
    last_seen: float
    state: str  # "working", "stopped" (SIGTERM, Ctrl-C) or "finished"




_UPSERT_COUNTS = (
    "INSERT INTO route_counts AS c (shard, " + ", ".join(name for _, name in _COUNTED) + ")"
    " SELECT pg_backend_pid() %% " + str(_SHARDS) + ", {sums} {source}"
    " ON CONFLICT (shard) DO UPDATE SET "
    + ", ".join(f"{name} = c.{name} + excluded.{name}" for _, name in _COUNTED)
)


def _bump(conn: Conn, deltas: Counter[int]) -> None:
    """Move the per-state counters of this connection's shard: one row."""
    if any(deltas.values()):
        conn.execute(_UPSERT_COUNTS.format(sums=", ".join("%s" for _ in _COUNTED), source=""),
                     [deltas[state] for state, _ in _COUNTED])


# Counters moved in the statement that moves the rows: ``moved(s, d)`` is a CTE of the
# statement, d routes into (or, negative, out of) state s; one counter row, none when nothing moved.
_BUMP = " bumped AS (" + _UPSERT_COUNTS.format(
    sums=", ".join(f"coalesce(sum(d) FILTER (WHERE s = {state}), 0)" for state, _ in _COUNTED),
    source="FROM moved HAVING count(*) > 0") + ")"

# Due delayed routes made ready, and overdue leases expired (an expiry is an attempt); rows
# another transaction holds are left to it. Returns how many leases expired.
_REQUEUE_DUE = (
    f"WITH promoted AS (UPDATE routes SET state = {QUEUED} WHERE seq IN ("
    f"   SELECT seq FROM routes WHERE state = {DELAYED} AND not_before <= %(now)s FOR UPDATE SKIP LOCKED)"
    "   RETURNING 1),"
    f" expired AS (UPDATE routes SET state = CASE WHEN attempts + 1 >= %(max)s THEN {FAILED}"
    f"   ELSE {QUEUED} END, attempts = attempts + 1, reason = 'lease expired', {_CLEAR_LEASE}"
    f"   WHERE seq IN (SELECT seq FROM routes WHERE state = {LEASED} AND lease_expires <= %(now)s"
    "   FOR UPDATE SKIP LOCKED) RETURNING state),"
    f" moved AS (SELECT {DELAYED} AS s, -1 AS d FROM promoted UNION ALL SELECT {QUEUED}, 1 FROM promoted"
    f"   UNION ALL SELECT {LEASED}, -1 FROM expired UNION ALL SELECT state, 1 FROM expired),"
    + _BUMP +
    " SELECT count(*) FROM expired"
)

# The batch lease: the best ready routes, skipping rows other workers are taking, through the
# partial index of ready routes in priority order (routes_ready), leased in the same statement.
_LEASE = (
    f"WITH picked AS (SELECT seq FROM routes WHERE state = {QUEUED} ORDER BY priority DESC, seq"
    "   LIMIT %(n)s FOR UPDATE SKIP LOCKED),"
    f" leased AS (UPDATE routes r SET state = {LEASED}, lease_no = r.lease_no + 1,"
    "   lease_worker = %(worker)s, lease_process = %(process)s, lease_expires = %(expires)s"
    "   FROM picked WHERE r.seq = picked.seq RETURNING r.seq, r.lease_no, r.attempts, r.priority),"
    f" moved AS (SELECT {QUEUED} AS s, -1 AS d FROM leased UNION ALL SELECT {LEASED}, 1 FROM leased),"
    + _BUMP +
    " SELECT l.seq, l.lease_no, l.attempts, l.priority, p.data"
    " FROM leased l JOIN route_payloads p USING (seq)"
)


# A route done: its row deleted if the lease is still its current one and the route is
# unfinished (leased, or expired and not leased again), as _settle moves one; what the row held
# beyond the pushed route's defaults kept in routes_done; its counters moved. One statement.
_ACK_DONE = (
    "WITH gone AS (DELETE FROM routes WHERE seq = %(id)s AND lease_no = %(token)s"
    f"  AND state IN ({LEASED}, {QUEUED}, {DELAYED}) RETURNING seq, state, attempts, not_before, reason),"
    " kept AS (INSERT INTO routes_done SELECT seq, attempts, not_before, reason FROM gone"
    "  WHERE attempts <> 0 OR not_before <> 0 OR reason IS NOT NULL),"
    f" moved AS (SELECT state AS s, -1 AS d FROM gone UNION ALL SELECT {DONE}, 1 FROM gone),"
    + _BUMP +
    " SELECT 1 FROM gone"
)


def _in_function(sql: str) -> str:
    """A statement of this module with its parameters named as deepbot_lease's arguments."""
    for name in ("now", "max", "n", "worker", "process", "expires"):
        sql = sql.replace(f"%({name})s", f"p_{name}")
    return sql.replace("%%", "%")


# A lease in one statement, so one round trip and one short transaction: due routes made ready,
# then the batch leased (each with a snapshot of its own, so the routes just made ready are
# seen). Two statements sent together instead (a pipeline) are one transaction until the client
# sends its end: a client short of CPU then holds the rows and counters it took meanwhile.
_LEASE_FUNCTION = (
    "CREATE OR REPLACE FUNCTION deepbot_lease(p_n integer, p_worker text, p_process text,"
    " p_now double precision, p_expires double precision, p_max integer)"
    " RETURNS TABLE (r_seq bigint, r_token integer, r_tries integer, r_priority double precision,"
    " r_data text) LANGUAGE plpgsql AS $body$ DECLARE n_expired bigint; BEGIN "
    + _in_function(_REQUEUE_DUE).replace(" SELECT count(*) FROM", " SELECT count(*) INTO n_expired FROM")
    + "; RETURN QUERY " + _in_function(_LEASE) + "; END $body$"
)


class PostgresRouteStore(OnDatabase):
    """A RouteStore in a PostgreSQL database, shared by worker processes on any machine."""

    def __init__(self, url: str, *, max_attempts: int = 3, clock: Callable[[], float] = time.time,
                 process: str | None = None, recover: bool = True, pool_size: int = 8,
                 reconnect_s: float = 300.0) -> None:
        """The options of SqliteRouteStore, and the pool's size and how long an operation
        waits for a database out of reach (``reconnect_s``) before it is a StoreError."""
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.url, self.max_attempts, self._clock = url, max_attempts, clock
        self._process = process or current_identity()  # whose leases recover() may hand back
        self._sessions_put: set[str] = set()  # digests written: put_session skips a round trip
        self._started = clock()
        self.routes_done = 0  # by this process: the worker registry shows it
        self._db = PostgresDatabase(url, "route store", max_size=pool_size, reconnect_s=reconnect_s)
        self._db.ensure_schema("frontier_meta", SCHEMA_VERSION, (*_SCHEMA, _LEASE_FUNCTION),
                               {1: _MIGRATE_1_TO_2})
        self._slots_taken = itertools.count(1)  # a token per slot taken: a retried take frees with it
        if recover:
            self.recover()

    # -- sessions and a link policy's state ------------------------------------------

    def put_session(self, state: SessionState) -> str:
        digest = state.digest()
        if digest in self._sessions_put:
            return digest
        data = state.model_dump_json()
        self._db.run(lambda conn: conn.execute(
            "INSERT INTO sessions VALUES (%s, %s) ON CONFLICT DO NOTHING", (digest, data)), atomic=False)
        if len(self._sessions_put) >= _SESSIONS_REMEMBERED:
            self._sessions_put.clear()
        self._sessions_put.add(digest)
        return digest

    def get_session(self, digest: str) -> SessionState:
        rows = self._db.read("SELECT data FROM sessions WHERE digest = %s", (digest,))
        if not rows:
            raise StoreError(f"no session with digest {digest!r}")
        return SessionState.model_validate_json(rows[0][0])

    def put_state(self, name: str, value: str) -> None:
        self._db.run(lambda conn: conn.execute(
            "INSERT INTO frontier_meta VALUES (%s, %s)"
            " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            (f"state:{name}", value)), atomic=False)

    def get_state(self, name: str) -> str | None:
        rows = self._db.read("SELECT value FROM frontier_meta WHERE name = %s", (f"state:{name}",))
        return str(rows[0][0]) if rows else None

    # -- routes ----------------------------------------------------------------------

    def push(self, routes: Iterable[Route]) -> int:
        first: dict[str, Route] = {}
        for route in routes:
            first.setdefault(route.key, route)  # the first of a key in the batch is the one queued
        batch = list(first.values())
        if not batch:
            return 0

        def insert(conn: Conn) -> int:
            new = conn.execute(
                "INSERT INTO route_keys (key) SELECT key FROM unnest(%s::text[]) WITH ORDINALITY AS t(key, i)"
                " ORDER BY i ON CONFLICT (key) DO NOTHING RETURNING seq, key",
                ([r.key for r in batch],),
            ).fetchall()
            if new:
                by_key = {r.key: r for r in batch}
                # The rows, their payloads and the counters in one statement: one round trip.
                conn.execute(
                    "WITH t AS (SELECT * FROM unnest(%s::bigint[], %s::float8[], %s::text[])"
                    "  AS t(seq, priority, data)),"
                    " queued AS (INSERT INTO routes (seq, priority) SELECT seq, priority FROM t),"
                    " stored AS (INSERT INTO route_payloads SELECT seq, data FROM t)"
                    + " " + _UPSERT_COUNTS.format(
                        sums=", ".join("%s" if state == QUEUED else "0" for state, _ in _COUNTED), source=""),
                    ([seq for seq, _ in new], [by_key[key].priority for _, key in new],
                     [by_key[key].model_dump_json() for _, key in new], len(new)),
                )
            return len(new)

        return self._db.run(insert)

    def lease(self, n: int, worker: str, ttl_s: float) -> list[Lease]:
        if n <= 0:
            return []
        now = self._clock()
        expires = now + ttl_s
        rows = self._db.read("SELECT * FROM deepbot_lease(%s, %s, %s, %s, %s, %s)",
                             (n, worker, self._process, now, expires, self.max_attempts))
        rows.sort(key=lambda r: (-r[3], r[0]))  # RETURNING has no defined order
        return [Lease(_prioritised(Route.model_validate_json(data), priority), seq, token, tries + 1, worker,
                      expires) for seq, token, tries, priority, data in rows]

    def _settle(self, lease: Lease, *, state: int, tried: bool = False, delay_s: float | None = None,
                reason: str | None = None) -> RouteState | None:
        """Move the route of ``lease`` to ``state`` if the lease is still its current one and the
        route is unfinished (leased, or expired and not leased again). ``tried`` counts an
        attempt, and a route out of attempts fails instead; ``delay_s`` sets when it is ready."""
        if state == QUEUED and delay_s:
            state = DELAYED
        not_before = None if delay_s is None else (self._clock() + delay_s if delay_s > 0 else 0.0)
        params = {"id": lease.id, "token": lease.token, "state": state, "tried": int(tried),
                  "max": self.max_attempts, "reason": reason, "not_before": not_before}

        def settle(conn: Conn) -> int | None:
            # One statement, so one round trip: the route, then the counters it moved.
            row = conn.execute(
                f"WITH old AS (SELECT seq AS old_seq, state AS old_state FROM routes WHERE seq = %(id)s"
                f"  AND lease_no = %(token)s AND state IN ({LEASED}, {QUEUED}, {DELAYED}) FOR UPDATE),"
                " settled AS (UPDATE routes SET attempts = attempts + %(tried)s,"
                f"  state = CASE WHEN %(tried)s = 1 AND attempts + 1 >= %(max)s THEN {FAILED}"
                "  ELSE %(state)s END,"
                "  not_before = coalesce(%(not_before)s, not_before), reason = coalesce(%(reason)s, reason),"
                f"  {_CLEAR_LEASE} FROM old WHERE seq = old_seq RETURNING old_state, state),"
                " moved AS (SELECT old_state AS s, -1 AS d FROM settled"
                "  UNION ALL SELECT state, 1 FROM settled),"
                + _BUMP +
                " SELECT old_state, state FROM settled",
                params,
            ).fetchone()
            return None if row is None else int(row[1])

        settled = self._db.run(settle, atomic=False)
        return None if settled is None else _PUBLIC[settled]

    def ack_done(self, lease: Lease) -> RouteState | None:
        params = {"id": lease.id, "token": lease.token}
        row = self._db.run(lambda conn: conn.execute(_ACK_DONE, params).fetchone(), atomic=False)
        if row is None:
            return None
        self.routes_done += 1
        return RouteState.DONE

    def ack_failed(
        self, lease: Lease, reason: str, *, retry: bool, backoff_s: float = 0.0
    ) -> RouteState | None:
        return self._settle(lease, state=QUEUED if retry else FAILED, tried=True, delay_s=backoff_s,
                            reason=reason)

    def release(self, lease: Lease, delay_s: float = 0.0) -> RouteState | None:
        return self._settle(lease, state=QUEUED, delay_s=delay_s)

    def expire(self) -> int:
        row = self._db.run(lambda conn: conn.execute(
            _REQUEUE_DUE, {"now": self._clock(), "max": self.max_attempts}).fetchone(), atomic=False)
        return int(row[0]) if row else 0

    def reset_leases(self, worker: str | None = None) -> int:
        if worker is not None:
            return self._requeue_leases("lease_worker", worker)
        return self._requeue_leases("lease_process", self._process)

    def recover(self) -> int:
        owners = self._db.read("SELECT DISTINCT lease_process FROM routes WHERE state = 1")
        dead = [owner for (owner,) in owners if owner and owner != self._process and is_dead(owner)]
        holders = self._db.read("SELECT DISTINCT split_part(holder, '#', 1) FROM host_slots"
                                " WHERE holder IS NOT NULL")
        gone = [owner for (owner,) in holders if owner != self._process and is_dead(owner)]
        if gone:  # host slots of a dead process on this machine: free now, not at their expiry
            self._db.run(lambda conn: conn.execute(
                "UPDATE host_slots SET holder = NULL, expires = 0 WHERE split_part(holder, '#', 1) = ANY(%s)",
                (gone,)), atomic=False)
        return sum(self._requeue_leases("lease_process", owner) for owner in dead)

    def _requeue_leases(self, column: str, value: str) -> int:
        def run(conn: Conn) -> int:
            count = conn.execute(
                f"UPDATE routes SET state = 0, {_CLEAR_LEASE} WHERE state = 1 AND {column} = %s", (value,)
            ).rowcount
            _bump(conn, Counter({LEASED: -count, QUEUED: count}))
            return count

        return self._db.run(run)

    # -- politeness over every worker (crawl.politeness.HostTurns) -------------------

    def take_turn(self, host: str, spacing: float) -> float:
        def take(conn: Conn) -> float:
            conn.execute("INSERT INTO host_turns VALUES (%s, 0) ON CONFLICT DO NOTHING", (host,))
            # The row lock orders the workers asking for one host: one turn each, spaced.
            row = conn.execute("SELECT next_at FROM host_turns WHERE host = %s FOR UPDATE",
                               (host,)).fetchone()
            now = self._clock()
            if row is not None and row[0] > now:
                return float(row[0]) - now
            conn.execute("UPDATE host_turns SET next_at = %s WHERE host = %s", (now + spacing, host))
            return 0.0

        return self._db.run(take)

    def pause_host(self, host: str, seconds: float) -> None:
        until = self._clock() + seconds
        self._db.run(lambda conn: conn.execute(
            "INSERT INTO host_turns VALUES (%s, %s) ON CONFLICT (host)"
            " DO UPDATE SET next_at = greatest(host_turns.next_at, excluded.next_at)", (host, until)),
            atomic=False)

    def take_slot(self, host: str, limit: int, ttl: float) -> str | None:
        holder = f"{self._process}#{next(self._slots_taken)}"
        now = self._clock()
        asked = {"host": host, "limit": limit, "holder": holder, "now": now, "expires": now + ttl}

        def take(conn: Conn) -> bool:
            if conn.execute(_TAKE_SLOT, asked).fetchone() is not None:
                return True
            # The host's first visit, or a larger limit: its slot rows made, then asked again.
            made = conn.execute("INSERT INTO host_slots (host, slot) SELECT %s, generate_series(0, %s - 1)"
                                " ON CONFLICT DO NOTHING", (host, limit)).rowcount
            return made > 0 and conn.execute(_TAKE_SLOT, asked).fetchone() is not None

        # Each statement is its own transaction: a retried take holds two slots under one token
        # at most, and free_slot gives both back.
        return holder if self._db.run(take, atomic=False) else None

    def free_slot(self, host: str, holder: str) -> None:
        self._db.run(lambda conn: conn.execute(
            "UPDATE host_slots SET holder = NULL, expires = 0 WHERE host = %s AND holder = %s",
            (host, holder)), atomic=False)

    # -- the worker registry ---------------------------------------------------------

    def report_worker(self, state: str) -> None:
        """Record this process in the registry: alive now, how many routes it has done."""
        host, pid, _ = self._process.rsplit(":", 2)
        self._db.run(lambda conn: conn.execute(
            "INSERT INTO workers VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (identity) DO UPDATE"
            " SET last_seen = excluded.last_seen, routes_done = excluded.routes_done, state = excluded.state",
            (self._process, host, int(pid), self._started, self._clock(), self.routes_done, state)),
            atomic=False)

    def workers(self) -> list[WorkerRecord]:
        """Every process that reported itself, most recently seen first."""
        rows = self._db.read("SELECT host, pid, routes_done, started, last_seen, state FROM workers"
                             " ORDER BY last_seen DESC, host, pid")
        return [WorkerRecord(*row) for row in rows]

    # -- reading ---------------------------------------------------------------------

    def counts(self) -> dict[RouteState, int]:
        result = dict.fromkeys(RouteState, 0)
        sums = self._db.read(f"SELECT {', '.join(f'sum({name})' for _, name in _COUNTED)} FROM route_counts")
        for (state, _), n in zip(_COUNTED, sums[0], strict=True):
            result[_PUBLIC[state]] += int(n or 0)
        return result

    def failures(self) -> dict[str, int]:
        rows = self._db.read("SELECT reason, count(*) FROM routes WHERE state = 3 GROUP BY reason")
        return {reason or "": n for reason, n in rows}

    def pending(self) -> int:
        rows = self._db.read("SELECT sum(queued + leased + delayed) FROM route_counts")
        return int(rows[0][0] or 0)

    def seen(self, key: str) -> bool:
        return bool(self._db.read("SELECT 1 FROM route_keys WHERE key = %s", (key,)))

    def get(self, key: str) -> RouteRecord | None:
        # A known key without a row in routes is done (routes_done holds what its row kept).
        sql = (f"SELECT p.data, coalesce(r.state, {DONE}), coalesce(r.attempts, d.attempts, 0),"
               " coalesce(r.not_before, d.not_before, 0),"
               " CASE WHEN r.seq IS NULL THEN d.reason ELSE r.reason END"
               " FROM route_keys k JOIN route_payloads p USING (seq) LEFT JOIN routes r USING (seq)"
               " LEFT JOIN routes_done d USING (seq) WHERE k.key = %s")
        for data, state, attempts, not_before, reason in self._db.read(sql, (key,)):  # one row at most
            return RouteRecord(Route.model_validate_json(data), _PUBLIC[state], attempts, not_before, reason)
        return None

    def raise_priority(self, keys: Iterable[str], priority: float) -> int:
        batch = list(dict.fromkeys(keys))
        if not batch:
            return 0
        return self._db.run(lambda conn: conn.execute(
            "UPDATE routes SET priority = %s WHERE seq IN (SELECT seq FROM route_keys WHERE key = ANY(%s))"
            f" AND state IN ({QUEUED}, {DELAYED})"
            " AND priority < %s", (priority, batch, priority)).rowcount, atomic=False)

    def claim_page(self, identity: str, key: str) -> bool:
        def claim(conn: Conn) -> bool:
            conn.execute("INSERT INTO pages_reached VALUES (%s, %s) ON CONFLICT DO NOTHING", (identity, key))
            # A second statement: in READ COMMITTED it sees a claim another worker committed meanwhile.
            row = conn.execute(
                "SELECT route_key FROM pages_reached WHERE identity = %s", (identity,)).fetchone()
            return row is not None and row[0] == key

        return self._db.run(claim)

    def know_forms(self, identities: Iterable[str]) -> None:
        batch = sorted(set(identities))  # sorted: concurrent inserts take their row locks in one order
        if batch:
            self._db.run(lambda conn: conn.execute(
                "INSERT INTO forms_known SELECT unnest(%s::text[]) ON CONFLICT DO NOTHING", (batch,)),
                atomic=False)

    def known_forms(self, identities: Iterable[str]) -> set[str]:
        asked = list(dict.fromkeys(identities))
        if not asked:
            return set()
        rows = self._db.read("SELECT identity FROM forms_known WHERE identity = ANY(%s)", (asked,))
        return {identity for (identity,) in rows}
