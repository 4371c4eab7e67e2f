"""Two clicks that lead to one page store it once, even when a resume comes between them.

An old shop's listing opens a product from its table cell (``onclick``) and from a
"More info" ``javascript:`` link. The first click route to reach the product stores it;
the second is a duplicate. Which routes reached which page is kept in the frontier, so a
crawl stopped between the two clicks and run again still knows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from fixtures.server import FixtureServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]


async def _crawl(site: FixtureServer, store: Path, max_pages: int | None) -> tuple[list[str], dict[str, int]]:
    config = CrawlConfig(seeds=(site.url("/shop/listing.html"),), store=store, workers=1, depth=1,
                         max_pages=max_pages, settle_timeout=2.0)
    async with Crawler(config) as crawler:
        urls = [doc.final_url async for doc in crawler.run()]
        return urls, dict(crawler.stats.outcomes)


async def test_a_page_reached_twice_by_clicks_is_stored_once(tmp_path: Path) -> None:
    with FixtureServer() as site:
        urls, outcomes = await _crawl(site, tmp_path / "one.sqlite", None)
        product = site.url("/shop/product.html?id=7")
        assert sorted(urls) == [site.url("/shop/listing.html"), product]
        assert outcomes.get("duplicate") == 1


async def test_a_resumed_crawl_remembers_the_pages_clicks_reached(tmp_path: Path) -> None:
    store = tmp_path / "resumed.sqlite"
    with FixtureServer() as site:
        product = site.url("/shop/product.html?id=7")
        first, _ = await _crawl(site, store, 2)  # the listing and one of its two clicks
        assert first == [site.url("/shop/listing.html"), product]
        second, outcomes = await _crawl(site, store, None)
        assert second == []  # the other click reached the product again: nothing new
        assert outcomes == {"duplicate": 1}
