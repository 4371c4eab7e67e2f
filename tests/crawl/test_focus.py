"""Focused crawling, best-first: with a topic, the links nearest to it are followed first.

The portal (fixtures/sites/portal.py) keeps its gardening pages in a small corner three
links deep, with one teased on the front page. With the same page budget, a crawl
about garden tools reaches most of them; the same crawl without a topic (breadth-first)
spends its budget on the big sections.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from fixtures.server import FixtureServer
from fixtures.sites import portal

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BUDGET = 25
TOPIC = "garden tools: pruning, secateurs, spades and compost"


async def _crawl(site: FixtureServer, store: Path, topic: str | None) -> tuple[set[str], int]:
    config = CrawlConfig(seeds=(site.url("/portal/"),), store=store, workers=2, depth=4, max_pages=BUDGET,
                         topic=topic, settle_timeout=2.0)
    async with Crawler(config) as crawler:
        paths = {doc.final_url.removeprefix(site.base_url) async for doc in crawler.run()}
        return paths, crawler.stats.on_topic


async def test_best_first_reaches_the_topic_before_breadth_first(tmp_path: Path) -> None:
    with FixtureServer() as site:
        focused, on_topic = await _crawl(site, tmp_path / "focused.sqlite", TOPIC)
        plain, _ = await _crawl(site, tmp_path / "plain.sqlite", None)
    assert len(focused) == len(plain) == BUDGET
    reached, reached_plain = len(focused & portal.ON_TOPIC), len(plain & portal.ON_TOPIC)
    assert reached >= 9, sorted(focused)  # of the 11 gardening pages
    assert reached >= 3 * max(1, reached_plain)
    # Its harvest rate counts exactly the gardening pages it fetched (they alone are near the topic).
    assert on_topic == reached


async def test_a_page_records_how_near_it_is_to_the_topic(tmp_path: Path) -> None:
    with FixtureServer() as site:
        config = CrawlConfig(seeds=(site.url(portal.TEASED),), store=tmp_path / "s.sqlite", depth=0,
                             topic=TOPIC, settle_timeout=2.0)
        async with Crawler(config) as crawler:
            (doc,) = [doc async for doc in crawler.run()]
    assert float(doc.meta["topic_similarity"]) >= 0.3
