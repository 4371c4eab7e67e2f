"""Where a DeepBot crawl spends its time, page by page.

    python bench/phases.py                        # 300 pages of the benchmark site, concurrency 1
    python bench/phases.py --pages 500 --concurrency 4 --json

Serves the throughput benchmark's generated site (bench/site.py) on 127.0.0.1, crawls
it in-process with DeepBot's defaults, and times each stage of every route by wrapping
the functions that run it: the navigation (goto and the load wait), the harvest (one
evaluate), the session snapshot, the post-processing chain, the commit. Then a
reference loop in the same browser settings: ``goto(load)`` alone, and the first
no-op ``evaluate`` right after the load event — the wait any reading crawler pays
while the page renders its first frame. Wall-clock milliseconds per route (median
and mean); at concurrency > 1 stages overlap, so they do not add up to the wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from common import load_bench_module
from playwright.async_api import async_playwright

from deepbot.browser import chromium_args, find_chromium
from deepbot.browser.pool import _IMAGES_OFF, BrowserPool, Slot
from deepbot.config import CrawlConfig
from deepbot.content.postprocess import PostProcessChain

# By name: the package's ``crawl`` attribute is the library function, not this package.
engine = importlib.import_module("deepbot.crawl.engine")
visit_module = importlib.import_module("deepbot.crawl.visit")
site_module = load_bench_module("site")
limit_module = load_bench_module("peers/limit")

Samples = dict[str, list[float]]


@contextmanager
def _timed(owner: Any, name: str, label: str, samples: Samples) -> Iterator[None]:
    """Replace ``owner.name`` (a coroutine function or a function) by a timed wrapper."""
    original = getattr(owner, name)
    wrapper: Callable[..., Any]
    if asyncio.iscoroutinefunction(original):
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await original(*args, **kwargs)
            finally:
                samples[label].append((time.perf_counter() - started) * 1000)
    else:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                samples[label].append((time.perf_counter() - started) * 1000)
    setattr(owner, name, wrapper)
    try:
        yield
    finally:
        setattr(owner, name, original)


# (owner, attribute, label), innermost first: the table lists them in this order.
_STAGES = (
    (BrowserPool, "acquire", "acquire: a pool slot"),
    (Slot, "restore", "restore: the route's session"),
    (visit_module.nseql, "run", "navigate: goto and the load wait"),
    (visit_module, "_harvest", "harvest: one evaluate"),
    (visit_module, "_capture", "session: cookies snapshot"),
    (engine, "visit", "visit: all of the above"),
    (PostProcessChain, "run", "chain: main text, links, forms"),
    (engine.Crawler, "_commit", "commit: frontier and store"),
    (engine.Crawler, "_process", "route: from lease to commit"),
)


async def crawl_phases(seed: str, pages: int, concurrency: int, store: Path) -> tuple[Samples, float, int]:
    samples: Samples = defaultdict(list)
    config = CrawlConfig(seeds=[seed], store=store, workers=concurrency, per_host_concurrency=concurrency,
                         depth=4, max_pages=pages)
    with ExitStack() as stack:
        for owner, name, label in _STAGES:
            stack.enter_context(_timed(owner, name, label, samples))
        started = time.perf_counter()
        fetched = 0
        async with engine.Crawler(config) as crawler:
            async for _ in crawler.run():
                pass
            fetched = crawler.stats.fetched
        wall = (time.perf_counter() - started) * 1000
    return samples, wall / max(fetched, 1), fetched


async def reference(urls: list[str]) -> Samples:
    """The bare loop's costs in the same settings: goto(load), then a no-op evaluate."""
    samples: Samples = defaultdict(list)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_chromium(pw), headless=True,
                                           args=chromium_args(_IMAGES_OFF))
        page = await limit_module.new_page(browser)  # set up as the limit loop sets up its pages
        for url in urls:
            started = time.perf_counter()
            await page.goto(url, wait_until="load")
            loaded = time.perf_counter()
            await page.evaluate("() => 1")
            again = time.perf_counter()
            await page.evaluate("() => 1")
            done = time.perf_counter()
            samples["reference: goto(load) alone"].append((loaded - started) * 1000)
            samples["reference: first evaluate after load"].append((again - loaded) * 1000)
            samples["reference: a second evaluate"].append((done - again) * 1000)
        await browser.close()
    return samples


def _rows(samples: Samples) -> list[dict[str, Any]]:
    order = [label for _, _, label in _STAGES] + sorted(k for k in samples if k.startswith("reference"))
    return [{"stage": label, "n": len(samples[label]),
             "median_ms": round(statistics.median(samples[label]), 2),
             "mean_ms": round(statistics.mean(samples[label]), 2)} for label in order if samples.get(label)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=300, help="routes to crawl (default 300)")
    parser.add_argument("--concurrency", type=int, default=1, help="workers (default 1)")
    parser.add_argument("--reference-pages", type=int, default=60, help="pages for the bare reference loop")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    site = site_module.build_site(max(args.pages, args.reference_pages) + 1)
    with site_module.SiteServer(site) as server, tempfile.TemporaryDirectory() as tmp:
        samples, wall, fetched = asyncio.run(
            crawl_phases(server.url, args.pages, args.concurrency, Path(tmp) / "store.sqlite"))
        urls = server.page_urls()[: args.reference_pages]
        samples.update(asyncio.run(reference(urls)))
    rows = _rows(samples)
    if args.json:
        print(json.dumps({"pages": fetched, "concurrency": args.concurrency,
                          "wall_ms_per_page": round(wall, 2), "stages": rows}, indent=2))
        return 0
    print(f"{fetched} pages at concurrency {args.concurrency}: {wall:.1f} ms of wall time per page\n")
    print("| stage | routes | median ms | mean ms |\n|---|---|---|---|")
    for row in rows:
        print(f"| {row['stage']} | {row['n']} | {row['median_ms']:.1f} | {row['mean_ms']:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
