"""The document store and its full-text index; export to JSONL and WARC."""

from deepbot.store.base import Change, DocumentStore, Hit, Version, Visit
from deepbot.store.export import (
    changes_since,
    document_record,
    gone_since,
    write_changes_jsonl,
    write_jsonl,
    write_warc,
)
from deepbot.store.fts import fts_query
from deepbot.store.sqlite import SqliteDocumentStore

__all__ = [
    "Change",
    "DocumentStore",
    "Hit",
    "SqliteDocumentStore",
    "Version",
    "Visit",
    "changes_since",
    "document_record",
    "fts_query",
    "gone_since",
    "write_changes_jsonl",
    "write_jsonl",
    "write_warc",
]
