"""Selects that send their form when changed (fixtures/sites/filters.py: ASP.NET's
AutoPostBack, ``this.form.submit()``) are the form's filters, not jump menus: a crawl
makes no route of them inside a query's results, and one an option across the crawl
elsewhere, not one an option on every page that shows them; the form's queries run."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from deepbot.content.links import FILTERS
from deepbot.crawl.engine import Crawler
from deepbot.routes import Via
from fixtures.server import FixtureServer
from fixtures.sites import filters

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(240)]

# books.yaml's queries the form answers (it has Title and Author; the second query's
# format it has not, and its title alone is still asked).
QUERIES = ({"title": "java"}, {"title": "xml"}, {"author": "knuth"})


async def test_selects_that_post_their_form_back_make_few_routes_and_the_queries_run(tmp_path: Path) -> None:
    with FixtureServer() as site:
        config = CrawlConfig(seeds=(site.url("/filters/"),), domains=(Path("domains/books.yaml"),),
                             store=tmp_path / "filters.sqlite", workers=2, depth=2, settle_timeout=2.0,
                             max_pages=120)
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
            count = "SELECT count(*) FROM routes"
            script_routes = crawler.frontier._read(count + " WHERE key LIKE 'script:%'")[0][0]
            routes = crawler.frontier._read(count)[0][0]
            fetched, failures = crawler.stats.fetched, crawler.frontier.failures()
            skipped = dict(crawler.stats.skipped)
    assert not failures
    # The queries ran: each one's results page, stored, says what it found.
    for query in QUERIES:
        asked = ", ".join(f"{k} {v}" for k, v in query.items())
        shown = [doc.html for doc in documents if doc.via is Via.FORM and f"Results for {asked}:" in doc.html]
        assert len(shown) == 1 and f"{len(filters.found(query))} titles" in shown[0], (asked, len(shown))
    # The browse form's select (5 years) is one route a year, though it shows on every
    # page; the search page's filters (in a form with text fields) and the results'
    # (refining what the queries found) are none. Before, each page that showed the
    # browse form made 5 routes (25), and each results page 30 (its years read as a
    # pager's page numbers, which cost no depth): ~2,400 routes, and pages fetched until
    # the budget ran out (62 s).
    assert script_routes == len(filters.BROWSE_YEARS), script_routes
    # The seed, 3 news pages and the search page, 3 queries, 5 years: 13 routes, each
    # fetched once.
    assert routes == 13 and fetched <= 14, (routes, fetched)
    assert skipped.get(FILTERS, 0) >= len(QUERIES), skipped  # the results' filters, counted
