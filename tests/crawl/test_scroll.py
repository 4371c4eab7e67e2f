"""Infinite scroll: a page that watches scrolling is scrolled to its end while that
brings more; a page that does not is never scrolled. And "Load more" buttons, clicked
while they bring more."""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from deepbot.browser.pool import BrowserPool, BrowserSettings
from deepbot.cli import main
from deepbot.crawl.visit import VisitOptions, _scroll_ms, visit
from deepbot.routes import PageSnapshot, Route, SessionState, Via
from deepbot.routes.sequences import navigate_step
from deepbot.store import SqliteDocumentStore
from fixtures.server import FixtureServer
from fixtures.sites import lab

pytestmark = pytest.mark.browser


async def _visit(url: str, options: VisitOptions | None = None) -> PageSnapshot:
    go = navigate_step(url)
    route = Route(key=url, url=url, via=Via.LINK, steps=go, program=go)
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        return await visit(route, SessionState(), slot, options or VisitOptions())


def _stories(snapshot: PageSnapshot) -> set[str]:
    return {urlsplit(link.url).path for link in snapshot.links if "/story-" in link.url}


async def test_a_feed_is_scrolled_until_no_more_comes(site: FixtureServer) -> None:
    snapshot = await _visit(site.url("/lab/feed/"))
    # two rounds brought a batch each; the third brought nothing and ended the rounds
    assert snapshot.scrolled == 2 and snapshot.settled
    assert _stories(snapshot) == {f"/lab/feed/story-{n}" for n in range(1, 10)}
    assert _stories(snapshot) >= lab.BY_SCROLL
    assert "Loading more" not in snapshot.text and "What happened, part 9." in snapshot.text


@pytest.mark.parametrize(("rounds", "stories"), [(0, 3), (1, 6)])
async def test_rounds_are_bounded(site: FixtureServer, rounds: int, stories: int) -> None:
    snapshot = await _visit(site.url("/lab/feed/"), VisitOptions(max_scrolls=rounds))
    assert snapshot.scrolled == rounds and len(_stories(snapshot)) == stories


@pytest.mark.parametrize("variant", ["app", "shell", "classic"])
async def test_a_scrolling_panel_and_an_onscroll_handler_are_scrolled_too(
        site: FixtureServer, variant: str) -> None:
    # app, shell: the window has nothing to scroll, the list panel does (a scroll listener
    # on it; an observer of its end); classic: window.onscroll
    snapshot = await _visit(site.url(f"/lab/feed/{variant}"))
    assert snapshot.scrolled == 2 and _stories(snapshot) == {f"/lab/feed/story-{n}" for n in range(1, 10)}


@pytest.mark.parametrize("ticker", ["", "?ticker=1"])
async def test_a_page_that_only_restyles_on_scroll_gives_what_it_has(
        site: FixtureServer, ticker: str) -> None:
    # with a clock ticking beside it the page never goes still: not a feed cut short either
    snapshot = await _visit(site.url(f"/lab/feed/archive{ticker}"))
    assert snapshot.scrolled == 0 and snapshot.scroll_stop == ("" if ticker else "end")
    assert "Year 2019" in snapshot.text


async def test_only_pages_that_watch_scrolling_are_marked(site: FixtureServer) -> None:
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        marks = []
        for path in ("/lab/", "/lab/feed/", "/lab/feed/archive"):
            await slot.page.goto(site.url(path))
            marks.append(await slot.page.evaluate("() => window.__deepbotNet.scrollHooks"))
        # the page's own listeners still work through the wrapper
        await slot.page.evaluate("() => window.scrollTo(0, 500)")
        await slot.page.wait_for_function("() => document.getElementById('top').className === 'scrolled'")
    assert marks == [False, True, True]


async def test_a_load_more_button_is_clicked_until_it_goes(site: FixtureServer) -> None:
    snapshot = await _visit(site.url("/lab/more/"))
    titles = {urlsplit(link.url).path for link in snapshot.links if "/title-" in link.url}
    # two clicks brought a batch each; the last batch took the button away
    assert snapshot.more == 2 and snapshot.scrolled == 0
    assert titles == {f"/lab/more/title-{n}" for n in range(1, 3 * lab.MORE_BATCH + 1)} >= lab.BY_LOAD_MORE
    assert "Load more" not in snapshot.text
    # the "Show more by page" link is a link: followed, not clicked
    assert site.url("/lab/more/?page=1") in {link.url for link in snapshot.links}


@pytest.mark.parametrize(("rounds", "titles"), [(0, 1), (1, 2)])
async def test_load_more_rounds_share_the_scroll_cap(site: FixtureServer, rounds: int, titles: int) -> None:
    snapshot = await _visit(site.url("/lab/more/"), VisitOptions(max_scrolls=rounds))
    found = [link for link in snapshot.links if "/title-" in link.url]
    assert snapshot.more == rounds and len(found) == titles * lab.MORE_BATCH


async def test_a_load_more_button_that_leaves_the_page_is_not_followed_there(site: FixtureServer) -> None:
    before = site.hits_for("/lab/more/title-9")  # the site is shared with other tests
    snapshot = await _visit(site.url("/lab/more/paged"))
    assert snapshot.url == site.url("/lab/more/paged") and snapshot.more == 0
    assert "Title 1" in snapshot.text and "number 9" not in snapshot.text
    # it is still a script element: the crawler follows it as a route of its own
    assert [s.text for s in snapshot.scripts] == ["Load more"]
    assert site.hits_for("/lab/more/title-9") == before


async def test_a_library_that_patches_add_event_listener_still_sees_every_listener(
        site: FixtureServer) -> None:
    # zone.js (Angular) patches EventTarget.prototype.addEventListener after the page loads
    # its scripts; the mini-browser's own wrapper must not stand in front of it.
    patched = """() => {
      const seen = [];
      const original = EventTarget.prototype.addEventListener;
      EventTarget.prototype.addEventListener = function (type, ...rest) {
        const who = this === window ? 'window' : this === document ? 'document' : this.localName;
        seen.push(type + ':' + who);
        return original.call(this, type, ...rest);
      };
      document.body.addEventListener('click', () => {});
      window.addEventListener('scroll', () => {});
      document.addEventListener('keydown', () => {});
      addEventListener('resize', () => {});
      return [seen, window.__deepbotNet.scrollHooks];
    }"""
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        await slot.page.goto(site.url("/lab/"))
        seen, hooked = await slot.page.evaluate(patched)
    assert seen == ["click:body", "scroll:window", "keydown:document", "resize:window"]
    assert hooked  # and the scroll listener was noted all the same


def _posts(snapshot: PageSnapshot) -> set[str]:
    return {urlsplit(link.url).path for link in snapshot.links if "/post-" in link.url}


async def test_a_long_feed_gives_every_post(site: FixtureServer) -> None:
    # 100 posts, 10 with the page and 10 a batch as the sentinel comes near: nine rounds
    # bring a batch each, the tenth nothing (with 5 rounds at most, 60 posts came)
    snapshot = await _visit(site.url("/lab/stream/"))
    assert _posts(snapshot) == {f"/lab/stream/post-{n}" for n in range(1, lab.STREAM_POSTS + 1)}
    assert snapshot.scrolled == lab.STREAM_POSTS // lab.STREAM_BATCH - 1 and snapshot.scroll_stop == "end"
    assert "You have seen every post." in snapshot.text


async def test_a_feed_longer_than_the_round_bound_is_cut_short(site: FixtureServer) -> None:
    snapshot = await _visit(site.url("/lab/stream/"), VisitOptions(max_scrolls=3))
    assert len(_posts(snapshot)) == 40 and snapshot.scrolled == 3 and snapshot.scroll_stop == "rounds"


async def test_a_feed_longer_than_the_time_bound_is_cut_short(site: FixtureServer) -> None:
    # each batch takes the server 0.15 s, then the page must stay still 0.25 s
    started = time.monotonic()
    snapshot = await _visit(site.url("/lab/stream/?total=1000"), VisitOptions(scroll_time_ms=1500))
    elapsed = time.monotonic() - started
    assert snapshot.scroll_stop == "time" and 1 <= snapshot.scrolled <= 4
    assert len(_posts(snapshot)) == lab.STREAM_BATCH * (snapshot.scrolled + 1)
    assert elapsed < 12  # a browser started, the page loaded, 1.5 s of scrolling; not 1000 posts


def test_scrolling_leaves_a_quarter_of_the_route_bound() -> None:
    started = time.monotonic()
    assert _scroll_ms(VisitOptions(scroll_time_ms=25_000), started) == 25_000  # no route bound known
    assert 24_000 < _scroll_ms(VisitOptions(route_timeout_ms=45_000), started) <= 25_000
    # a route bound of 20 s: 15 s, less what the route has taken already
    assert 14_000 < _scroll_ms(VisitOptions(route_timeout_ms=20_000), started) <= 15_000
    assert _scroll_ms(VisitOptions(route_timeout_ms=20_000), started - 30) == 0


@pytest.mark.slow
@pytest.mark.parametrize(("flags", "said", "posts"), [
    ((), "In pages: scrolled to the end ×1 (9 rounds)", 100),
    (("--max-scrolls", "3"), "Listings cut short (those pages may hold more): scrolling stopped by the"
     " round bound ×1 (3 rounds a page: --max-scrolls raises it).", 40),
    (("--scroll-time", "1"),
     "scrolling stopped by the time bound ×1 (1 s a page: --scroll-time raises it", None),
])
def test_the_summary_tells_a_feed_read_to_its_end_from_one_cut_short(
        site: FixtureServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        flags: tuple[str, ...], said: str, posts: int | None) -> None:
    store = tmp_path / "feed.sqlite"
    assert main(["crawl", "--seed", site.url("/lab/stream/"), "--store", str(store), "--depth", "0",
                 "--quiet", *flags]) == 0
    out = capsys.readouterr().out
    assert said in out
    assert ("scrolled to the end" in out) == (not flags)
    with SqliteDocumentStore(store) as documents:
        (doc,) = documents.iter_documents()
    shown = {n for n in range(1, lab.STREAM_POSTS + 1) if f"Post {n}\n" in doc.text}
    assert shown == set(range(1, posts + 1)) if posts else 10 < len(shown) < lab.STREAM_POSTS
