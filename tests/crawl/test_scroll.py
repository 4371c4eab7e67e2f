"""Infinite scroll: a page that watches scrolling is scrolled to its end while that
brings more; a page that does not is never scrolled. And "Load more" buttons, clicked
while they bring more."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from deepbot.browser.pool import BrowserPool, BrowserSettings
from deepbot.crawl.visit import VisitOptions, visit
from deepbot.routes import PageSnapshot, Route, SessionState, Via
from deepbot.sequences import navigate_step
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


async def test_a_page_that_only_restyles_on_scroll_gives_what_it_has(site: FixtureServer) -> None:
    snapshot = await _visit(site.url("/lab/feed/archive"))
    assert snapshot.scrolled == 0 and "Year 2019" in snapshot.text


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
