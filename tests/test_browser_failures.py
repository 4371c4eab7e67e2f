"""Playwright's failures sorted into DeepBot's errors by their messages, and acted on."""

from __future__ import annotations

import pytest
from playwright.async_api import Error as PlaywrightError

from deepbot.browser.failures import brief, browser_error, is_crash
from deepbot.crawl.visit import _blank
from deepbot.errors import BrowserCrashedError, BrowserError, PageTimeoutError

_LOGS = "\nBrowser logs:\n\n<launching> /usr/bin/chromium --headless\n[pid=1][err] dbus: Failed to connect"


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("Page.goto: Target page, context or browser has been closed" + _LOGS, BrowserCrashedError),
        ("Page.evaluate: Target crashed", BrowserCrashedError),
        ("Page.goto: Timeout 10000ms exceeded.\nCall log:\n  - navigating to ...", PageTimeoutError),
        ("Page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/", BrowserError),
    ],
)
def test_failures_are_sorted_by_what_they_mean(message: str, kind: type[BrowserError]) -> None:
    error = browser_error(PlaywrightError(message), f"could not load x: {message}")
    assert type(error) is kind
    assert "Browser logs" not in str(error) and str(error).startswith("could not load x: Page.")
    assert is_crash(PlaywrightError(message)) == (kind is BrowserCrashedError)


def test_brief_keeps_the_call_log_and_drops_the_browser_log() -> None:
    call_log = "Page.click: Timeout 500ms exceeded.\nCall log:\n  - waiting for locator('#go')"
    assert brief(call_log) == call_log
    assert brief("Page.goto: Target crashed" + _LOGS) == "Page.goto: Target crashed"


class _InterruptedPage:
    """Just enough of a Page for _blank: each goto fails with the next message (None: it lands)."""

    def __init__(self, *outcomes: str | None) -> None:
        self.outcomes = list(outcomes)
        self.gotos = 0

    async def goto(self, url: str) -> None:
        self.gotos += 1
        outcome = self.outcomes.pop(0)
        if outcome is not None:
            raise PlaywrightError(outcome)


_BY_TIMER = 'Page.goto: Navigation to "about:blank" is interrupted by another navigation to "http://h/x"'
_BY_BLANK = 'Page.goto: Navigation to "about:blank" is interrupted by another navigation to "about:blank"'


async def test_blanking_retries_a_timer_navigation_and_accepts_a_late_blank_one() -> None:
    page = _InterruptedPage(_BY_TIMER, None)
    await _blank(page)  # type: ignore[arg-type]
    assert page.gotos == 2
    page = _InterruptedPage(_BY_TIMER, _BY_BLANK)
    await _blank(page)  # type: ignore[arg-type]
    assert page.gotos == 2  # a blank page is what it wanted: no third attempt, no error
    page = _InterruptedPage(_BY_TIMER, _BY_TIMER, _BY_TIMER)
    with pytest.raises(PlaywrightError):
        await _blank(page)  # type: ignore[arg-type]
    page = _InterruptedPage("Page.goto: Target crashed")
    with pytest.raises(PlaywrightError):
        await _blank(page)  # type: ignore[arg-type]
    assert page.gotos == 1
