"""DocumentStore conformance: upsert by route key, get, iterate, count."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from deepbot.errors import StoreError
from deepbot.routes import Via, doc_id
from deepbot.store import DocumentStore, SqliteDocumentStore

from .conftest import make_doc


def test_round_trip_keeps_every_field(store: DocumentStore) -> None:
    d = make_doc(
        "/search", "Results", "Java books", via=Via.FORM, html="<p>Java books \u2014 caf\u00e9</p>",
        domain="books", query={"title": "java", "format": "PDF"}, form_url="https://shop.example/adv",
        depth=3, seed="https://shop.example/", summary="Java books", meta={"handler": "html"},
    )
    assert isinstance(store, DocumentStore)
    assert store.upsert(d) is True
    assert store.get(d.id) == d
    assert store.get(doc_id("nope")) is None


def test_upsert_by_route_key_never_duplicates(store: DocumentStore) -> None:
    first = make_doc("/a", "Old title", "old text")
    retried = first.model_copy(update={"title": "New title", "text": "new text"})
    assert store.upsert(first) is True
    assert store.upsert(retried) is False
    assert store.upsert(retried) is False
    assert store.count() == 1
    assert store.get(first.id) == retried
    # the index was replaced, not appended to
    assert [h.title for h in store.search("new")] == ["New title"]
    assert store.search("old") == []


def test_iterates_in_first_stored_order_with_optional_html(store: DocumentStore) -> None:
    docs = [make_doc(f"/{i}", f"Doc {i}", html=f"<p>{i}</p>") for i in range(450)]  # > one page of rows
    for d in docs:
        store.upsert(d)
    store.upsert(docs[0].model_copy(update={"title": "Doc 0 again"}))  # an update keeps its place
    seen = list(store.iter_documents())
    assert [d.route_key for d in seen] == [d.route_key for d in docs]
    assert seen[0].title == "Doc 0 again" and seen[7].html == "<p>7</p>"
    assert all(d.html == "" for d in store.iter_documents(html=False))


def test_counts(store: DocumentStore) -> None:
    assert store.count() == 0 and store.counts_by_via() == {}
    store.upsert(make_doc("/1"))
    store.upsert(make_doc("/2"))
    store.upsert(make_doc("/3", via=Via.FORM, query={"q": "x"}))
    assert store.count() == 3
    assert store.counts_by_via() == {Via.LINK: 2, Via.FORM: 1}


def test_html_is_stored_compressed(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    html = "<p>" + "repetitive markup " * 2000 + "</p>"
    with SqliteDocumentStore(path) as store:
        store.upsert(make_doc("/big", html=html))
    (blob,) = sqlite3.connect(path).execute("SELECT html FROM documents").fetchone()
    assert len(blob) < len(html) / 20


def test_shares_a_file_with_other_tables(tmp_path: Path) -> None:
    path = tmp_path / "crawl.sqlite"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE routes (key TEXT PRIMARY KEY)")
    other.execute("INSERT INTO routes VALUES ('k')")
    other.commit()
    with SqliteDocumentStore(path) as store:
        store.upsert(make_doc("/a", "A"))
    with SqliteDocumentStore(path) as store:  # reopening keeps everything
        assert store.count() == 1
    assert other.execute("SELECT count(*) FROM routes").fetchone() == (1,)
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_missing_file_is_a_store_error_when_not_creating(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no document store at"):
        SqliteDocumentStore(tmp_path / "missing.sqlite", create=False)
    assert not (tmp_path / "missing.sqlite").exists()


def test_a_file_that_is_not_sqlite_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("this is not a database, just some text that is long enough " * 10)
    with pytest.raises(StoreError, match="cannot open document store"):
        SqliteDocumentStore(path, create=False)


def test_safe_to_use_from_threads(tmp_path: Path) -> None:
    store = SqliteDocumentStore(tmp_path / "t.sqlite")
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(30):
                store.upsert(make_doc(f"/{i % 20}", f"thread {n}"))  # overlapping keys
                store.search("thread")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.count() == 20
    store.close()
