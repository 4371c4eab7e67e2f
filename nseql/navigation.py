"""Follow the main frame's navigations through Playwright's page events.

The interpreter needs to know, after an action, whether the page navigated and
when the new document committed, without polling and without sleeping. Playwright
reports navigation requests, their failures, downloads and commits as events; this
tracker counts them so a waiter can ask "has anything happened since my mark?".
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from playwright.async_api import Download, Frame, Page, Request, Response
from playwright.async_api import Error as PlaywrightError

# Chromium reports a navigation that ends without a new document (a download, a 204,
# one superseded by another navigation, window.stop()) as aborted; that is no failure.
_ABORTED = "net::ERR_ABORTED"


@dataclass(frozen=True, slots=True)
class Mark:
    """The tracker's counters at one moment."""

    starts: int
    commits: int
    ends: int
    failures: int


@dataclass(frozen=True, slots=True)
class Outcome:
    committed: bool  # a new document (or same-document URL) committed in the main frame
    failure: str | None = None  # the network error of a failed navigation


class NavigationTracker:
    """Counts main-frame navigation starts, commits, quiet ends and failures of a page."""

    def __init__(self, page: Page) -> None:
        self._page = page
        self.starts = 0
        self.commits = 0
        self.ends = 0
        self.failures = 0
        self.last_failure = ""
        # The latest main-document response: goto's own, or (when requests are followed)
        # the one a click or a submission led to.
        self.response: Response | None = None
        self._pending: set[Request] = set()
        self._requests = True
        self._changed = asyncio.Event()

    def attach(self, *, requests: bool = True) -> None:
        """Listen to the page. Without ``requests`` only commits are seen, and the
        response is the one ``goto`` returns (``note``): enough for programs that only
        ``goto``. Any request or response listener makes Playwright send Python every
        subresource's request and response, four messages each: thirty scripts and
        style sheets are a hundred and twenty messages a page."""
        self._requests = requests
        if requests:
            self._page.on("request", self._on_request)
            self._page.on("requestfinished", self._on_finished)
            self._page.on("requestfailed", self._on_failed)
            self._page.on("response", self._on_response)
        self._page.on("framenavigated", self._on_committed)
        self._page.on("download", self._on_download)

    def detach(self) -> None:
        if self._requests:
            self._page.remove_listener("request", self._on_request)
            self._page.remove_listener("requestfinished", self._on_finished)
            self._page.remove_listener("requestfailed", self._on_failed)
            self._page.remove_listener("response", self._on_response)
        self._page.remove_listener("framenavigated", self._on_committed)
        self._page.remove_listener("download", self._on_download)

    @property
    def status(self) -> int | None:
        """HTTP status of the latest main document."""
        return self.response.status if self.response is not None else None

    def note(self, response: Response | None) -> None:
        """The response a ``goto`` or ``back`` returned (None: the document stayed)."""
        if response is not None:
            self.response = response

    def mark(self) -> Mark:
        return Mark(self.starts, self.commits, self.ends, self.failures)

    def moved_since(self, mark: Mark) -> bool:
        """Whether a main-frame navigation started or committed after the mark."""
        return self.starts > mark.starts or self.commits > mark.commits

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
            if self.failures > mark.failures and not self._pending:
                return Outcome(committed=False, failure=self.last_failure)
            if self.ends > mark.ends and not self._pending:
                return Outcome(committed=False)
            await changed.wait()

    def _signal(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _is_main_navigation(self, request: Request) -> bool:
        if not request.is_navigation_request():
            return False
        try:
            return request.frame == self._page.main_frame
        except PlaywrightError:  # requests of service workers have no frame
            return False

    def _on_request(self, request: Request) -> None:
        if self._is_main_navigation(request):
            self._pending.add(request)
            self.starts += 1
            self._signal()

    def _on_response(self, response: Response) -> None:
        if self._is_main_navigation(response.request):
            self.response = response

    def _on_finished(self, request: Request) -> None:
        if request in self._pending:
            self._pending.discard(request)
            self._signal()

    def _on_failed(self, request: Request) -> None:
        if request not in self._pending:
            return
        self._pending.discard(request)
        error = request.failure or "unknown network error"
        if error == _ABORTED:
            self.ends += 1
        else:
            self.failures += 1
            self.last_failure = error
        self._signal()

    def _on_committed(self, frame: Frame) -> None:
        if frame == self._page.main_frame:
            self.commits += 1
            self._signal()

    def _on_download(self, download: Download) -> None:
        self.ends += 1
        self._signal()
