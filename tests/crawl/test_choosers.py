"""A catalogue searched one index at a time ("Search by", a library's index select),
crawled end to end: each of the domain's queries picks the index its most specific
attribute names, and types its value in the one box."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from deepbot.routes import Via
from tests.crawl.conftest import crawl_books_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE = "/forms/books_search_by.html"


async def test_each_query_picks_what_the_box_searches(tmp_path: Path) -> None:
    documents, forms, failures = await crawl_books_page(PAGE, r"/books/catalog", tmp_path / "store.sqlite")
    found = sorted((f.form_index, f.domain) for f in forms)
    assert found == [(0, "books"), (1, "books")]  # not the results toolbar's sort order
    assert not failures
    submitted = [d for d in documents if d.via is Via.FORM]
    sent = sorted(tuple(sorted(parse_qsl(urlsplit(d.final_url).query))) for d in submitted)
    # books.yaml's queries: {title: java}, {title: xml, format: paperback}, {author: knuth}
    assert sent == sorted([
        (("idx", "ti"), ("q", "java")), (("idx", "ti"), ("q", "xml")), (("idx", "au"), ("q", "knuth")),
        (("by", "title"), ("q", "java")), (("by", "title"), ("q", "xml")), (("by", "author"), ("q", "knuth")),
    ])
