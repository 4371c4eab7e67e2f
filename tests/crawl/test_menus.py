"""Menus opened by a click (fixtures/sites/menus.py: a Bootstrap 5 dropdown and an old
``style.display`` toggle in every page's header), the only way to a search form: the
crawl opens each, follows its script links with the opening click before theirs in the
route, reaches the form and queries it, and no route fails; and the replay of a
stored page walks the same steps."""

from __future__ import annotations

import re
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.replay import replay_document
from deepbot.routes import Via
from fixtures.server import FixtureServer
from fixtures.sites import menus

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(240)]

# A click on the Browse toggle, then on one of its items.
_BROWSE_THEN_ITEM = re.compile(
    r'^click "#browseMenu"\nclick ".* > ul:nth-of-type\(1\) > li:nth-of-type\(\d\) > a', re.M)
_TOOLS_THEN_ITEM = re.compile(r'^click ".* > button:nth-of-type\(1\)"\nclick "#toolsMenu > ', re.M)


async def test_a_menu_opened_by_a_click_leads_to_the_search_form_and_no_route_fails(tmp_path: Path) -> None:
    with FixtureServer() as site:
        config = CrawlConfig(seeds=(site.url("/menus/"),), domains=(Path("domains/books.yaml"),),
                             store=tmp_path / "menus.sqlite", workers=2, depth=2, settle_timeout=2.0,
                             step_timeout=8.0)
        started = time.monotonic()
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
            failures, retried = crawler.frontier.failures(), crawler.stats.retried
            fetched = crawler.stats.fetched
            script_routes = crawler.frontier._read("SELECT count(*) FROM routes WHERE key LIKE 'script:%'")
        took = time.monotonic() - started
        # The stored program brings a fresh browser to the page behind the old menu.
        maps = next(doc for doc in documents if doc.final_url == site.url("/menus/maps"))
        replayed = await replay_document(maps)
        assert replayed.reached, replayed.reason
    assert not failures and not retried, failures
    reached = {urlsplit(doc.final_url).path: doc for doc in documents if doc.via is Via.SCRIPT}
    assert set(menus.BROWSE) | set(menus.TOOLS) <= set(reached), sorted(reached)
    # Each route clicks the menu's opener, then the item it showed.
    for path in menus.BROWSE:
        assert _BROWSE_THEN_ITEM.search(reached[path].nseql), reached[path].nseql
    for path in menus.TOOLS:
        assert _TOOLS_THEN_ITEM.search(reached[path].nseql), reached[path].nseql
    # The form behind the menu was analysed and queried: its answers are stored.
    answers = {doc.final_url.split("?", 1)[1] for doc in documents if doc.via is Via.FORM}
    assert answers == {"title=java&author=", "title=xml&author=", "title=&author=knuth"}, answers
    assert all(doc.nseql.count('click "#browseMenu"') == 1 for doc in documents if doc.via is Via.FORM)
    # The menus are on every page, but each item is one route: every page is fetched once
    # (the home page, 3 news, 4 behind the menus, 3 answers); it was 4 routes a page (51 fetches).
    assert script_routes == [(4,)] and fetched == 11, (script_routes, fetched)
    assert took < 120, took  # before: every menu item waited its step timeout, three times, on every page


async def test_a_step_whose_element_is_hidden_fails_once_and_at_once(tmp_path: Path) -> None:
    with FixtureServer() as site:
        config = CrawlConfig(seeds=(site.url("/menus/once"),), store=tmp_path / "once.sqlite", workers=1,
                             depth=1, settle_timeout=2.0, step_timeout=8.0)
        started = time.monotonic()
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
            failures, retried = crawler.frontier.failures(), crawler.stats.retried
            attempts = crawler.frontier._read("SELECT attempts FROM routes WHERE key LIKE 'script:%'")
        took = time.monotonic() - started
    assert [doc.via for doc in documents] == [Via.SEED]
    (reason,) = failures
    assert reason.startswith("ElementUnusable: ") and "hidden (display: none on <p#once>)" in reason, reason
    assert retried == 0 and attempts == [(1,)], (retried, attempts)
    # Before: three tries of the 8 s step timeout, with backoff between them (over 30 s).
    assert took < 15, took
