"""A search form whose fields open a typeahead's list of suggestions over the button.

A list that opens a moment after typing (jQuery UI's) is most often not there yet when
the button is clicked. One that opens at once (Awesomplete's, many a site's own) covers the
button: the crawler sees at once that it is the field's suggestions, does not wait for
them to go, and presses Enter in the field, the browser's own submission, before it
would fall back on form.submit(). No query ends on a suggestion's page.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.async_api import Browser

from deepbot.crawl.visit import _CHALLENGE, _PREPARE_JS
from deepbot.routes import Via
from fixtures.server import FixtureServer
from tests.crawl.conftest import crawl_books_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE = "/forms/books_typeahead.html"


@pytest.mark.parametrize(("variant", "covered"), [("", False), ("?delay=0", True)])
async def test_a_typeahead_list_over_the_button(variant: str, covered: bool, tmp_path: Path) -> None:
    documents, forms, failures = await crawl_books_page(PAGE + variant, r"/books/results",
                                                        tmp_path / "store.sqlite")
    assert [(f.form_index, f.queries) for f in forms] == [(0, 3)] and not failures
    submitted = [d for d in documents if d.via is Via.FORM]
    sent = sorted(tuple((k, v) for k, v in parse_qsl(urlsplit(d.final_url).query) if v) for d in submitted)
    assert sent == [(("author", "knuth"),), (("title", "java"),), (("title", "xml"),)]
    # The submission each document replays: the button, or Enter where the list covered
    # it ("java" and "knuth" open lists that reach the button; "xml"'s is too short). A
    # list that opens 100 ms after typing is most often not there yet when the button is
    # clicked, but on a loaded machine it may be: either way, never form.submit().
    ways = {d.nseql.strip().splitlines()[-1].split()[0] for d in submitted}
    assert ways <= {"click", "press"}
    if covered:
        assert "press" in ways
    assert all("submit" not in d.nseql for d in submitted)


async def test_the_list_is_known_for_what_it_is(browser: Browser, site: FixtureServer) -> None:
    """What the submission's check says of the button: covered by the field's suggestions
    at once (no wait for them to go); clear once the field has lost focus."""
    page = await browser.new_page()
    try:
        await page.goto(site.url(PAGE + "?delay=0"))
        await page.fill("#ts-title", "java")
        await page.locator(".ui-autocomplete").first.wait_for(state="visible")
        check = [["m0", 'xpath=//form[@id="shop-search"]//button', 3000, _CHALLENGE]]
        assert await page.evaluate(_PREPARE_JS, *check) == "suggestions"
        await page.locator("#ts-title").blur()  # the list closes 150 ms later
        assert await page.evaluate(_PREPARE_JS, *check) is True
    finally:
        await page.close()
