"""``deepbot learn --sample URL --entry URL``: generate a crawler from one sample page.

It reads the sample, maps the site breadth-first from the entry page (every page
compared with the sample by RTDM), and writes the navigation pattern that reaches the
most pages built like the sample: a YAML file of URL regexes per level that a person
can read and edit, and that ``deepbot crawl --pattern FILE`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from deepbot.errors import ConfigError

if TYPE_CHECKING:
    from deepbot.learn.crawler import PatternFile
    from deepbot.learn.mapping import Least


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "learn", help="generate a crawler (a navigation pattern) from one sample page and an entry page",
        description=__doc__.split("\n\n")[1] if __doc__ else None)
    p.add_argument("--sample", required=True, metavar="URL", help="a page of the kind to collect")
    p.add_argument("--entry", required=True, metavar="URL",
                   help="where the crawler starts (the site's front page)")
    p.add_argument("-o", "--output", type=Path, default=Path("pattern.yaml"), metavar="FILE",
                   help="where to write the pattern (default: pattern.yaml)")
    p.add_argument("--depth", type=int, default=5, metavar="N", help="levels of links mapped (default: 5)")
    p.add_argument("--max-pages", type=int, default=2000, metavar="N",
                   help="pages mapped at most (default: 2000)")
    p.add_argument("--threshold", type=float, default=None, metavar="S",
                   help="RTDM similarity to the sample, in (0, 1], from which a page is a target "
                   "(default: 0.8)")
    p.add_argument("--workers", type=int, default=4, metavar="N",
                   help="browser contexts at once (default: 4)")
    p.add_argument("--ignore-robots", action="store_true", help="do not obey robots.txt")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stderr)
    return asyncio.run(_learn(args))


@dataclass(frozen=True)
class Learned:
    """What a learning run found: the pattern (None when no target was reachable) and counts."""

    pattern: PatternFile | None
    mapped: int  # pages the mapping fetched
    targets: int  # pages built like the sample
    other_shapes: int  # other candidate patterns that reach targets the chosen one misses
    other_targets: int  # targets only they reach
    least: Least | None = None  # the fewest links any crawler of the mapped site traverses to the targets
    least_leaves: Least | None = None  # the same, following no link from a target (as a pattern does)


async def learn_pattern(sample_url: str, entry: str, *, depth: int = 5, max_pages: int = 2000,
                        threshold: float | None = None, workers: int = 4, obey_robots: bool = True,
                        user_agent: str | None = None) -> Learned:
    """Read the sample, map the site from ``entry``, and generate the navigation pattern."""
    from deepbot.config import CrawlConfig
    from deepbot.crawl.engine import Crawler
    from deepbot.learn.crawler import Level, MapProcessor, PatternFile
    from deepbot.learn.mapping import THRESHOLD, SiteMap, choose_pattern

    common: dict[str, Any] = {"workers": workers, "obey_robots": obey_robots}
    if user_agent:
        common["user_agent"] = user_agent
    with tempfile.TemporaryDirectory(prefix="deepbot-learn-") as work:
        # The sample first: every page of the mapping is compared with it.
        sample_config = CrawlConfig(seeds=(sample_url,), depth=0, store=Path(work) / "sample.sqlite",
                                    **common)
        async with Crawler(sample_config) as crawler:
            read = [doc async for doc in crawler.run()]
        sample = read[0] if read else None
        if sample is None or not sample.html:
            raise ConfigError(f"--sample {sample_url}: the page could not be read")
        sitemap = SiteMap(sample.html, threshold=threshold or THRESHOLD)
        map_config = CrawlConfig(seeds=(entry,), depth=depth, max_pages=max_pages,
                                 store=Path(work) / "map.sqlite", **common)
        mapper = MapProcessor(sitemap, sample.final_url)
        async with Crawler(map_config, processors=[mapper]) as crawler:
            async for _ in crawler.run():
                pass
            fetched = crawler.stats.fetched
    chosen = choose_pattern(sitemap)
    if chosen is None:
        return Learned(None, fetched, len(sitemap.targets), 0, 0, sitemap.least_links(),
                       sitemap.least_links(leaves=True))
    best, run = chosen.pattern, chosen.run
    levels = tuple(Level(follow=regexes, matched=n, repeat=i in best.repeats)
                   for i, (regexes, n) in enumerate(zip(best.levels, run.matched, strict=True)))
    found = PatternFile(sample=sample_url, entry=entry, threshold=sitemap.threshold, levels=levels,
                        targets=len(run.reached), mapped=fetched,
                        sample_clicks=tuple(dict.fromkeys(mapper.sample_clicks)))
    return Learned(found, fetched, len(sitemap.targets), chosen.other_shapes, len(chosen.missed),
                   sitemap.least_links(), sitemap.least_links(leaves=True))


def write_pattern(found: PatternFile, path: Path) -> None:
    text = ("# A navigation pattern: from the entry page, follow at each level the links matching one of\n"
            "# its regexes (Python re, whole URL); the last level's pages are the targets. A level with\n"
            "# repeat: true is followed again from its own pages (a pager), and may be skipped; the last\n"
            "# level repeating follows the targets' links to other targets. sample_clicks: the clicks\n"
            "# that led to the sample while learning (not made again: the sample is read first).\n"
            "# Edit freely;\n"
            f"# run it with: deepbot crawl --pattern {path}\n")
    text += yaml.safe_dump(found.model_dump(mode="json"), sort_keys=False, allow_unicode=True, width=120)
    path.write_text(text, encoding="utf-8")


async def _learn(args: argparse.Namespace) -> int:
    learned = await learn_pattern(args.sample, args.entry, depth=args.depth, max_pages=args.max_pages,
                                  threshold=args.threshold, workers=args.workers,
                                  obey_robots=not args.ignore_robots)
    found = learned.pattern
    threshold = found.threshold if found else (args.threshold or 0.8)
    print(f"Mapped {learned.mapped} pages from {args.entry}: {learned.targets} built like the sample "
          f"(RTDM similarity ≥ {threshold}).")
    if found is None:
        print("deepbot learn: no page reachable from the entry page is built like the sample; "
              "try a lower --threshold or a larger --depth", file=sys.stderr)
        return 1
    write_pattern(found, args.output)
    print(f"The pattern reaches {found.targets} of them in {len(found.levels)} levels:")
    for n, level in enumerate(found.levels, 1):
        again = ("" if not level.repeat else "  (repeats: a pager)" if n < len(found.levels)
                 else "  (repeats: from a target, its links to other targets)")
        print(f"  level {n}: " + "  |  ".join(level.follow) + again)
    if learned.other_targets:
        print(f"({learned.other_shapes} other path shapes reach {learned.other_targets} more; "
              "edit the pattern to add their regexes)")
    print(f"Written to {args.output}. Crawl with: deepbot crawl --pattern {args.output} --store S")
    return 0
