"""Property: no user query, however odd, reaches SQLite as invalid FTS5 syntax, or PostgreSQL as an
invalid tsquery."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from postgres.database import Databases, admin_url

from deepbot.errors import ConfigError
from deepbot.store import DocumentStore, SqliteDocumentStore
from deepbot.store.postgres import PostgresDocumentStore
from deepbot.text.query import KeywordQuery

from .conftest import BACKENDS, make_doc

# Words, operators and every character FTS5 or our grammar treats specially.
_PIECES = st.sampled_from(
    ["java", "xml", "AND", "OR", "NOT", "NEAR", "(", ")", '"', "*", ":", "^", "-", "+", "{", "}", "'", " ",
     "C++", "web services", "\\", "\x00", "é", "title:"]
)
QUERIES = st.one_of(st.text(max_size=40), st.lists(_PIECES, max_size=12).map("".join))


@pytest.fixture(scope="module", params=BACKENDS)
def memory_store(request: pytest.FixtureRequest) -> Iterator[DocumentStore]:
    databases = Databases(admin_url()) if request.param == "postgres" else None
    store: DocumentStore = (SqliteDocumentStore(":memory:") if databases is None
                            else PostgresDocumentStore(databases.create()))
    store.upsert(make_doc("/a", "Java and XML", "web services in C++ and java"))
    store.upsert(make_doc("/b", "Other", "nothing to see"))
    yield store
    store.close()
    if databases is not None:
        databases.drop_all()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=QUERIES)
def test_any_query_searches_or_says_why(memory_store: DocumentStore, query: str) -> None:
    try:
        hits = memory_store.search(query)
    except ConfigError as exc:  # the one refusal: nothing left to search after NOT
        assert "NOT needs a term" in str(exc)
    else:
        assert len(hits) <= 2


@settings(max_examples=300, deadline=None)
@given(query=QUERIES, text=st.text(max_size=60))
def test_keyword_queries_parse_or_fail_with_a_column(query: str, text: str) -> None:
    try:
        compiled = KeywordQuery(query)
    except ConfigError as exc:
        assert "invalid query at column" in str(exc)
    else:
        assert compiled.matches(text) in (True, False)
