"""The relevance chain: typed decisions with countable reasons."""

from __future__ import annotations

from collections import Counter

import pytest

from deepbot.content.filters import (
    ACCEPT,
    ContentTypeFilter,
    Decision,
    KeywordFilter,
    RelevanceChain,
    UrlFilter,
    relevance_chain,
)
from deepbot.errors import ConfigError
from deepbot.routes import Document, Via


def doc(
    title: str = "", text: str = "", url: str = "https://s.example/p", ctype: str = "text/html"
) -> Document:
    return Document(
        route_key=url, url=url, final_url=url, title=title, text=text, content_type=ctype,
        nseql=f'navigate "{url}"', via=Via.LINK,
    )


def test_keyword_filter_reads_title_and_text() -> None:
    f = KeywordFilter('java AND (xml OR "web services") AND NOT javascript')
    assert f.decide(doc(title="Java", text="all about web services")) == ACCEPT
    assert f.decide(doc(title="Java and XML", text="")) == ACCEPT
    rejected = f.decide(doc(title="Java", text="XML with JavaScript"))
    assert rejected == Decision(False, "query-mismatch", f.query.text)


def test_keyword_filter_bad_query_is_a_config_error_with_column() -> None:
    with pytest.raises(ConfigError, match="column 10"):
        KeywordFilter("java AND (xml")


def test_url_filter_exclude_wins_over_include() -> None:
    f = UrlFilter(include=[r"/books/"], exclude=[r"\.pdf$"])
    assert f.decide(doc(url="https://s.example/books/1")) == ACCEPT
    assert f.decide(doc(url="https://s.example/books/1.pdf")) == Decision(False, "url-excluded", r"\.pdf$")
    assert f.decide(doc(url="https://s.example/music/1")).reason == "url-not-included"
    assert UrlFilter().decide(doc()) == ACCEPT


def test_url_filter_uses_the_final_url() -> None:
    d = doc(url="https://s.example/books/1").model_copy(update={"final_url": "https://other.example/x"})
    assert UrlFilter(include=[r"s\.example"]).decide(d).reason == "url-not-included"


def test_url_filter_bad_regex() -> None:
    with pytest.raises(ConfigError, match=r"invalid exclude regex '\('"):
        UrlFilter(exclude=["("])


@pytest.mark.parametrize(
    ("allow", "ctype", "keep"),
    [
        (["text/html"], "text/html; charset=utf-8", True),
        (["text/html"], "text/plain", False),
        (["text/*"], "text/plain", True),
        (["text/"], "text/csv", True),  # a prefix, as the crawl config writes them
        (["application/vnd.*"], "application/vnd.ms-excel", True),
        (["*/*"], "image/png", True),
        (["application/pdf"], "", False),
    ],
)
def test_content_type_filter(allow: list[str], ctype: str, keep: bool) -> None:
    decision = ContentTypeFilter(allow).decide(doc(ctype=ctype))
    assert decision.keep is keep
    if not keep:
        assert decision.reason == "content-type-rejected"


def test_content_type_filter_needs_a_type() -> None:
    with pytest.raises(ConfigError):
        ContentTypeFilter([])


def test_chain_returns_first_rejection_and_counts_by_reason() -> None:
    chain = relevance_chain(query="java", exclude=[r"/private/"], content_types=["text/html"])
    docs = [
        doc(title="java", url="https://s.example/a"),
        doc(title="java", url="https://s.example/private/a"),
        doc(title="java", url="https://s.example/private/b", ctype="image/png"),  # type checked first
        doc(title="rust", url="https://s.example/b"),
    ]
    reasons = Counter(chain.decide(d).reason for d in docs)
    assert reasons == {"accepted": 1, "url-excluded": 1, "content-type-rejected": 1, "query-mismatch": 1}


def test_empty_config_builds_an_accept_all_chain() -> None:
    chain = relevance_chain(query="  ")
    assert chain.filters == ()
    assert chain.decide(doc()) == ACCEPT
    assert RelevanceChain().decide(doc()) == ACCEPT
