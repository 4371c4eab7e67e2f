"""``deepbot crawl``: crawl from seeds (and through domain forms) into a store."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

from deepbot.config import DEFAULT_STORE, CrawlConfig

# flag name -> config key; every flag has a config key of the same name.
_FLAGS = ("seed", "domain", "depth", "workers", "max_pages", "max_result_pages", "include", "exclude",
          "store", "keywords", "user_agent", "min_delay", "per_host_concurrency", "give_up_after", "session",
          "topic", "like", "learn_from", "max_scrolls", "scroll_time", "max_calendar_steps")


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "crawl", help="crawl sites (and their query forms) into a store; rerun to resume",
        description="Crawl from seeds, following links, script-driven anchors and, with --domain, "
        "relevant query forms. Running the same command again on the same store resumes.")
    p.add_argument("--seed", action="append", metavar="URL", help="start URL (repeatable)")
    p.add_argument("--domain", action="append", metavar="FILE", type=Path,
                   help="domain definition YAML (repeatable)")
    p.add_argument("--config", type=Path, metavar="FILE", help="crawl config YAML; flags override it")
    p.add_argument("--depth", type=int, help="link depth from each seed (default 3)")
    p.add_argument("--workers", type=int, help="concurrent mini-browsers (default 4)")
    p.add_argument("--max-pages", type=int, help="stop after this many pages")
    p.add_argument("--max-result-pages", type=int, metavar="N",
                   help="follow the pager of one query's results this many pages at most (default 100)")
    p.add_argument("--max-calendar-steps", type=int, metavar="N",
                   help="links in a row that only move a number or a date in their page's URL (a calendar's"
                        " 'next month') followed at most (default 10)")
    p.add_argument("--max-scrolls", type=int, metavar="N",
                   help="rounds of scrolling an infinite feed (or of 'Load more' clicks) a page at most"
                        " (default 50)")
    p.add_argument("--scroll-time", type=float, metavar="SECONDS",
                   help="seconds of scrolling (and 'Load more' clicks) a page at most (default 25)")
    p.add_argument("--include", action="append", metavar="REGEX", help="follow only URLs matching")
    p.add_argument("--exclude", action="append", metavar="REGEX", help="never follow URLs matching")
    p.add_argument("--store", type=Path, help=f"SQLite store (default ./{DEFAULT_STORE})")
    p.add_argument("--session", type=Path, metavar="FILE",
                   help="start logged in: a saved session (deepbot login, or Playwright storage_state JSON)")
    p.add_argument("--keywords", metavar="QUERY",
                   help='store only documents matching, e.g. \'java AND (xml OR "web services")\'')
    p.add_argument("--topic", metavar="WORDS",
                   help="focused crawl: follow first the links nearest to these words (best-first)")
    p.add_argument("--learn-from", type=Path, metavar="STORE",
                   help="with --topic: learn the paths to it from an earlier crawl's store (HMM crawler)")
    p.add_argument("--like", metavar="URL",
                   help="structure-driven crawl: store the pages built like this sample page (INDESIT)")
    p.add_argument("--user-agent")
    p.add_argument("--min-delay", type=float, help="seconds between requests to one host")
    p.add_argument("--per-host-concurrency", type=int)
    p.add_argument("--give-up-after", type=int, metavar="N",
                   help="refusals in a row (429, 503, bot checks) after which a host is left for the next run"
                        " (default 8)")
    p.add_argument("--ignore-robots", action="store_true", help="do not obey robots.txt")
    p.add_argument("--obey-meta-robots", action="store_true",
                   help="obey pages' noindex/nofollow (<meta name=robots>, X-Robots-Tag), rel=nofollow")
    p.add_argument("--shared-session", action="store_true",
                   help="all workers browse in one session (one cookie jar), as tabs sharing renderer "
                        "processes: less memory a worker, for sites that keep no per-visitor state")
    p.add_argument("--headed", action="store_true", help="show the browsers")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    p.add_argument("--json", action="store_true",
                   help="print a JSON summary on stdout at the end (the words go to stderr)")
    p.set_defaults(func=run)


def config_from_args(args: argparse.Namespace) -> CrawlConfig:
    from deepbot.config.load import load_config

    values: dict[str, Any] = {}
    if args.config is not None:
        values = load_config(args.config).model_dump(exclude_unset=True)
    for flag in _FLAGS:
        value = getattr(args, flag)
        if value is None:
            continue
        key = {"seed": "seeds", "domain": "domains"}.get(flag, flag)
        values[key] = tuple(value) if isinstance(value, list) else value
    if args.ignore_robots:
        values["obey_robots"] = False
    if args.obey_meta_robots:
        values["obey_meta_robots"] = True
    if args.headed:
        values["headless"] = False
    if args.shared_session:
        values["shared_session"] = True
    from deepbot.config.load import validate_config

    return validate_config(values, source="command line")


def run(args: argparse.Namespace) -> int:
    from deepbot.crawl.runner import INTERRUPTED_EXIT, crawl_and_report

    config = config_from_args(args)
    if not config.seeds:
        print("deepbot crawl: give at least one --seed URL (or seeds: in --config)", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S",
                        stream=sys.stderr)
    try:
        return asyncio.run(crawl_and_report(config, progress=not args.quiet, as_json=args.json))
    except KeyboardInterrupt:
        # Ctrl-C while the browser started or the stores closed: the crawl itself says more
        # (runner); here nothing was lost either, and the same command resumes.
        print("stopped: interrupted (Ctrl-C) — run the same command to resume", file=sys.stderr)
        return INTERRUPTED_EXIT
