"""A catalogue that keeps the last search in the server's session (fixtures/sites/opac.py):
each query runs in a server session of its own, so no results page shows another's, and
each query's later pages are fetched, though their links carry no query."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.crawl.runner import summary
from deepbot.routes import Via
from fixtures.server import FixtureServer
from fixtures.sites import opac

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize(("cookie_from", "shared", "pager"),
                         [("search page", False, "text"), ("home", False, "text"), ("home", True, "text"),
                          ("search page", False, "image"), ("search page", False, "icon")])
async def test_each_query_runs_in_a_server_session_of_its_own(
        tmp_path: Path, cookie_from: str, shared: bool, pager: str) -> None:
    # Each query's route starts where the crawl started and walks to the form again, so
    # the server gives it a session of its own, whether the search page sets the cookie
    # or the home page before it does; with one session for every worker too, since the
    # routes of a query's results run in contexts of their own. "Next page" as an image
    # link (its alt text saying so), or as an icon with rel="next" and no text at all,
    # pages the results as well as its words do.
    options = {"opac_session": "home"} if cookie_from == "home" else {}
    options |= {"opac_pager": pager} if pager != "text" else {}
    with FixtureServer(options=options) as site:
        config = CrawlConfig(seeds=(site.url("/opac/"),), domains=(Path("domains/books.yaml"),),
                             store=tmp_path / "opac.sqlite", workers=3, depth=4, settle_timeout=2.0,
                             shared_session=shared, renderer_processes=1)
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
            assert crawler.frontier.failures() == {}
    shown = [(doc, opac.shown_search(doc.text)) for doc in documents if doc.via in (Via.FORM, Via.NEXT)]
    assert all(words is not None for _, words in shown)
    for doc, words in shown:  # the words the form took of the query: the format has no field here
        assert doc.query is not None and set(str(words).split()) <= set(doc.query.values()), doc.final_url
    assert {words for doc, words in shown if doc.via is Via.FORM} == {"java", "xml", "knuth"}
    # Every query's later pages, each in its query's session: "Next page" is the same URL
    # (results.do?page=2) on every query's first page, and is a route for each.
    pages = sorted((str(words), opac.shown_page(doc.text)) for doc, words in shown)
    assert pages == [(words, page) for words in ("java", "knuth", "xml") for page in range(1, opac.PAGES + 1)]


async def test_a_pager_that_never_ends_ends_where_its_pages_repeat(tmp_path: Path) -> None:
    # Past its last page the catalogue shows the last page again, "Next page" and all.
    # Pagination costs no depth: without a stop the crawl would page on to max_pages.
    with FixtureServer(options={"opac_pager": "endless"}) as site:
        config = CrawlConfig(seeds=(site.url("/opac/"),), domains=(Path("domains/books.yaml"),),
                             store=tmp_path / "opac.sqlite", workers=2, depth=4, settle_timeout=2.0,
                             max_pages=60)
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
            assert crawler.frontier.failures() == {}
            # each query's page 4, the last page again, is fetched and neither stored nor followed
            assert crawler.stats.outcomes["repeated results"] == 3
            assert crawler.stats.fetched < 30
    pages = sorted((str(opac.shown_search(doc.text)), opac.shown_page(doc.text)) for doc in documents
                   if doc.via in (Via.FORM, Via.NEXT))
    assert pages == [(words, page) for words in ("java", "knuth", "xml") for page in range(1, opac.PAGES + 1)]


async def test_a_pager_that_counts_on_for_ever_stops_at_max_result_pages(tmp_path: Path) -> None:
    # Past its last page this catalogue counts on ("page 4 of 3", no titles, "Next page"
    # again): no page repeats another, so only the bound on a query's pages stops it.
    with FixtureServer(options={"opac_pager": "unclamped"}) as site:
        config = CrawlConfig(seeds=(site.url("/opac/"),), domains=(Path("domains/books.yaml"),),
                             store=tmp_path / "opac.sqlite", workers=2, depth=4, settle_timeout=2.0,
                             max_result_pages=5, max_pages=60)
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
            assert crawler.frontier.failures() == {}
            assert crawler.stats.skipped["result pages"] == 3  # each query's page 5 leads no further
            said = summary(crawler.stats, crawler.frontier.counts(), "opac.sqlite", max_result_pages=5)
    assert "Query results cut short: a pager not followed past page 5 ×3 (--max-result-pages" in said
    pages = sorted((str(opac.shown_search(doc.text)), opac.shown_page(doc.text)) for doc in documents
                   if doc.via in (Via.FORM, Via.NEXT))
    assert pages == [(words, page) for words in ("java", "knuth", "xml") for page in range(1, 6)]
