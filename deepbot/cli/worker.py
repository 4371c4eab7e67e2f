"""``deepbot worker --store postgresql://…``: join a crawl from any machine.

``deepbot crawl --store postgresql://… --seed …`` publishes the crawl's configuration in the
database (the CrawlConfig, and the text of its domain, session and pattern files, which
other machines do not have) and then works as one of the crawl's workers. ``deepbot worker``
reads that configuration back, so it needs only the URL: it leases routes, runs them in its
own browser, pushes what it finds, and ends when the crawl has nothing left that is not
leased by another worker, or when it is stopped.

SIGTERM (or Ctrl-C) drains: no new lease is taken, the routes in flight are finished and
committed, and any lease still held goes back to the queue at once; a second signal stops
at once (what was in flight is leased again when its lease expires). A worker that dies
without a word (SIGKILL, a lost machine) gives its routes back when their leases expire.

robots.txt is fetched once per host for the whole crawl: the first worker to need it keeps
the answer in the database (``SharedRobots``), where the others read it.

Each worker reports itself every few seconds in the database's worker registry (host, pid,
routes done, last seen), which ``deepbot status`` shows.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import logging
import signal
import sys
import tempfile
import threading
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepbot.errors import ConfigError

if TYPE_CHECKING:
    from deepbot.config import CrawlConfig
    from deepbot.crawl.engine import Crawler
    from deepbot.crawl.robots import RobotsFetcher, RobotsResponse
    from deepbot.frontier.postgres import PostgresRouteStore

log = logging.getLogger(__name__)

CONFIG_STATE = "crawl:config"  # put_state name of the published configuration
_FILES = ("domains", "session", "pattern")  # CrawlConfig's fields naming files a worker needs the text of
HEARTBEAT_S = 5.0
# An idle tab asks the shared frontier again this often: the routes other processes push wake
# no tab here. Two short queries a time (a lease, and the count that tells the end).
IDLE_WAIT_S = 0.1


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "worker", help="join a crawl whose store is a PostgreSQL database, from any machine",
        description="Lease routes of the crawl stored at --store, run them in this machine's browser, "
        "and push what they find, until the crawl is done or this process is stopped (SIGTERM drains).")
    p.add_argument("--store", required=True, metavar="URL",
                   help="the crawl's database, postgresql://user@host/db (as `deepbot crawl --store` got it)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="pages fetched at once by this process (default: the crawl's own setting)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    p.add_argument("--json", action="store_true", help="print the end of the run as JSON on stdout")
    p.set_defaults(func=run)


# -- the configuration, through the database ---------------------------------------------


def publish(store: PostgresRouteStore, config: CrawlConfig) -> None:
    """Keep ``config`` in the database, with the text of the files it names."""
    files: dict[str, list[list[str]]] = {}
    for field in _FILES:
        value = getattr(config, field)
        paths = [] if value is None else [value] if isinstance(value, Path) else list(value)
        files[field] = [[path.name, path.read_text("utf-8")] for path in paths]
    data = config.model_dump(mode="json", exclude_unset=True, exclude={"store", *_FILES})
    store.put_state(CONFIG_STATE, json.dumps({"config": data, "files": files}))


def fetch(store: PostgresRouteStore, url: str, workdir: Path) -> CrawlConfig:
    """The configuration ``publish`` kept, its files written under ``workdir``."""
    from deepbot.config.load import validate_config

    stored = store.get_state(CONFIG_STATE)
    if stored is None:
        raise ConfigError(f"no crawl at {store.database.shown}: start one with "
                          "`deepbot crawl --store URL --seed …`, then workers join it")
    published = json.loads(stored)
    values: dict[str, Any] = dict(published["config"], store=url)
    for field, named in published["files"].items():
        paths = []
        for n, (name, text) in enumerate(named):
            path = workdir / f"{field}-{n}-{name}"
            path.write_text(text, "utf-8")
            paths.append(path)
        if paths:
            values[field] = tuple(paths) if field == "domains" else paths[0]
    return validate_config(values, source=f"the crawl at {store.database.shown}")


# -- one worker's run -------------------------------------------------------------------


class Heartbeat:
    """Reports the worker in the registry every ``HEARTBEAT_S`` seconds, from a thread (the
    crawl's event loop may be busy in a page for longer)."""

    def __init__(self, store: PostgresRouteStore) -> None:
        self.store = store
        self.state = "working"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="deepbot heartbeat", daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            self._report("working")

    def _report(self, state: str) -> None:
        try:
            self.store.report_worker(state)
        except Exception as exc:  # a registry row missed must not end the crawl
            log.warning("worker registry: %s", exc)

    def __enter__(self) -> Heartbeat:
        self._report("working")
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._report(self.state)


class SharedRobots:
    """A RobotsFetcher that asks the crawl's database first (crawl.robots' fetcher seam): an
    answer that says something for good (2xx, 3xx, 4xx) is kept there by the first worker
    that fetched it; a 5xx or no answer is left for each worker to try again."""

    def __init__(self, fetcher: RobotsFetcher, store: PostgresRouteStore) -> None:
        self.fetcher = fetcher
        self.store = store

    async def __call__(self, url: str) -> RobotsResponse:
        from deepbot.crawl.robots import RobotsResponse

        name = f"robots:{url}"
        kept = await asyncio.to_thread(self.store.get_state, name)
        if kept is not None:
            data = json.loads(kept)
            return RobotsResponse(data["status"], base64.b64decode(data["body"]), data["location"])
        response = await self.fetcher(url)
        if response.status < 500:
            data = {"status": response.status, "body": base64.b64encode(response.body).decode(),
                    "location": response.location}
            await asyncio.to_thread(self.store.put_state, name, json.dumps(data))
        return response


async def _drain(crawler: Crawler, crawling: asyncio.Task[None]) -> None:
    """Stop taking leases, let the routes in flight finish and commit, then stop reading."""
    await crawler.drain()
    crawling.cancel()  # run() waits on its queue for an end mark a stopped crawl never sends
    with suppress(asyncio.CancelledError):
        await crawling


async def work(config: CrawlConfig, *, progress: bool = True, as_json: bool = False) -> int:
    """Work on the shared crawl until it is done or a signal stops this process; report."""
    from deepbot.crawl.engine import Crawler
    from deepbot.crawl.runner import INTERRUPTED_EXIT, crawl_end, summary
    from deepbot.crawl.stats import Stop
    from deepbot.frontier.postgres import PostgresRouteStore

    words = sys.stderr if as_json else sys.stdout
    loop = asyncio.get_running_loop()
    signalled = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, signalled.set)
    try:
        async with Crawler(config, progress=progress) as crawler:
            store = crawler.frontier
            assert isinstance(store, PostgresRouteStore)
            crawler.robots.fetcher = SharedRobots(crawler.robots.fetcher, store)
            crawler.idle_wait_s = IDLE_WAIT_S
            crawler.crawl_pages = lambda: crawl_pages(store)
            with Heartbeat(store) as heartbeat:
                crawling = asyncio.create_task(_consume(crawler))
                stopping = asyncio.create_task(signalled.wait())
                await asyncio.wait({crawling, stopping}, return_when=asyncio.FIRST_COMPLETED)
                stopping.cancel()
                if not crawling.done():
                    print("stopping: finishing the routes in flight (signal again to stop at once)",
                          file=sys.stderr, flush=True)
                    for sig in (signal.SIGTERM, signal.SIGINT):
                        loop.add_signal_handler(sig, crawling.cancel)
                    await _drain(crawler, crawling)
                    crawler.stats.stop = Stop.INTERRUPTED
                    heartbeat.state = "stopped"
                else:
                    crawling.result()
                    heartbeat.state = "finished"
                store.reset_leases()  # anything still leased by this process: the others' now
            counts = store.counts()
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
    end = crawl_end(crawler.stats, counts, config, resumed=0)
    print(summary(crawler.stats, counts, store.database.shown, forms=crawler.forms.counts), file=words)
    print(end.stopped_line, file=words, flush=True)
    if as_json:
        print(end.model_dump_json(indent=2))
    return INTERRUPTED_EXIT if end.stopped is Stop.INTERRUPTED else 0


def crawl_pages(store: PostgresRouteStore) -> int:
    """Routes done or leased over the whole crawl, every worker's: what max_pages holds to (a
    worker's own count would let each of N workers take max_pages)."""
    from deepbot.frontier.base import RouteState

    counts = store.counts()
    return counts[RouteState.DONE] + counts[RouteState.LEASED]


async def _consume(crawler: Crawler) -> None:
    async for _document in crawler.run():
        pass


def crawl_shared(config: CrawlConfig, *, progress: bool = True, as_json: bool = False) -> int:
    """``deepbot crawl --store postgresql://…``: publish the configuration, then work."""
    from deepbot.frontier.postgres import PostgresRouteStore

    with PostgresRouteStore(str(config.store), recover=False) as store:
        publish(store, config)
    return asyncio.run(work(config, progress=progress, as_json=as_json))


def run(args: argparse.Namespace) -> int:
    from deepbot.frontier.postgres import PostgresRouteStore
    from deepbot.store.open import is_postgres_url

    if not is_postgres_url(args.store):
        print("deepbot worker: --store takes a postgresql:// URL (a SQLite file is one machine's)",
              file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S",
                        stream=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="deepbot-worker-") as workdir:
        with PostgresRouteStore(args.store, recover=False) as store:
            config = fetch(store, args.store, Path(workdir))
        if args.workers is not None:
            config = config.model_copy(update={"workers": args.workers})
        return asyncio.run(work(config, progress=not args.quiet, as_json=args.json))


def worker_rows(frontier: object) -> list[dict[str, Any]]:
    """The worker registry of a shared store, for `deepbot status` (a SQLite store has none)."""
    from deepbot.frontier.postgres import PostgresRouteStore

    if not isinstance(frontier, PostgresRouteStore):
        return []
    return [{"host": w.host, "pid": w.pid, "routes_done": w.routes_done, "last_seen": w.last_seen,
             "started": w.started, "state": w.state} for w in frontier.workers()]


def worker_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The registry in words: one line per worker, the most recently seen first."""
    import time

    now = time.time()
    lines = ["Workers:"] if rows else []
    for row in rows:
        ago = max(0.0, now - row["last_seen"])
        lines.append(f"  {row['host']} pid {row['pid']}: {row['routes_done']} routes done, "
                     f"last seen {ago:.0f} s ago ({row['state']})")
    return lines
