"""Structure-driven crawling's measures (INDESIT §4.2): ``python bench/structure.py``.

Crawls the fixture tournament site (``fixtures/sites/worldcup.py``: 110 pages from six
templates, 48 of them player pages) from one player page with page budgets, once
breadth-first (``--seed``, every page stored) and once driven by that page's structure
(``--like``), and reports the player pages each downloaded (and after how many pages the last of them
came), and for the structure crawl
the precision and recall of what it stored (the paper's measures; the truth is the site's
own URLs, not DeepBot's similarity). ``--json`` prints the rows.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # fixtures/ is the checkout's, not installed
from fixtures.server import FixtureServer
from fixtures.sites import worldcup

SAMPLE = "/cup/player/bra-1"


async def crawl(store: Path, budget: int | None, like: bool) -> dict[str, object]:
    with FixtureServer() as site:
        start = {"like": site.url(SAMPLE)} if like else {"seeds": (site.url(SAMPLE),)}
        config = CrawlConfig.model_validate({**start, "store": store, "workers": 2, "depth": 8,
                                             "max_pages": budget, "settle_timeout": 2.0})
        async with Crawler(config) as crawler:
            stored = {doc.final_url.removeprefix(site.base_url) async for doc in crawler.run()}
            fetched = crawler.stats.fetched
        pages = list(dict.fromkeys(path.split("?")[0] for _, path in site.hits if path.startswith("/cup/")))
        players = set(pages) & worldcup.PLAYERS
        # Downloads until the last player page came (all of them, when every one did).
        last = max((n for n, path in enumerate(pages, 1) if path in worldcup.PLAYERS), default=0)
    row: dict[str, object] = {"crawler": "structure" if like else "breadth-first", "budget": budget or "none",
                              "fetched": fetched, "players_fetched": len(players),
                              "pages_to_last_player": last}
    if like:
        hits = len(stored & worldcup.PLAYERS)
        row |= {"stored": len(stored), "precision": round(hits / len(stored), 4) if stored else 0.0,
                "recall": round(hits / len(worldcup.PLAYERS), 4)}
    return row


async def run(budgets: list[int | None]) -> list[dict[str, object]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for budget in budgets:
            for like in (False, True):
                rows.append(await crawl(Path(tmp) / f"{budget}-{like}.sqlite", budget, like))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budgets", default="30,60,none", help="pages per crawl; none: the whole site")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    budgets = [None if b == "none" else int(b) for b in args.budgets.split(",")]
    rows = asyncio.run(run(budgets))
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"Sample {SAMPLE}; {len(worldcup.PLAYERS)} player pages in the site\n")
    print("| crawler | budget | pages fetched | player pages fetched | pages until the last of them |"
          " stored | precision | recall |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['crawler']} | {row['budget']} | {row['fetched']} | {row['players_fetched']} |"
              f" {row['pages_to_last_player']} |"
              f" {row.get('stored', '—')} | {row.get('precision', '—')} | {row.get('recall', '—')} |")


if __name__ == "__main__":
    main()
