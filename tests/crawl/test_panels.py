"""Forms that keep fields folded until a person opens them, crawled end to end.

Bootstrap's "Advanced search" collapse (aria-expanded, aria-controls), a GOV.UK-style
closed <details>, and an old "Show more options" link that only runs a script: the
analyzer opens each before reading the form, and every query route clicks the same
toggle before it fills the fields that were folded.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

import nseql
from deepbot.routes import Via
from tests.crawl.conftest import crawl_books_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

COLLAPSE = "/forms/books_collapsed_options.html"
FOLDED = "/forms/books_folded_options.html"
TOGGLES = {
    (COLLAPSE, 0): 'css=[aria-controls="advancedOptions"]',
    (FOLDED, 0): 'xpath=//summary[normalize-space(.)="More search options"]',
    (FOLDED, 1): 'xpath=//a[normalize-space(.)="Show more options"]',
}


async def test_folded_fields_are_opened_then_filled(tmp_path: Path) -> None:
    documents, forms, failures = await crawl_books_page((COLLAPSE, FOLDED), r"/books/results",
                                                        tmp_path / "store.sqlite")
    assert not failures
    found = {(urlsplit(f.url).path, f.form_index): f.queries for f in forms}
    assert found == dict.fromkeys(TOGGLES, 3)  # every query applies: the folded fields count
    submitted = [d for d in documents if d.via is Via.FORM]
    assert len(submitted) == 9
    for doc in submitted:
        program = nseql.parse(doc.nseql).steps
        form = (urlsplit(doc.form_url or "").path, 1 if "power" in doc.nseql else 0)
        clicks = [s.selector for s in program if isinstance(s, nseql.Click)]
        fills = [i for i, s in enumerate(program) if isinstance(s, nseql.Fill)]
        # The toggle is clicked first, then the fields are filled.
        assert clicks and clicks[0] == TOGGLES[form]
        assert program.index(next(s for s in program if isinstance(s, nseql.Click))) < fills[0]
        sent = dict(parse_qsl(urlsplit(doc.final_url).query))
        assert doc.query is not None and all(sent.get(k) in (v, None) for k, v in doc.query.items())
        assert any(sent.get(k) == v for k, v in doc.query.items())
    # {author: knuth} reaches the author field each form keeps folded.
    by_author = [d for d in submitted if (d.query or {}).get("author") == "knuth"]
    assert len(by_author) == 3
    assert all(dict(parse_qsl(urlsplit(d.final_url).query)).get("author") == "knuth" for d in by_author)
