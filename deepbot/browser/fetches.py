"""The page's own count of its unanswered fetch/XHR (``fetches.js``), and waiting on it.

Every mini-browser context (and every replay's) runs ``fetches.js`` in each document
before the page's scripts; the harvest waits on the count in the page, and a route
that acted or a replay waits through ``settled``. No request listener is needed in
Python: with one, Playwright sends Python every request of the page.
"""

from __future__ import annotations

from importlib import resources

from playwright.async_api import BrowserContext, Page

FETCHES_JS = resources.files("deepbot.browser").joinpath("fetches.js").read_text("utf-8")
# A loaded page's unanswered fetches are waited for this long at most, then the DOM
# must stay still this long: the crawl's defaults (VisitOptions) and the replay's.
FETCH_WAIT_MS = 2_000
FETCH_QUIET_MS = 50

_SETTLE_JS = """([since, quiet, limit, always]) => window.__deepbotNet
  ? window.__deepbotNet.settle(since, quiet, limit, always)
  : new Promise((resolve) => setTimeout(resolve, always ? quiet : 0, true))"""


async def install(context: BrowserContext) -> None:
    """Count fetches in every document ``context`` opens from now on."""
    await context.add_init_script(script=FETCHES_JS)


async def settled(page: Page, *, since: float = 0, quiet_ms: float = FETCH_QUIET_MS,
                  limit_ms: float = FETCH_WAIT_MS, always: bool = False) -> bool:
    """Wait until no fetch started at or after ``since`` (epoch ms) is unanswered and the
    DOM has been still ``quiet_ms``; False if ``limit_ms`` passed first. Unless ``always``,
    a page with nothing pending and nothing answered lately returns at once."""
    return bool(await page.evaluate(_SETTLE_JS, [since, quiet_ms, limit_ms, always]))
