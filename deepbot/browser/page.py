"""The page operations a route's visit needs, and Playwright's errors translated in one place.

Playwright raises one exception class for everything. A visit expects some failures as
part of a page's life (a navigation that replaces the document under a script, a page
that never settles): the operations here answer those with what they mean (a default,
a retry) and no error. Any other failure leaves a visit as DeepBot's own error
(``translated``, browser.failures), never as Playwright's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import BrowserContext, Frame, Page, Response
from playwright.async_api import Error as PlaywrightError

import nseql
from deepbot.browser import bounded, fetches
from deepbot.browser.failures import browser_error, is_crash
from deepbot.browser.failures import translated as translated  # the visit's one wrapper, re-exported
from deepbot.errors import BrowserError


class FrameUnreadable(BrowserError):
    """An iframe's document could not be read (gone, never loaded): not the route's failure."""


async def clear_session_storage(page: Page) -> None:
    """Clear the tab's sessionStorage, if the document lets a script (about:blank does not)."""
    with contextlib.suppress(PlaywrightError):
        await page.evaluate("() => { try { sessionStorage.clear() } catch (e) {} }")


async def blank(page: Page) -> None:
    """Replace the document by an empty one, even if its own timer navigates meanwhile.
    (Raises Playwright's error: the visit's ``translated`` says what it means.)"""
    for attempt in range(3):
        try:
            await page.goto("about:blank")
            return
        except PlaywrightError as exc:
            _, interrupted, by = exc.message.partition("interrupted by another navigation")
            if interrupted and by.lstrip().startswith('to "about:blank"'):
                return  # an earlier attempt's navigation, landing late: the page is blank all the same
            if not interrupted or attempt == 2:
                raise


async def loaded(page: Page, state: str, timeout_ms: float) -> bool:
    """Wait for the page's load ``state``; False if it did not come (a page that never
    settles is still a page: the caller keeps what is there)."""
    try:
        await nseql.wait_for_load_state(page, state, timeout_ms)
    except PlaywrightError:
        return False
    return True


async def fetches_settled(page: Page, *, since: float, quiet_ms: float, limit_ms: float) -> bool:
    """browser.fetches.settled, always waiting; True when a navigation replaced the document
    meanwhile (the next harvest waits for the new one's fetches)."""
    try:
        return await fetches.settled(page, since=since, quiet_ms=quiet_ms, limit_ms=limit_ms, always=True)
    except PlaywrightError:
        return True


async def evaluate_or(page: Page, script: str, arg: Any, default: Any, *, crash_raises: bool = False) -> Any:
    """``script``'s answer, or ``default`` when the call failed: the document is being
    replaced (a navigation). A dead browser or page raises all the same if
    ``crash_raises``."""
    try:
        return await page.evaluate(script, arg)
    except PlaywrightError as exc:
        if crash_raises and is_crash(exc):
            raise browser_error(exc, exc.message) from exc
        return default


async def harvest(page: Page, script: str, arg: Any, again: Any, *, load_timeout_ms: float,
                  attempts: int = 2, moving: Callable[[Any], Awaitable[bool]] | None = None) -> Any:
    """``script``'s answer; if the document was replaced under it (opening a menu navigated
    after all, a meta refresh or a script's ``location = …`` of the page's own), the answer
    of the page it led to, asked with ``again`` once that page has loaded (bounded by
    ``load_timeout_ms``), up to ``attempts`` reads in all. So too when ``moving`` says,
    given a read's answer, that the page was on its way elsewhere (a meta refresh waiting for its
    host's turn: guard.navigation_done). A page cannot replace itself for ever: the guard
    stops its own navigations past max_self_navigations (browser.guard), so ``attempts``
    past that reads the document it is left on."""
    for attempt in range(attempts):
        try:
            answer = await page.evaluate(script, arg if attempt == 0 else again)
        except PlaywrightError as exc:
            if not _navigated(exc):
                raise browser_error(exc, exc.message) from exc
            if attempt == attempts - 1:
                raise browser_error(exc, f"the page replaced its document {attempts} times while it was "
                                    f"read: {exc.message}") from exc
        else:
            if moving is None or attempt == attempts - 1 or not await moving(answer):
                return answer
        # The new document's load event (its meta refresh of 0 s fires then): a read before
        # it would be cut short again.
        with contextlib.suppress(PlaywrightError):
            await nseql.wait_for_load_state(page, "load", load_timeout_ms)
    raise AssertionError("unreachable: the last attempt returns or raises")


# Whether the document has a meta refresh of (under) 0 s, which the browser follows as soon
# as the document has loaded: a redirect on its way.
_REFRESH_JS = r"""() => [...document.querySelectorAll('meta[http-equiv]')].some((meta) =>
  meta.httpEquiv.trim().toLowerCase() === 'refresh'
  && /^\s*(0+(\.\d*)?|\.\d+)\s*([;,]|$)/.test(meta.content))"""


async def refreshes_at_once(page: Page) -> bool:
    """The page's document has a meta refresh of 0 s (False if it could not be asked)."""
    return bool(await evaluate_or(page, _REFRESH_JS, None, False))


def _navigated(exc: PlaywrightError) -> bool:
    """Playwright's error says the document was replaced while a script ran in it."""
    return "context was destroyed" in exc.message or "navigat" in exc.message


async def in_frame(scope: Frame, selector: str, script: str, arg: Any, *, wait_for_src: bool,
                   find_timeout_ms: float, load_timeout_ms: float) -> tuple[Frame, Any] | None:
    """The iframe ``selector`` names in ``scope``, and ``script``'s answer in its document;
    None if it is no frame. ``wait_for_src``: it was inserted a moment ago and its document
    may not have come yet. FrameUnreadable when it cannot be read; a crash raises."""
    try:
        handle = await scope.locator(selector).first.element_handle(timeout=find_timeout_ms)
        frame = await handle.content_frame()
        await handle.dispose()
        if frame is None:
            return None
        if wait_for_src and frame.url in ("", "about:blank"):
            await frame.wait_for_url(lambda url: url not in ("", "about:blank"),
                                     wait_until="domcontentloaded", timeout=load_timeout_ms)
        return frame, await frame.evaluate(script, arg)
    except PlaywrightError as exc:
        if is_crash(exc):
            raise browser_error(exc, exc.message) from exc
        raise FrameUnreadable(exc.message) from exc


def headers(response: Response | None) -> dict[str, str]:
    """The headers the browser reported with the response: no round trip. They lack only
    the security-related ones (Set-Cookie…), which the cookie jar holds anyway."""
    if response is None:
        return {}
    return {k.lower(): v for k, v in response.headers.items()}


async def body(response: Response, cap: int) -> bytes | None:
    """The response's body, at most ``cap`` bytes; None when the browser no longer has it."""
    with contextlib.suppress(PlaywrightError):
        return (await response.body())[:cap]
    return None


async def fetch(context: BrowserContext, page: Page, url: str, bounds: bounded.Bounds, *,
                proxy: str | None = None) -> tuple[bytes, int, dict[str, str]]:
    """The body, status and headers of ``url``, in the context's session (its cookies and
    user agent), read as it arrives within ``bounds`` (bounded.fetch: TooLarge past them).
    Not Playwright's request API: it hands a body over only whole, inflated in memory.
    (What the answer sets in cookies is not kept: a file's download ends the route.)"""
    with translated():
        cookies = await context.cookies(url)
        agent = str(await page.evaluate("navigator.userAgent"))
    cookie = "; ".join(f"{c.get('name', '')}={c.get('value', '')}" for c in cookies)
    got = await bounded.fetch(url, bounds, cookie=cookie, user_agent=agent, proxy=proxy)
    return got.body, got.status, got.headers
