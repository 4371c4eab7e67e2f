"""DeepBot's exceptions: one tree, so callers can catch what they mean.

    DeepBotError
    ├── ConfigError            a crawl config (YAML or flags) is invalid
    │   └── DomainError        a domain definition is invalid (names file, line, field)
    ├── BrowserError           the browser could not do what was asked
    │   ├── BrowserNotFoundError   no Chromium could be found to launch
    │   ├── BrowserCrashedError    the browser or its page died mid-route
    │   ├── PageTimeoutError       a page or script did not settle in time
    │   ├── ElementUnusable        a step's element is there but hidden or covered
    │   └── Refused                the host refused the visit (a 429 or 503, a bot check)
    ├── LoggedOut              a crawl that started logged in met the login form again
    ├── ReplayError            a navigation sequence did not reach its page
    │   └── ReplayStepError    its program did not parse, or one of its steps failed
    ├── FormError              a form could not be analysed, filled or submitted
    │   └── CaptchaShown       its submission brought up a CAPTCHA's test
    └── StoreError             the route or document store failed

Playwright's own errors are translated in ``deepbot.browser`` and nowhere above it
(``deepbot.browser.failures``; tests/test_error_boundary.py holds every other module to
it). NSEQL translates them into its ``StepError`` at its own boundary.
NSEQL keeps its own tree (``nseql.NseqlError``) so the language stays usable alone.
"""

from __future__ import annotations


class DeepBotError(Exception):
    """Root of every error DeepBot raises on purpose."""


class ConfigError(DeepBotError):
    """A crawl configuration is invalid."""


class DomainError(ConfigError):
    """A domain definition is invalid; the message names file, line and field."""


class BrowserError(DeepBotError):
    """The browser failed to do what a route asked."""


class BrowserNotFoundError(BrowserError):
    """No Chromium executable was found."""


class BrowserCrashedError(BrowserError):
    """The browser process or a page crashed."""


class PageTimeoutError(BrowserError):
    """A navigation or script did not finish within its bound."""


class ElementUnusable(BrowserError):
    """A step's element is on the page but hidden or covered (a closed menu's link), or
    of the wrong kind: the same steps meet it so again, so a retry would not help."""


class Refused(BrowserError):
    """The host refused the visit (a 429 or 503, a bot check): retry once its pause is over."""

    def __init__(self, reason: str, seconds: float):
        super().__init__(reason)
        self.seconds = seconds


class LoggedOut(DeepBotError):
    """A crawl that started logged in met the login form again: the session has ended."""


class ReplayError(DeepBotError):
    """Replaying a navigation sequence did not reach the expected page."""


class ReplayStepError(ReplayError):
    """The program did not parse, or one of its steps failed; names the line and why."""

    def __init__(self, message: str, *, line: int, reason: str, kind: str, column: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column  # set for parse errors only
        self.reason = reason
        self.kind = kind  # "parse", or an nseql.Failure value such as "not-found"


class FormError(DeepBotError):
    """A form could not be analysed, filled or submitted."""


class CaptchaShown(FormError):
    """Submitting the form brought up a CAPTCHA's test (an invisible widget that did not
    trust the visit): DeepBot does not answer them, so no query of that form will pass."""


class StoreError(DeepBotError):
    """The route store or document store failed."""
