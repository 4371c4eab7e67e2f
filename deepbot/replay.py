"""Replay an NSEQL program in a fresh browser context and report the page it reaches.

The pieces are separate so other commands can reuse them: ``load_program`` parses
(raising ReplayStepError with line and column), ``replay_in_browser`` runs a program
in a new context of a browser the caller owns and captures the final page, and
``replay`` launches and closes its own Chromium around that.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Browser, Page, ViewportSize, async_playwright
from playwright.async_api import Error as PlaywrightError

import nseql
from deepbot.browser import launch_chromium
from deepbot.errors import BrowserError, ReplayError

VIEWPORT: ViewportSize = {"width": 1280, "height": 800}  # fixed, so screenshots of one page compare
LOAD_GRACE_S = 5.0  # at most this long for `load` after each navigation (never-settling pages)


class ReplayStepError(ReplayError):
    """The program did not parse, or one of its steps failed; names the line and why."""

    def __init__(self, message: str, *, line: int, reason: str, kind: str, column: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column  # set for parse errors only
        self.reason = reason
        self.kind = kind  # "parse", or an nseql.Failure value such as "not-found"

    @classmethod
    def from_parse(cls, exc: nseql.ParseError) -> ReplayStepError:
        return cls(
            f"invalid program: {exc}", line=exc.line, column=exc.column, reason=exc.message, kind="parse"
        )

    @classmethod
    def from_step(cls, exc: nseql.StepError) -> ReplayStepError:
        return cls(f"replay failed at {exc}", line=exc.line, reason=exc.reason, kind=exc.kind.value)


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
        raise ReplayStepError.from_parse(exc) from exc


async def replay_in_browser(
    browser: Browser,
    program: str | nseql.Program,
    *,
    timeout: float = 30.0,
    screenshot: Path | None = None,
    html: Path | None = None,
) -> ReplayResult:
    """Run ``program`` in a new context of ``browser``; the context is closed after.

    ``timeout`` (seconds) bounds each step and each navigation. A failed step is
    reported in the result, together with the page where the replay stopped.
    """
    steps = load_program(program)
    try:
        context = await browser.new_context(viewport=VIEWPORT)
    except PlaywrightError as exc:
        raise BrowserError(f"could not open a browser context: {exc.message}") from exc
    try:
        try:
            page = await context.new_page()
        except PlaywrightError as exc:
            raise BrowserError(f"could not open a page: {exc.message}") from exc
        error: ReplayStepError | None = None
        status: int | None = None
        try:
            ran = await nseql.run(
                steps,
                page,
                step_timeout_ms=timeout * 1000,
                navigation_timeout_ms=timeout * 1000,
                load_timeout_ms=min(timeout, LOAD_GRACE_S) * 1000,
            )
            steps_run, status = ran.steps_run, ran.status
        except nseql.StepError as exc:
            error, steps_run = ReplayStepError.from_step(exc), exc.steps_run
        title, content = await _capture(page, screenshot, html, strict=error is None)
        return ReplayResult(page.url, title, steps_run, error is None, error, status, content)
    finally:
        with contextlib.suppress(PlaywrightError):  # a dead browser must not hide the real error
            await context.close()


async def _capture(
    page: Page, screenshot: Path | None, html: Path | None, *, strict: bool
) -> tuple[str, str]:
    """Title and DOM of the page, written where asked.

    After a failed step the page may be gone; then the step's error matters more than
    the capture's, so capture errors are raised only when ``strict``.
    """
    try:
        title = await page.title()
        content = await page.content()
        if screenshot is not None:
            await page.screenshot(path=screenshot, full_page=True)
        if html is not None:
            html.write_text(content, encoding="utf-8")
    except PlaywrightError as exc:
        if strict:
            raise BrowserError(f"could not capture the final page: {exc.message}") from exc
        return "", ""
    return title, content


async def replay(
    program: str | nseql.Program,
    *,
    headed: bool = False,
    screenshot: Path | None = None,
    html: Path | None = None,
    timeout: float = 30.0,
) -> ReplayResult:
    """Replay ``program`` (text or parsed) in a freshly launched Chromium, closed after."""
    steps = load_program(program)  # a syntax error should not cost a browser launch
    async with async_playwright() as playwright:
        browser = await launch_chromium(playwright, headless=not headed)
        try:
            return await replay_in_browser(browser, steps, timeout=timeout, screenshot=screenshot, html=html)
        finally:
            await browser.close()
