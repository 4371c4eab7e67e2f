"""One SQLite file shared by the route store and the document store.

Each store holds one connection behind a lock (threads may share it), in WAL mode so
readers never block the writer, with ``synchronous=NORMAL``: in WAL a commit
survives a SIGKILL, and only a power cut can lose the last few (never corrupting
the file). sqlite3's errors become ``StoreError`` here and nowhere else.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from os import PathLike, fspath
from typing import Any

from deepbot.errors import StoreError


class SqliteFile:
    def __init__(self, path: str | PathLike[str], what: str, *, timeout_s: float = 30.0,
                 rows: bool = False, cache_kib: int = 0) -> None:
        self.path = fspath(path)
        self.what = what  # "route store", "document store": names it in errors
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, timeout=timeout_s, isolation_level=None,
                                       check_same_thread=False)
            if rows:
                self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")  # also where a non-SQLite file is found out
            self._db.execute("PRAGMA synchronous=NORMAL")
            if cache_kib:
                self._db.execute(f"PRAGMA cache_size=-{int(cache_kib)}")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {what} {self.path}: {exc}") from exc

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction."""
        with self._lock:
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")  # take the write lock now: no upgrade deadlocks
                try:
                    yield db
                except BaseException:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StoreError(f"{self.what} {self.path}: {exc}") from exc

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The connection for several reads in a row."""
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as exc:
                raise StoreError(f"{self.what} {self.path}: {exc}") from exc

    def read(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self.reading() as db:
            return db.execute(sql, args).fetchall()

    def close(self) -> None:
        with self._lock:
            self._db.close()
