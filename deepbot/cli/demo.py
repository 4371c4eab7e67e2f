"""``deepbot demo``: crawl the bundled bookshop through its search forms, then explain."""

from __future__ import annotations

import argparse
import asyncio
import logging
import shlex
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from deepbot.config import CrawlConfig
from deepbot.domain import load_domain
from deepbot.errors import ConfigError
from deepbot.routes import Document, Via

DEMO_PORT = 8765


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "demo", help="crawl the bundled demo bookshop with domains/books.yaml and show what was found")
    p.add_argument("--store", type=Path, default=Path("deepbot-demo.sqlite"))
    p.add_argument("--port", type=int, default=DEMO_PORT, help="port of the demo site on 127.0.0.1")
    p.add_argument("--shop", choices=("books", "music"), default="books")
    p.add_argument("--workers", type=int, default=4)
    p.set_defaults(func=run)


def _domain_file(shop: str) -> Path:
    # The demo runs from a checkout (scripts/demo.sh installs it editable): domains/ sits beside it.
    bundled = Path(__file__).resolve().parents[2] / "domains" / f"{shop}.yaml"
    if not bundled.is_file():
        raise ConfigError(f"{bundled} not found: run the demo from a DeepBot checkout")
    return bundled


def run(args: argparse.Namespace) -> int:
    from fixtures.server import FixtureServer

    for suffix in ("", "-wal", "-shm"):  # a demo starts from scratch
        Path(f"{args.store}{suffix}").unlink(missing_ok=True)
    logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stderr)
    with FixtureServer(port=args.port) as site:
        seed = site.url(f"/{args.shop}/")
        domain = _domain_file(args.shop)
        shown = domain.relative_to(Path.cwd()) if domain.is_relative_to(Path.cwd()) else domain
        print(f"Demo site: {seed}   domain: {shown}")
        config = CrawlConfig(seeds=(seed,), domains=(domain,), store=args.store, workers=args.workers,
                             depth=3, settle_timeout=2.0)
        return asyncio.run(_crawl(config, site.port))


def _search_term(domain_file: Path) -> str:
    """A word the domain's own queries put into the store: the first non-empty value."""
    values = (v.strip() for query in load_domain(domain_file).queries for v in query.values())
    return next((v for v in values if v), "search")


async def _crawl(config: CrawlConfig, port: int) -> int:
    from deepbot.crawl.engine import Crawler
    from deepbot.crawl.runner import summary

    documents: list[Document] = []
    async with Crawler(config, progress=True) as crawler:
        async for doc in crawler.run():
            documents.append(doc)
        counts = crawler.frontier.counts()
        found = list(crawler.forms.found)
    print(summary(crawler.stats, counts, str(config.store)))
    print("\nRelevant forms (Σ confidence × specificity > µ):")
    for form in found:
        queried = (f"→ {form.queries} queries" if form.challenge is None
                   else f"not queried: behind {form.challenge}")
        print(f"  {form.url}  form #{form.form_index}  {form.domain} score {form.score:.2f}  {queried}")
    via = Counter(d.via for d in documents)
    results = [d for d in documents if d.via in (Via.FORM, Via.NEXT)]
    beyond = [d for d in documents if d.domain and d.via is Via.LINK]
    submitted = [d for d in documents if d.via is Via.FORM]
    queries = {str(sorted((d.query or {}).items())) for d in submitted}
    print(f"\nQueries run: {len(submitted)} submissions of {len(queries)} distinct queries "
          f"on {len(found)} forms")
    print(f"Result pages: {len(results)} (first pages and pagination)   "
          f"Pages reached from results (details): {len(beyond)}")
    print("Documents by how they were reached: " + ", ".join(f"{k} {v}" for k, v in sorted(via.items())))
    # The most telling example: a result page only a form submission reaches.
    example = max(submitted, key=lambda d: len(d.nseql), default=None)
    store = config.store
    print("\nNext:")
    print(f"  deepbot search {shlex.quote(_search_term(config.domains[0]))} --store {store}")
    print(f"  deepbot export --store {store} --output demo.jsonl")
    if example is not None:
        print(f"  deepbot replay {example.id} --store {store}   # results of {example.query} "
              f"on {example.form_url}")
        serve = "deepbot fixtures serve" + ("" if port == DEMO_PORT else f" --port {port}")
        print(f"  (replaying needs the demo site: `{serve}` in another terminal)")
        print("\nIts navigation sequence (NSEQL):")
        print("".join(f"  {line}\n" for line in example.nseql.splitlines()), end="")
    return 0
