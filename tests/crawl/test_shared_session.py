"""A shared-session pool: every slot a tab of one context, whose renderers the tabs share.

What it trades is checked here: the jar is one for all routes in flight, a route's cookies
go into it without taking out the others', a failed route closes its own tab only (but
for a tab stuck in a script that never ends: its context goes, so that the renderer it
shares goes too), and the session outlives the context when the context is recycled.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path
from urllib.parse import urlsplit

import psutil
import pytest
from playwright.async_api import Error as PlaywrightError

from deepbot.browser.pool import BrowserPool, BrowserSettings, Slot
from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.crawl.visit import VisitOptions, visit
from deepbot.routes import Route, SessionState, Via
from deepbot.routes.sequences import navigate_step
from fixtures.server import FixtureServer
from fixtures.sites import lab

pytestmark = pytest.mark.browser

SHARED = BrowserSettings(shared_session=True, renderer_processes=1)


def _link(key: str, url: str) -> Route:
    return Route(key=key, url=url, via=Via.LINK, steps=navigate_step(url), program=navigate_step(url))


def _cookie(name: str, value: str, site: FixtureServer) -> dict[str, object]:
    return {"name": name, "value": value, "domain": "127.0.0.1", "path": "/"}


async def _cookies_seen(slot: Slot, url: str) -> str:
    await slot.page.goto(url)
    return "; ".join(sorted(str(await slot.page.evaluate("document.cookie")).split("; ")))


def _processes() -> list[psutil.Process]:
    return psutil.Process(os.getpid()).children(recursive=True)


def _command(process: psutil.Process) -> str:
    """A live process's command line; "" for one that has exited (gone, or a zombie its
    parent has not reaped yet: a renderer of a closed context, as CI once met)."""
    try:
        return " ".join(process.cmdline())
    except psutil.NoSuchProcess:  # ZombieProcess is one
        return ""


def _renderers_besides(earlier: set[int]) -> int:
    """Live renderer processes of this test process's tree but for the ``earlier`` ones."""
    return sum(p.pid not in earlier and "--type=renderer" in _command(p) for p in _processes())


async def test_the_tabs_share_one_jar_and_the_renderers_under_the_limit(site: FixtureServer) -> None:
    earlier = {p.pid for p in _processes()}
    async with BrowserPool(3, SHARED) as pool:
        slots = [await pool.acquire() for _ in range(3)]
        assert len({id(slot.context) for slot in slots}) == 1
        assert len({id(slot.page) for slot in slots}) == 3
        for n, slot in enumerate(slots):
            await slot.page.goto(site.url(f"/lab/?tab={n}"))
        await slots[0].page.evaluate("document.cookie = 'from=first; path=/'")
        assert await _cookies_seen(slots[2], site.url("/")) == "from=first"  # one jar
        assert _renderers_besides(earlier) == 1  # three tabs, one renderer (the limit)
        for slot in slots:
            await pool.release(slot)
    earlier = {p.pid for p in _processes()}
    async with BrowserPool(3, BrowserSettings()) as pool:  # a context each: a renderer each
        slots = [await pool.acquire() for _ in range(3)]
        for n, slot in enumerate(slots):
            await slot.page.goto(site.url(f"/lab/?tab={n}"))
        assert len({id(slot.context) for slot in slots}) == 3
        assert _renderers_besides(earlier) == 3
        for slot in slots:
            await pool.release(slot)


@pytest.mark.parametrize(("chromium", "renderers"), [("/usr/bin/chromium-headless-shell", 1),
                                                     ("/usr/bin/chromium", 2)])
async def test_tabs_on_two_sites_share_a_renderer_in_the_headless_shell_only(
        site: FixtureServer, monkeypatch: pytest.MonkeyPatch, chromium: str, renderers: int) -> None:
    # 127.0.0.1 and localhost are two sites. The headless shell, DeepBot's default, puts
    # them in one renderer under the limit; full Chromium isolates sites, a renderer each.
    if not Path(chromium).is_file():
        pytest.skip(f"{chromium} is not installed")
    monkeypatch.setenv("DEEPBOT_CHROMIUM", chromium)
    earlier = {p.pid for p in _processes()}
    async with BrowserPool(4, SHARED) as pool:
        slots = [await pool.acquire() for _ in range(4)]
        for n, slot in enumerate(slots):
            url = site.url(f"/lab/?tab={n}")
            await slot.page.goto(url if n % 2 else url.replace("127.0.0.1", "localhost"))
        assert {slot.page.url.split("/")[2].split(":")[0] for slot in slots} == {"127.0.0.1", "localhost"}
        assert _renderers_besides(earlier) == renderers
        for slot in slots:
            await pool.release(slot)


async def test_a_private_slot_has_a_jar_of_its_own_and_gives_its_worker_s_tab_back(
        site: FixtureServer) -> None:
    async with BrowserPool(2, SHARED) as pool:
        tab = await pool.acquire()
        await tab.page.goto(site.url("/lab/"))
        await tab.page.evaluate("document.cookie = 'shared=1; path=/'")
        await pool.release(tab)  # idle now: the private slot stands in for it
        other = await pool.acquire()
        private = await pool.acquire(private=True)
        assert private.shared is None and private.context not in (tab.context, other.context)
        await private.restore(SessionState())
        assert await _cookies_seen(private, site.url("/")) == ""  # not the shared jar
        await private.page.evaluate("document.cookie = 'private=1; path=/'")
        assert await _cookies_seen(other, site.url("/")) == "shared=1"
        await pool.release(private)
        again = await pool.acquire()
        assert again is tab and not tab.page.is_closed()  # the tab it stood in for, back
        await pool.release(again)
        assert await pool.acquire(private=True) is private  # kept for the next such route
        private.broken = True  # a failed route's context is not kept
        await pool.release(private)
        assert private.page.is_closed()
        fresh = await pool.acquire(private=True)
        assert fresh is not private and fresh.context not in (tab.context, private.context)
        for slot in (fresh, other):
            await pool.release(slot)


async def test_a_route_adds_the_cookies_the_jar_lacks_and_leaves_the_jars_own(
        site: FixtureServer) -> None:
    url = site.url("/")
    async with BrowserPool(2, SHARED) as pool:
        other, mine = await pool.acquire(), await pool.acquire()
        await other.page.goto(url)
        await other.page.evaluate("document.cookie = 'cart=3; path=/'; document.cookie = 'lang=en; path=/'")
        # A route found before the jar's lang changed: its copy is older than the jar's.
        route_session = SessionState(cookies=(_cookie("lang", "fr", site), _cookie("ticket", "t1", site)))
        await mine.restore(route_session)
        assert await _cookies_seen(mine, url) == "cart=3; lang=en; ticket=t1"
        snapshot = await visit(_link("after", url), route_session, mine, VisitOptions())
        assert {(c["name"], c["value"]) for c in snapshot.session.cookies} == {
            ("cart", "3"), ("lang", "en"), ("ticket", "t1")}
        assert mine.shared is not None
        assert mine.shared.jar == {("cart", "127.0.0.1", "/"), ("lang", "127.0.0.1", "/"),
                                   ("ticket", "127.0.0.1", "/")}  # as the snapshot read it
        # A cookie the jar lost since it was read comes back with the next route that has
        # one it does not know.
        await other.page.evaluate("document.cookie = 'ticket=; max-age=0; path=/'")
        await mine.restore(SessionState(cookies=(_cookie("ticket", "t1", site), _cookie("new", "n", site))))
        assert await _cookies_seen(mine, url) == "cart=3; lang=en; new=n; ticket=t1"
        await pool.release(other)
        await pool.release(mine)


async def test_a_failed_route_closes_its_tab_and_no_other(site: FixtureServer) -> None:
    async with BrowserPool(2, SHARED) as pool:
        busy = await pool.acquire()
        await busy.page.goto(site.url("/lab/"))
        with pytest.raises(RuntimeError):
            async with pool.slot() as failing:
                broken = failing.page
                raise RuntimeError("route failed")
        assert broken.is_closed() and not busy.page.is_closed()
        assert await busy.page.title() == "DeepBot Lab"  # still there, in flight
        with pytest.raises(PlaywrightError):  # a server too slow: its tab answers scripts, nothing is stuck
            async with pool.slot() as slow:
                await slow.page.goto(site.url("/lab/slow?s=3"), timeout=1000)
        assert slow.context is busy.context and slow.page.is_closed() and not busy.page.is_closed()
        async with pool.slot() as fresh:
            assert fresh.context is busy.context and fresh.page is not broken
            await fresh.page.goto(site.url("/"))
            assert await fresh.page.title() == "DeepBot fixture web"
        await pool.release(busy)


async def test_a_recycled_context_hands_its_session_to_the_next(site: FixtureServer) -> None:
    url = site.url("/")
    async with BrowserPool(1, BrowserSettings(shared_session=True, recycle_after=2)) as pool:
        async with pool.slot() as slot:
            first = slot.context
            await slot.page.goto(url)
            await slot.page.evaluate("document.cookie = 'kept=yes; path=/'; localStorage.setItem('k', 'v')")
        async with pool.slot() as slot:
            assert slot.context is first  # after its second route it is retired
        async with pool.slot() as slot:
            assert slot.context is not first
            assert first.pages == []  # closed with its last tab
            assert await _cookies_seen(slot, url) == "kept=yes"
            assert await slot.page.evaluate("localStorage.getItem('k')") == "v"


async def test_a_popup_is_closed_and_the_pools_own_tabs_are_not(site: FixtureServer) -> None:
    url = site.url("/lab/popups/")
    async with BrowserPool(3, SHARED) as pool, pool.slot() as slot:
        snapshot = await visit(_link("popups", url), SessionState(), slot, VisitOptions())
        more = [await pool.acquire(), await pool.acquire()]  # opened while the ad may open
        for _ in range(100):
            if site.hits_for(lab.POPUP_AD) and len(slot.context.pages) == 3:
                break
            await asyncio.sleep(0.05)
        assert site.hits_for(lab.POPUP_AD) >= 1
        assert sorted(map(id, slot.context.pages)) == sorted(map(id, [slot.page, *(s.page for s in more)]))
        for other in more:
            await pool.release(other)
    assert "Item three" in snapshot.text


async def test_a_shared_session_crawl_reaches_what_a_crawl_of_sessions_reaches(
        lab_site: FixtureServer, tmp_path: Path) -> None:
    reached: list[set[str]] = []
    failed: list[dict[str, int]] = []
    for shared in (False, True):
        config = CrawlConfig(seeds=(lab_site.url("/lab/menu/"),), store=tmp_path / f"{shared}.sqlite",
                             workers=3, depth=2, settle_timeout=2.0, shared_session=shared,
                             recycle_after=3, renderer_processes=1)
        earlier = {p.pid for p in _processes()}
        async with Crawler(config) as crawler:
            reached.append({doc.final_url async for doc in crawler.run()})
            failed.append(crawler.frontier.failures())
            if shared:  # its three tabs, still open, in the one renderer the config allows
                assert _renderers_besides(earlier) == 1
    assert len(reached[0]) >= 5
    assert reached[1] == reached[0]
    assert failed[1] == failed[0]  # the lab's redirect loop, in both


def _spinning(earlier: set[int]) -> list[psutil.Process]:
    """Renderers of this test's tree, but for the ``earlier`` ones, busy for most of 0.5 s."""
    found = [p for p in _processes() if p.pid not in earlier and "--type=renderer" in _command(p)]
    for p in found:  # the first call starts each one's count (one that has gone is no matter)
        with contextlib.suppress(psutil.Error):
            p.cpu_percent()
    time.sleep(0.5)
    busy = []
    for p in found:
        with contextlib.suppress(psutil.Error):
            if p.cpu_percent() > 50:
                busy.append(p)
    return busy


async def test_a_tab_stuck_in_a_script_closes_its_context_and_frees_the_tabs_sharing_its_renderer(
        site: FixtureServer) -> None:
    earlier = {p.pid for p in _processes()}
    async with BrowserPool(2, SHARED) as pool:
        other = await pool.acquire()
        await other.page.goto(site.url("/lab/"))
        with pytest.raises(PlaywrightError):
            async with pool.slot() as stuck:
                assert stuck.context is other.context
                await stuck.page.goto(site.url("/lab/stuck/loop"), timeout=2000)
        assert _spinning(earlier) == []  # the context went, and its stuck renderer with it
        assert other.page.is_closed()  # the tab in flight beside it: its route fails, and is retried
        await pool.release(other)
        async with pool.slot() as fresh:
            assert fresh.context not in (other.context, stuck.context)
            await fresh.page.goto(site.url("/lab/stuck/page-1"))
            assert await fresh.page.title() == "Fine page-1"


@pytest.mark.parametrize("shared", [False, True], ids=["route-sessions", "shared-session"])
async def test_a_page_whose_script_never_ends_fails_alone(
        site: FixtureServer, tmp_path: Path, shared: bool) -> None:
    config = CrawlConfig(seeds=(site.url("/lab/stuck/"),), store=tmp_path / "stuck.sqlite", workers=3,
                         depth=1, include=(r"/lab/stuck/",), step_timeout=3.0, settle_timeout=2.0,
                         route_timeout=8.0, max_attempts=2, shared_session=shared, renderer_processes=1)
    async with Crawler(config) as crawler:
        stored = {urlsplit(doc.final_url).path async for doc in crawler.run()}
        failures = crawler.frontier.failures()
    # Every fine page is stored, although in a shared session some were in flight in the
    # renderer a loop held (before the pool closed such a context, five or six of them
    # failed both tries there: they waited on the loops, and so did their retries).
    assert stored == {"/lab/stuck/", *lab.STUCK_FINE}
    assert sum(failures.values()) == 2  # the loop, stuck in its navigation; the menu, in the read after
