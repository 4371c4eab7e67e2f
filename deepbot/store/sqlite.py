"""The embedded document store: documents and their full-text index in one SQLite file.

The file is shared with the route frontier (``deepbot.frontier.sqlite``), so every
name here starts with ``documents``: ``documents`` (one row per route key),
``documents_fts`` (an FTS5 index over title, summary, text and final URL, reading its
text from ``documents``), ``documents_meta`` (schema version), ``documents_visits`` (every
visit: when, and what it found) and ``documents_versions`` (earlier contents of changed
or gone documents). Triggers keep the index in step with every insert, update and
delete, inside the same transaction.

Schema 1 (before histories) is upgraded in place when opened: two columns and two tables
are added, nothing rewritten; its documents' first visit is the next one.

Same PRAGMAs as the frontier and for the same reasons: WAL (readers never block the
writer), ``synchronous=NORMAL`` (a commit survives a killed process), and a busy
timeout, since the frontier's connection writes to the same file.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterator
from contextlib import AbstractContextManager
from datetime import datetime
from os import PathLike, fspath
from pathlib import Path
from typing import Any

from deepbot.errors import StoreError
from deepbot.routes import Document, Via
from deepbot.store.base import Change, Hit, Version, Visit
from deepbot.store.fts import fts_query
from deepbot.store.history import Dialect, record_mark, record_upsert, visit_of, visits_query
from deepbot.store.history import parsed as _parsed
from deepbot.store.sqlitefile import SqliteFile

SCHEMA_VERSION = "2"
KEEP_VERSIONS = 3  # earlier versions kept per document, by default

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS documents_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
    """CREATE TABLE IF NOT EXISTS documents (
        seq INTEGER PRIMARY KEY,          -- first-stored order; the FTS rowid
        id TEXT NOT NULL UNIQUE,          -- doc_id(route_key)
        route_key TEXT NOT NULL UNIQUE,
        url TEXT NOT NULL,
        final_url TEXT NOT NULL,
        title TEXT NOT NULL,
        status INTEGER,
        content_type TEXT NOT NULL,
        text TEXT NOT NULL,
        summary TEXT NOT NULL,
        html BLOB,                        -- zlib of the UTF-8 DOM; NULL when there is none
        nseql TEXT NOT NULL,
        via TEXT NOT NULL,
        depth INTEGER NOT NULL,
        seed TEXT NOT NULL,
        domain TEXT,
        query TEXT,                       -- JSON object, for via=form
        form_url TEXT,
        size INTEGER NOT NULL,
        fetched_at TEXT NOT NULL,         -- ISO 8601 with UTC offset
        meta TEXT NOT NULL                -- JSON object
    )""",
    "CREATE INDEX IF NOT EXISTS documents_by_via ON documents (via)",
    # External content: the index stores no second copy of the text; snippet() reads it
    # from `documents`. Porter stemming so "books" finds "book".
    """CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts USING fts5(
        title, summary, text, final_url,
        content='documents', content_rowid='seq', tokenize='porter unicode61 remove_diacritics 2'
    )""",
    """CREATE TRIGGER IF NOT EXISTS documents_fts_ai AFTER INSERT ON documents BEGIN
        INSERT INTO documents_fts (rowid, title, summary, text, final_url)
        VALUES (new.seq, new.title, new.summary, new.text, new.final_url);
    END""",
    """CREATE TRIGGER IF NOT EXISTS documents_fts_ad AFTER DELETE ON documents BEGIN
        INSERT INTO documents_fts (documents_fts, rowid, title, summary, text, final_url)
        VALUES ('delete', old.seq, old.title, old.summary, old.text, old.final_url);
    END""",
    """CREATE TRIGGER IF NOT EXISTS documents_fts_au AFTER UPDATE ON documents BEGIN
        INSERT INTO documents_fts (documents_fts, rowid, title, summary, text, final_url)
        VALUES ('delete', old.seq, old.title, old.summary, old.text, old.final_url);
        INSERT INTO documents_fts (rowid, title, summary, text, final_url)
        VALUES (new.seq, new.title, new.summary, new.text, new.final_url);
    END""",
)

# Schema 1 → 2: the fingerprint of the stored content and when it was first seen, every
# visit, and the earlier versions. Run on a new store too (created as schema 1 above).
_MIGRATE_TO_2 = (
    "ALTER TABLE documents ADD COLUMN fingerprint TEXT",  # NULL: stored before; its text's is used
    "ALTER TABLE documents ADD COLUMN changed_at TEXT",  # NULL: fetched_at stands in
    """CREATE TABLE IF NOT EXISTS documents_visits (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL,
        url TEXT NOT NULL,
        at TEXT NOT NULL,                 -- UTC, fixed width: sorts as text
        change TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS documents_visits_by_id ON documents_visits (id, seq)",
    "CREATE INDEX IF NOT EXISTS documents_visits_by_at ON documents_visits (at)",
    """CREATE TABLE IF NOT EXISTS documents_versions (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL,
        title TEXT NOT NULL,
        text TEXT NOT NULL,
        html BLOB,
        fingerprint TEXT NOT NULL,
        seen_at TEXT NOT NULL,
        until TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS documents_versions_by_id ON documents_versions (id, seq)",
)

# The Last-Modified each visit's server sent (the change-rate estimator on last-modified
# dates reads it). A nullable column added where missing, not a schema version: a DeepBot
# that does not know it names its columns when it inserts, so it still reads and writes here.
_VISIT_LAST_MODIFIED = "ALTER TABLE documents_visits ADD COLUMN last_modified TEXT"  # fixed-width UTC

_FIELDS = (
    "id", "route_key", "url", "final_url", "title", "status", "content_type", "text", "summary", "html",
    "nseql", "via", "depth", "seed", "domain", "query", "form_url", "size", "fetched_at", "meta",
)  # fmt: skip
_UPSERT = (
    f"INSERT INTO documents ({', '.join(_FIELDS)}) VALUES ({', '.join('?' * len(_FIELDS))})"
    " ON CONFLICT (route_key) DO UPDATE SET "
    + ", ".join(f"{f} = excluded.{f}" for f in _FIELDS if f not in ("id", "route_key"))
)
_DIALECT = Dialect(param="?", lock="", upsert=_UPSERT)
# Column weights for bm25(), in index column order: a title match counts ten times a
# body match, so a page *about* the query outranks one that mentions it.
_WEIGHTS = (10.0, 2.0, 1.0, 2.0)
_TITLE_HITS = "length(marked_title) - length(replace(marked_title, char(2), ''))"  # marks in the title
_SNIPPET_TOKENS = 24
_MARK_OPEN, _MARK_CLOSE = "\x02", "\x03"  # control characters no page text carries


def _row(doc: Document) -> tuple[Any, ...]:
    return (
        doc.id, doc.route_key, doc.url, doc.final_url, doc.title, doc.status, doc.content_type, doc.text,
        doc.summary, zlib.compress(doc.html.encode()) if doc.html else None, doc.nseql, doc.via.value,
        doc.depth, doc.seed, doc.domain, None if doc.query is None else json.dumps(doc.query),
        doc.form_url, doc.size, doc.fetched_at.isoformat(), json.dumps(doc.meta.stored()),
    )  # fmt: skip


def _document(row: sqlite3.Row) -> Document:
    columns = row.keys()  # `in row` would search the values, not the column names
    data = {f: row[f] for f in _FIELDS if f not in ("id", "html") and f in columns}
    data["query"] = None if row["query"] is None else json.loads(row["query"])
    data["meta"] = json.loads(row["meta"])
    if "html" in columns and row["html"] is not None:
        data["html"] = zlib.decompress(row["html"]).decode()
    return Document.model_validate(data)


def _split_marks(marked: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``"a \\x02b\\x03 c"`` → ``("a b c", ((2, 3),))``."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    pos, start = 0, 0
    for ch in marked:
        if ch == _MARK_OPEN:
            start = pos
        elif ch == _MARK_CLOSE:
            spans.append((start, pos))
        else:
            out.append(ch)
            pos += 1
    return "".join(out), tuple(spans)


class SqliteDocumentStore:
    """A DocumentStore in one SQLite file; safe to share between threads and processes."""

    def __init__(self, path: str | PathLike[str], *, create: bool = True, timeout_s: float = 30.0,
                 keep_versions: int = KEEP_VERSIONS) -> None:
        name = fspath(path)
        if not create and name != ":memory:" and not Path(name).is_file():
            raise StoreError(f"no document store at {name}")
        if keep_versions < 0:
            raise ValueError(f"keep_versions must be ≥ 0, not {keep_versions}")
        self.path = name
        self.keep_versions = keep_versions
        self._file = SqliteFile(name, "document store", timeout_s=timeout_s, rows=True)
        with self._write() as db:
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute("INSERT OR IGNORE INTO documents_meta VALUES ('schema', '1')")  # new: migrated below
            (version,) = db.execute("SELECT value FROM documents_meta WHERE name = 'schema'").fetchone()
            if version == "1":
                for statement in _MIGRATE_TO_2:
                    db.execute(statement)
                db.execute("UPDATE documents_meta SET value = '2' WHERE name = 'schema'")
                version = "2"
            columns = {row[1] for row in db.execute("PRAGMA table_info(documents_visits)")}
            if "last_modified" not in columns:
                db.execute(_VISIT_LAST_MODIFIED)
        if version != SCHEMA_VERSION:
            raise StoreError(f"document store {name} has schema {version}, expected {SCHEMA_VERSION}")

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> SqliteDocumentStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions ---------------------------------------------------------------

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        return self._file.write()

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        return self._file.read(sql, args)

    # -- documents ------------------------------------------------------------------

    def upsert(self, doc: Document) -> bool:
        with self._write() as db:
            return record_upsert(db, _DIALECT, doc, _row(doc), keep=self.keep_versions)

    def mark(self, doc_id: str, change: Change, at: datetime) -> bool:
        with self._write() as db:
            return record_mark(db, _DIALECT, doc_id, change, at, keep=self.keep_versions)

    def visits(self, *, doc_id: str | None = None, since: datetime | None = None) -> Iterator[Visit]:
        for row in self._read(*visits_query(_DIALECT, doc_id, since)):
            yield visit_of(row["id"], row["url"], row["at"], row["change"], row["last_modified"])

    def versions(self, doc_id: str) -> list[Version]:
        rows = self._read("SELECT * FROM documents_versions WHERE id = ? ORDER BY seq DESC", (doc_id,))
        return [Version(doc_id=row["id"], title=row["title"], text=row["text"],
                        html=zlib.decompress(row["html"]).decode() if row["html"] is not None else "",
                        fingerprint=row["fingerprint"], seen_at=_parsed(row["seen_at"]),
                        until=_parsed(row["until"])) for row in rows]

    def get(self, doc_id: str) -> Document | None:
        rows = self._read("SELECT * FROM documents WHERE id = ?", (doc_id,))
        return _document(rows[0]) if rows else None

    def iter_documents(self, *, html: bool = True, batch: int = 200) -> Iterator[Document]:
        # Keyset pages, each read under the lock: no cursor stays open across yields,
        # so writers (other threads, the crawl) are never blocked by a slow consumer.
        columns = ", ".join(f for f in ("seq", *_FIELDS) if html or f != "html")
        after = 0
        while True:
            rows = self._read(
                f"SELECT {columns} FROM documents WHERE seq > ? ORDER BY seq LIMIT ?", (after, batch)
            )
            if not rows:
                return
            for row in rows:
                yield _document(row)
            after = rows[-1]["seq"]

    def count(self) -> int:
        return int(self._read("SELECT count(*) FROM documents")[0][0])

    def counts_by_via(self) -> dict[Via, int]:
        rows = self._read("SELECT via, count(*) FROM documents GROUP BY via ORDER BY via")
        return {Via(via): n for via, n in rows}

    # -- search ---------------------------------------------------------------------

    def search(self, query: str, limit: int = 10) -> list[Hit]:
        """Ranked by how many query tokens the title holds, then by BM25 over all columns.

        FTS5's BM25 saturates term frequency over the whole row, so a column weight
        alone cannot keep a page *about* the query (title match) above a short page
        that repeats the words in its body; the title count ranks first for that.
        """
        match = fts_query(query)
        if match is None or limit <= 0:
            return []
        weights = ", ".join(str(w) for w in _WEIGHTS)
        with self._file.reading() as db:
            top = db.execute(
                "SELECT rowid, bm25_rank, marked_title FROM ("
                "  SELECT rowid, bm25(documents_fts, " + weights + ") AS bm25_rank,"
                "  highlight(documents_fts, 0, char(2), char(3)) AS marked_title"
                "  FROM documents_fts WHERE documents_fts MATCH ?)"
                f" ORDER BY {_TITLE_HITS} DESC, bm25_rank"
                " LIMIT ?",
                (match, limit),
            ).fetchall()
            rows = {
                row["seq"]: row
                for row in db.execute(
                    "SELECT d.seq, d.id, d.title, d.final_url, d.via, d.domain, d.query, d.form_url,"
                    " d.summary, snippet(documents_fts, 2, char(2), char(3), '…', "
                    + str(_SNIPPET_TOKENS) + ") AS snip"
                    " FROM documents_fts JOIN documents d ON d.seq = documents_fts.rowid"
                    " WHERE documents_fts MATCH ?"
                    " AND documents_fts.rowid IN (SELECT value FROM json_each(?))",
                    (match, json.dumps([r["rowid"] for r in top])),
                )
            }
        return [self._hit(rows[r["rowid"]], r["marked_title"].count(_MARK_OPEN), r["bm25_rank"]) for r in top]

    @staticmethod
    def _hit(row: sqlite3.Row, title_hits: int, rank: float) -> Hit:
        snippet, highlights = _split_marks(row["snip"] or "")
        if not highlights and row["summary"]:
            snippet = row["summary"]  # matched in title or URL only: the summary says more
        return Hit(
            doc_id=row["id"],
            title=row["title"],
            url=row["final_url"],
            via=Via(row["via"]),
            domain=row["domain"],
            query=None if row["query"] is None else json.loads(row["query"]),
            form_url=row["form_url"],
            snippet=snippet,
            highlights=highlights,
            # Title hits, then BM25 squashed into [0, 1): one number that sorts like the list.
            score=round(title_hits + -rank / (1 - rank), 6),  # bm25() is negative, lower is better
        )
