"""A search form inside web components' shadow roots (nested), crawled end to end: found
relevant, filled and submitted through selectors that pierce the shadow roots, its
results stored with a program that replays it."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from deepbot.routes import Via
from tests.crawl.conftest import crawl_books_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE = "/forms/books_web_components.html"
FORM = "css=pl-search-page >> css=pl-book-search >> css=form"


async def test_a_form_in_nested_shadow_roots_is_queried(tmp_path: Path) -> None:
    documents, forms, failures = await crawl_books_page(PAGE, r"/books/results", tmp_path / "store.sqlite")
    found = [(urlsplit(f.url).path, f.form_index, f.domain) for f in forms]
    assert found == [(PAGE, 1, "books")]  # the header's quick search (form 0) is not relevant
    assert not failures
    submitted = [d for d in documents if d.via is Via.FORM]
    assert len(submitted) == 3  # each of the domain's queries
    for doc in submitted:
        url = urlsplit(doc.final_url)
        assert url.path == "/books/results"
        sent = {k: v[0] for k, v in parse_qs(url.query).items() if v[0]}
        assert doc.query is not None and set(doc.query) <= set(sent)  # typed into the shadow form
        steps = doc.nseql.splitlines()
        assert any(line.startswith(f"fill '{FORM[:-len('form')]}input") for line in steps), steps
