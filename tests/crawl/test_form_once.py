"""A catalogue whose masthead search form is on every page (fixtures/sites/koha.py):
each of the domain's queries is submitted once on that form, in a crawl and in its
resumption; the form is analysed once, not again on each page that shows it; and the
queries and their results' pages go before the site's plain links, so a page budget
is spent on them first."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.crawl.runner import summary
from deepbot.frontier import SqliteRouteStore
from deepbot.routes import Document, Via
from fixtures.server import FixtureServer
from fixtures.sites import koha

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(240)]

# books.yaml's queries on the masthead (an index select and one box; no format field).
SEARCHES = (("ti", "java"), ("ti", "xml"), ("au", "knuth"))
EXPECTED_PAGES = {(f"{idx}:{words}", n) for idx, words in SEARCHES
                  for n in range(1, koha.result_pages(idx, words) + 1)}


def _config(site: FixtureServer, store: Path, **overrides: object) -> CrawlConfig:
    values: dict[str, object] = {
        "seeds": (site.url("/koha/"),), "domains": (Path("domains/books.yaml"),), "store": store,
        "workers": 2, "depth": 2, "settle_timeout": 2.0}
    return CrawlConfig.model_validate(values | overrides)


def _submissions(site: FixtureServer) -> list[str]:
    """The masthead's submissions the server answered (only the form sends weight_search)."""
    return [path for method, path in site.hits if "opac-search.pl" in path and "weight_search=1" in path]


def _results_shown(documents: Sequence[Document]) -> set[tuple[str, int]]:
    """The pages of the queries' results stored (a results pager's pages further down,
    an author's searches under a record's page, are no query's)."""
    shown = {koha.shown_search(doc.html) for doc in documents if doc.via in (Via.FORM, Via.NEXT)}
    asked = {search for search, _ in EXPECTED_PAGES}
    return {page for page in shown if page is not None and page[0] in asked}


async def test_a_form_on_every_page_is_queried_once_in_a_crawl_and_its_resumption(tmp_path: Path) -> None:
    store = tmp_path / "koha.sqlite"
    with FixtureServer() as site:
        # Stopped early by its page budget, then resumed: the second run meets the form on
        # pages the first did not reach, and knows it from the store.
        async with Crawler(_config(site, store, max_pages=12)) as first:
            documents = [doc async for doc in first.run()]
            assert first.frontier.counts()["queued"] > 0  # the budget did stop it
        async with Crawler(_config(site, store)) as second:
            resumed = [doc async for doc in second.run()]
            query_routes = second.frontier._read("SELECT count(*) FROM routes WHERE key LIKE 'form:%'")[0][0]
            report = summary(second.stats, second.frontier.counts(), str(store), forms=second.forms.counts)
            assert not second.frontier.failures()
    # One route and one submission per query, though the form is on each of the ~100 pages
    # of the two runs, at as many URLs (results pages among them: ?idx=su&q=Art&offset=5).
    assert query_routes == len(SEARCHES)
    sent = sorted(_submissions(site))
    assert len(sent) == len(SEARCHES), sent
    assert first.forms.counts["query routes"] == len(SEARCHES)
    # Each form is analysed once: the masthead and the login form on the home page, the
    # "Sort by" form on a results page a link reached (or on two, if the two workers
    # read two such pages at once); in the second run, neither of the first two.
    with SqliteRouteStore(store) as frontier:
        assert frontier._read("SELECT count(*) FROM forms_known") == [(3,)]
    assert first.forms.counts["forms analysed"] + second.forms.counts["forms analysed"] <= 3 + 1
    assert second.forms.counts["query routes"] == 0 and second.forms.counts["relevant forms"] == 0
    # The masthead and the login form on every page outside the queries' results.
    plain = [doc for doc in resumed if doc.domain is None]
    assert len(plain) > 20 and second.forms.counts["forms already known"] >= 2 * len(plain), report
    assert "already known" in report
    assert _results_shown(documents + resumed) == EXPECTED_PAGES  # every query's every page


async def test_queries_and_their_results_go_before_links_under_a_page_budget(tmp_path: Path) -> None:
    # Sixty news pages beside one search form: breadth first, the budget went to them and
    # no query ran. Each query's results (8 pages in all) come first now.
    with FixtureServer(options={"koha_news": 60}) as site:
        async with Crawler(_config(site, tmp_path / "koha.sqlite", depth=3, max_pages=20)) as crawler:
            documents = [doc async for doc in crawler.run()]
            counts = crawler.forms.counts
            assert crawler.frontier.counts()["queued"] > 40  # most of the site left for later
    assert len(documents) <= 20
    assert _results_shown(documents) == EXPECTED_PAGES
    assert len(_submissions(site)) == len(SEARCHES)
    # Two forms on every page, analysed on the first page only.
    assert counts["forms analysed"] <= 3 and counts["forms already known"] >= 2 * 5, counts
