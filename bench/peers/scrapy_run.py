"""A minimal scrapy-playwright spider on the benchmark site (runs in bench/.venvs/scrapy).

    python scrapy_run.py --seed URL --concurrency N --depth 4 --chromium PATH --args JSON \
        [--abort REGEX]

Every request is rendered by Playwright (``meta={"playwright": True}``); links are
found with Scrapy's LinkExtractor, restricted to the seed's host and port. Breadth-first order
(Scrapy's documented DEPTH_PRIORITY + FIFO queues recipe), ``CONCURRENT_REQUESTS`` =
N on the one host, one browser context holding up to N pages, the same font/media
URL pattern aborted as in DeepBot's pool. Prints one JSON line at the end.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.http import Response
from scrapy.linkextractors import LinkExtractor


class SiteSpider(scrapy.Spider):
    name = "bench"

    def __init__(self, seed: str, **kwargs: Any):
        super().__init__(**kwargs)
        # LinkExtractor(allow_domains=…) and allowed_domains never match an IP address
        # such as 127.0.0.1, so the spider compares host:port itself.
        self.netloc = urlsplit(seed).netloc
        self.start_urls = [seed]
        self.links = LinkExtractor()
        self.pages = 0

    async def start(self) -> Any:
        for url in self.start_urls:
            yield scrapy.Request(url, meta={"playwright": True})

    def parse(self, response: Response) -> Iterator[scrapy.Request]:
        self.pages += 1
        for link in self.links.extract_links(response):
            if urlsplit(link.url).netloc == self.netloc:
                yield scrapy.Request(link.url, meta={"playwright": True})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", required=True)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--args", default="[]", help="Chromium flags, a JSON list")
    parser.add_argument("--abort", help="regex of request URLs to abort (fonts, media)")
    options = parser.parse_args()
    abort = re.compile(options.abort, re.I) if options.abort else None

    settings: dict[str, Any] = {
        "DOWNLOAD_HANDLERS": {
            "http": "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler",
            "https": "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler",
        },
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
        "PLAYWRIGHT_BROWSER_TYPE": "chromium",
        "PLAYWRIGHT_LAUNCH_OPTIONS": {"executable_path": options.chromium, "args": json.loads(options.args),
                                      "headless": True},
        "PLAYWRIGHT_MAX_PAGES_PER_CONTEXT": options.concurrency,
        "PLAYWRIGHT_ABORT_REQUEST": (lambda request: bool(abort.search(request.url))) if abort else None,
        "CONCURRENT_REQUESTS": options.concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": options.concurrency,
        "DOWNLOAD_DELAY": 0,
        "AUTOTHROTTLE_ENABLED": False,
        "ROBOTSTXT_OBEY": True,
        "DEPTH_LIMIT": options.depth,
        "DEPTH_PRIORITY": 1,
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
    }
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(SiteSpider)
    started = time.perf_counter()
    process.crawl(crawler, seed=options.seed)
    process.start()
    elapsed = time.perf_counter() - started
    spider = crawler.spider
    pages = spider.pages if isinstance(spider, SiteSpider) else 0
    print(json.dumps({"pages": pages, "seconds": round(elapsed, 3)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
