"""Opening a store by what --store names: a path is a SQLite file, a postgresql:// URL a database.

Both stores of a crawl live at the same place (one SQLite file, or one database); the route
store's opener is ``deepbot.frontier.open`` (the frontier imports the store, not the other
way round). psycopg
(an optional extra, ``deepbot[postgres]``) is imported only when a URL asks for it.
"""

from __future__ import annotations

from os import PathLike, fspath
from pathlib import Path

from deepbot.store.postgres import PostgresDocumentStore
from deepbot.store.postgresdb import is_postgres_url, shown
from deepbot.store.sqlite import SqliteDocumentStore

StoreTarget = str | PathLike[str]

__all__ = ["StoreTarget", "is_postgres_url", "open_document_store", "shown_target", "store_missing",
           "store_target"]


def target_url(target: StoreTarget) -> str | None:
    text = fspath(target)
    return text if is_postgres_url(text) else None


def shown_target(target: StoreTarget) -> str:
    """The store as messages name it (a URL without its password)."""
    url = target_url(target)
    return shown(url) if url else fspath(target)


def open_document_store(target: StoreTarget, *, create: bool = True,
                        keep_versions: int = 3) -> SqliteDocumentStore | PostgresDocumentStore:
    """The document store at ``target``; with ``create=False`` a missing one is a StoreError.
    ``keep_versions``: earlier versions of a changed page kept."""
    url = target_url(target)
    if url is not None:
        return PostgresDocumentStore(url, create=create, keep_versions=keep_versions)
    return SqliteDocumentStore(target, create=create, keep_versions=keep_versions)


def store_target(text: str) -> str | Path:
    """argparse's type for --store: a URL stays a string (a Path would fold its ``//``)."""
    return text if is_postgres_url(text) else Path(text)


def store_missing(target: StoreTarget) -> bool:
    """Whether a SQLite store file is missing (a database is asked when opened)."""
    return target_url(target) is None and not Path(target).exists()
