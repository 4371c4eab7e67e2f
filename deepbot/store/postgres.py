"""The shared document store: documents and their full-text index in a PostgreSQL database.

The same ``documents`` table as SQLite (``deepbot.store.sqlite``), one row per route key, so
a route retried by another worker replaces its document instead of adding one. The index
is a stored ``tsvector`` column (generated, so it cannot fall out of step with the row) under
a GIN index, weighted as SQLite's BM25 columns are: title A (1.0), summary B and URL C
(0.2), text D (0.1). The ``english`` configuration stems as SQLite's porter tokenizer does
("books" finds "book"); the URL is indexed as its words, as unicode61 splits it.

Search ranks as SQLite does: by how many query words the title holds, then by
``ts_rank``; the snippet is ``ts_headline`` over the text with the matches marked, the
summary when only the title or URL matched. Queries are the relevance filter's language
(``deepbot.text.query``), turned into a tsquery built from ``plainto_tsquery`` and
``phraseto_tsquery`` pieces, so no user input reaches tsquery syntax (a prefix term is
quoted as one lexeme).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from deepbot.errors import ConfigError, StoreError
from deepbot.routes import Document, Via
from deepbot.store.base import Change, Hit, Version, Visit
from deepbot.store.fts import _CONTROL, _lenient, _simplify  # the parsing SQLite's search does too
from deepbot.store.history import Dialect, parsed, record_mark, record_upsert, visit_of, visits_query
from deepbot.store.postgresdb import OnDatabase, PostgresDatabase
from deepbot.store.sqlite import _FIELDS, _MARK_CLOSE, _MARK_OPEN, KEEP_VERSIONS, _row, _split_marks
from deepbot.store.sqlite import _SCHEMA as _SQLITE_SCHEMA
from deepbot.store.sqlite import _document as sqlite_document
from deepbot.text.query import Node, Not, Or, Phrase, Term, parse_query

if TYPE_CHECKING:
    import sqlite3

    import psycopg

    Conn = psycopg.Connection[tuple[Any, ...]]

SCHEMA_VERSION = 1

_TSV = (
    "setweight(to_tsvector('english', title), 'A')"
    " || setweight(to_tsvector('english', summary), 'B')"
    " || setweight(to_tsvector('english', regexp_replace(final_url, '[^[:alnum:]]+', ' ', 'g')), 'C')"
    " || setweight(to_tsvector('english', text), 'D')"
)


def _documents_table() -> str:
    """SQLite's documents table in PostgreSQL's types, with the generated tsvector: one list of
    columns for both backends."""
    table = _SQLITE_SCHEMA[1]
    for sqlite_type, postgres_type in (("seq INTEGER PRIMARY KEY", "seq BIGSERIAL PRIMARY KEY"),
                                       ("html BLOB", "html BYTEA")):
        if sqlite_type not in table:
            raise AssertionError(f"the SQLite documents table has no {sqlite_type!r} any more")
        table = table.replace(sqlite_type, postgres_type)
    head, _, _ = table.rstrip().rpartition(")")
    return f"{head},\n        tsv TSVECTOR GENERATED ALWAYS AS ({_TSV}) STORED\n    )"


_SCHEMA = (
    _documents_table(),
    "CREATE INDEX IF NOT EXISTS documents_by_via ON documents (via)",
    "CREATE INDEX IF NOT EXISTS documents_tsv ON documents USING GIN (tsv)",
    # The history, as SQLite's schema 2 keeps it (times as fixed-width UTC text, as there).
    "ALTER TABLE documents ADD COLUMN IF NOT EXISTS fingerprint TEXT",
    "ALTER TABLE documents ADD COLUMN IF NOT EXISTS changed_at TEXT",
    """CREATE TABLE IF NOT EXISTS documents_visits (
        seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL, url TEXT NOT NULL, at TEXT NOT NULL, change TEXT NOT NULL
    )""",
    # The Last-Modified each visit's server sent; nullable, so added to a store of any age.
    "ALTER TABLE documents_visits ADD COLUMN IF NOT EXISTS last_modified TEXT",
    "CREATE INDEX IF NOT EXISTS documents_visits_by_id ON documents_visits (id, seq)",
    "CREATE INDEX IF NOT EXISTS documents_visits_by_at ON documents_visits (at)",
    """CREATE TABLE IF NOT EXISTS documents_versions (
        seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL, html BYTEA,
        fingerprint TEXT NOT NULL, seen_at TEXT NOT NULL, until TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS documents_versions_by_id ON documents_versions (id, seq)",
)

# xmax = 0 only on a row this statement inserted: whether the upsert added a document.
_UPSERT = (
    f"INSERT INTO documents ({', '.join(_FIELDS)}) VALUES ({', '.join(['%s'] * len(_FIELDS))})"
    " ON CONFLICT (route_key) DO UPDATE SET "
    + ", ".join(f"{f} = excluded.{f}" for f in _FIELDS if f not in ("id", "route_key"))
    + " RETURNING (xmax = 0)"
)
_DIALECT = Dialect(param="%s", lock=" FOR UPDATE", upsert=_UPSERT)
_WEIGHTS = "'{0.1, 0.2, 0.2, 1.0}'"  # D (text), C (URL), B (summary), A (title): SQLite's 1:2:2:10
_SNIPPET = f"StartSel={_MARK_OPEN}, StopSel={_MARK_CLOSE}, MaxWords=24, MinWords=12, MaxFragments=2,"
_SNIPPET += " FragmentDelimiter=\" … \""
_TITLE = f"StartSel={_MARK_OPEN}, StopSel={_MARK_CLOSE}, HighlightAll=true"


def _document(columns: list[str], values: tuple[Any, ...]) -> Document:
    # SQLite's reader takes anything with keys() and [name]: a dict of the row is that.
    return sqlite_document(cast("sqlite3.Row", dict(zip(columns, values, strict=True))))


def _lexeme(word: str) -> str:
    """A word as one quoted tsquery lexeme (to_tsquery's syntax inside quotes: '' and \\\\)."""
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def _tsquery(node: Node, args: list[str]) -> str:
    """SQL for the tsquery of ``node``; the words go to ``args`` as parameters."""
    node = _simplify(node)
    if isinstance(node, Term):
        if node.prefix:
            args.append(_lexeme(node.text) + ":*")
            return "to_tsquery('english', %s)"
        args.append(node.text)
        return "plainto_tsquery('english', %s)"
    if isinstance(node, Phrase):
        args.append(" ".join(node.words))
        return "phraseto_tsquery('english', %s)"
    if isinstance(node, Not):
        raise ConfigError("search query: NOT needs a term to subtract from, e.g. 'java NOT script'")
    if isinstance(node, Or):
        return "(" + " || ".join(_tsquery(child, args) for child in node.operands) + ")"
    operands = [_simplify(c) for c in node.operands]
    positives = [c for c in operands if not isinstance(c, Not)]
    negatives = [c.operand for c in operands if isinstance(c, Not)]
    if not positives:
        raise ConfigError("search query: NOT needs a term to subtract from, e.g. 'java NOT script'")
    parts = [_tsquery(p, args) for p in positives] + [f"!!{_tsquery(n, args)}" for n in negatives]
    return "(" + " && ".join(parts) + ")"


def search_tsquery(query: str) -> tuple[str, list[str]] | None:
    """The tsquery SQL and its parameters for a user query; None when it holds no term."""
    query = _CONTROL.sub(" ", query)
    try:
        node: Node | None = parse_query(query)
    except ConfigError:
        node = _lenient(query)
    if node is None:
        return None
    args: list[str] = []
    return _tsquery(node, args), args


class PostgresDocumentStore(OnDatabase):
    """A DocumentStore in a PostgreSQL database, shared by worker processes on any machine."""

    def __init__(self, url: str, *, create: bool = True, pool_size: int = 4,
                 reconnect_s: float = 300.0, keep_versions: int = KEEP_VERSIONS) -> None:
        if keep_versions < 0:
            raise ValueError(f"keep_versions must be ≥ 0, not {keep_versions}")
        self.path = url
        self.keep_versions = keep_versions
        self._db = PostgresDatabase(url, "document store", max_size=pool_size, reconnect_s=reconnect_s)
        if not create and not self._db.exists("documents_meta"):
            self._db.close()
            raise StoreError(f"no document store at {self._db.shown}")
        self._db.ensure_schema("documents_meta", SCHEMA_VERSION, _SCHEMA)

    # -- documents ------------------------------------------------------------------

    def upsert(self, doc: Document) -> bool:
        """As SQLite's (deepbot.store.history), in one transaction, the document's row locked."""
        row, keep = _row(doc), self.keep_versions
        return self._db.run(lambda conn: record_upsert(conn, _DIALECT, doc, row, keep=keep))

    def mark(self, doc_id: str, change: Change, at: datetime) -> bool:
        keep = self.keep_versions
        return self._db.run(lambda conn: record_mark(conn, _DIALECT, doc_id, change, at, keep=keep))

    def visits(self, *, doc_id: str | None = None, since: datetime | None = None) -> Iterator[Visit]:
        for vid, url, vat, change, last_modified in self._db.read(*visits_query(_DIALECT, doc_id, since)):
            yield visit_of(vid, url, vat, change, last_modified)

    def versions(self, doc_id: str) -> list[Version]:
        rows = self._db.read("SELECT id, title, text, html, fingerprint, seen_at, until"
                             " FROM documents_versions WHERE id = %s ORDER BY seq DESC", (doc_id,))
        return [Version(doc_id=vid, title=title, text=text,
                        html=zlib.decompress(bytes(html)).decode() if html is not None else "",
                        fingerprint=fp, seen_at=parsed(seen), until=parsed(until))
                for vid, title, text, html, fp, seen, until in rows]

    def _select(self, sql: str, args: tuple[Any, ...]) -> tuple[list[str], list[tuple[Any, ...]]]:
        def select(conn: Conn) -> tuple[list[str], list[tuple[Any, ...]]]:
            cursor = conn.execute(sql, args)
            return [c.name for c in cursor.description or ()], cursor.fetchall()

        return self._db.run(select, atomic=False)

    def get(self, doc_id: str) -> Document | None:
        columns, rows = self._select(f"SELECT {', '.join(_FIELDS)} FROM documents WHERE id = %s", (doc_id,))
        return _document(columns, rows[0]) if rows else None

    def iter_documents(self, *, html: bool = True, batch: int = 200) -> Iterator[Document]:
        # Keyset pages, one short transaction each: no cursor stays open across yields.
        columns = ", ".join(f for f in ("seq", *_FIELDS) if html or f != "html")
        after = 0
        while True:
            names, rows = self._select(
                f"SELECT {columns} FROM documents WHERE seq > %s ORDER BY seq LIMIT %s", (after, batch))
            if not rows:
                return
            for row in rows:
                yield _document(names, row)
            after = rows[-1][0]

    def count(self) -> int:
        return int(self._db.read("SELECT count(*) FROM documents")[0][0])

    def counts_by_via(self) -> dict[Via, int]:
        rows = self._db.read("SELECT via, count(*) FROM documents GROUP BY via ORDER BY via")
        return {Via(via): n for via, n in rows}

    # -- search ---------------------------------------------------------------------

    def search(self, query: str, limit: int = 10) -> list[Hit]:
        """Ranked by how many query words the title holds, then by ts_rank over all columns;
        the snippets (ts_headline, the costly part) for the page of hits only."""
        built = search_tsquery(query)
        if built is None or limit <= 0:
            return []
        tsquery, args = built
        sql = (
            f"WITH q AS (SELECT {tsquery} AS q), top AS ("
            "  SELECT seq, rank, length(marked) - length(replace(marked, chr(2), '')) AS title_hits FROM ("
            f"   SELECT d.seq, ts_rank({_WEIGHTS}, d.tsv, q.q) AS rank,"
            "    ts_headline('english', d.title, q.q, %s) AS marked FROM documents d, q WHERE d.tsv @@ q.q) s"
            "  ORDER BY title_hits DESC, rank DESC, seq LIMIT %s)"
            " SELECT d.id, d.title, d.final_url, d.via, d.domain, d.query, d.form_url, d.summary,"
            "  ts_headline('english', d.text, q.q, %s), top.rank, top.title_hits"
            " FROM top JOIN documents d USING (seq), q ORDER BY top.title_hits DESC, top.rank DESC, top.seq"
        )
        rows = self._db.read(sql, (*args, _TITLE, limit, _SNIPPET))
        return [self._hit(row) for row in rows]

    @staticmethod
    def _hit(row: tuple[Any, ...]) -> Hit:
        doc_id, title, url, via, domain, query, form_url, summary, snip, rank, title_hits = row
        snippet, highlights = _split_marks(snip or "")
        if not highlights and summary:
            snippet = summary  # matched in title or URL only: the summary says more
        return Hit(
            doc_id=doc_id, title=title, url=url, via=Via(via), domain=domain,
            query=None if query is None else json.loads(query), form_url=form_url,
            snippet=snippet, highlights=highlights,
            # Title hits, then ts_rank squashed into [0, 1): one number that sorts like the list.
            score=round(title_hits + rank / (1 + rank), 6),
        )
