"""Turn Playwright's errors into a Failure code and a reason a person can act on.

This is the one place that reads Playwright's error messages, so a wording change in
a new Playwright release is fixed here.
"""

from __future__ import annotations

import re

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from nseql.errors import Failure
from nseql.frames import locate
from nseql.model import ElementStep, Select, Step, WaitSelector

_METHOD_PREFIX = re.compile(r"^\w+\.\w+: (Error: )?")
_COUNT = re.compile(r"resolved to (\d+) elements")
# Lines of Playwright's call log that say why a matched element could not be used.
_HINT = re.compile(
    r"- ((?:element is not \w+)|(?:.* intercepts pointer events)|(?:element is outside .*))$", re.M
)
_WRONG_KIND = re.compile(r"(?i)element is not an? |not a checkbox|not a select")


class Failed(Exception):
    """Raised inside the interpreter for a failure it detected itself."""

    def __init__(self, kind: Failure, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def is_closed(exc: PlaywrightError) -> bool:
    return "has been closed" in exc.message


def is_context_lost(exc: PlaywrightError) -> bool:
    """The call's document went away, which after an action means it navigated."""
    return "Execution context was destroyed" in exc.message


def _first_line(exc: PlaywrightError) -> str:
    line = exc.message.split("\n", 1)[0] if exc.message else type(exc).__name__
    return _METHOD_PREFIX.sub("", line).strip()


async def translate(page: Page, step: Step, exc: PlaywrightError, step_ms: float) -> tuple[Failure, str]:
    message = exc.message or ""
    first = _first_line(exc)
    if is_closed(exc):
        return Failure.CLOSED, "the page or browser was closed"
    if "strict mode violation" in message and isinstance(step, ElementStep):
        found = _COUNT.search(message)
        count = found.group(1) if found else "several"
        return Failure.AMBIGUOUS, f"{step.selector!r} matches {count} elements; it must match exactly one"
    if "while parsing" in message or "Unknown engine" in message:
        return Failure.INVALID_SELECTOR, f"invalid selector: {first}"
    if "net::ERR_" in first:
        return Failure.NAVIGATION, f"navigation failed: {first}"
    if "Download is starting" in message:
        return Failure.DOWNLOAD, "the URL answers with a download, not a page"
    if isinstance(exc, PlaywrightTimeoutError):
        if isinstance(step, ElementStep):
            return await _element_timeout(page, step, message, step_ms)
        return Failure.TIMEOUT, f"timed out: {first}"
    if _WRONG_KIND.search(first):
        return Failure.NOT_ACTIONABLE, first
    return Failure.OTHER, first


async def _element_timeout(
    page: Page, step: ElementStep, message: str, step_ms: float
) -> tuple[Failure, str]:
    selector = step.selector
    if "scheduled navigations" in message or "navigated to" in message:
        # The action happened; the navigation it started is what never finished.
        return Failure.NAVIGATION, f"the navigation started by the step did not finish within {step_ms:g} ms"
    try:
        count = await locate(page, selector).count()
    except PlaywrightError:
        count = -1  # unknown: the page went away
    if count == 0:
        return Failure.NOT_FOUND, f"no element matches {selector!r} (waited {step_ms:g} ms)"
    if isinstance(step, WaitSelector):
        return Failure.TIMEOUT, f"no element matching {selector!r} became visible within {step_ms:g} ms"
    if isinstance(step, Select) and "did not find some options" in message:
        return Failure.NOT_FOUND, f"{selector!r} has no option with {step.by} {step.option!r}"
    hints = _HINT.findall(message)
    why = hints[-1] if hints else "it stayed hidden, disabled or covered"
    return Failure.NOT_ACTIONABLE, f"{selector!r} matched but could not be used within {step_ms:g} ms: {why}"
