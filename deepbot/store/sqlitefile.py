"""One SQLite file shared by the route store and the document store.

Each store holds one connection behind a lock (threads may share it), in WAL mode so
readers never block the writer, with ``synchronous=NORMAL``: in WAL a commit
survives a SIGKILL, and only a power cut can lose the last few (never corrupting
the file). sqlite3's errors become ``StoreError`` here and nowhere else.

A new store file is created 0600 (it holds sessions: cookies and tokens), and a file is
checked (``PRAGMA quick_check``) when first opened in a process: a damaged store is
refused with a clear error instead of being crawled into or half exported.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from os import PathLike, fspath
from typing import Any

from deepbot.errors import StoreError

_CHECKED: set[str] = set()  # files found sound by this process


def _create_private(path: str) -> None:
    """Create a new store file readable by its owner only (0600): it holds session cookies
    and tokens. SQLite gives its -wal and -shm files the same mode. An existing file keeps
    its mode (its owner chose it)."""
    if path == ":memory:" or path.startswith("file:"):
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    except OSError:
        return  # a directory that does not exist or cannot be written: sqlite3 says so below
    os.close(fd)


class SqliteFile:
    def __init__(self, path: str | PathLike[str], what: str, *, timeout_s: float = 30.0,
                 rows: bool = False, cache_kib: int = 0) -> None:
        self.path = fspath(path)
        self.what = what  # "route store", "document store": names it in errors
        self._lock = threading.Lock()
        _create_private(self.path)
        try:
            self._db = sqlite3.connect(self.path, timeout=timeout_s, isolation_level=None,
                                       check_same_thread=False)
            if rows:
                self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")  # also where a non-SQLite file is found out
            self._db.execute("PRAGMA synchronous=NORMAL")
            if cache_kib:
                self._db.execute(f"PRAGMA cache_size=-{int(cache_kib)}")
            self._check_once()
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {what} {self.path}: {exc}") from exc

    def _check_once(self) -> None:
        """A damaged file is refused when opened, before a crawl writes more into it or an
        export copies half of it: ``PRAGMA quick_check`` reads every page (about 1 s per GB),
        once per file per process (the route and document stores share the file)."""
        key = os.path.realpath(self.path)
        if key in _CHECKED or self.path == ":memory:":
            return
        problems = [str(row[0]) for row in self._db.execute("PRAGMA quick_check(1)").fetchall()]
        if problems != ["ok"]:
            self._db.close()
            said = " ".join(" ".join(problems).replace("*** in database main ***", "").split())[:200]
            raise StoreError(f"{self.what} {self.path} is damaged ({said}); "
                             "copy what can be read with `sqlite3 FILE .recover`, or start a new store")
        _CHECKED.add(key)

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
