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


async def test_the_hmm_crawler_learns_the_paths_from_an_earlier_crawl(tmp_path: Path) -> None:
    training = tmp_path / "training.sqlite"
    with FixtureServer() as site:
        config = CrawlConfig(seeds=(site.url("/portal/"),), store=training, workers=2, depth=5,
                             settle_timeout=2.0)
        async with Crawler(config) as crawler:
            assert len([doc async for doc in crawler.run()]) == len(portal.PAGES)
        config = CrawlConfig(seeds=(site.url("/portal/"),), store=tmp_path / "hmm.sqlite", workers=2, depth=5,
                             max_pages=15, topic=TOPIC, learn_from=training, settle_timeout=2.0)
        async with Crawler(config) as crawler:
            docs = [doc async for doc in crawler.run()]
    reached = {doc.final_url.removeprefix(site.base_url) for doc in docs} & portal.ON_TOPIC
    assert len(reached) >= 9  # of 11, in 15 pages; breadth-first reaches 1 (the test above)
    assert all(0 <= float(doc.meta["path_to_topic"]) <= 1 for doc in docs)


async def test_learning_needs_a_store_with_pages_on_the_topic(tmp_path: Path) -> None:
    from deepbot.errors import ConfigError

    config = CrawlConfig(seeds=("http://127.0.0.1:9/",), store=tmp_path / "s.sqlite", topic=TOPIC,
                         learn_from=tmp_path / "nothing.sqlite")
    with pytest.raises(ConfigError, match=r"learn_from \S*nothing\.sqlite: no such store to learn from"):
        async with Crawler(config):
            pass
