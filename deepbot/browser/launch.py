"""Finding and launching Chromium.

The order is: ``$DEEPBOT_CHROMIUM``; headless, Chromium's headless shell
(``/usr/bin/chromium-headless-shell``, Debian's ``chromium-headless-shell``); the OS
package (``/usr/bin/chromium``); then a Playwright-managed build if one was installed
with ``playwright install chromium``.

The headless shell is the build Playwright itself launches for headless runs: the same
Blink and V8 without the browser's own interface. Full Chromium, headless, still gives
every context a window, tab strip and address bar, and draws them: on the benchmark
site the shell takes ~1/3 of the browser process's CPU per page and ~100 MB less
memory, and DeepBot crawls ~1.5x faster (``bench/README.md`` has the figures).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from playwright.async_api import Browser, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from deepbot.browser.failures import close_quietly
from deepbot.browser.switches import chromium_args
from deepbot.errors import BrowserError, BrowserNotFoundError

INSTALL_HINT = (
    "Install one with `sudo bash scripts/install-chromium.sh` (Debian's `chromium` and "
    "`chromium-headless-shell` packages), "
    "or point DEEPBOT_CHROMIUM at a Chromium/Chrome executable."
)

SYSTEM_CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
SYSTEM_HEADLESS_SHELL = ("/usr/bin/chromium-headless-shell",)


def find_chromium(playwright: Playwright | None = None, *, headless: bool = True) -> str:
    """Return the path of the Chromium to launch, or raise BrowserNotFoundError.

    ``headless=False`` (a window a person sees) skips the headless shell, which has none.
    """
    env = os.environ.get("DEEPBOT_CHROMIUM")
    if env:
        path = shutil.which(env) or env
        if not Path(path).is_file():
            raise BrowserNotFoundError(f"DEEPBOT_CHROMIUM={env!r} is not a file. {INSTALL_HINT}")
        return path
    for candidate in (*SYSTEM_HEADLESS_SHELL, *SYSTEM_CHROMIUM) if headless else SYSTEM_CHROMIUM:
        if Path(candidate).is_file():
            return candidate
    if playwright is not None:
        managed = playwright.chromium.executable_path
        if managed and Path(managed).is_file():
            return managed
    raise BrowserNotFoundError(f"No Chromium found. {INSTALL_HINT}")


async def launch_chromium(
    playwright: Playwright, *, headless: bool = True, extra_args: tuple[str, ...] = ()
) -> Browser:
    """Launch Chromium with the flags this environment needs."""
    executable = find_chromium(playwright, headless=headless)
    try:
        return await playwright.chromium.launch(
            executable_path=executable,
            headless=headless,
            args=chromium_args(*extra_args, headless=headless),
        )
    except PlaywrightError as exc:
        raise BrowserError(f"could not launch Chromium at {executable}: {exc.message}") from exc


@asynccontextmanager
async def chromium(*, headless: bool = True) -> AsyncIterator[Browser]:
    """A Chromium of its own for one command (``deepbot analyze``, ``deepbot replay``),
    with Playwright's driver, both closed when the block ends. A crawl's browsers are
    the pool's (``deepbot.browser.pool``), which restarts them."""
    async with async_playwright() as playwright:
        browser = await launch_chromium(playwright, headless=headless)
        try:
            yield browser
        finally:
            await close_quietly(browser)
