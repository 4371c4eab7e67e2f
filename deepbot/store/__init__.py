"""The document store and its full-text index; export to JSONL and WARC."""

from deepbot.store.base import Change, DocumentStore, Hit, Version, Visit
from deepbot.store.export import document_record, write_jsonl, write_warc
from deepbot.store.fts import fts_query
from deepbot.store.sqlite import SqliteDocumentStore

__all__ = [
    "Change",
    "DocumentStore",
    "Hit",
    "SqliteDocumentStore",
    "Version",
    "Visit",
    "document_record",
    "fts_query",
    "write_jsonl",
    "write_warc",
]
