"""Structure-driven crawling by example (INDESIT): from one player page of a tournament
site, the player pages, and nothing else, sooner than breadth-first.

fixtures/sites/worldcup.py: 110 pages from six templates, 48 of them player pages.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from deepbot.content.postprocess import ProcessContext
from deepbot.crawl.engine import Crawler
from deepbot.errors import ConfigError
from deepbot.frontier import SqliteRouteStore
from fixtures.server import FixtureServer
from fixtures.sites import proceedings, quotes, sound, worldcup

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SAMPLE = "/cup/player/bra-1"


async def _crawl(site: FixtureServer, store: Path, *, like: bool,
                 budget: int | None) -> tuple[set[str], int, Crawler]:
    sample = site.url(SAMPLE)
    config = CrawlConfig.model_validate({
        **({"like": sample} if like else {"seeds": (sample,)}), "store": store, "workers": 2, "depth": 8,
        "max_pages": budget, "settle_timeout": 2.0})
    async with Crawler(config) as crawler:
        stored = {doc.final_url.removeprefix(site.base_url) async for doc in crawler.run()}
        fetched = {path.split("?")[0] for _, path in site.hits} & set(worldcup.PLAYERS)
        return stored, len(fetched), crawler


async def test_the_player_pages_come_first_and_alone(tmp_path: Path) -> None:
    with FixtureServer() as site:
        stored, players, _ = await _crawl(site, tmp_path / "like.sqlite", like=True, budget=60)
    assert stored <= worldcup.PLAYERS  # nothing but player pages is kept
    assert len(stored) == players >= 30  # of the 48, in 60 downloads
    with FixtureServer() as site:
        _, players, _ = await _crawl(site, tmp_path / "plain.sqlite", like=False, budget=60)
    assert players <= 12  # breadth-first: the news archive and the indices first


async def test_pages_of_few_links_are_told_apart_by_their_tag_tree(tmp_path: Path) -> None:
    # An author's page links to nothing but the header and the footer, as the login page
    # does: their link collections are alike, their tag trees are not.
    with FixtureServer() as site:
        config = CrawlConfig.model_validate({"like": site.url("/quotes/author/Ada-Austen"),
                                             "store": tmp_path / "q",
                                             "workers": 2, "depth": 8, "settle_timeout": 2.0})
        async with Crawler(config) as crawler:
            stored = {doc.final_url.removeprefix(site.base_url) async for doc in crawler.run()}
        fetched = [path for _, path in site.hits if path.startswith("/quotes/")]
    assert stored == quotes.AUTHORS  # all 50, reached through paged listings; not the login page
    # The front listing is walked to its tenth page, ten links below the sample: a pager's
    # next page costs no depth.
    assert "/quotes/page/10/" in fetched
    # The tags' listings repeat the authors the front listing gave: they are no indices, and
    # their pagers stop (every tag's listing was walked to its end: 45 tag pages, 93 in all).
    assert len({path for path in fetched if "/tag/" in path}) <= 15, sorted(fetched)
    assert crawler.stats.fetched <= 80


async def _authors(store: Path, *, options: dict[str, object] | None = None,
                   processors: tuple[object, ...] = ()) -> set[str]:
    with FixtureServer(options=options) as site:
        config = CrawlConfig.model_validate({"like": site.url("/quotes/author/Ada-Austen"), "store": store,
                                             "workers": 2, "depth": 8, "settle_timeout": 2.0})
        async with Crawler(config, processors=processors) as crawler:  # type: ignore[arg-type]
            return {doc.final_url.removeprefix(site.base_url) async for doc in crawler.run()}


async def test_a_slow_page_of_the_listing_does_not_stop_it(tmp_path: Path) -> None:
    # While the front listing's third page is slow to answer, the other worker reads the tags'
    # pages, which give the authors of its next pages first. One page of the listing that
    # brings nothing new must not end a listing whose pages mostly did (it did: 41 of 50).
    stored = await _authors(tmp_path / "q", options={"quotes_slow": {"/quotes/page/3/": 2.0}})
    assert stored == quotes.AUTHORS


class _SlowToFinish:
    """A page whose processing takes long after its links were rated (a form's analysis):
    other pages are read, and what they teach the model, in the meantime."""

    name = "slow to finish"

    async def process(self, ctx: ProcessContext) -> ProcessContext:
        if ctx.route.url.endswith("/quotes/page/2/"):
            await asyncio.sleep(2.0)
        return ctx


async def test_links_raised_before_their_page_is_committed_keep_their_priority(tmp_path: Path) -> None:
    # The second page's authors wait for their class-link's probes; a probe pays on another
    # page while the second page is still being processed, and raises them before they are in
    # the frontier. They are queued at the raised priority when the page commits (they were
    # queued below the stop, and one author was never fetched).
    stored = await _authors(tmp_path / "q", processors=(_SlowToFinish(),))
    assert stored == quotes.AUTHORS


async def _like(site: FixtureServer, sample: str, store: Path) -> set[str]:
    config = CrawlConfig.model_validate({"like": site.url(sample), "store": store, "workers": 2, "depth": 8,
                                         "settle_timeout": 2.0})
    async with Crawler(config) as crawler:
        return {doc.final_url.removeprefix(site.base_url) async for doc in crawler.run()}


async def test_a_class_link_is_followed_when_targets_are_two_links_below_its_pages(tmp_path: Path) -> None:
    # A year's page lists sessions, not papers: read, it is no index. Once papers turn up
    # under its sessions, the index's links to the other years are raised, and the year
    # that waited for the probes is not left behind (it was: recall 0.74).
    with FixtureServer() as site:
        stored = await _like(site, "/proceedings/2024/paper/graph-estimation-2410", tmp_path / "p")
    assert stored == proceedings.PAPERS  # not the calls for papers, built by the same template


async def test_a_pager_is_walked_forward_once(tmp_path: Path) -> None:
    # A genre's second page links back to the first as ?page=1, another address of a page
    # already read: 8 pages were fetched twice.
    with FixtureServer() as site:
        stored = await _like(site, "/sound/artist/otis-harper", tmp_path / "s")
        fetched = [path for _, path in site.hits]
    assert stored == sound.ARTISTS
    assert not [path for path in fetched if path.endswith("?page=1")]


async def test_a_whole_structure_crawl_finds_every_player_page_and_stops(tmp_path: Path) -> None:
    with FixtureServer() as site:
        stored, _, crawler = await _crawl(site, tmp_path / "like.sqlite", like=True, budget=None)
    assert stored == worldcup.PLAYERS
    # It ended by itself once nothing left promised a player page, short of the whole site.
    assert crawler.stats.unpromising > 0
    assert crawler.stats.fetched < worldcup.ALL_PAGES == 110


async def test_an_interrupted_structure_crawl_resumes_with_what_it_had_learned(tmp_path: Path) -> None:
    store = tmp_path / "like.sqlite"
    with FixtureServer() as site:
        first, _, _ = await _crawl(site, store, like=True, budget=20)
        with SqliteRouteStore(store) as frontier:
            learned = frontier.get_state("structure")
        assert learned is not None and json.loads(learned)["links"]  # class-links it has tried
        # A rerun that fails to open (a session file that is not there) keeps it as it was.
        broken = CrawlConfig(like=site.url(SAMPLE), store=store, session=tmp_path / "missing.json")
        with pytest.raises(ConfigError):
            async with Crawler(broken):
                pass
        with SqliteRouteStore(store) as frontier:
            assert frontier.get_state("structure") == learned
        second, _, crawler = await _crawl(site, store, like=True, budget=None)
        downloads = len({path for _, path in site.hits if path.startswith("/cup/")})
    # The links that waited for their class-link's probes before the stop are raised by a
    # probe that pays after it, and the routes from before carry the class-link they were
    # found by: the resumed crawl finds every player page and still stops by itself.
    assert first | second == worldcup.PLAYERS and not first & second
    assert crawler.stats.unpromising > 0
    assert downloads < worldcup.ALL_PAGES
