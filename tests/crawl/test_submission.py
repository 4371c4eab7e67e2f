"""Form submission in a visit: each way of submitting is tried in turn, and one a person
could not use (a control under a cookie wall) is given up in a few seconds. And what a
form's own script links become: controls, a results pager only."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from deepbot.browser.pool import BrowserPool, BrowserSettings
from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.crawl.visit import VisitOptions, visit
from deepbot.demo import bookshop, shopkit
from deepbot.errors import FormError
from deepbot.routes import PageSnapshot, Route, SessionState, Via, page_identity
from deepbot.routes.sequences import append_steps, navigate_step
from fixtures.server import FixtureServer
from fixtures.sites import shops

pytestmark = pytest.mark.browser

_OPTIONS = VisitOptions(submit_wait_ms=1_000, step_timeout_ms=10_000)
_FILL = "fill '#q' \"dune\"\n"
_CLICK = 'click "#search button"\n'
_SUBMIT = "submit '#search'\n"


async def _visit(url: str, submit: tuple[str, ...]) -> PageSnapshot:
    go = navigate_step(url)
    route = Route(key="q", url=url, via=Via.FORM, steps=append_steps(go, _FILL), program=go,
                  acts_on=page_identity(url, ""), submit=submit)
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        return await visit(route, SessionState(), slot, _OPTIONS)


async def test_a_button_a_person_can_click_submits(site: FixtureServer) -> None:
    snapshot = await _visit(site.url("/lab/form/"), (_CLICK, _SUBMIT))
    assert snapshot.submitted == _CLICK
    assert parse_qs(urlsplit(snapshot.url).query)["q"] == ["dune"]


async def test_a_button_under_a_cookie_wall_is_given_up_for_the_next_way(site: FixtureServer) -> None:
    snapshot = await _visit(site.url("/lab/form/walled"), (_CLICK, _SUBMIT))
    assert snapshot.submitted == _SUBMIT
    assert urlsplit(snapshot.url).path == "/lab/form/result"
    assert parse_qs(urlsplit(snapshot.url).query)["q"] == ["dune"]


async def test_the_reason_names_the_wall_and_the_bound(site: FixtureServer) -> None:
    with pytest.raises(FormError) as caught:
        await _visit(site.url("/lab/form/walled"), (_CLICK,))
    # the trial click's bound is the submission wait (1 s here), not the 10 s step timeout
    assert "covered by another element for 1000 ms" in str(caught.value)


async def test_pager_links_inside_a_form_do_not_crowd_out_script_elements(site: FixtureServer) -> None:
    url = site.url("/lab/form/postback")
    go = navigate_step(url)
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        snapshot = await visit(Route(key=url, url=url, via=Via.LINK, steps=go, program=go), SessionState(),
                               slot, VisitOptions(max_scripts=2))
    kinds = [(s.kind, s.text) for s in snapshot.scripts]
    # the form's postback links are controls (a results pager only), with a cap of their own
    assert kinds == [("control", "2"), ("control", "3"), ("span", "Open the archive")]


@pytest.mark.slow
async def test_a_results_pager_of_submit_buttons_is_followed_by_its_next(tmp_path: Path) -> None:
    # The classic ASP.NET search, its results paged by asp:Buttons in the page's one form
    # ("« Previous", "Next »": submit buttons). Every result of every query is reached by
    # clicking "Next »" page after page; no other button of the form makes a route.
    with FixtureServer(options={"aspnet_pager": "buttons"}) as site:
        config = CrawlConfig(seeds=(site.url(bookshop.CLASSIC.path),), domains=(Path("domains/books.yaml"),),
                             store=tmp_path / "books.sqlite", workers=2, depth=0, settle_timeout=2.0)
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
            assert crawler.frontier.failures() == {}
    results = [d for d in documents if d.via in (Via.FORM, Via.NEXT)]
    later = [d for d in results if d.via is Via.NEXT]
    assert later and all(d.nseql.rstrip().endswith('click "#MainContent_btnNext"') for d in later)
    pages = " ".join(d.text for d in results)
    for query in shops.domain_queries("books"):
        expected = shops.expected_results(bookshop.CLASSIC, query)
        missing = [bookshop.SHOP.summary(item)[0] for item in expected
                   if bookshop.SHOP.summary(item)[0] not in pages]
        assert not missing, (query, missing)
    # (and some query has more results than a page shows)
    assert any(len(shops.expected_results(bookshop.CLASSIC, q)) > shopkit.PAGE_SIZE
               for q in shops.domain_queries("books"))
