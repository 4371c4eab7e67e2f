"""A pool of reusable browser contexts ("mini-browsers"), each with one page.

A new context costs 0.5–1 s; bringing a reused one to another session in place
costs ~10–20 ms (``set_storage_state``), and nothing when both are empty. So a slot
keeps its context across routes, restores the route's session in place, and is
recycled after ``recycle_after`` routes or after any error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

from playwright.async_api import Browser, BrowserContext, Page, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from deepbot.browser import fetches
from deepbot.browser.blocking import block_media
from deepbot.browser.launch import launch_chromium
from deepbot.errors import BrowserCrashedError
from deepbot.routes import EMPTY_SESSION, SessionState

_EMPTY_DIGEST = EMPTY_SESSION.digest()  # most routes of most crawls: no hash a route

log = logging.getLogger("deepbot.browser")

# Images the crawler never needs: Blink does not even request them.
_IMAGES_OFF = "--blink-settings=imagesEnabled=false"


@dataclass(frozen=True)
class BrowserSettings:
    headless: bool = True
    block_images: bool = True
    block_media: bool = True  # fonts, audio and video
    user_agent: str | None = None
    viewport: tuple[int, int] = (1280, 900)
    recycle_after: int = 200  # routes per context before a fresh one
    navigation_timeout_ms: int = 15_000


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

    async def restore(self, session: SessionState) -> None:
        """Bring the context to exactly ``session`` (cookies and storage)."""
        digest = _EMPTY_DIGEST if session is EMPTY_SESSION else session.digest()
        if digest == self.session_digest:
            return
        await self.context.set_storage_state(session.to_playwright())  # type: ignore[arg-type]
        self.session_digest = digest

    def mark_dirty(self) -> None:
        self.session_digest = None


class BrowserPool:
    """One Chromium and up to ``size`` slots; relaunches the browser if it dies."""

    def __init__(self, size: int, settings: BrowserSettings | None = None):
        self.size = size
        self.settings = settings or BrowserSettings()
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
            if slot is not None:
                await _quietly_close(slot.context)
        if self._browser is not None:
            with contextlib.suppress(PlaywrightError):
                await asyncio.wait_for(self._browser.close(), 10)
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
        args = (_IMAGES_OFF,) if self.settings.block_images else ()
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

    async def _new_slot(self) -> Slot:
        browser = await self._ensure_browser()
        width, height = self.settings.viewport
        try:
            context = await browser.new_context(
                user_agent=self.settings.user_agent,
                viewport={"width": width, "height": height},
                service_workers="block",  # a worker would outlive the route and serve stale pages
                accept_downloads=False,
            )
            context.set_default_navigation_timeout(self.settings.navigation_timeout_ms)
            context.set_default_timeout(self.settings.navigation_timeout_ms)
            await fetches.install(context)  # visit() waits on the page's own count of its fetches
            page = await context.new_page()
            # From here on, any other page is a popup the page opened by itself (an ad on
            # load, a timer): left open it would run on in the context until it is recycled.
            # (What a route's action opens comes to the route's own tab: nseql.)
            context.on("page", _close_popup)
            if self.settings.block_media:
                await block_media(context, page)  # not route(): that pauses every request
            # No request or response listener stays on the page: with one, Playwright sends
            # Python every subresource's request and response (see nseql.navigation).
        except PlaywrightError as exc:
            raise BrowserCrashedError(f"could not open a browser context: {exc.message}") from exc
        return Slot(context, page, session_digest=SessionState().digest(), generation=self._generation)

    async def acquire(self) -> Slot:
        """Wait for an idle slot; a ``None`` token in the queue means "open a new one"."""
        while True:
            item = await self._idle.get()
            if item is not None and not item.page.is_closed() and item.generation == self._generation:
                return item
            if item is not None:
                await _quietly_close(item.context)
            try:
                return await self._new_slot()
            except BaseException:
                self._idle.put_nowait(None)
                raise

    async def release(self, slot: Slot) -> None:
        """Give a slot back; a broken or worn-out one is replaced by a fresh context."""
        slot.routes_run += 1
        if slot.broken or slot.routes_run >= self.settings.recycle_after or slot.page.is_closed():
            await _quietly_close(slot.context)
            self._idle.put_nowait(None)
        else:
            self._idle.put_nowait(slot)

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[Slot]:
        slot = await self.acquire()
        try:
            yield slot
        except BaseException:
            slot.broken = True
            raise
        finally:
            await self.release(slot)


async def _close_popup(page: Page) -> None:
    log.debug("closing a popup the page opened: %s", page.url)
    with contextlib.suppress(PlaywrightError):
        await page.close()


async def _quietly_close(context: BrowserContext) -> None:
    with contextlib.suppress(PlaywrightError, asyncio.TimeoutError):
        await asyncio.wait_for(context.close(), 10)
