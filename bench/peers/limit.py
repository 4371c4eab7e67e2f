"""The limit: a bare Playwright loop, set up exactly as DeepBot's browser pool.

    python bench/peers/limit.py --urls FILE --concurrency N            # the URL list
    python bench/peers/limit.py --seed URL --depth 4 --concurrency N   # BFS, links extracted
    python bench/peers/limit.py --urls FILE --concurrency N --read     # and read what DeepBot reads

One Chromium with DeepBot's flags (images off), N contexts each with one reused page,
fonts and media blocked the same way (deepbot.browser.blocking), ``goto(url, wait_until="load")``.
Nothing else: no storage, no link bookkeeping beyond a set, no session handling —
what the browser itself can do on this machine. Prints one JSON line at the end.

``--read``: after each load, read the page as DeepBot does and drop what was read:
its harvest (``deepbot/crawl/harvest.js``, one evaluate, the default options, with
the fetch count installed in every context) and the cookie snapshot. The ceiling of
any crawler that reads each page this way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from urllib.parse import urldefrag, urlsplit

from playwright.async_api import BrowserContext, Page, async_playwright
from playwright.async_api import Error as PlaywrightError

from deepbot.browser import chromium_args, find_chromium

# The pool's own constants, so that the limit blocks exactly what DeepBot blocks.
from deepbot.browser.blocking import block_media
from deepbot.browser.pool import _IMAGES_OFF, BrowserSettings

_LINKS_JS = "() => Array.from(document.links, a => a.href)"


async def new_page(browser: object, *, read: bool = False) -> Page:
    settings = BrowserSettings()
    width, height = settings.viewport
    context: BrowserContext = await browser.new_context(  # type: ignore[attr-defined]
        viewport={"width": width, "height": height}, service_workers="block", accept_downloads=False)
    context.set_default_navigation_timeout(settings.navigation_timeout_ms)
    if read:
        from deepbot.browser.fetches import install

        await install(context)  # the harvest waits on its count of unanswered fetches
    page = await context.new_page()
    await block_media(context, page)
    return page


async def run(urls: list[str], concurrency: int, seed: str | None, depth: int,
              read: bool = False) -> dict[str, object]:
    queue: asyncio.Queue[tuple[str, int] | None] = asyncio.Queue()
    seen: set[str] = set()
    for url in urls:
        seen.add(url)
        queue.put_nowait((url, 0))
    host = urlsplit(seed).netloc if seed else ""
    done = errors = read_chars = 0
    if read:  # imported only here: the plain limit loads none of DeepBot's crawl code
        from deepbot.crawl.visit import _HARVEST_JS, VisitOptions, harvest_args

        harvest = harvest_args(VisitOptions())
    pending = len(urls)  # BFS: queued or in flight; the crawl ends when it drops to 0

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_chromium(pw), headless=True,
                                           args=chromium_args(_IMAGES_OFF))
        started = time.perf_counter()

        async def worker() -> None:
            nonlocal done, errors, pending, read_chars
            page = await new_page(browser, read=read)
            while (item := await queue.get()) is not None:
                url, level = item
                try:
                    await page.goto(url, wait_until="load")
                    if read:
                        read_chars += len(await page.evaluate(_HARVEST_JS, harvest))
                        await page.context.cookies()
                    done += 1
                    if seed and level < depth:
                        for href in await page.evaluate(_LINKS_JS):
                            link = urldefrag(href).url
                            if urlsplit(link).netloc == host and link not in seen:
                                seen.add(link)
                                pending += 1
                                queue.put_nowait((link, level + 1))
                except PlaywrightError as exc:
                    errors += 1
                    print(f"{url}: {exc.message.splitlines()[0]}", file=sys.stderr)
                pending -= 1
                if pending == 0:  # nothing queued, nothing in flight: wake every worker to stop
                    for _ in range(concurrency):
                        queue.put_nowait(None)
            await page.context.close()

        if not seed:
            for _ in range(concurrency):
                queue.put_nowait(None)
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
        await browser.close()
    return {"pages": done, "errors": errors, "read_chars": read_chars, "seconds": round(elapsed, 3),
            "pages_per_s": round(done / elapsed, 3) if elapsed else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--urls", type=Path, help="file with one URL a line, visited in order")
    source.add_argument("--seed", help="start URL of a breadth-first crawl of its host")
    parser.add_argument("--depth", type=int, default=4, help="link depth of the BFS")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--read", action="store_true", help="read pages as DeepBot does: harvest, cookies")
    args = parser.parse_args()
    urls = args.urls.read_text().split() if args.urls else [args.seed]
    result = asyncio.run(run(urls, args.concurrency, args.seed, args.depth, args.read))
    print(json.dumps(result))
    return 0 if not result["errors"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
