"""A WordPress blog's pages that ask robots for things, crawled with and without obeying.

By default every page is kept and what it asked is recorded in the document
(``meta["robots"]``). With ``obey_meta_robots`` a noindex page is not kept (its links
are still followed unless it also says nofollow), a nofollow page's links are not
followed, and neither is a ``rel="nofollow"`` link. A directive for another crawler
changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from fixtures.server import FixtureServer
from fixtures.sites import blog

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ASKED = {"/blog/?s=trowel": "noindex, follow", "/blog/tag/tools/": "noindex, nofollow",
         "/blog/notes/": "noindex", "/blog/members/": "none"}


async def _crawl(store: Path, **options: object) -> tuple[FixtureServer, dict[str, dict[str, str]], Crawler]:
    with FixtureServer() as site:
        config = CrawlConfig.model_validate({
            "seeds": (site.url("/blog/"),), "store": store, "workers": 2, "depth": 3, "settle_timeout": 2.0,
            **options})
        async with Crawler(config) as crawler:
            kept = {doc.final_url.removeprefix(site.base_url): doc.meta async for doc in crawler.run()}
        return site, kept, crawler


async def test_by_default_every_page_is_kept_with_what_it_asked(tmp_path: Path) -> None:
    _, kept, _ = await _crawl(tmp_path / "store.sqlite")
    assert set(kept) == set(blog.PAGES) | {blog.LOGIN}
    assert {path: meta["robots"] for path, meta in kept.items() if "robots" in meta} == ASKED


async def test_obeyed_noindex_nofollow_and_rel_nofollow(tmp_path: Path) -> None:
    site, kept, crawler = await _crawl(tmp_path / "store.sqlite", obey_meta_robots=True)
    # Kept: what asked nothing of DeepBot, whoever else it spoke to (/about/, /press/).
    assert set(kept) == {"/blog/", "/blog/2026/gardening-in-november/", "/blog/2026/trowel-review/",
                         "/blog/about/", "/blog/press/"}
    # The search page (noindex, follow) was read and its link followed: the review was kept.
    assert site.hits_for("/blog/") >= 1 and crawler.stats.outcomes["noindex"] == 4
    # Never fetched: what only a nofollow page or a nofollow link leads to.
    for path in ("/blog/2025/old-spade/", "/blog/members/directory/", blog.LOGIN):
        assert site.hits_for(path) == 0, path
    assert crawler.stats.skipped["nofollow page"] >= 2  # the spade and the directory, at least
    assert crawler.stats.skipped["rel=nofollow"] >= 1
