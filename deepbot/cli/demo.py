"""``deepbot demo``: crawl the bundled bookshop through its search forms, then explain.

``deepbot demo --serve`` only serves the demo site, for replaying what a demo crawl stored.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shlex
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from deepbot.config import CrawlConfig
from deepbot.config.domain import load_domain
from deepbot.errors import ConfigError
from deepbot.routes import Document, Via

DEMO_PORT = 8765


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "demo", help="crawl the bundled demo bookshop with domains/books.yaml and show what was found")
    p.add_argument("--store", type=Path, default=Path("deepbot-demo.sqlite"))
    p.add_argument("--port", type=int, default=DEMO_PORT, help="port of the demo site on 127.0.0.1")
    p.add_argument("--shop", choices=("books", "music"), default="books")
    p.add_argument("--workers", type=int, default=4, help="browser contexts crawling at once (default: 4)")
    p.add_argument("--serve", action="store_true",
                   help="only serve the demo site until Ctrl-C (to replay what a demo crawl stored)")
    p.set_defaults(func=run)


def _shown(domain: Path) -> Path:
    """The domain file as a person in a checkout would type it (domains/books.yaml)."""
    typed = Path("domains") / domain.name
    if typed.is_file() and typed.samefile(domain):
        return typed
    return domain


def _server(port: int) -> Any:
    from deepbot.demo import demo_server

    try:
        return demo_server(port=port)
    except OSError as exc:  # the port is taken: say so before anything is deleted
        hint = "" if port == 0 else f"; pass --port N (0 picks a free port), or stop what serves {port}"
        reason = exc.strerror or str(exc)
        raise ConfigError(f"cannot serve the demo site on 127.0.0.1:{port}: {reason}{hint}") from None


def run(args: argparse.Namespace) -> int:
    from deepbot.demo import domain_file

    logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stderr)
    site = _server(args.port)
    with site:
        if args.serve:
            return _serve(site.base_url)
        for suffix in ("", "-wal", "-shm"):  # a demo starts from scratch, once its site is up
            Path(f"{args.store}{suffix}").unlink(missing_ok=True)
        seed = site.url(f"/{args.shop}/")
        domain = domain_file(args.shop)
        print(f"Demo site: {seed}   domain: {_shown(domain)}")
        config = CrawlConfig(seeds=(seed,), domains=(domain,), store=args.store, workers=args.workers,
                             depth=3, settle_timeout=2.0)
        return asyncio.run(_crawl(config, site.port))


def _serve(base_url: str) -> int:
    print(f"Demo site at {base_url}/  (Ctrl-C to stop)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0


def _search_term(domain_file: Path) -> str:
    """A word the domain's own queries put into the store: the first non-empty value."""
    values = (v.strip() for query in load_domain(domain_file).queries for v in query.values())
    return next((v for v in values if v), "search")


async def _crawl(config: CrawlConfig, port: int) -> int:
    from deepbot.crawl.engine import Crawler
    from deepbot.crawl.runner import crawl_end, summary

    documents: list[Document] = []
    async with Crawler(config, progress=True) as crawler:
        async for doc in crawler.run():
            documents.append(doc)
        counts = crawler.frontier.counts()
        found = list(crawler.forms.found)
    print(summary(crawler.stats, counts, str(config.store)))
    print(crawl_end(crawler.stats, counts, config, resumed=0).stopped_line)  # as every crawl says
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
        serve = "deepbot demo --serve" + ("" if port == DEMO_PORT else f" --port {port}")
        print(f"  (replaying needs the demo site: `{serve}` in another terminal)")
        print("\nIts navigation sequence (NSEQL):")
        print("".join(f"  {line}\n" for line in example.nseql.splitlines()), end="")
    return 0
