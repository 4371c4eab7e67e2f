"""What a Playwright failure means to its caller: a timeout, a crash, or something else.

Playwright raises one exception class for everything; callers decide differently on
each (a crash is worth a fresh browser, a timeout is the page's fault), so the
decision is made once, here, from the message Playwright gives.
"""

from __future__ import annotations

from deepbot.errors import BrowserCrashedError, BrowserError, DeepBotError, PageTimeoutError

__all__ = ["brief", "browser_error", "crash_or", "is_crash"]

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
