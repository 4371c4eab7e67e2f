"""crawlee-python's PlaywrightCrawler on the benchmark site (runs in bench/.venvs/crawlee).

    python crawlee_run.py --seed URL --concurrency N --depth 4 --chromium PATH --args JSON

Written the way crawlee's documentation writes a crawler: a request handler that calls
``enqueue_links`` (same-hostname, the default strategy). Concurrency is pinned to N
(min = desired = max) so that its autoscaling neither starts low nor backs off on a
busy machine; everything else is crawlee's default. Storage lives in the directory
given by ``CRAWLEE_STORAGE_DIR`` (the harness gives a fresh one per run) and is
purged on start. Prints one JSON line at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

from crawlee import ConcurrencySettings
from crawlee.crawlers import PlaywrightCrawler, PlaywrightCrawlingContext


async def run(seed: str, concurrency: int, depth: int, chromium: str, args: list[str]) -> dict[str, object]:
    handled = 0
    crawler = PlaywrightCrawler(
        concurrency_settings=ConcurrencySettings(
            min_concurrency=concurrency, desired_concurrency=concurrency, max_concurrency=concurrency),
        max_crawl_depth=depth,
        headless=True,
        browser_type="chromium",
        browser_launch_options={"executable_path": chromium, "args": args},
        configure_logging=False,
    )

    @crawler.router.default_handler
    async def handler(context: PlaywrightCrawlingContext) -> None:
        nonlocal handled
        handled += 1
        await context.enqueue_links()

    started = time.perf_counter()
    stats = await crawler.run([seed])
    elapsed = time.perf_counter() - started
    return {"pages": handled, "failed": stats.requests_failed, "seconds": round(elapsed, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", required=True)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--args", default="[]", help="Chromium flags, a JSON list")
    options = parser.parse_args()
    result = asyncio.run(run(options.seed, options.concurrency, options.depth, options.chromium,
                             json.loads(options.args)))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
