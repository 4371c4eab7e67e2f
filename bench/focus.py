"""Focused crawling's measure, the harvest rate: ``python bench/focus.py [--site portal|campus]``.

Portal (the default): crawls the fixture portal (``fixtures/sites/portal.py``: 83 pages,
11 of them on gardening, three links deep) from its front page with a page budget, once
breadth-first (no topic), once best-first (``--topic``) and once with the HMM crawler
(``--topic`` and ``--learn-from``, trained on an earlier whole breadth-first crawl of the
portal), for each budget, and counts the gardening pages each reached. The harvest
rate (relevant pages ÷ pages fetched) is the measure of Batsakis et al.; "relevant" here is the portal's own
labelling (the gardening section), not DeepBot's similarity, so the benchmark does not
grade itself.

Campus (``--site campus``, ``fixtures/sites/campus.py``): two universities built from the
same templates, where the pages on information retrieval (a few computer scientists'
publications) lie behind pages and anchors without a word of it (department → People →
a name → Publications). The HMM crawler is trained on a whole breadth-first crawl of
the north university; the three crawlers then crawl the south one, which the training
never saw, and the south's own labelling counts. ``--json`` prints the rows.
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
from fixtures.sites import campus, portal

TOPIC = "garden tools: pruning, secateurs, spades and compost"
BUDGETS = {"portal": "15,25,40", "campus": "60,90,120"}


async def crawl(site: FixtureServer, store: Path, budget: int | None, topic: str | None,
                learn_from: Path | None = None, *, seed: str = "/portal/",
                on_topic: frozenset[str] = portal.ON_TOPIC, depth: int = 5) -> dict[str, object]:
    config = CrawlConfig(seeds=(site.url(seed),), store=store, workers=2, depth=depth, max_pages=budget,
                         topic=topic, learn_from=learn_from, settle_timeout=2.0)
    async with Crawler(config) as crawler:
        paths = {doc.final_url.removeprefix(site.base_url) async for doc in crawler.run()}
        fetched = crawler.stats.fetched
    relevant = len(paths & on_topic)
    name = "HMM" if learn_from else "best-first" if topic else "breadth-first"
    return {"crawler": name, "budget": budget, "fetched": fetched,
            "relevant": relevant, "harvest_rate": round(relevant / fetched, 4) if fetched else 0.0}


async def run(budgets: list[int], where: str = "portal") -> list[dict[str, object]]:
    # Portal: trained on the site it crawls. Campus: trained on the north university, tried on the south,
    # with no depth limit to speak of (a focused crawl reaches pages by longer ways than the shortest).
    topic, train_on, test_on, depth = (TOPIC, "/portal/", "/portal/", 5) if where == "portal" else \
        (campus.TOPIC, campus.home("north"), campus.home("south"), 10)
    on_topic = portal.ON_TOPIC if where == "portal" else campus.ON_TOPIC["south"]
    rows = []
    with FixtureServer() as site, tempfile.TemporaryDirectory() as tmp:
        # The HMM crawler's training set: an earlier, whole breadth-first crawl.
        training = Path(tmp) / "training.sqlite"
        await crawl(site, training, None, None, seed=train_on, depth=depth)
        for budget in budgets:
            for focus, learn_from in ((None, None), (topic, None), (topic, training)):
                store = Path(tmp) / f"{budget}-{bool(focus)}-{bool(learn_from)}.sqlite"
                rows.append(await crawl(site, store, budget, focus, learn_from, seed=test_on,
                                        on_topic=on_topic, depth=depth))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", choices=("portal", "campus"), default="portal",
                        help="the fixture site (default portal)")
    parser.add_argument("--budgets", help="pages per crawl (default 15,25,40; campus: 60,90,120)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = asyncio.run(run([int(b) for b in (args.budgets or BUDGETS[args.site]).split(",")], args.site))
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    if args.site == "portal":
        print(f"Topic: {TOPIC!r}; {len(portal.ON_TOPIC)} relevant pages of {len(portal.PAGES)}\n")
    else:
        north, south = ([p for p in campus.PAGES if p.startswith(campus.home(k))] for k in ("north", "south"))
        print(f"Topic: {campus.TOPIC!r}; trained on the north university ({len(campus.ON_TOPIC['north'])} "
              f"relevant pages of {len(north)}), crawling the south one: "
              f"{len(campus.ON_TOPIC['south'])} relevant pages of {len(south)}\n")
    print("| crawler | budget | fetched | relevant | harvest rate |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['crawler']} | {row['budget']} | {row['fetched']} | {row['relevant']} |"
              f" {float(row['harvest_rate']):.0%} |")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
