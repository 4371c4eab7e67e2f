"""Running a crawl from the command line: progress while it runs, a summary after."""

from __future__ import annotations

from collections.abc import Mapping

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.crawl.stats import CrawlStats
from deepbot.frontier import RouteState


async def crawl_and_report(config: CrawlConfig, *, progress: bool = True) -> int:
    async with Crawler(config, progress=progress) as crawler:
        async for _document in crawler.run():
            pass
        counts = crawler.frontier.counts()
    print(summary(crawler.stats, counts, str(config.store)))
    return 0


def summary(stats: CrawlStats, counts: Mapping[RouteState, int], store: str) -> str:
    lines = [
        f"Crawl finished: {stats.fetched} pages fetched, {stats.stored} documents stored, "
        f"{stats.failed} routes failed ({stats.rate():.1f} pages/s).",
        "Routes: " + ", ".join(f"{state} {n}" for state, n in sorted(counts.items())),
    ]
    if stats.outcomes:
        lines.append("Pages: " + ", ".join(f"{r} ×{n}" for r, n in stats.outcomes.most_common()))
    work = stats.page_work
    if any(work[k] for k in ("overlay answered", "menus opened", "scrolled", "load more")):
        parts = [f"cookie banner or consent wall answered ×{work['overlay answered']}",
                 f"hover menus opened ×{work['menus opened']}",
                 f"scrolled to the end ×{work['scrolled']} ({work['scroll rounds']} rounds)",
                 f"'Load more' clicked ×{work['load more']} ({work['load more rounds']} rounds)"]
        lines.append("In pages: " + ", ".join(p for p in parts if " ×0" not in p))
    if stats.failures:
        lines.append("Failures: " + ", ".join(f"{r} ×{n}" for r, n in stats.failures.most_common(8)))
    if stats.skipped:
        lines.append("Links not followed: " + ", ".join(f"{r} ×{n}" for r, n in stats.skipped.most_common()))
    lines.append(f"Store: {store}  (deepbot status/search/export --store {store})")
    return "\n".join(lines)

