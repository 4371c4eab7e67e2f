"""Focused crawling's measure, the harvest rate: ``python bench/focus.py``.

Crawls the fixture portal (``fixtures/sites/portal.py``: 83 pages, 11 of them on
gardening, three links deep) from its front page with a page budget, once
breadth-first (no topic), once best-first (``--topic``) and once with the HMM crawler
(``--topic`` and ``--learn-from``, trained on an earlier whole breadth-first crawl of the
portal), for each budget, and counts the gardening pages each reached. The harvest
rate (relevant pages ÷ pages fetched) is the measure of Batsakis et al.; "relevant" here is the portal's own
labelling (the gardening section), not DeepBot's similarity, so the benchmark does not
grade itself. ``--json`` prints the rows.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from fixtures.server import FixtureServer
from fixtures.sites import portal

TOPIC = "garden tools: pruning, secateurs, spades and compost"


async def crawl(site: FixtureServer, store: Path, budget: int | None, topic: str | None,
                learn_from: Path | None = None) -> dict[str, object]:
    config = CrawlConfig(seeds=(site.url("/portal/"),), store=store, workers=2, depth=5, max_pages=budget,
                         topic=topic, learn_from=learn_from, settle_timeout=2.0)
    async with Crawler(config) as crawler:
        paths = {doc.final_url.removeprefix(site.base_url) async for doc in crawler.run()}
        fetched = crawler.stats.fetched
    relevant = len(paths & portal.ON_TOPIC)
    name = "HMM" if learn_from else "best-first" if topic else "breadth-first"
    return {"crawler": name, "budget": budget, "fetched": fetched,
            "relevant": relevant, "harvest_rate": round(relevant / fetched, 4) if fetched else 0.0}


async def run(budgets: list[int]) -> list[dict[str, object]]:
    rows = []
    with FixtureServer() as site, tempfile.TemporaryDirectory() as tmp:
        # The HMM crawler's training set: an earlier, whole breadth-first crawl of the portal.
        training = Path(tmp) / "training.sqlite"
        await crawl(site, training, None, None)
        for budget in budgets:
            for topic, learn_from in ((None, None), (TOPIC, None), (TOPIC, training)):
                store = Path(tmp) / f"{budget}-{bool(topic)}-{bool(learn_from)}.sqlite"
                rows.append(await crawl(site, store, budget, topic, learn_from))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budgets", default="15,25,40", help="pages per crawl (default 15,25,40)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = asyncio.run(run([int(b) for b in args.budgets.split(",")]))
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"Topic: {TOPIC!r}; {len(portal.ON_TOPIC)} relevant pages of {len(portal.PAGES)}\n")
    print("| crawler | budget | fetched | relevant | harvest rate |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['crawler']} | {row['budget']} | {row['fetched']} | {row['relevant']} |"
              f" {float(row['harvest_rate']):.0%} |")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
