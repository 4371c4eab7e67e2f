"""A meta refresh of 0 s is a redirect: the route follows it, its host's politeness
counted, and stores the page it settles on; a page that refreshes to itself for ever is
stopped past ``max_self_navigations`` and the document it is left on is stored.

Scrapy's MetaRefreshMiddleware treats such a refresh as a redirect (up to a maximum delay);
Heritrix keeps every document it fetched and queues the refresh's target as a redirect hop,
which for a page's own URL is a duplicate. A browser follows the refresh by itself: DeepBot
lets it (each one paced and counted by browser.guard) and reads the page once it stays.
Before, reading the page failed with "execution context was destroyed", the document
replaced under the read again and again."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.routes import Document
from tests.hostile.conftest import Hostile, html

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

_DELAY = 0.5  # the crawl's min_delay: each refresh waits this long after the host's last request


def _refresh(to: str = "") -> str:
    return f'<meta http-equiv="refresh" content="0{";url=" + to if to else ""}">'


async def _crawl(tmp_path: Path, site: Hostile, seed: str) -> dict[str, Document]:
    # One try: a refresh must not fail the route (a retry could land on the page by luck).
    config = CrawlConfig(seeds=(site.url(seed),), store=tmp_path / "s.sqlite", depth=0, workers=1,
                         obey_robots=False, min_delay=_DELAY, block_private=False, max_attempts=1)
    try:
        async with Crawler(config) as crawler:
            async for _ in crawler.run():
                pass
            assert crawler.stats.failed == 0, crawler.stats.failures
            return {d.url: d for d in crawler.documents.iter_documents(html=True)}
    finally:
        site.close()


async def test_a_refresh_of_0_s_to_another_page_is_followed_like_a_redirect(tmp_path: Path) -> None:
    site = Hostile()
    hops = ("/old", "/moved", "/bounce", "/home")
    hits: dict[str, list[float]] = {path: [] for path in hops}
    # An old address that refreshes on and on (an old CMS's move, then a login bounce) to the page.
    for path, to in itertools.pairwise(hops):
        site.routes[path] = html(f"<h1>{path}</h1>", head=_refresh(to), hits=hits[path])
    site.routes["/home"] = html("<h1>Home</h1><p>the page the refreshes lead to</p>", hits=hits["/home"])
    stored = await _crawl(tmp_path, site, "/old")
    # Followed to the page the refreshes settle on, which is what is stored, under the route's URL.
    moved = stored[site.url("/old")]
    assert moved.final_url == site.url("/home") and "the page the refreshes lead to" in moved.text
    assert [len(hits[p]) for p in hops] == [1, 1, 1, 1]
    # Each hop the page made by itself waited for the host's turn, like any request to it.
    # (The route's own request counts from when its turn was granted, a moment before it
    # was sent: the first hop may follow it sooner than min_delay.)
    times = [hits[p][0] for p in hops[1:]]
    assert all(b - a >= _DELAY - 0.15 for a, b in itertools.pairwise(times)), times


async def test_a_page_that_refreshes_to_itself_is_stopped_and_stored_as_it_stays(tmp_path: Path) -> None:
    site = Hostile()
    hits: list[float] = []
    site.routes["/self"] = html("<h1>Again</h1><p>a page that reloads itself</p>", head=_refresh(), hits=hits)
    stored = await _crawl(tmp_path, site, "/self")
    again = stored[site.url("/self")]
    assert again.final_url == site.url("/self") and "a page that reloads itself" in again.text
    # The route's request and max_self_navigations (5) of the page's own, then no more.
    assert 2 <= len(hits) <= 1 + 5, hits
    time.sleep(0.5)
    assert len(hits) <= 1 + 5, hits
