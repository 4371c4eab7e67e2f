"""Replay an NSEQL program in a fresh browser context and report the page it reaches.

The pieces are separate so other commands can reuse them: ``load_program`` parses
(raising ReplayStepError with line and column), ``replay_in_browser`` runs a program
in a new context of a browser the caller owns and captures the final page, and
``replay`` launches and closes its own Chromium around that.

``replay_document`` replays a stored Document's program and says whether it reached
the same page; the decision itself is ``deepbot.replay.compare``, pure functions.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Browser, Page, Response, ViewportSize

import nseql
from deepbot.browser import chromium, fetches
from deepbot.browser.failures import close_quietly, translated
from deepbot.errors import BrowserError, ReplayStepError
from deepbot.replay.compare import (
    SIMILARITY_THRESHOLD,
    PageFacts,
    PageMatch,
    compare_pages,
    replayed_text,
    url_identifies,
)
from deepbot.routes import Document, SessionState

VIEWPORT: ViewportSize = {"width": 1280, "height": 800}  # fixed, so screenshots of one page compare
LOAD_GRACE_S = 5.0  # at most this long for `load` after each navigation (never-settling pages)


def _parse_failure(exc: nseql.ParseError) -> ReplayStepError:
    return ReplayStepError(
        f"invalid program: {exc}", line=exc.line, column=exc.column, reason=exc.message, kind="parse"
    )


def _step_failure(exc: nseql.StepError) -> ReplayStepError:
    return ReplayStepError(f"replay failed at {exc}", line=exc.line, reason=exc.reason, kind=exc.kind.value)


@dataclass(frozen=True)
class ReplayResult:
    """Where a replay ended; ``ok`` is False when a step failed (see ``error``)."""

    final_url: str
    title: str
    steps_run: int
    ok: bool
    error: ReplayStepError | None = None
    status: int | None = None  # HTTP status of the last main document
    html: str = field(default="", repr=False)  # the rendered DOM of the final page
    session: SessionState | None = field(default=None, repr=False)  # the session it ended with, if asked

    def raise_for_error(self) -> ReplayResult:
        if self.error is not None:
            raise self.error
        return self


def load_program(program: str | nseql.Program) -> nseql.Program:
    if isinstance(program, nseql.Program):
        return program
    try:
        return nseql.parse(program)
    except nseql.ParseError as exc:
        raise _parse_failure(exc) from exc


async def replay_in_browser(
    browser: Browser,
    program: str | nseql.Program,
    *,
    timeout: float = 30.0,
    screenshot: Path | None = None,
    html: Path | None = None,
    session: SessionState | None = None,
    keep_session: bool = False,
) -> ReplayResult:
    """Run ``program`` in a new context of ``browser``; the context is closed after.

    ``timeout`` (seconds) bounds each step and each navigation. A failed step is
    reported in the result, together with the page where the replay stopped. The
    context starts from ``session`` (a saved login) if given, else empty; with
    ``keep_session`` the result carries the session it ended with.
    """
    steps = load_program(program)
    state = session.to_playwright() if session is not None else None
    with translated("could not open a browser context"):
        context = await browser.new_context(viewport=VIEWPORT, storage_state=state)  # type: ignore[arg-type]
        await fetches.install(context)
    try:
        with translated("could not open a page"):
            page = await context.new_page()
        error: ReplayStepError | None = None
        status: int | None = None
        steps_run = 0
        response: Response | None = None
        try:
            for part in in_place_parts(steps):
                since = time.time() * 1000
                ran = await nseql.run(
                    part,
                    page,
                    step_timeout_ms=timeout * 1000,
                    navigation_timeout_ms=timeout * 1000,
                    load_timeout_ms=min(timeout, LOAD_GRACE_S) * 1000,
                )
                steps_run, response = steps_run + ran.steps_run, ran.response or response
                # What an action loaded in place ("Load more": fetched and appended) is there
                # before the next step, as it was when the crawl clicked it; and the page is
                # captured as the crawl read it, once the fetches it still awaits have answered.
                # The page may move on meanwhile: then it is captured as it is.
                in_place = ran.response is None and isinstance(part.steps[-1], _ACTIONS)
                with contextlib.suppress(BrowserError), translated("the page did not settle"):
                    await fetches.settled(page, since=since if in_place else 0, always=in_place,
                                          limit_ms=min(timeout * 1000, fetches.FETCH_WAIT_MS))
            status = await _shown_status(page, response)
        except nseql.StepError as exc:
            error, steps_run = _step_failure(exc), steps_run + exc.steps_run
        title, content = await _capture(page, screenshot, html, strict=error is None)
        ended = None
        if keep_session and error is None:
            with translated("could not read the session"):
                ended = SessionState.from_playwright(dict(await context.storage_state()))
        return ReplayResult(page.url, title, steps_run, error is None, error, status, content, ended)
    finally:
        await close_quietly(context)


# Actions that may change the page in place (a fetch, then new content) rather than navigate.
_ACTIONS = (nseql.Click, nseql.Select, nseql.Check, nseql.Uncheck, nseql.Press)
# Steps that belong to the action before them: they wait for what it did.
_WAITS = (nseql.WaitNavigation, nseql.WaitUrl, nseql.WaitLoad, nseql.WaitSelector)


def in_place_parts(program: nseql.Program) -> list[nseql.Program]:
    """The program cut after each action not followed by a wait of its own, so the replay
    can let what the action fetched arrive before the next step (pure)."""
    parts: list[list[nseql.Statement]] = [[]]
    statements = program.body
    for i, statement in enumerate(statements):
        parts[-1].append(statement)
        after = next((s for s in statements[i + 1:] if isinstance(s, nseql.Step)), None)
        if isinstance(statement, _ACTIONS) and after is not None and not isinstance(after, _WAITS):
            parts.append([])
    return [nseql.Program(tuple(part)) for part in parts if any(isinstance(s, nseql.Step) for s in part)]


# The document the page shows, as the browser loaded it: [its URL, its HTTP status].
_NAVIGATION_JS = """() => {
  const entry = performance.getEntriesByType("navigation")[0];
  return entry ? [entry.name, entry.responseStatus || 0] : null;
}"""


async def _shown_status(page: Page, response: Response | None) -> int | None:
    """HTTP status of the document shown: the run's last response, unless the page
    replaced that document by itself afterwards (a script's redirect, a meta refresh)."""
    try:
        with translated("could not read the navigation entry"):
            entry = await page.evaluate(_NAVIGATION_JS)
    except BrowserError:
        entry = None
    if entry and nseql.replaced(response, entry[0]):
        return int(entry[1]) or None
    return response.status if response is not None else None


async def _capture(
    page: Page, screenshot: Path | None, html: Path | None, *, strict: bool
) -> tuple[str, str]:
    """Title and DOM of the page, written where asked.

    After a failed step the page may be gone; then the step's error matters more than
    the capture's, so capture errors are raised only when ``strict``.
    """
    try:
        with translated("could not capture the final page"):
            title = await page.title()
            content = await page.content()
            if screenshot is not None:
                await page.screenshot(path=screenshot, full_page=True)
    except BrowserError:
        if strict:
            raise
        return "", ""
    if html is not None:
        html.write_text(content, encoding="utf-8")
    return title, content


async def replay(
    program: str | nseql.Program,
    *,
    headed: bool = False,
    screenshot: Path | None = None,
    html: Path | None = None,
    timeout: float = 30.0,
    session: SessionState | None = None,
    keep_session: bool = False,
) -> ReplayResult:
    """Replay ``program`` (text or parsed) in a freshly launched Chromium, closed after."""
    steps = load_program(program)  # a syntax error should not cost a browser launch
    async with chromium(headless=not headed) as browser:
        return await replay_in_browser(browser, steps, timeout=timeout, screenshot=screenshot, html=html,
                                       session=session, keep_session=keep_session)


@dataclass(frozen=True)
class DocumentReplay:
    """A stored document replayed: what the browser did, and the verdict."""

    document: Document
    result: ReplayResult
    match: PageMatch | None  # None when a step failed: there was nothing to compare

    @property
    def reached(self) -> bool:
        return self.result.ok and self.match is not None and self.match.reached

    @property
    def reason(self) -> str:
        if self.result.error is not None or self.match is None:
            return f"{self.result.error} (the page or the way to it changed)"
        return self.match.reason


async def replay_document(
    doc: Document,
    *,
    browser: Browser | None = None,
    headed: bool = False,
    screenshot: Path | None = None,
    html: Path | None = None,
    timeout: float = 30.0,
    threshold: float = SIMILARITY_THRESHOLD,
    session: SessionState | None = None,
) -> DocumentReplay:
    """Replay ``doc.nseql`` from a fresh context and compare the page with the stored one.

    With ``browser`` the replay runs in a new context of it (``headed`` is then the
    browser's business); without, a Chromium is launched and closed around it. A
    document of a crawl that started logged in (``meta["start_session"]``) is replayed
    from that ``session``.
    """
    if browser is not None:
        result = await replay_in_browser(browser, doc.nseql, timeout=timeout, screenshot=screenshot,
                                         html=html, session=session)
    else:
        result = await replay(doc.nseql, headed=headed, screenshot=screenshot, html=html, timeout=timeout,
                              session=session)
    if result.error is not None:
        return DocumentReplay(doc, result, None)
    text = await asyncio.to_thread(replayed_text, result.html)  # parsing a big DOM is CPU work
    match = compare_pages(
        PageFacts(doc.final_url, doc.text, doc.status), PageFacts(result.final_url, text, result.status),
        url_identifies=url_identifies(doc), threshold=threshold,
    )  # fmt: skip
    return DocumentReplay(doc, result, match)
