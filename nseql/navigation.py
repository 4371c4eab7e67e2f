"""Follow the main frame's navigations without following the page's requests.

The interpreter needs to know, after an action, whether the page navigated and
how it ended, without polling and without sleeping: a new document (or a
same-document URL) committed, the navigation failed, or it ended quietly (a 204, a
download, one cancelled). Playwright's client receives exactly that for every
navigation of a frame, with the request of each new document, whatever listeners
exist; it uses it for ``goto`` and ``expect_navigation`` but offers no event for it.
The alternative, page-level request listeners, makes Playwright send Python every
subresource's request and response, four messages each, kept until the context
closes: thirty scripts and style sheets are a hundred and twenty messages a page.
So the tracker listens to the frame's own event, through Playwright's
implementation object (``_frame_events``), and asks for a document's response only
when a run ends on it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol, cast

from playwright._impl._async_base import mapping as _api_mapping
from playwright.async_api import Download, Page, Request, Response
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

# Chromium ends a navigation that brings no new document (a download, a 204, one
# superseded by another navigation, window.stop()) as aborted; that is no failure.
_QUIET_ENDS = ("net::ERR_ABORTED", "Download is starting", "navigation cancelled by beforeunload")


class _Emitter(Protocol):
    def on(self, event: str, f: Any) -> Any: ...
    def remove_listener(self, event: str, f: Any) -> Any: ...


def _frame_events(page: Page) -> _Emitter:
    """The main frame's navigation events as Playwright's client receives them:
    ``{"url", "name", "newDocument": {"request"} | None, "error": str | None}``."""
    emitter = getattr(getattr(page.main_frame, "_impl_obj", None), "_event_emitter", None)
    if emitter is None or not hasattr(emitter, "on"):
        raise RuntimeError(
            "this version of Playwright has no frame navigation events (Frame._event_emitter); "
            "nseql needs playwright-python 1.45 or later"
        )
    return cast(_Emitter, emitter)


async def wait_for_load_state(page: Page, state: str, timeout_ms: float) -> None:
    """``page.wait_for_load_state(state, timeout=timeout_ms)``, on the frame's own events.

    The same test on the same events (the main frame's load states, as Playwright's
    client receives them), without Playwright's waiter, which reports itself to the
    driver for tracing: three or more messages a call, even when the state has been
    reached already, and a run waits once or twice per page. Falls back to Playwright's
    own when its frame lacks what this reads.
    """
    frame = getattr(page.main_frame, "_impl_obj", None)
    states = getattr(frame, "_load_states", None)
    if not isinstance(states, set):
        await page.wait_for_load_state(state, timeout=timeout_ms)  # type: ignore[arg-type]
        return
    if state in states:
        return
    events = _frame_events(page)
    if page.is_closed():
        raise PlaywrightError("Target page, context or browser has been closed")
    reached: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def on_state(added: str) -> None:
        if added == state and not reached.done():
            reached.set_result(None)

    def on_close(*_: object) -> None:  # worded as Playwright's, which translate.is_closed knows
        if not reached.done():
            reached.set_exception(PlaywrightError("Target page, context or browser has been closed"))

    def on_crash(*_: object) -> None:
        if not reached.done():
            reached.set_exception(PlaywrightError("Navigation failed because page crashed!"))

    events.on("loadstate", on_state)
    page.on("close", on_close)
    page.on("crash", on_crash)
    try:
        async with asyncio.timeout(timeout_ms / 1000 if timeout_ms > 0 else None):  # 0: none, as Playwright's
            await reached
    except TimeoutError:
        message = f"Timeout {timeout_ms:g}ms exceeded waiting for the {state} event"
        raise PlaywrightTimeoutError(message) from None
    finally:
        events.remove_listener("loadstate", on_state)
        page.remove_listener("close", on_close)
        page.remove_listener("crash", on_crash)


@dataclass(frozen=True, slots=True)
class Mark:
    """The tracker's counters at one moment."""

    commits: int
    ends: int
    failures: int


@dataclass(frozen=True, slots=True)
class Outcome:
    committed: bool  # a new document (or same-document URL) committed in the main frame
    failure: str | None = None  # the network error of a failed navigation


class NavigationTracker:
    """Counts main-frame commits, quiet ends and failures of a page's navigations."""

    def __init__(self, page: Page) -> None:
        self._page = page
        self._events = _frame_events(page)
        self.commits = 0
        self.ends = 0
        self.failures = 0
        self.last_failure = ""
        # The latest main-document response: goto's own (``note``), or, once asked
        # for (``document_response``), the one of the document an action led to.
        self.response: Response | None = None
        self._document: Request | None = None  # request of a document committed since
        self._failed = False  # whether the latest event was a failure
        self._changed = asyncio.Event()

    def attach(self) -> None:
        self._events.on("navigated", self._on_navigated)
        self._page.on("download", self._on_download)

    def detach(self) -> None:
        self._events.remove_listener("navigated", self._on_navigated)
        self._page.remove_listener("download", self._on_download)

    def note(self, response: Response | None) -> None:
        """The response a ``goto`` or ``back`` returned (None: the document stayed)."""
        if response is not None:
            self.response = response
            self._document = None

    async def document_response(self) -> Response | None:
        """The response of the latest main document: one round trip when an action
        led to it (the end of its redirects), none when ``goto`` did."""
        request, self._document = self._document, None
        if request is not None:
            while request.redirected_to is not None:
                request = request.redirected_to
            try:
                self.response = await request.response()
            except PlaywrightError:
                self.response = None  # the page is gone; so is what it was loaded from
        return self.response

    def mark(self) -> Mark:
        return Mark(self.commits, self.ends, self.failures)

    def moved_since(self, mark: Mark) -> bool:
        """Whether a main-frame navigation committed or ended after the mark."""
        return self.mark() != mark

    def failure_since(self, mark: Mark) -> str | None:
        return self.last_failure if self.failures > mark.failures else None

    async def wait(self, mark: Mark) -> Outcome:
        """Wait until a navigation after ``mark`` commits, fails or ends quietly.

        Unbounded: the caller wraps it in ``asyncio.timeout``.
        """
        while True:
            changed = self._changed  # taken before checking, so no signal is missed
            if self.commits > mark.commits:
                return Outcome(committed=True)
            if self.failures > mark.failures:
                return Outcome(committed=False, failure=self.last_failure)
            if self.ends > mark.ends:
                return Outcome(committed=False)
            await changed.wait()

    def _signal(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _on_navigated(self, event: dict[str, Any]) -> None:
        error = str(event.get("error") or "")
        if not error and str(event.get("url", "")).startswith("chrome-error:") and not self._failed:
            error = "the browser showed its error page"  # should its failure come after the commit
        quiet = error.startswith(_QUIET_ENDS)
        self._failed = bool(error) and not quiet
        if quiet:
            self.ends += 1
        elif error:
            self.failures += 1
            self.last_failure = error
        else:
            self.commits += 1
            document = event.get("newDocument")
            # A new document (not a same-document URL change) names its request's channel.
            request = getattr(document.get("request"), "_object", None) if document else None
            if request is not None:
                self._document = _api_mapping.from_impl(request)
        self._signal()

    def _on_download(self, download: Download) -> None:
        self.ends += 1
        self._signal()
