"""The document store and its full-text index; export to JSONL and WARC."""

from deepbot.store.base import DocumentStore, Hit
from deepbot.store.export import document_record, write_jsonl, write_warc
from deepbot.store.fts import fts_query
from deepbot.store.sqlite import SqliteDocumentStore

__all__ = [
    "DocumentStore",
    "Hit",
    "SqliteDocumentStore",
    "document_record",
    "fts_query",
    "write_jsonl",
    "write_warc",
]
