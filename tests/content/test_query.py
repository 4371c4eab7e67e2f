"""The keyword boolean query language: golden parses, errors with columns, matching."""

from __future__ import annotations

import pytest

from deepbot.errors import ConfigError
from deepbot.text.query import And, KeywordQuery, Not, Or, Phrase, Term, parse_query, terms

PARSES = [
    ("java", Term("java")),
    ("java xml", And((Term("java"), Term("xml")))),
    ("java AND xml", And((Term("java"), Term("xml")))),
    # AND binds tighter than OR, NOT tighter than AND
    ("a OR b c", Or((Term("a"), And((Term("b"), Term("c")))))),
    ("a b OR c", Or((And((Term("a"), Term("b"))), Term("c")))),
    ("NOT a b", And((Not(Term("a")), Term("b")))),
    ("a NOT b", And((Term("a"), Not(Term("b"))))),
    ("NOT NOT a", Not(Not(Term("a")))),
    ("(a OR b) c", And((Or((Term("a"), Term("b"))), Term("c")))),
    (
        'java AND (xml OR "web services") AND NOT javascript',
        And((Term("java"), Or((Term("xml"), Phrase(("web", "services")))), Not(Term("javascript")))),
    ),
    ('"  one  "', Term("one")),
    ('"AND"', Term("AND")),  # a quoted operator is a term
    ("and or", And((Term("and"), Term("or")))),  # operators are upper case only
    ("C++ .net", And((Term("C++"), Term(".net")))),
    ("crawl*", Term("crawl", prefix=True)),
    ("*", Term("*")),
]


@pytest.mark.parametrize(("query", "ast"), PARSES, ids=[q for q, _ in PARSES])
def test_parse(query: str, ast: object) -> None:
    assert parse_query(query) == ast


ERRORS = [
    ("", 1, "empty query"),
    ("   ", 4, "empty query"),
    ("java AND", 9, "expected a term, found end of query"),
    ("AND java", 1, "expected a term, found AND"),
    ("a OR OR b", 6, "expected a term, found OR"),
    ("(a OR b", 8, "missing ')' to close the '(' at column 1"),
    ("a )", 3, "unexpected ')'"),
    ("a (b) )", 7, "unexpected ')'"),
    ('java "web', 6, "unterminated phrase"),
    ('a ""', 3, "empty phrase"),
    ("()", 2, "expected a term, found ')'"),
    ("NOT", 4, "expected a term"),
]


@pytest.mark.parametrize(("query", "column", "message"), ERRORS, ids=[q or "<empty>" for q, _, _ in ERRORS])
def test_errors_name_the_column(query: str, column: int, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_query(query)
    text = str(info.value)
    assert f"column {column}:" in text
    assert message in text
    # the caret sits under the column
    lines = text.splitlines()
    assert lines[-1].index("^") - 2 == column - 1
    assert lines[-2] == "  " + query


def test_terms_lists_leaves_in_order() -> None:
    assert terms(parse_query('a (b OR "c d") NOT e')) == [Term("a"), Term("b"), Phrase(("c", "d")), Term("e")]


PAPER = 'java AND (xml OR "web services") AND NOT javascript'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Java and XML", True),
        ("JAVA with Web Services", True),
        ("java web-services", True),  # phrase words across punctuation
        ("java and xml and javascript", False),  # NOT
        ("java web and services", False),  # not adjacent: no phrase
        ("javas xml", False),  # whole words only
        ("xml only", False),
        ("", False),
    ],
)
def test_paper_query_matches(text: str, expected: bool) -> None:
    assert KeywordQuery(PAPER).matches(text) is expected


def test_whole_words_and_special_characters() -> None:
    assert KeywordQuery("C++").matches("I write C++ daily")
    assert not KeywordQuery("C++").matches("I write C++x daily")
    assert not KeywordQuery("java").matches("javascript")
    assert KeywordQuery("crawl*").matches("Crawlers crawl")
    assert not KeywordQuery("crawl*").matches("recrawl")
    assert KeywordQuery("café").matches("Un CAFÉ noir")
    assert KeywordQuery("a.b").matches("x a.b y") and not KeywordQuery("a.b").matches("x aXb y")


def test_or_and_not() -> None:
    q = KeywordQuery("(rust OR go) NOT java")
    assert q.matches("rust")
    assert q.matches("Go!")
    assert not q.matches("rust and java")
    assert not q.matches("python")
