"""What a recrawl of an unchanged site costs against the full crawl that made the store.

The site is the archive fixture (fixtures/sites/archive.py) with ``--pages`` reading lists:
static pages, a search form with the books domain's three queries, a clock page. Each
round crawls it into a new store, then recrawls that store (nothing changed), twice over:
once with a server that answers conditional requests (ETag, Last-Modified, 304) and once
with one that sends no validators, so every page goes through the browser again. Times
are wall-clock seconds of the whole command's work (browser start included), medians
over ``--rounds``.

    python bench/recrawl.py                 # 100 reading lists, 3 rounds
    python bench/recrawl.py --json

The issue's goal: a recrawl of an unchanged site ≤ 0.5× a full crawl where the server
answers conditional requests. The exit code is 0 either way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # fixtures/ is not installed: the checkout's

from deepbot.config import CrawlConfig  # noqa: E402
from deepbot.crawl.engine import Crawler  # noqa: E402
from deepbot.crawl.recrawl import recrawl  # noqa: E402
from deepbot.frontier import SqliteRouteStore  # noqa: E402
from deepbot.store import SqliteDocumentStore  # noqa: E402
from fixtures.server import FixtureServer  # noqa: E402
from fixtures.sites.archive import Archive  # noqa: E402


async def _round(pages: int, validators: bool, workers: int, tmp: Path) -> dict[str, float | int]:
    archive = Archive(pages=pages, validators=validators)
    tmp.mkdir(parents=True)
    store = tmp / "archive.sqlite"
    with FixtureServer(options={"archive": archive}) as site:
        config = CrawlConfig(seeds=(site.url("/archive/"),), domains=(ROOT / "domains/books.yaml",),
                             include=("^" + re.escape(site.url("/archive/")),), store=store, workers=workers,
                             depth=3, settle_timeout=2.0)
        began = time.perf_counter()
        async with Crawler(config) as crawler:
            stored = len([doc async for doc in crawler.run()])
        crawled = time.perf_counter() - began
        archive.hits.clear()
        began = time.perf_counter()
        with SqliteRouteStore(store) as frontier, SqliteDocumentStore(store) as documents:
            report = await recrawl(config, frontier, documents)
        recrawled = time.perf_counter() - began
    counts = report.counts()
    if counts["new"] or counts["changed"] or counts["gone"]:
        raise SystemExit(f"the unchanged site's recrawl reported changes: {counts}")
    browser = archive.hits["page"] + archive.hits["results"] + archive.hits["clock"]
    return {"documents": stored, "crawl_s": round(crawled, 2), "recrawl_s": round(recrawled, 2),
            "not_modified": report.not_modified, "browser_pages": browser}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=100, help="reading lists on the site")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for validators in (True, False):
            where = [Path(tmp) / f"{validators}-{n}" for n in range(args.rounds)]
            rounds = [asyncio.run(_round(args.pages, validators, args.workers, path)) for path in where]
            crawl = statistics.median(float(r["crawl_s"]) for r in rounds)
            again = statistics.median(float(r["recrawl_s"]) for r in rounds)
            rows.append({"server": "answers conditional requests" if validators else "sends no validators",
                         "documents": rounds[0]["documents"], "crawl_s": crawl, "recrawl_s": again,
                         "ratio": round(again / crawl, 2), "not_modified": rounds[0]["not_modified"],
                         "rounds": rounds})
    goal = rows[0]["ratio"] <= 0.5
    if args.json:
        json.dump({"pages": args.pages, "workers": args.workers, "rows": rows, "goal_met": goal}, sys.stdout)
        print()
        return 0
    print(f"archive fixture, {args.pages} reading lists, {args.workers} workers, "
          f"median of {args.rounds} rounds")
    print(f"{'server':<32}{'documents':>10}{'crawl (s)':>11}{'recrawl (s)':>13}{'ratio':>7}{'304s':>6}")
    for row in rows:
        print(f"{row['server']:<32}{row['documents']:>10}{row['crawl_s']:>11.2f}{row['recrawl_s']:>13.2f}"
              f"{row['ratio']:>7.2f}{row['not_modified']:>6}")
    print(f"{'holds' if goal else 'FAILS'} recrawl of an unchanged site ≤ 0.5 × the full crawl "
          f"(server answering conditional requests): {rows[0]['ratio']:.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
