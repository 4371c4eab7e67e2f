"""A route's page watched while it loads: bytes received, and the documents it fetches by itself.

Playwright gives a response's body only once it has all arrived, and a listener on its
requests sends Python every subresource's request and response. So each page of the
pool gets one CDP session of its own (made on its first route, kept with the page):

- ``Network`` events count every response's bytes as they arrive (``dataReceived``:
  decoded bytes, and the wire's where Chromium tells; a document's compressed size is
  its Content-Length). A response past ``bounded.Bounds`` (20 MB, or inflating 100×
  past 1 MB) *trips* the guard: the page is closed at once, which cancels its loads in
  the browser, and the route fails "response too large" (``TooLarge``), a page's
  document or any subresource alike. Nothing of the body is buffered for this session.
- ``Fetch`` pauses every document request of the main frame. One the route asks for
  (``acting``: the first document each of its steps asks for, a navigation, a click's,
  a submission's, with its redirects) goes on at once. One the page starts by itself
  (a meta refresh, ``location.reload()`` in a timer, ``location = …``) waits for the
  host's politeness first (``pace``: the crawl's delay between two requests to one
  host) and counts: past ``max_self_navigations`` in one route, or after it until the
  next route starts (the tab stays open between routes, its timers running), it is
  aborted and the document shown stays. A page that reloads itself every 100 ms thus
  costs its host at most that many requests a route, spaced as any other.

Iframes' own documents are not counted (a page with many frames is no attack).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Any
from weakref import WeakKeyDictionary

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from deepbot.browser.bounded import Bounds

log = logging.getLogger("deepbot.browser")

MAX_SELF_NAVIGATIONS = 5  # documents a page may fetch by itself in one route (reloads, refreshes)

Pace = Callable[[str], Awaitable[None]]  # waits until the URL's host may be asked again

_GUARDS: WeakKeyDictionary[Page, PageGuard] = WeakKeyDictionary()


class PageGuard:
    """One page's watch (see the module's text); ``start`` and ``finish`` bracket a route."""

    def __init__(self, page: Page, session: CDPSession) -> None:
        self.page = page
        self.session = session
        self.bounds: Bounds | None = None  # None: no route has started yet
        self.running = False  # a route's visit is in progress (its steps may be acting)
        self.max_self_navigations = MAX_SELF_NAVIGATIONS
        self.pace: Pace | None = None
        self.tripped: str | None = None  # why the route's page was closed
        self.self_navigations = 0  # documents the page asked for by itself in this route
        self.refused = 0  # of which aborted (past the bound, or between routes)
        self._allowance = 0  # documents the steps running may still ask for
        self._own: set[str] = set()  # network ids of the documents they asked for (and their redirects)
        self._main_frame = ""
        self._received: dict[str, list[int]] = {}  # request id -> [decoded, encoded, declared]
        self._urls: dict[str, str] = {}  # request id -> URL, for the message
        self._tasks: set[asyncio.Task[None]] = set()
        self._waiting: set[asyncio.Task[None]] = set()  # navigations waiting for their host's turn

    async def _enable(self) -> None:
        session = self.session
        session.on("Network.responseReceived", self._response)
        session.on("Network.dataReceived", self._data)
        session.on("Network.loadingFinished", self._done)
        session.on("Network.loadingFailed", self._done)
        session.on("Fetch.requestPaused", self._paused)
        tree = await session.send("Page.getFrameTree")
        self._main_frame = str(tree["frameTree"]["frame"]["id"])
        # No body kept for this session: it only counts.
        await session.send("Network.enable", {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0})
        documents = {"resourceType": "Document", "requestStage": "Request"}
        await session.send("Fetch.enable", {"patterns": [documents]})

    def start(self, bounds: Bounds, *, pace: Pace | None = None,
              max_self_navigations: int = MAX_SELF_NAVIGATIONS) -> None:
        """A route begins: the counts start again. A navigation of the last route's page
        still waiting for its host's turn is aborted (this route's own replaces it)."""
        for task in list(self._waiting):
            task.cancel()
        self.bounds, self.pace, self.max_self_navigations = bounds, pace, max_self_navigations
        self.running = True
        self.tripped = None
        self.self_navigations = self.refused = 0
        self._own.clear()
        self._received.clear()
        self._urls.clear()

    def finish(self) -> None:
        """The route's visit is over. Its page stays open (the crawl's processors read it,
        then it waits for the next route): what it asks for by itself still counts."""
        self.running = False
        self._allowance = 0

    @contextlib.contextmanager
    def acting(self, steps: int) -> Iterator[None]:
        """The route's own ``steps`` run: the first document each may ask for (a navigation, a
        click's, a submission's), and its redirects, are the route's own; any more (a meta
        refresh while the run waits for the load event) the page asked for by itself."""
        self._allowance = steps
        try:
            yield
        finally:
            self._allowance = 0

    # -- sizes ---------------------------------------------------------------------------

    def _response(self, event: dict[str, Any]) -> None:
        response = event.get("response") or {}
        headers = {str(k).lower(): str(v) for k, v in (response.get("headers") or {}).items()}
        declared = 0
        if headers.get("content-encoding", "identity").strip().lower() not in ("", "identity"):
            with contextlib.suppress(ValueError):
                declared = int(headers.get("content-length", "0"))
        url = self._urls[event["requestId"]] = str(response.get("url", ""))
        self._received[event["requestId"]] = [0, 0, declared]
        if "content-encoding" not in headers and headers.get("content-length", "").isdigit():
            # A plain body that says it is too large is given up before it comes.
            self._check(url, int(headers["content-length"]), None)

    def _data(self, event: dict[str, Any]) -> None:
        counts = self._received.setdefault(event["requestId"], [0, 0, 0])
        counts[0] += int(event.get("dataLength", 0))
        counts[1] += int(event.get("encodedDataLength", 0))
        # Chromium reports a document's wire bytes only when it has finished: its
        # Content-Length (compressed) stands in for them meanwhile.
        url = self._urls.get(event["requestId"], "a response")
        self._check(url, counts[0], max(counts[1], counts[2]) or None)

    def _done(self, event: dict[str, Any]) -> None:
        self._received.pop(event.get("requestId", ""), None)
        self._urls.pop(event.get("requestId", ""), None)

    def _check(self, what: str, decoded: int, encoded: int | None) -> None:
        if self.bounds is None or self.tripped is not None:
            return
        why = self.bounds.check(what, decoded, encoded)
        if why is None:
            return
        self.tripped = why
        log.info("%s: closing the page %s", why, self.page.url[:200])
        self._spawn(_close(self.page))

    # -- navigations the page starts -----------------------------------------------------

    def _paused(self, event: dict[str, Any]) -> None:
        request_id, url = event["requestId"], str(event.get("request", {}).get("url", ""))
        if event.get("frameId") != self._main_frame or self._owned(str(event.get("networkId", request_id))):
            self._spawn(self._go_on(request_id))
            return
        if self.bounds is None:  # not a route's page yet: nothing to count against
            self._spawn(self._go_on(request_id))
            return
        self.self_navigations += 1
        if self.self_navigations > self.max_self_navigations:
            self.refused += 1
            if self.refused == 1:
                log.info("%s navigates by itself again and again: its navigations are stopped", url[:200])
            self._spawn(self._abort(request_id))
            return
        self._spawn(self._paced(request_id, url), self._waiting)

    def _owned(self, network_id: str) -> bool:
        """The route's steps asked for this document (a redirect keeps its network id)."""
        if not self.running:
            return False
        if network_id in self._own:
            return True
        if self._allowance > 0:
            self._allowance -= 1
            self._own.add(network_id)
            return True
        return False

    async def _paced(self, request_id: str, url: str) -> None:
        try:
            if self.pace is not None:
                await self.pace(url)
        except asyncio.CancelledError:
            await asyncio.shield(self._abort(request_id))  # the route ended while it waited
            raise
        await self._go_on(request_id)

    async def _go_on(self, request_id: str) -> None:
        with contextlib.suppress(PlaywrightError):
            await self.session.send("Fetch.continueRequest", {"requestId": request_id})

    async def _abort(self, request_id: str) -> None:
        # "Aborted": a navigation that ends so commits no error page; the document stays.
        with contextlib.suppress(PlaywrightError):
            await self.session.send("Fetch.failRequest", {"requestId": request_id, "errorReason": "Aborted"})

    def _spawn(self, work: Awaitable[None], also: set[asyncio.Task[None]] | None = None) -> None:
        task = asyncio.ensure_future(work)
        for kept in (self._tasks,) if also is None else (self._tasks, also):
            kept.add(task)
            task.add_done_callback(kept.discard)


async def watch(page: Page) -> PageGuard:
    """``page``'s guard, made (one CDP session) on its first route."""
    guard = _GUARDS.get(page)
    if guard is None:
        session = await page.context.new_cdp_session(page)
        guard = PageGuard(page, session)
        await guard._enable()
        _GUARDS[page] = guard
    return guard


def acting(page: Page, steps: int = 1) -> contextlib.AbstractContextManager[None]:
    """``guard.acting(steps)`` of ``page``'s guard, if it has one."""
    guard = _GUARDS.get(page)
    return guard.acting(steps) if guard is not None else contextlib.nullcontext()


async def _close(page: Page) -> None:
    with contextlib.suppress(PlaywrightError):
        await page.close()
