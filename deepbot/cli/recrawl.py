"""``deepbot recrawl``: revisit a store's documents and record what changed (crawl.recrawl)."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from deepbot.config import DEFAULT_STORE
from deepbot.errors import StoreError

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


def duration(text: str) -> timedelta:
    """``90s``, ``30m``, ``12h``, ``1d``, ``2w`` (a bare number is days)."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*", text.lower())
    if found is None:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (say 12h, 1d or 2w)")
    return timedelta(seconds=float(found[1]) * _UNITS[found[2] or "d"])


def _budget(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError("the budget is at least 1 revisit")
    return n


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "recrawl", help="revisit a store's documents; record what changed, is new or is gone",
        description="Revisit the documents of a store by their own routes (links, clicks, form queries "
        "run again, so new records behind a form are found), in the order a revisit policy gives, and record "
        "each as changed, unchanged, new or gone. Pages whose server gave an ETag or Last-Modified are asked "
        "with a conditional request first: a 304 is unchanged without a browser.")
    p.add_argument("--store", type=Path, default=Path(DEFAULT_STORE), help="the crawl's store file")
    p.add_argument("--policy", choices=("uniform", "proportional", "optimal"), default="uniform",
                   help="how revisits are shared out: uniform (oldest first; the default), proportional "
                   "(to each page's estimated change rate), optimal (most freshness for the budget)")
    p.add_argument("--budget", type=_budget, metavar="N",
                   help="documents revisited at most (default: all); the policies plan N a day")
    p.add_argument("--older-than", type=duration, metavar="AGE",
                   help="only documents last visited at least this long ago (12h, 1d, 2w)")
    p.add_argument("--workers", type=int, metavar="N", help="pages fetched at once (default: the crawl's)")
    p.add_argument("--quiet", "-q", action="store_true", help="No progress display.")
    p.add_argument("--json", action="store_true", help="Print the report as JSON on stdout.")
    p.add_argument("--list", action="store_true", help="List each new, changed and gone document's URL.")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from deepbot.config import CrawlConfig
    from deepbot.crawl.recrawl import CONFIG_STATE, recrawl
    from deepbot.frontier import SqliteRouteStore
    from deepbot.store import Change, SqliteDocumentStore

    if not args.store.is_file():
        raise StoreError(f"no store at {args.store} (run `deepbot crawl --store {args.store}` first)")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S",
                        stream=sys.stderr)
    with SqliteRouteStore(args.store) as frontier:
        saved = frontier.get_state(CONFIG_STATE)
        if saved is None:
            raise StoreError(f"{args.store} was crawled by a DeepBot that did not keep its crawl's settings: "
                             "run `deepbot crawl` on it once more (it resumes), then recrawl")
        config = CrawlConfig.model_validate_json(saved).model_copy(update={"store": args.store})
        if args.workers is not None:
            config = config.model_copy(update={"workers": args.workers})
        with SqliteDocumentStore(args.store, create=False, keep_versions=config.keep_versions) as documents:
            report = asyncio.run(recrawl(config, frontier, documents, policy=args.policy, budget=args.budget,
                                         older_than=args.older_than, progress=not args.quiet))
    counts = report.counts()
    if args.json:
        print(json.dumps({"store": str(args.store), "policy": args.policy, "chosen": report.chosen,
                          "counts": counts, "not_modified": report.not_modified, "failed": report.failed,
                          "seconds": report.seconds,
                          "documents": {c.value: report.of(c) for c in Change if c is not Change.UNCHANGED}},
                         indent=2))
        return 0
    print(f"Revisited {report.chosen} documents in {report.seconds:g} s ({args.policy} policy): "
          + ", ".join(f"{n} {name}" for name, n in counts.items())
          + f"; {report.not_modified} answered 304 Not Modified, {report.failed} failed.")
    if args.list:
        for change in (Change.NEW, Change.CHANGED, Change.GONE):
            for url in report.of(change):
                print(f"{change.value:8} {url}")
    return 0
