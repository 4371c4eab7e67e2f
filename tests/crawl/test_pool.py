"""The mini-browser pool: contexts are reused, yet no route sees another's session."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import psutil
import pytest

from deepbot.browser import pool as pool_module
from deepbot.browser.pool import BrowserPool, BrowserSettings
from deepbot.content.extract import main_text
from deepbot.crawl.visit import VisitOptions, visit
from deepbot.routes import Route, SessionState, Via, page_identity
from deepbot.routes.sequences import append_steps, click_step, navigate_step
from fixtures.server import FixtureServer
from fixtures.sites import lab

pytestmark = pytest.mark.browser


def _link(key: str, url: str) -> Route:
    return Route(key=key, url=url, via=Via.LINK, steps=navigate_step(url), program=navigate_step(url))


async def _page_state(slot, url: str) -> tuple[str, str | None, str | None]:
    await slot.page.goto(url)
    return tuple(await slot.page.evaluate(
        "[document.cookie, localStorage.getItem('who'), sessionStorage.getItem('who')]"))


async def test_session_isolation_between_routes_on_one_reused_context(site: FixtureServer) -> None:
    url = site.url("/")
    async with BrowserPool(1, BrowserSettings(recycle_after=100)) as pool:
        # Route A: starts clean, its page sets a cookie and storage.
        async with pool.slot() as slot:
            first_context = slot.context
            await slot.restore(SessionState())
            await slot.page.goto(url)
            await slot.page.evaluate(
                "document.cookie='who=alice'; localStorage.setItem('who','alice');"
                "sessionStorage.setItem('who','alice')")
            slot.mark_dirty()
            state = SessionState.from_playwright(dict(await slot.context.storage_state()))
        # Route B: a fresh session on the same reused context sees none of it.
        async with pool.slot() as slot:
            assert slot.context is first_context  # reused, not recreated
            await slot.restore(SessionState())
            cookie, local, _ = await _page_state(slot, url)
            assert cookie == ""
            assert local is None
            assert await slot.context.cookies() == []
        # Route C: restoring A's snapshot brings back exactly A's cookie and storage.
        async with pool.slot() as slot:
            await slot.restore(state)
            cookie, local, _ = await _page_state(slot, url)
            assert cookie == "who=alice"
            assert local == "alice"


async def test_broken_slot_is_replaced_by_a_fresh_context(site: FixtureServer) -> None:
    async with BrowserPool(1) as pool:
        with pytest.raises(RuntimeError):
            async with pool.slot() as slot:
                broken = slot.context
                raise RuntimeError("route failed")
        async with pool.slot() as slot:
            assert slot.context is not broken
            await slot.page.goto(site.url("/"))
            assert await slot.page.title() == "DeepBot fixture web"


async def test_a_click_timer_left_armed_never_moves_the_next_route(site: FixtureServer) -> None:
    """A click route whose page navigates "a moment later" hands its slot on; the next
    route in that slot must capture its own page, not the one the old timer opens."""
    js = site.url("/lab/js/")
    steps = append_steps(navigate_step(js), click_step("#js-later"))
    later = Route(key="later", url=js, via=Via.SCRIPT, steps=steps, program=steps,
                  acts_on=page_identity(js, ""))
    options = VisitOptions(settle_timeout_ms=2_000)
    async with BrowserPool(1, BrowserSettings()) as pool:
        for n in range(3):
            target = site.url(f"/lab/slow?s=0.6&n={n}")  # the old timer fires while it loads
            async with pool.slot() as slot:
                await visit(later, SessionState(), slot, options)
            async with pool.slot() as slot:
                plain = Route(key=f"plain{n}", url=target, via=Via.LINK, steps=navigate_step(target),
                              program=navigate_step(target))
                snapshot = await visit(plain, SessionState(), slot, options)
                assert snapshot.url == target
                assert slot.page.url == target


async def test_session_storage_never_reaches_the_next_route_in_a_reused_tab(site: FixtureServer) -> None:
    """sessionStorage is the tab's, not the route's: each route in a reused slot starts
    without it, even when the previous page wrote more after it was captured."""
    url = site.url("/lab/tab-storage")
    options = VisitOptions(settle_timeout_ms=2_000)
    async with BrowserPool(1, BrowserSettings()) as pool:
        for n in range(3):
            route = Route(key=f"storage{n}", url=url, via=Via.LINK, steps=navigate_step(url),
                          program=navigate_step(url))
            async with pool.slot() as slot:
                snapshot = await visit(route, SessionState(), slot, options)
                await slot.page.wait_for_function("sessionStorage.getItem('late') !== null")
            assert "loads in this tab: 1; late: none" in snapshot.text
        # A page the crawler did not harvest (a plain goto) is cleared by the next visit too.
        async with pool.slot() as slot:
            await slot.page.goto(url)
            await slot.page.wait_for_function("sessionStorage.getItem('late') !== null")
            slot.clears_on_leave = False
        async with pool.slot() as slot:
            route = Route(key="after-goto", url=url, via=Via.LINK, steps=navigate_step(url),
                          program=navigate_step(url))
            snapshot = await visit(route, SessionState(), slot, options)
            assert "loads in this tab: 1; late: none" in snapshot.text


async def test_harvest_survives_a_page_that_breaks_json_stringify(site: FixtureServer) -> None:
    """Old sites load Prototype.js, whose Array#toJSON makes JSON.stringify return arrays as
    strings; the harvest must still bring back the page's links as links."""
    url = site.url("/lab/")
    route = _link("proto", url)
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        await slot.context.add_init_script(
            "Array.prototype.toJSON = function () { return '[' + this.map(String).join(',') + ']'; };")
        snapshot = await visit(route, SessionState(), slot, VisitOptions())
    assert site.url("/lab/menu/") in {link.url for link in snapshot.links}
    assert snapshot.title == "DeepBot Lab"


@pytest.mark.parametrize(("path", "expected"), [
    # A frameset has no anchors of its own: its frames' documents are its links; a data: frame is not.
    ("/lab/frames/", {"/lab/frames/nav": "Navigation", "/lab/frames/welcome": "main"}),
    # Iframes, lazy ones too, named by their title; the srcdoc one has no document to reach.
    ("/lab/embed/", {"/lab/embed/hours": "Opening hours", lab.OFFSITE_URL: "Map"}),
    # A meta refresh that would fire after the page has been read.
    ("/lab/moved", {"/lab/moved-here": "meta refresh"}),
])
async def test_frames_iframes_and_a_meta_refresh_are_links_to_their_documents(
        site: FixtureServer, path: str, expected: dict[str, str]) -> None:
    url = site.url(path)
    route = _link(path, url)
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        snapshot = await visit(route, SessionState(), slot, VisitOptions())
    found = {link.url: link.text for link in snapshot.links if link.url != site.url("/lab/")}
    assert found == {(k if "://" in k else site.url(k)): v for k, v in expected.items()}


async def test_web_components_shadow_roots_are_read(site: FixtureServer) -> None:
    url = site.url("/lab/components/")
    route = _link("components", url)
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        snapshot = await visit(route, SessionState(), slot, VisitOptions())
    assert site.url("/lab/components/catalogue") in {link.url for link in snapshot.links}
    assert lab.SHADOW_SENTENCE in snapshot.text and "Light DOM note" in snapshot.text
    assert "border:" not in snapshot.text  # a shadow root's styles are not text
    # Stored with its shadow roots, as declarative shadow DOM: the main text finds the card.
    assert snapshot.html.count('<template shadowrootmode="open">') == 2
    assert lab.SHADOW_SENTENCE in main_text(snapshot.html)


async def test_a_popup_the_page_opens_by_itself_is_closed(site: FixtureServer) -> None:
    url = site.url("/lab/popups/")
    route = _link("popups", url)
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        snapshot = await visit(route, SessionState(), slot, VisitOptions())
        for _ in range(100):  # the offer opens a task after load; its page is closed as it comes
            if site.hits_for(lab.POPUP_AD) and slot.context.pages == [slot.page]:
                break
            await asyncio.sleep(0.05)
        assert site.hits_for(lab.POPUP_AD) >= 1 and slot.context.pages == [slot.page]
    assert snapshot.url == url and "Item three" in snapshot.text


@pytest.mark.parametrize(("path", "final", "status"), [
    ("/lab/redirect/start", "/lab/redirect/end", 200),  # HTTP redirects, seen by goto
    ("/lab/redirect/by-script", "/lab/redirect/gone", 410),  # the page's own, after goto
])
async def test_the_snapshot_describes_the_document_the_page_ended_on(
        site: FixtureServer, path: str, final: str, status: int) -> None:
    url = site.url(path)
    route = _link(path, url)
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        snapshot = await visit(route, SessionState(), slot, VisitOptions())
    assert (snapshot.url, snapshot.status) == (site.url(final), status)
    assert snapshot.content_type.startswith("text/html")
    assert "removed" in snapshot.text if status == 410 else "Two hops" in snapshot.text


@pytest.mark.parametrize(("path", "body", "content_type"), [
    ("/lab/export.csv", lab.EXPORT_CSV.encode(), "text/csv"),
    ("/lab/doc.pdf", lab.make_pdf(lab.PDF_SENTENCE), "application/pdf")])
async def test_a_url_the_browser_downloads_is_fetched_in_the_routes_session(
        site: FixtureServer, path: str, body: bytes, content_type: str) -> None:
    """An attachment is a download in any Chromium, and so is a PDF in the headless shell
    (it has no viewer): the route's snapshot still holds the file's bytes."""
    url = site.url(path)
    route = _link(path, url)
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        snapshot = await visit(route, SessionState(), slot, VisitOptions())
    assert snapshot.body == body
    assert (snapshot.status, snapshot.content_type.split(";")[0]) == (200, content_type)


async def test_a_browser_that_answers_no_more_is_stopped_on_close(
        site: FixtureServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # A frozen Chromium (SIGSTOP: as a loaded machine's that never answers "close") must
    # not hang the pool's close nor raise out of it; no process of it may be left.
    monkeypatch.setattr(pool_module, "CLOSE_TIMEOUT", 1.0)
    me = psutil.Process(os.getpid())
    earlier = {p.pid for p in me.children(recursive=True)}
    pool = await BrowserPool(1).start()
    async with pool.slot() as slot:
        await slot.page.goto(site.url("/"))
    chromium = [p for p in me.children(recursive=True)
                if p.pid not in earlier and "--type=" not in " ".join(p.cmdline())
                and "chrom" in p.name().lower()]
    assert chromium, "the browser's main process was not found"
    for process in chromium:
        process.send_signal(signal.SIGSTOP)
    started = time.monotonic()
    await pool.close()
    assert time.monotonic() - started < 30  # not hung: bounded by the 1 s given and the driver's stop
    _, alive = psutil.wait_procs(chromium, timeout=5)
    assert not alive
