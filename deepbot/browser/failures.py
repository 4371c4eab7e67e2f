"""What a Playwright failure means to its caller: a timeout, a crash, or something else.

Playwright raises one exception class for everything; callers decide differently on
each (a crash is worth a fresh browser, a timeout is the page's fault), so the
decision is made once, here, from the message Playwright gives.

This is the one layer that catches Playwright's errors (tests/test_error_boundary.py
holds the rest of DeepBot to it): code above ``deepbot.browser`` runs its browser calls
inside ``translated`` and catches DeepBot's errors, or closes with ``close_quietly``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Protocol

from playwright.async_api import Error as PlaywrightError

from deepbot.errors import BrowserCrashedError, BrowserError, DeepBotError, PageTimeoutError

__all__ = ["brief", "browser_error", "close_quietly", "crash_or", "is_crash", "translated"]

# Playwright's wording when the renderer died ("Target crashed") or the browser
# process went away under a call ("Target page, context or browser has been closed").
_CRASH_MARKERS = ("crash", "target closed", "has been closed", "browser closed")


def is_crash(exc: BaseException) -> bool:
    """The browser or the page died under the call (not the page's own error)."""
    text = str(exc).lower()
    return any(marker in text for marker in _CRASH_MARKERS)


def brief(message: str) -> str:
    """``message`` without the browser's stderr that Playwright appends after a crash
    (dozens of D-Bus and crashpad lines that say nothing about the route)."""
    return message.split("\nBrowser logs:", 1)[0].rstrip()


def browser_error(exc: BaseException, message: str) -> BrowserError:
    """DeepBot's error for a Playwright failure, keeping ``message`` for the user."""
    message = brief(message)
    if "timeout" in str(exc).lower():
        return PageTimeoutError(message)
    if is_crash(exc):
        return BrowserCrashedError(message)
    return BrowserError(message)


def crash_or(exc: BaseException, message: str, other: type[DeepBotError]) -> DeepBotError:
    """A crash as BrowserCrashedError (callers may retry with a fresh browser), else ``other``."""
    message = brief(message)
    return BrowserCrashedError(message) if is_crash(exc) else other(message)


@contextlib.contextmanager
def translated(message: str = "", *, other: type[DeepBotError] | None = None) -> Iterator[None]:
    """Playwright's errors in the block raised as DeepBot's, saying ``message: <Playwright's>``
    (Playwright's words alone without a ``message``).

    Sorted as ``browser_error`` does (a crash, a timeout, else BrowserError); with
    ``other``, as ``crash_or`` does: a crash stays the browser's failure, the rest is
    ``other`` (a form that cannot be read is the form's failure, even by a timeout).
    """
    try:
        yield
    except PlaywrightError as exc:
        text = f"{message}: {exc.message}" if message else exc.message
        raise (browser_error(exc, text) if other is None else crash_or(exc, text, other)) from exc


class _Closable(Protocol):
    async def close(self) -> None: ...


async def close_quietly(target: _Closable, timeout: float = 10.0) -> None:
    """Close a browser, context or page that may have died already: its error on closing
    must not hide the one that ended the work in it. One that answers no more within
    ``timeout`` s is left to whoever stops its driver (which kills what it launched)."""
    with contextlib.suppress(PlaywrightError, asyncio.TimeoutError):
        await asyncio.wait_for(target.close(), timeout)
