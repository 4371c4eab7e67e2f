"""DocumentStore history: visits, versions, gone documents; every backend (the ``store``
fixture) runs these. The schema 1 → 2 upgrade is SQLite's own."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from deepbot.errors import StoreError
from deepbot.store import Change, DocumentStore, SqliteDocumentStore
from deepbot.store import sqlite as sqlite_store

from .conftest import make_doc

DAY0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def _at(days: float) -> datetime:
    return DAY0 + timedelta(days=days)


def test_each_upsert_is_a_visit_new_changed_or_unchanged(store: DocumentStore) -> None:
    doc = make_doc("/a", "A", "Opening hours. It is now 09:14. Closed on Sundays.", fetched_at=_at(0))
    store.upsert(doc)
    store.upsert(doc.model_copy(update={"text": "Opening hours. It is now 11:02. Closed on Sundays.",
                                        "fetched_at": _at(1)}))  # a clock: no change
    store.upsert(doc.model_copy(update={"text": "Opening hours. Open on Sundays.", "fetched_at": _at(2)}))
    assert [(v.change, v.at) for v in store.visits(doc_id=doc.id)] == [
        (Change.NEW, _at(0)), (Change.UNCHANGED, _at(1)), (Change.CHANGED, _at(2))]
    assert [v.change for v in store.visits(since=_at(1.5))] == [Change.CHANGED]


def test_a_changed_document_keeps_its_earlier_versions_newest_first(store: DocumentStore) -> None:
    doc = make_doc("/a", "V0", "version zero", html="<p>version zero</p>", fetched_at=_at(0))
    store.upsert(doc)
    store.upsert(doc.model_copy(update={"fetched_at": _at(0.5)}))  # unchanged: no version
    for n in (1, 2):
        store.upsert(doc.model_copy(update={"title": f"V{n}", "text": f"version {n}", "fetched_at": _at(n)}))
    versions = store.versions(doc.id)
    assert [(v.title, v.seen_at, v.until) for v in versions] == [
        ("V1", _at(1), _at(2)), ("V0", _at(0), _at(1))]
    assert versions[1].html == "<p>version zero</p>" and versions[1].text == "version zero"
    stored = store.get(doc.id)
    assert stored is not None and stored.title == "V2"


def test_versions_are_bounded(tmp_path: Path) -> None:
    with SqliteDocumentStore(tmp_path / "s.sqlite", keep_versions=2) as store:
        doc = make_doc("/a", "V0", "version 0", fetched_at=_at(0))
        for n in range(6):
            edit = {"title": f"V{n}", "text": f"version {n}", "fetched_at": _at(n)}
            store.upsert(doc.model_copy(update=edit))
        assert [v.title for v in store.versions(doc.id)] == ["V4", "V3"]
    with SqliteDocumentStore(tmp_path / "none.sqlite", keep_versions=0) as store:
        store.upsert(doc)
        store.upsert(doc.model_copy(update={"text": "other", "fetched_at": _at(1)}))
        assert store.versions(doc.id) == []
        assert [v.change for v in store.visits()] == [Change.NEW, Change.CHANGED]


def test_marks_unchanged_and_gone(store: DocumentStore) -> None:
    kept = make_doc("/kept", "K", "kept", fetched_at=_at(0))
    removed = make_doc("/gone", "G", "gone", fetched_at=_at(0))
    store.upsert(kept)
    store.upsert(removed)
    assert store.mark(kept.id, Change.UNCHANGED, _at(1)) is True
    assert store.mark(removed.id, Change.GONE, _at(2)) is True
    assert store.mark(removed.id, Change.GONE, _at(3)) is False  # nothing left to remove
    assert store.get(removed.id) is None and store.count() == 1
    assert [v.title for v in store.versions(removed.id)] == ["G"]  # what it said, kept
    gone = [v for v in store.visits(since=_at(1)) if v.change is Change.GONE]
    assert [(v.doc_id, v.url, v.at) for v in gone] == [(removed.id, removed.url, _at(2))]
    assert [v.change for v in store.visits(doc_id=kept.id)] == [Change.NEW, Change.UNCHANGED]
    with pytest.raises(ValueError):
        store.mark(kept.id, Change.NEW, _at(4))
    # A gone document that comes back is new again.
    assert store.upsert(removed.model_copy(update={"fetched_at": _at(5)})) is True
    assert [v.change for v in store.visits(doc_id=removed.id)][-1] is Change.NEW


def test_a_schema_1_store_opens_upgraded_and_keeps_its_documents(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old = make_doc("/a", "Old", "stored before histories", fetched_at=_at(0))
    db = sqlite3.connect(path)
    for statement in sqlite_store._SCHEMA:  # the schema-1 tables, as version 1 wrote them
        db.execute(statement)
    db.execute("INSERT INTO documents_meta VALUES ('schema', '1')")
    db.execute(sqlite_store._UPSERT, sqlite_store._row(old))
    db.commit()
    db.close()
    with SqliteDocumentStore(path) as store:
        assert store.get(old.id) == old
        store.upsert(old.model_copy(update={"fetched_at": _at(1)}))  # no fingerprint stored: the text's
        store.upsert(old.model_copy(update={"text": "edited since", "fetched_at": _at(2)}))
        assert [v.change for v in store.visits()] == [Change.UNCHANGED, Change.CHANGED]
        assert [(v.title, v.seen_at) for v in store.versions(old.id)] == [("Old", _at(0))]
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM documents_meta WHERE name = 'schema'").fetchone() == ("2",)
        db.execute("UPDATE documents_meta SET value = '3' WHERE name = 'schema'")  # a later DeepBot's
    with pytest.raises(StoreError, match="schema 3"):
        SqliteDocumentStore(path)


def test_a_visit_records_the_last_modified_its_server_sent(store: DocumentStore) -> None:
    sent = {"last_modified": "Mon, 02 Nov 2026 09:00:00 GMT"}
    doc = make_doc("/a", "A", "first", fetched_at=_at(0), meta=sent)
    store.upsert(doc)
    store.upsert(make_doc("/a", "A", "second", fetched_at=_at(1), meta={"last_modified": "not a date"}))
    store.mark(doc.id, Change.UNCHANGED, _at(2))  # a 304 stores no document, so no date
    store.upsert(make_doc("/b", "B", "no validators", fetched_at=_at(0)))
    assert [(v.change, v.last_modified) for v in store.visits(doc_id=doc.id)] == [
        (Change.NEW, datetime(2026, 11, 2, 9, 0, tzinfo=UTC)), (Change.CHANGED, None),
        (Change.UNCHANGED, None)]
    assert [v.last_modified for v in store.visits() if v.url.endswith("/b")] == [None]


def test_a_schema_2_store_gains_the_visits_last_modified(tmp_path: Path) -> None:
    path = tmp_path / "two.sqlite"
    with SqliteDocumentStore(path) as store:
        store.upsert(make_doc("/a", "A", "before", fetched_at=_at(0)))
    with sqlite3.connect(path) as db:  # as schema 2 wrote it, before visits had the column
        db.execute("ALTER TABLE documents_visits DROP COLUMN last_modified")
    with SqliteDocumentStore(path) as store:
        store.upsert(make_doc("/a", "A", "after", fetched_at=_at(1),
                              meta={"last_modified": "Tue, 30 Apr 2024 08:00:00 GMT"}))
        assert [v.last_modified for v in store.visits()] == [None, datetime(2024, 4, 30, 8, tzinfo=UTC)]
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM documents_meta WHERE name = 'schema'").fetchone() == ("2",)
