"""Full-text search: ranking, snippets, and queries that must not break FTS5."""

from __future__ import annotations

import pytest

from deepbot.errors import ConfigError
from deepbot.routes import Via
from deepbot.store import DocumentStore, Hit, fts_query

from .conftest import make_doc

FILLER = "This page talks about shipping, returns, opening hours and the weather. " * 6


@pytest.fixture
def corpus(store: DocumentStore) -> DocumentStore:
    store.upsert(make_doc("/long", "Python crawling guide", "A guide. " + FILLER * 3,
                          summary="A guide for crawling."))
    store.upsert(make_doc("/short", "Cooking", "Python python python: we mention python in the body."))
    store.upsert(make_doc("/form", "Search results", "Thinking in Java by Bruce Eckel. " + FILLER,
                          via=Via.FORM, domain="books", query={"title": "java"}))
    store.upsert(make_doc("/cpp", "Languages", "We compare C++ with Rust and Go. " + FILLER))
    store.upsert(make_doc("/ws", "Services", "Java web services and XML. " + FILLER))
    store.upsert(make_doc("/js", "Scripts", "Java and JavaScript are different languages. " + FILLER))
    for i in range(4):
        store.upsert(make_doc(f"/other{i}", f"Unrelated {i}", FILLER))
    return store


def titles(hits: list[Hit]) -> list[str]:
    return [h.title for h in hits]


def test_title_match_outranks_body_only_match(corpus: DocumentStore) -> None:
    hits = corpus.search("python")
    assert titles(hits) == ["Python crawling guide", "Cooking"]
    assert hits[0].score > hits[1].score > 0


def test_snippet_highlights_matches(corpus: DocumentStore) -> None:
    (hit,) = corpus.search("eckel")
    assert hit.highlights
    assert all(hit.snippet[a:b].lower() == "eckel" for a, b in hit.highlights)
    assert "[Eckel]" in hit.marked()
    assert "\x02" not in hit.snippet and "\x03" not in hit.snippet


def test_title_only_match_shows_the_summary(corpus: DocumentStore) -> None:
    hit = corpus.search("crawling")[0]
    assert hit.title == "Python crawling guide"
    assert hit.snippet == "A guide for crawling."


def test_hit_says_how_the_page_was_reached(corpus: DocumentStore) -> None:
    (hit,) = corpus.search("thinking")
    assert (hit.via, hit.domain, hit.query) == (Via.FORM, "books", {"title": "java"})
    assert hit.url == "https://shop.example/form"
    assert len(hit.doc_id) == 16


def test_boolean_queries(corpus: DocumentStore) -> None:
    assert set(titles(corpus.search("java"))) == {"Search results", "Services", "Scripts"}
    assert set(titles(corpus.search("java NOT javascript"))) == {"Search results", "Services"}
    assert set(titles(corpus.search('java AND (xml OR "bruce eckel")'))) == {"Search results", "Services"}
    assert titles(corpus.search('"eckel bruce"')) == []  # a phrase keeps its order
    assert set(titles(corpus.search("rust OR eckel"))) == {"Languages", "Search results"}


def test_prefix_and_stemming(corpus: DocumentStore) -> None:
    assert "Languages" in titles(corpus.search("lang*"))
    assert "Python crawling guide" in titles(corpus.search("crawl"))  # porter: crawl ~ crawling


@pytest.mark.parametrize(
    "query",
    ["C++", '"', 'java "', "(", ")", "AND", "NEAR(a b)", "title:java", "a:b*c", "^java", "'", "-x", "***",
     "\\", "java AND", "{title}: x"],
)
def test_tricky_queries_never_raise(corpus: DocumentStore, query: str) -> None:
    corpus.search(query)  # no sqlite syntax error leaks out


def test_tricky_queries_find_what_they_mean(corpus: DocumentStore) -> None:
    assert "Languages" in titles(corpus.search("C++"))
    assert "Search results" in titles(corpus.search('thinking "'))  # unbalanced quote: words only
    assert corpus.search("NEAR") == []  # a word, not the FTS5 operator
    assert corpus.search("") == [] and corpus.search("   ") == [] and corpus.search("AND OR") == []


def test_limit(corpus: DocumentStore) -> None:
    assert len(corpus.search("weather", limit=3)) == 3
    assert corpus.search("weather", limit=0) == []


def test_negation_alone_is_a_clear_error(corpus: DocumentStore) -> None:
    with pytest.raises(ConfigError, match="NOT needs a term"):
        corpus.search("NOT java")


@pytest.mark.parametrize(
    ("query", "fts"),
    [
        ("java", '"java"'),
        ('C++ "web services"', '("C++" AND "web services")'),
        ('say "hi"', '("say" AND "hi")'),
        ("crawl*", '"crawl" *'),
        ("a OR b NOT c", '("a" OR ("b" NOT "c"))'),
        ('x"y', '("x" AND "y")'),  # unterminated phrase: every word, quoted
        ("NOT NOT a", '"a"'),
        ("", None),
    ],
)
def test_fts_translation(query: str, fts: str | None) -> None:
    assert fts_query(query) == fts
