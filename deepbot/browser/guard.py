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

- ``Target`` auto-attaches, through the page's own session, to what runs outside its
  renderer or its thread: an iframe of another site (full Chromium runs it in a process of its
  own, site isolation; the headless shell keeps it in the page's renderer) and
  a dedicated worker (its fetches are its own target's). Their ``Network`` events count
  as the page's, by the same bound: a frame or a worker that fetches 400 MB fails the
  route as the page would. Playwright's CDPSession hands over the events of its own
  session only, so the children are reached the older, non-flat way: their messages
  relayed inside the page session's (``Target.sendMessageToTarget`` and
  ``receivedMessageFromTarget``), nested for a frame's frames and workers. Each child
  waits for the debugger until its ``Network`` is on, so no byte passes uncounted.
  A shared worker belongs to a browser context, not a page: the browser's own session
  discovers it and attaches (``_SharedWorkers``), its bytes counted as its context's pages'.

Iframes' own documents are not counted as navigations (a page with many frames is no attack).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Any
from weakref import WeakKeyDictionary

from playwright.async_api import Browser, CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from deepbot.browser.bounded import Bounds
from deepbot.browser.failures import close_quietly

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
        self.context_id = ""  # Chromium's id of the page's browser context
        self._received: dict[str, list[int]] = {}  # request id -> [decoded, encoded, declared]
        self._urls: dict[str, str] = {}  # request id -> URL, for the message
        self._tasks: set[asyncio.Task[None]] = set()
        self._waiting: set[asyncio.Task[None]] = set()  # navigations waiting for their host's turn
        # Network ids of the documents the page asked for by itself and still loading (waiting
        # for their turn included): a read of the page now would read what is about to go.
        self._navigating: set[str] = set()
        self._let_through = 0  # of those, how many ever
        self._changed = asyncio.Event()  # a navigation of the page's own was asked for, or ended

    async def _enable(self) -> None:
        session = self.session
        session.on("Network.responseReceived", self._response)
        session.on("Network.dataReceived", self._data)
        session.on("Network.loadingFinished", self._done)
        session.on("Network.loadingFailed", self._done)
        session.on("Fetch.requestPaused", self._paused)
        children = _Children(session, self._counted, self._spawn)
        session.on("Target.attachedToTarget", lambda event: children.attached(event, ()))
        session.on("Target.receivedMessageFromTarget", lambda event: children.relayed(event, ()))
        info = await session.send("Target.getTargetInfo")
        self.context_id = str(info["targetInfo"].get("browserContextId"))  # its shared workers' too
        tree = await session.send("Page.getFrameTree")
        self._main_frame = str(tree["frameTree"]["frame"]["id"])
        # No body kept for this session: it only counts.
        await session.send("Network.enable", _NETWORK)
        documents = {"resourceType": "Document", "requestStage": "Request"}
        await session.send("Fetch.enable", {"patterns": [documents]})
        await session.send("Target.setAutoAttach", _AUTO_ATTACH)

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
        self._navigating.clear()
        self._received.clear()
        self._urls.clear()

    async def navigation_done(self, timeout_s: float, *, expected: bool = False) -> bool:
        """True when the page was on its way to a document of its own choosing (a meta refresh
        waiting for its host's turn, or loading) and that document has come within
        ``timeout_s``: what was read of the page before is gone, read it again. ``expected``:
        the page is about to ask for one (its meta refresh of 0 s fires just after its load
        event), wait for it to. False when none came, it was stopped (past
        max_self_navigations), or it is still under way: the page read is what there is."""
        deadline = asyncio.get_running_loop().time() + timeout_s
        let_through = self._let_through
        if expected and not self._navigating and not self.refused:  # (once stopped, none comes)
            asked = self.self_navigations
            await self._until(lambda: self.self_navigations > asked, deadline)
        if not self._navigating and self._let_through == let_through:
            return False
        return await self._until(lambda: not self._navigating, deadline)

    async def _until(self, ready: Callable[[], bool], deadline: float) -> bool:
        """Wait until ``ready()`` (checked as the page's navigations change), or the deadline."""
        loop = asyncio.get_running_loop()
        while not ready():
            left = deadline - loop.time()
            if left <= 0:
                return False
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)
        return True

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
        # An out-of-process frame's document: its response came to the parent, its bytes to the frame.
        url = self._urls.get(event["requestId"]) or self._urls.get(event["requestId"].rpartition(":")[2],
                                                                    "a response")
        self._check(url, counts[0], max(counts[1], counts[2]) or None)

    def _done(self, event: dict[str, Any]) -> None:
        self._received.pop(event.get("requestId", ""), None)
        self._urls.pop(event.get("requestId", ""), None)
        if event.get("requestId", "") in self._navigating:
            self._navigating.discard(event.get("requestId", ""))
            self._changed.set()

    def _check(self, what: str, decoded: int, encoded: int | None) -> None:
        if self.bounds is None or self.tripped is not None:
            return
        why = self.bounds.check(what, decoded, encoded)
        if why is None:
            return
        self.tripped = why
        log.info("%s: closing the page %s", why, self.page.url[:200])
        self._spawn(_close(self.page))

    def _counted(self, method: str, params: dict[str, Any]) -> None:
        """A ``Network`` event of a frame's or a worker's (``_Children``): the page's own bytes."""
        _COUNTED[method](self, params)

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
        self._changed.set()
        if self.self_navigations > self.max_self_navigations:
            self.refused += 1
            if self.refused == 1:
                log.info("%s navigates by itself again and again: its navigations are stopped", url[:200])
            self._spawn(self._abort(request_id))
            return
        self._navigating.add(str(event.get("networkId", request_id)))
        self._let_through += 1
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


# No body kept for a watched session: it only counts.
_NETWORK = {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0}
# Non-flat (see the module's text); each child waits until its Network is enabled.
_AUTO_ATTACH = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": False}
_IDS = itertools.count(1_000_000)  # ids of relayed commands, apart from Playwright's own
_COUNTED: dict[str, Callable[[PageGuard, dict[str, Any]], None]] = {
    "Network.responseReceived": PageGuard._response,
    "Network.dataReceived": PageGuard._data,
    "Network.loadingFinished": PageGuard._done,
    "Network.loadingFailed": PageGuard._done,
}


class _Children:
    """The targets a session reaches (out-of-process frames, workers, theirs), watched through
    its own messages, non-flat (see the module's text); their ``Network`` events go to ``count``."""

    def __init__(self, session: CDPSession, count: Callable[[str, dict[str, Any]], None],
                 spawn: Callable[[Awaitable[None]], None], *, watch_theirs: bool = True) -> None:
        self.session, self.count, self.spawn = session, count, spawn
        self._commands = (("Network.enable", _NETWORK),
                          *((("Target.setAutoAttach", _AUTO_ATTACH),) if watch_theirs else ()),
                          ("Runtime.runIfWaitingForDebugger", {}))

    def attached(self, event: dict[str, Any], via: tuple[str, ...]) -> None:
        """A child target (``via``: the sessions it is reached through): count its bytes, watch
        its own children, then let it run (it waits for this, so nothing passes uncounted)."""
        path = (*via, str(event["sessionId"]))
        for method, params in self._commands:
            self.spawn(self.relay(path, method, params))

    def relayed(self, event: dict[str, Any], via: tuple[str, ...]) -> None:
        """A message of a child target: its events counted."""
        path = (*via, str(event.get("sessionId", "")))
        try:
            message = json.loads(event.get("message", ""))
        except ValueError:
            return
        method, params = message.get("method"), message.get("params")
        if not isinstance(params, dict):
            return  # an answer to one of the relay's commands: nothing to do
        if method == "Target.attachedToTarget":
            self.attached(params, path)
        elif method == "Target.receivedMessageFromTarget":
            self.relayed(params, path)
        elif method in _COUNTED:
            # Request ids are a renderer's: another process may reuse one.
            self.count(method, {**params, "requestId": f"{'/'.join(path)}:{params.get('requestId', '')}"})

    async def relay(self, path: tuple[str, ...], method: str, params: dict[str, Any]) -> None:
        """Send ``method`` to the child target at ``path``, wrapped once per session on the way.
        Its answer is not awaited (it comes as a relayed message); a child gone meanwhile is no error."""
        message: dict[str, Any] = {"id": next(_IDS), "method": method, "params": params}
        for session_id in reversed(path[1:]):
            message = {"id": next(_IDS), "method": "Target.sendMessageToTarget",
                       "params": {"sessionId": session_id, "message": json.dumps(message)}}
        with contextlib.suppress(PlaywrightError):
            await self.session.send("Target.sendMessageToTarget",
                                    {"sessionId": path[0], "message": json.dumps(message)})


class _SharedWorkers:
    """A browser's shared workers, watched: one belongs to no page but to a browser context,
    and only the browser's own session hears of it (auto-attach there is flat only, which
    Playwright's CDPSession cannot follow: each is attached to when it is created, non-flat,
    its first bytes perhaps uncounted). Its bytes count as those of every page of its
    context that has a guard."""

    def __init__(self, session: CDPSession) -> None:
        self.session = session
        self._contexts: dict[str, str] = {}  # session id -> browserContextId
        self._tasks: set[asyncio.Task[None]] = set()
        self._children = _Children(session, self._count, self._spawn, watch_theirs=False)

    async def enable(self) -> None:
        self.session.on("Target.targetCreated", self._created)
        self.session.on("Target.attachedToTarget", self._attached)
        self.session.on("Target.detachedFromTarget", self._detached)
        self.session.on("Target.receivedMessageFromTarget", lambda event: self._children.relayed(event, ()))
        await self.session.send("Target.setDiscoverTargets", {"discover": True,
                                                              "filter": [{"type": "shared_worker"}]})

    def _created(self, event: dict[str, Any]) -> None:
        info = event.get("targetInfo") or {}
        if info.get("type") == "shared_worker":
            self._spawn(self._attach(str(info["targetId"])))

    async def _attach(self, target_id: str) -> None:
        with contextlib.suppress(PlaywrightError):
            await self.session.send("Target.attachToTarget", {"targetId": target_id, "flatten": False})

    def _attached(self, event: dict[str, Any]) -> None:
        self._contexts[str(event["sessionId"])] = str((event.get("targetInfo") or {}).get("browserContextId"))
        self._children.attached(event, ())

    def _detached(self, event: dict[str, Any]) -> None:
        self._contexts.pop(str(event.get("sessionId")), None)

    def _count(self, method: str, params: dict[str, Any]) -> None:
        context = self._contexts.get(str(params["requestId"]).split(":", 1)[0].split("/", 1)[0])
        for guard in list(_GUARDS.values()):
            if context is not None and guard.context_id == context:
                guard._counted(method, params)

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


_SHARED: WeakKeyDictionary[Browser, _SharedWorkers] = WeakKeyDictionary()


async def watch(page: Page) -> PageGuard:
    """``page``'s guard, made (one CDP session) on its first route; and its browser's shared
    workers watched (one browser session), on the browser's first."""
    guard = _GUARDS.get(page)
    if guard is None:
        session = await page.context.new_cdp_session(page)
        guard = PageGuard(page, session)
        await guard._enable()
        _GUARDS[page] = guard
        browser = page.context.browser
        if browser is not None and browser not in _SHARED:
            session = await browser.new_browser_cdp_session()
            if browser in _SHARED:  # another page's watch made it meanwhile
                with contextlib.suppress(PlaywrightError):
                    await session.detach()
            else:
                _SHARED[browser] = shared = _SharedWorkers(session)
                await shared.enable()
    return guard


async def navigation_done(page: Page, timeout_s: float, *, expected: bool = False) -> bool:
    """``guard.navigation_done(timeout_s, expected=…)`` of ``page``'s guard; False if it has none."""
    guard = _GUARDS.get(page)
    return await guard.navigation_done(timeout_s, expected=expected) if guard is not None else False


def acting(page: Page, steps: int = 1) -> contextlib.AbstractContextManager[None]:
    """``guard.acting(steps)`` of ``page``'s guard, if it has one."""
    guard = _GUARDS.get(page)
    return guard.acting(steps) if guard is not None else contextlib.nullcontext()


async def _close(page: Page) -> None:
    await close_quietly(page)
