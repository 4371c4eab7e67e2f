"""Search over what a real crawl stored: a bookshop slice (one advanced-search form, its
result pages and the books they list), crawled in Chromium with the books domain."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import deepbot
from deepbot.cli import main
from deepbot.routes import Document, Via
from deepbot.store import SqliteDocumentStore

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SLICE = (r"/books/search/advanced$", r"/books/results", r"/books/item/")


@dataclass
class Crawl:
    store: Path
    documents: list[Document]


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawl]:
    from fixtures.server import FixtureServer

    store = tmp_path_factory.mktemp("search") / "books.sqlite"
    with FixtureServer() as site:
        documents = list(deepbot.crawl([site.url("/books/search/advanced")], store=store,
                                       domains=["domains/books.yaml"], include=SLICE, depth=2, workers=2,
                                       settle_timeout=2.0))
    yield Crawl(store, documents)


@pytest.fixture
def store(crawl: Crawl) -> Iterator[SqliteDocumentStore]:
    with SqliteDocumentStore(crawl.store, create=False) as opened:
        yield opened


def details(crawl: Crawl) -> list[Document]:
    return [d for d in crawl.documents if "/books/item/" in d.final_url]


def test_every_book_page_is_found_by_its_title(crawl: Crawl, store: SqliteDocumentStore) -> None:
    books = details(crawl)
    assert len(books) >= 10  # the Java, XML and Knuth results
    for doc in books:
        title = doc.title.split(" – ")[0]
        ids = [hit.doc_id for hit in store.search(f'"{title}"', limit=50)]
        assert doc.id in ids, (title, doc.final_url)


def test_a_title_match_outranks_body_only_matches(crawl: Crawl, store: SqliteDocumentStore) -> None:
    hits = store.search("literate programming", limit=20)
    assert hits, "the crawl stored Knuth's books"
    top = hits[0]
    assert top.title.startswith("Literate Programming") and "/books/item/" in top.url
    in_title = ["literate programming" in hit.title.lower() for hit in hits]
    assert in_title == sorted(in_title, reverse=True)  # every title match before every body-only one
    body_only = [hit for hit in hits if not hit.title.lower().startswith("literate")]
    assert body_only, "the result lists mention the book too"
    assert all(urlsplit(hit.url).path == "/books/results" for hit in body_only)
    # The result page of the form query says how it was reached.
    assert any(hit.via is Via.FORM and hit.query == {"author": "knuth"} and hit.domain == "books"
               for hit in body_only)
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)


def test_snippets_highlight_the_query_words(store: SqliteDocumentStore) -> None:
    for hit in store.search("literate programming", limit=20):
        assert hit.snippet and hit.highlights, hit
        marked = {hit.snippet[a:b].lower() for a, b in hit.highlights}
        assert marked <= {"literate", "programming"}, marked
        assert "[Literate]" in hit.marked() or "[literate]" in hit.marked()


def test_search_json_output_shape(crawl: Crawl, store: SqliteDocumentStore,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "knuth", "--store", str(crawl.store), "--limit", "5", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert isinstance(rows, list) and len(rows) == 5
    expected = [hit.model_dump(mode="json") for hit in store.search("knuth", limit=5)]
    for row, hit in zip(rows, expected, strict=True):
        assert set(row) == {"doc_id", "title", "url", "via", "domain", "query", "form_url", "snippet",
                            "highlights", "score", "marked"}
        assert {k: v for k, v in row.items() if k != "marked"} == hit
        assert len(row["doc_id"]) == 16 and row["via"] in {v.value for v in Via}
        assert all(isinstance(span, list) and len(span) == 2 for span in row["highlights"])
        assert "[" in row["marked"] and isinstance(row["score"], float)
        assert store.get(row["doc_id"]) is not None  # an id `deepbot replay` takes


def test_search_text_output(crawl: Crawl, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "literate programming", "--store", str(crawl.store), "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1. Literate Programming")
    assert "via form query (books): author='knuth'" in out
    assert "· id " in out and "[Literate] [Programming]" in out
    assert main(["search", "zyzzyva", "--store", str(crawl.store)]) == 0
    assert "No documents match 'zyzzyva'." in capsys.readouterr().out
