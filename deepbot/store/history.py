"""A document's history, written the same way by both document stores (SQLite and PostgreSQL).

Each visit of a page is a row of ``documents_visits`` (new, changed or unchanged, by the page's
fingerprint against the stored one; gone, when a recrawl finds it no more), and the content a
visit replaces or a page that is gone leaves is kept in ``documents_versions``, the newest
``keep_versions`` of each document. The logic is here once; what the backends differ in is a
``Dialect``: the driver's parameter mark, the lock a read of the row to replace takes, and the
statement that inserts or replaces a document's row. Each function runs inside the caller's
transaction, on its connection: sqlite3's or psycopg's, which both answer ``execute(sql,
params)`` with a cursor that has ``fetchone()`` and ``description``.

Times are stored as fixed-width UTC text (``utc``), so text order is time order on both.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Protocol

from deepbot.content.fingerprint import page_fingerprint, same_page
from deepbot.routes import Document
from deepbot.store.base import Change, Visit

# What a visit reads of the stored row: to compare, and to keep as a version.
KEPT = "id, url, title, text, html, fingerprint, fetched_at, changed_at"


class Connection(Protocol):
    """What the history asks of a connection (sqlite3's and psycopg's both have it)."""

    def execute(self, sql: str, params: Any, /) -> Any: ...


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one backend says what the history does."""

    param: str  # the driver's parameter mark: "?" (sqlite3) or "%s" (psycopg)
    # After the read of the row a visit replaces: PostgreSQL's "FOR UPDATE" keeps two workers'
    # visits of one page in turn; SQLite's write transaction holds the whole file already.
    lock: str
    upsert: str  # the document's row inserted, or replaced by route key, in the backend's SQL

    def sql(self, text: str) -> str:
        """``text``, written with "?" marks, in this backend's marks."""
        return text if self.param == "?" else text.replace("?", self.param)


def utc(at: datetime) -> str:
    """A time as stored in the history tables: UTC, fixed width, so text order is time order."""
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")


def parsed(stamp: str) -> datetime:
    at = datetime.fromisoformat(stamp)
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def last_modified_of(doc: Document) -> str | None:
    """The Last-Modified its server sent with ``doc`` (noted by the crawl), as stored: None
    when there was none or it is no HTTP date."""
    sent = doc.meta.get("last_modified")
    if not isinstance(sent, str):
        return None
    try:
        return utc(parsedate_to_datetime(sent))
    except (TypeError, ValueError, IndexError):
        return None


def fingerprint_of(doc: Document) -> str:
    """The crawl's fingerprint of the page (text and links), or one of its text alone."""
    return doc.meta.get("fingerprint") or page_fingerprint(doc.text)


def visit_of(doc_id: str, url: str, at: str, change: str, last_modified: str | None) -> Visit:
    """A row of documents_visits as a Visit."""
    return Visit(doc_id=doc_id, url=url, at=parsed(at), change=Change(change),
                 last_modified=None if last_modified is None else parsed(last_modified))


def _fingerprint(row: dict[str, Any]) -> str:
    return str(row["fingerprint"] or page_fingerprint(row["text"]))  # NULL: stored by SQLite's schema 1


def _first_seen(row: dict[str, Any]) -> str:
    return str(row["changed_at"] or utc(parsed(row["fetched_at"])))


def _kept(conn: Connection, dialect: Dialect, column: str, value: str) -> dict[str, Any] | None:
    """The stored row of a document (KEPT's columns), locked for the transaction, or None."""
    cursor = conn.execute(dialect.sql(f"SELECT {KEPT} FROM documents WHERE {column} = ?{dialect.lock}"),
                          (value,))
    found = cursor.fetchone()
    if found is None:
        return None
    return dict(zip([described[0] for described in cursor.description], found, strict=True))


def _keep_version(conn: Connection, dialect: Dialect, row: dict[str, Any], until: str, keep: int) -> None:
    """Keep the stored content of ``row`` as its document's newest earlier version."""
    if keep == 0:
        return
    conn.execute(dialect.sql("INSERT INTO documents_versions (id, title, text, html, fingerprint, seen_at,"
                             " until) VALUES (?, ?, ?, ?, ?, ?, ?)"),
                 (row["id"], row["title"], row["text"], row["html"], _fingerprint(row), _first_seen(row),
                  until))
    conn.execute(dialect.sql("DELETE FROM documents_versions WHERE id = ? AND seq NOT IN"
                             " (SELECT seq FROM documents_versions WHERE id = ? ORDER BY seq DESC LIMIT ?)"),
                 (row["id"], row["id"], keep))


def record_upsert(conn: Connection, dialect: Dialect, doc: Document, values: tuple[Any, ...], *,
                  keep: int) -> bool:
    """Store ``doc`` (``values``: its row for ``dialect.upsert``) and its visit: new, changed
    (the replaced content kept as a version) or unchanged, by fingerprint. True if it is new."""
    fingerprint, at = fingerprint_of(doc), utc(doc.fetched_at)
    known = _kept(conn, dialect, "route_key", doc.route_key)
    if known is None:
        change, since = Change.NEW, at
    elif same_page(_fingerprint(known), fingerprint):
        change, since = Change.UNCHANGED, _first_seen(known)
    else:
        change, since = Change.CHANGED, at
        _keep_version(conn, dialect, known, at, keep)
    conn.execute(dialect.upsert, values)
    conn.execute(dialect.sql("UPDATE documents SET fingerprint = ?, changed_at = ? WHERE route_key = ?"),
                 (fingerprint, since, doc.route_key))
    conn.execute(dialect.sql("INSERT INTO documents_visits (id, url, at, change, last_modified)"
                             " VALUES (?, ?, ?, ?, ?)"),
                 (doc.id, doc.url, at, change.value, last_modified_of(doc)))
    return known is None


def record_mark(conn: Connection, dialect: Dialect, doc_id: str, change: Change, at: datetime, *,
                keep: int) -> bool:
    """A visit that found the document unchanged, or gone (then its content is kept as a
    version and its row deleted). False if there is no such document."""
    if change not in (Change.UNCHANGED, Change.GONE):
        raise ValueError(f"mark() records an unchanged or gone document, not {change}")
    when = utc(at)
    row = _kept(conn, dialect, "id", doc_id)
    if row is None:
        return False
    if change is Change.GONE:
        _keep_version(conn, dialect, row, when, keep)
        conn.execute(dialect.sql("DELETE FROM documents WHERE id = ?"), (doc_id,))
    conn.execute(dialect.sql("INSERT INTO documents_visits (id, url, at, change) VALUES (?, ?, ?, ?)"),
                 (doc_id, row["url"], when, change.value))
    return True


def visits_query(dialect: Dialect, doc_id: str | None, since: datetime | None) -> tuple[str, tuple[str, ...]]:
    """The SELECT of documents_visits (id, url, at, change, last_modified) in visit order: of one
    document, since a time, or all; and its parameters."""
    where: list[str] = []
    args: list[str] = []
    if doc_id is not None:
        where.append("id = ?")
        args.append(doc_id)
    if since is not None:
        where.append("at >= ?")
        args.append(utc(since))
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    return (dialect.sql(f"SELECT id, url, at, change, last_modified FROM documents_visits{clause}"
                        " ORDER BY at, seq"), tuple(args))
