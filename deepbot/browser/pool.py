"""A pool of reusable browser contexts ("mini-browsers"), each with one page.

A new context costs 0.5–1 s; bringing a reused one to another session in place
costs ~10–20 ms (``set_storage_state``), and nothing when both are empty. So a slot
keeps its context across routes, restores the route's session in place, and is
recycled after ``recycle_after`` routes or after any error.

With ``shared_session`` every slot is instead a tab of one context, as a person
browses with many tabs: one cookie jar and storage for all routes in flight. A
renderer process serves one context only, so this is what lets Chromium's
``--renderer-process-limit`` put several workers' pages in one renderer: ~20 MB less
a worker at the same CPU (``bench/memory.py``). A route then adds the cookies the jar
lacks instead of replacing it, so routes in flight see each other's cookies: for sites
that keep no per-visitor state (no cart, no wizard's step). A route asked for
``private`` (the crawl asks for every route inside a query's results) runs in a context
of its own all the same, as in the default: a server that keeps the last search in its
session must see each query in a session of its own. Those contexts are kept for the
next such route, as the default keeps its slots; a link crawl never opens one.

A page whose script never ends holds its renderer's main thread. Closing that page ends
the renderer only if no other page uses it: true of a context of the slot's own, not of
tabs sharing renderers, whose other routes would then wait on it until their own time
ran out, and every tab Chromium later put there too. So a failed route's tab that
answers no script is taken for a stuck renderer, and its whole context is closed: the
routes in flight in it fail, and their retries (as any retry in a shared pool, the
crawl asks) run in contexts of their own, where a page that hangs again hangs nothing
else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Browser, BrowserContext, Page, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from deepbot.browser import fetches
from deepbot.browser.blocking import block_media
from deepbot.browser.failures import close_quietly
from deepbot.browser.launch import launch_chromium
from deepbot.errors import BrowserCrashedError
from deepbot.routes import EMPTY_SESSION, SessionState

_EMPTY_DIGEST = EMPTY_SESSION.digest()  # most routes of most crawls: no hash a route

log = logging.getLogger("deepbot.browser")

CLOSE_TIMEOUT = 10.0  # s a browser or a context is given to close before it is stopped

# Seconds a failed route's tab of a shared context has to answer a script before its
# renderer is taken for stuck (a page's own work rarely holds the main thread this long).
_PROBE_S = 3.0

# Images the crawler never needs: Blink does not even request them.
_IMAGES_OFF = "--blink-settings=imagesEnabled=false"


@dataclass(frozen=True)
class BrowserSettings:
    extra_args: tuple[str, ...] = ()  # Chromium switches of the crawl's own (its proxy)
    headless: bool = True
    block_images: bool = True
    block_media: bool = True  # fonts, audio and video
    user_agent: str | None = None
    viewport: tuple[int, int] = (1280, 900)
    recycle_after: int = 200  # routes per context before a fresh one
    navigation_timeout_ms: int = 15_000
    shared_session: bool = False  # every slot a tab of one context (see the module's text)
    renderer_processes: int = 0  # with shared_session, renderers at most; 0: a core each, at least 2

    def renderer_limit(self) -> int:
        return self.renderer_processes or max(2, os.cpu_count() or 2)


def _jar_key(cookie: Mapping[str, Any]) -> tuple[str, str, str]:
    """A cookie's name, domain and path, as the jar knows it (Playwright's shape)."""
    domain = cookie.get("domain") or urlsplit(str(cookie.get("url", ""))).hostname or ""
    return str(cookie.get("name")), str(domain), str(cookie.get("path") or "/")


@dataclass
class SharedContext:
    """The one context of a shared-session pool, and what its jar is known to hold."""

    context: BrowserContext
    generation: int
    tabs: int = 0  # its slots, busy or idle
    routes: int = 0  # run in it; after recycle_after a tab, a fresh context takes over
    jar: frozenset[tuple[str, str, str]] = frozenset()  # its cookies' keys, as last read
    retired: bool = False  # no new tab opens in it

    async def merge(self, session: SessionState) -> None:
        """Add the route's cookies the jar lacks (by name, domain and path). The jar's own
        stay: they are newer than a route's copy, as in a person's browser with many
        tabs. (A route's localStorage is not brought: that needs a page at its origin.)"""
        wanted = {_jar_key(cookie): cookie for cookie in session.to_playwright()["cookies"]}
        if wanted.keys() <= self.jar:
            return  # every page's capture reads the jar: a call only for cookies new to it
        held = {_jar_key(cookie) for cookie in await self.context.cookies()}
        missing = [cookie for key, cookie in wanted.items() if key not in held]
        if missing:
            await self.context.add_cookies(missing)
        self.jar = frozenset(held | wanted.keys())

    def read(self, session: SessionState) -> None:
        self.jar = frozenset(_jar_key(cookie.playwright()) for cookie in session.cookies)


@dataclass
class Slot:
    """One mini-browser: a context, its page, and what we know of its state."""

    context: BrowserContext
    page: Page
    routes_run: int = 0
    session_digest: str | None = None  # the session the context holds, if known clean
    broken: bool = False
    generation: int = 0
    acted: bool = False  # the last route clicked or submitted: its page may still act on its own
    clears_on_leave: bool = False  # the page shown clears its sessionStorage when it goes
    shared: SharedContext | None = field(default=None, repr=False)  # a tab of a shared context
    # A context of its own in a shared pool: while it runs a route, the worker's idle tab
    # (or its "open one" token) it stands in for waits, and goes back to the pool with it.
    private: bool = False
    borrowed: Slot | None = field(default=None, repr=False)

    async def restore(self, session: SessionState) -> None:
        """Bring the context to exactly ``session`` (cookies and storage); a shared one
        takes the session's cookies in (SharedContext.merge)."""
        if self.shared is not None:
            await self.shared.merge(session)
            return
        digest = _EMPTY_DIGEST if session is EMPTY_SESSION else session.digest()
        if digest == self.session_digest:
            return
        await self.context.set_storage_state(session.to_playwright())  # type: ignore[arg-type]
        self.session_digest = digest

    def mark_dirty(self) -> None:
        self.session_digest = None

    def captured(self, session: SessionState) -> None:
        """``session`` is what the context holds now: it was just read from it."""
        self.session_digest = session.digest()
        if self.shared is not None:
            self.shared.read(session)


class BrowserPool:
    """One Chromium and up to ``size`` slots; relaunches the browser if it dies."""

    def __init__(self, size: int, settings: BrowserSettings | None = None,
                 session: SessionState | None = None):
        self.size = size
        self.settings = settings or BrowserSettings()
        # A shared context starts in this session (a login: its localStorage too).
        self._first_session = session
        self._shared: SharedContext | None = None
        self._shared_all: list[SharedContext] = []  # the current one, and retired ones with tabs left
        self._opening = asyncio.Lock()  # held while a tab of ours opens: it is no popup
        self._tabs: set[Page] = set()
        self._private: list[Slot] = []  # a shared pool's idle contexts of their own
        self._pw: Playwright | None = None
        self._pw_cm: object | None = None
        self._browser: Browser | None = None
        self._idle: asyncio.Queue[Slot | None] = asyncio.Queue()
        for _ in range(size):
            self._idle.put_nowait(None)
        self._generation = 0  # bumped on relaunch: older slots belong to a dead browser
        self._launch_lock = asyncio.Lock()
        self.relaunches = 0

    async def start(self) -> BrowserPool:
        cm = async_playwright()
        self._pw_cm = cm
        self._pw = await cm.__aenter__()
        try:
            await self._launch()
        except BaseException:
            await self.close()  # no caller will: stop the Playwright driver just started
            raise
        return self

    async def close(self) -> None:
        while not self._idle.empty():
            slot = self._idle.get_nowait()
            if slot is not None and slot.shared is None:
                await _quietly_close(slot.context)
        for shared in self._shared_all:
            await _quietly_close(shared.context)
        self._shared_all.clear()
        self._shared = None
        for slot in self._private:
            await _quietly_close(slot.context)
        self._private.clear()
        if self._browser is not None:
            try:
                await asyncio.wait_for(self._browser.close(), CLOSE_TIMEOUT)
            except PlaywrightError:
                pass  # it had died: nothing to close
            except TimeoutError:
                # Seen on a loaded machine: Chromium answers no more. Stopping the
                # driver below kills the browsers it launched, so nothing is left.
                log.warning("Chromium did not close within %g s; stopping it", CLOSE_TIMEOUT)
            self._browser = None
        if self._pw_cm is not None:
            await self._pw_cm.__aexit__(None, None, None)  # type: ignore[attr-defined]
            self._pw_cm = None

    async def __aenter__(self) -> BrowserPool:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _launch(self) -> None:
        assert self._pw is not None
        args = self.settings.extra_args + ((_IMAGES_OFF,) if self.settings.block_images else ())
        if self.settings.shared_session:
            args += (f"--renderer-process-limit={self.settings.renderer_limit()}",)
        self._browser = await launch_chromium(self._pw, headless=self.settings.headless, extra_args=args)

    async def _ensure_browser(self) -> Browser:
        async with self._launch_lock:
            if self._browser is None or not self._browser.is_connected():
                if self._browser is not None:
                    self.relaunches += 1
                    log.warning("Chromium died; relaunched it (%d so far)", self.relaunches)
                    self._generation += 1
                await self._launch()
            assert self._browser is not None
            return self._browser

    async def _new_context(self, browser: Browser, state: dict[str, Any] | None = None) -> BrowserContext:
        width, height = self.settings.viewport
        context = await browser.new_context(
            user_agent=self.settings.user_agent,
            viewport={"width": width, "height": height},
            service_workers="block",  # a worker would outlive the route and serve stale pages
            accept_downloads=False,
            storage_state=state,  # type: ignore[arg-type]
        )
        context.set_default_navigation_timeout(self.settings.navigation_timeout_ms)
        context.set_default_timeout(self.settings.navigation_timeout_ms)
        await fetches.install(context)  # visit() waits on the page's own count of its fetches
        return context

    async def _new_slot(self) -> Slot:
        browser = await self._ensure_browser()
        if self.settings.shared_session:
            return await self._new_tab(browser)
        return await self._new_own(browser)

    async def _new_own(self, browser: Browser) -> Slot:
        """A context of the slot's own, with its page."""
        try:
            context = await self._new_context(browser)
            page = await context.new_page()
            # From here on, any other page is a popup the page opened by itself (an ad on
            # load, a timer): left open it would run on in the context until it is recycled.
            # (What a route's action opens comes to the route's own tab: nseql.)
            context.on("page", _close_popup)
            await self._block_media(context, page)
        except PlaywrightError as exc:
            raise BrowserCrashedError(f"could not open a browser context: {exc.message}") from exc
        return Slot(context, page, session_digest=SessionState().digest(), generation=self._generation)

    async def _block_media(self, context: BrowserContext, page: Page) -> None:
        if self.settings.block_media:
            await block_media(context, page)  # not route(): that pauses every request
        # No request or response listener stays on the page: with one, Playwright sends
        # Python every subresource's request and response (see nseql.navigation).

    async def _new_tab(self, browser: Browser) -> Slot:
        """A tab of the shared context; a new context first if there is none, or it has
        run its routes, or its browser died."""
        try:
            async with self._opening:
                shared = self._shared
                if shared is None or shared.retired or shared.generation != self._generation:
                    shared = await self._new_shared(browser, shared)
                page = await shared.context.new_page()
                self._tabs.add(page)
                shared.tabs += 1
        except PlaywrightError as exc:
            if self._shared is not None:
                # A context that cannot open tabs: the next slot opens another.
                await self._retire(self._shared)
            raise BrowserCrashedError(f"could not open a browser tab: {exc.message}") from exc
        slot = Slot(shared.context, page, generation=shared.generation, shared=shared)
        try:
            await self._block_media(shared.context, page)
        except PlaywrightError as exc:
            await self._drop_tab(slot)
            raise BrowserCrashedError(f"could not open a browser tab: {exc.message}") from exc
        return slot

    async def _new_shared(self, browser: Browser, before: SharedContext | None) -> SharedContext:
        # The session goes on from the context this one replaces, if its browser lives;
        # after a crash, from the start (a route brings its cookies in).
        state = self._first_session.to_playwright() if self._first_session is not None else None
        self._shared = None
        if before is not None:
            if before.generation == self._generation and before in self._shared_all:
                with contextlib.suppress(PlaywrightError):
                    state = dict(await before.context.storage_state())
            await self._retire(before)
        context = await self._new_context(browser, state)
        context.on("page", self._close_unless_ours)
        shared = SharedContext(context, self._generation)
        if state is not None:
            shared.read(SessionState.from_playwright(state))
        self._shared = shared
        self._shared_all.append(shared)
        return shared

    async def _retire(self, shared: SharedContext) -> None:
        """No new tab opens in ``shared``; it is closed with its last tab, but for the
        current one: the next context reads its session first (_new_shared)."""
        shared.retired = True
        if shared.tabs == 0 and shared is not self._shared and shared in self._shared_all:
            self._shared_all.remove(shared)
            await _quietly_close(shared.context)

    async def _close_stuck(self, shared: SharedContext, url: str) -> None:
        """Close ``shared`` now, with every tab in flight: a renderer of it is stuck (see
        the module's text). The next tab opens in a new context, which starts as after
        a crash: each route brings its own cookies in."""
        log.warning("a script on %s never ended and held a renderer that other routes share: its "
                    "browser context is closed, the routes in flight there are retried", url)
        shared.retired = True
        if self._shared is shared:
            self._shared = None
        if shared in self._shared_all:
            self._shared_all.remove(shared)
        await _quietly_close(shared.context)

    async def _drop_tab(self, slot: Slot) -> None:
        shared = slot.shared
        assert shared is not None
        self._tabs.discard(slot.page)
        shared.tabs -= 1
        with contextlib.suppress(PlaywrightError, asyncio.TimeoutError):
            await asyncio.wait_for(slot.page.close(), 10)
        if shared.retired:
            await self._retire(shared)  # closed with its last tab

    async def _close_unless_ours(self, page: Page) -> None:
        async with self._opening:  # a tab being opened by us is known once this is free
            pass
        if page not in self._tabs:
            await _close_popup(page)

    async def acquire(self, *, private: bool = False) -> Slot:
        """Wait for an idle slot; a ``None`` token in the queue means "open a new one".

        ``private``: in a shared pool, a context of the slot's own in place of a tab, kept
        between such routes (see the module's docstring); otherwise every slot is one.
        """
        if private and self.settings.shared_session:
            borrowed = await self._idle.get()
            try:
                slot = await self._private_slot()
            except BaseException:
                self._idle.put_nowait(borrowed)
                raise
            slot.private, slot.borrowed = True, borrowed
            return slot
        while True:
            item = await self._idle.get()
            if item is not None and not item.page.is_closed() and item.generation == self._generation:
                return item
            if item is not None and item.shared is not None:
                await self._drop_tab(item)
            elif item is not None:
                await _quietly_close(item.context)
            try:
                return await self._new_slot()
            except BaseException:
                self._idle.put_nowait(None)
                raise

    async def _private_slot(self) -> Slot:
        while self._private:
            slot = self._private.pop()
            if not slot.page.is_closed() and slot.generation == self._generation:
                return slot
            await _quietly_close(slot.context)
        return await self._new_own(await self._ensure_browser())

    async def release(self, slot: Slot) -> None:
        """Give a slot back; a broken or worn-out one is replaced by a fresh context (a
        tab of a shared context: by a fresh tab)."""
        slot.routes_run += 1
        shared = slot.shared
        if slot.private:
            if slot.broken or slot.routes_run >= self.settings.recycle_after or slot.page.is_closed():
                await _quietly_close(slot.context)
            else:
                self._private.append(slot)
            borrowed, slot.borrowed = slot.borrowed, None
            self._idle.put_nowait(borrowed)
        elif shared is not None:
            shared.routes += 1
            if slot.broken and shared in self._shared_all and await _stuck(slot.page):
                await self._close_stuck(shared, slot.page.url)
            if shared.routes >= self.settings.recycle_after * self.size:
                await self._retire(shared)  # its tabs go as they come back; the next open a new one
            # A broken route closes its tab only: the other tabs of the context are in flight.
            if slot.broken or shared.retired or slot.page.is_closed():
                await self._drop_tab(slot)
                self._idle.put_nowait(None)
            else:
                self._idle.put_nowait(slot)
        elif slot.broken or slot.routes_run >= self.settings.recycle_after or slot.page.is_closed():
            await _quietly_close(slot.context)
            self._idle.put_nowait(None)
        else:
            self._idle.put_nowait(slot)

    @contextlib.asynccontextmanager
    async def slot(self, *, private: bool = False) -> AsyncIterator[Slot]:
        slot = await self.acquire(private=private)
        try:
            yield slot
        except BaseException:
            slot.broken = True
            raise
        finally:
            await self.release(slot)


async def _close_popup(page: Page) -> None:
    log.debug("closing a popup the page opened: %s", page.url)
    await close_quietly(page)


async def _stuck(page: Page) -> bool:
    """The page answers no script within _PROBE_S: its renderer's main thread is held."""
    if page.is_closed():
        return False
    try:
        await asyncio.wait_for(page.evaluate("0"), _PROBE_S)
    except TimeoutError:
        return True
    except PlaywrightError:  # closed, or navigating away: not stuck
        return False
    return False


async def _quietly_close(context: BrowserContext) -> None:
    with contextlib.suppress(PlaywrightError, asyncio.TimeoutError):
        await asyncio.wait_for(context.close(), CLOSE_TIMEOUT)
