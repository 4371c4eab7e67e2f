"""Workers benchmark: one crawl on a PostgreSQL store, by 1, 2 and 4 worker processes.

    python bench/workers.py [--workers 1,2,4] [--pages 200] [--tabs 2] [--per-host N] [--latency 0.5-1.5]
                            [--url URL]

The bench site (bench/site.py) is served on 127.0.0.1 with each page answered after its
``--latency`` (a range: each page's wait fixed), so that the server, not this machine's cores,
sets the pace. For each worker count, on a new database of the server at ``--url`` (default
$DEEPBOT_TEST_POSTGRES): ``deepbot crawl --store URL`` and ``N - 1`` ``deepbot worker``
processes, each with ``--tabs`` pages at once, crawl the whole site, at most ``--per-host``
pages at once over all of them (the crawl's ``per_host_concurrency``; default: its default).
Measured from outside: wall time to the last process's exit, pages as the server counted them, and what the
database did meanwhile (``pg_stat_database``: transactions committed, and time spent
executing statements), per page, so that a reader can judge how far it scales on real
machines. Scaling is pages/s over N times the one-worker pages/s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from common import REPO, load_bench_module

site_module = load_bench_module("site")


@dataclass
class Result:
    workers: int
    tabs: int
    pages: int  # HTML GETs the server counted
    wall_s: float
    pages_per_s: float
    scaling: float  # pages_per_s / (workers × the one-worker pages_per_s)
    transactions_per_page: float
    db_ms_per_page: float  # statement execution time in the database, per page
    cpu_s_per_page: float  # CPU of the crawl's processes, browsers included, per page
    start_s: float  # from the launch to the first page the server was asked for
    between_pages_per_s: float  # pages/s from the first page asked to the last: the pace once started
    load: float  # the machine's 1-minute load average at the end of the run


def _db_stats(url: str) -> tuple[int, float]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT xact_commit + xact_rollback, active_time FROM pg_stat_database"
                           " WHERE datname = current_database()").fetchone()
    assert row is not None
    return int(row[0]), float(row[1] or 0.0)


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)  # every descendant waited for: browsers too
    return used.ru_utime + used.ru_stime


def run(workers: int, tabs: int, server: Any, admin: str,
        per_host: int | None = None) -> tuple[Any, float, int, float, float]:
    import psycopg

    name = f"deepbot_workers_{workers}_{int(time.time())}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}".encode())
    url = admin.rsplit("/", 1)[0] + "/" + name
    try:
        server.reset()
        command = [sys.executable, "-m", "deepbot"]
        crawl = [*command, "crawl", "--store", url, "--seed", server.url, "--depth", "6",
                 "--workers", str(tabs), "--quiet"]
        if per_host is not None:  # published with the crawl's configuration: the workers take it too
            crawl += ["--per-host-concurrency", str(per_host)]
        began, launched, cpu = time.perf_counter(), time.monotonic(), _children_cpu()
        processes = [subprocess.Popen(crawl, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)]
        _wait_published(url)
        stats_before = _db_stats(url)
        join = [*command, "worker", "--store", url, "--workers", str(tabs), "--quiet"]
        processes += [subprocess.Popen(join, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                      for _ in range(workers - 1)]
        for process in processes:
            _, err = process.communicate(timeout=3600)
            if process.returncode != 0:
                raise SystemExit(f"a worker failed ({process.returncode}): {err.decode()[-2000:]}")
        wall = time.perf_counter() - began
        transactions, active_ms = _db_stats(url)
        counts = server.counts()
        assert counts.first_page_at is not None and counts.last_page_at is not None, "no page was asked for"
        counts.first_page_at -= launched  # seconds after the launch
        counts.last_page_at -= launched
        used = _children_cpu() - cpu
        return counts, wall, transactions - stats_before[0], active_ms - stats_before[1], used
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)".encode())


def _wait_published(url: str) -> None:
    import psycopg

    for _ in range(600):
        try:
            with psycopg.connect(url) as conn:
                if conn.execute("SELECT 1 FROM frontier_meta WHERE name = 'state:crawl:config'").fetchone():
                    return
        except psycopg.Error:
            pass
        time.sleep(0.1)
    raise SystemExit("the crawl never published its configuration")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", default="1,2,4", help="comma-separated worker process counts")
    parser.add_argument("--pages", type=int, default=200, help="pages in the site")
    parser.add_argument("--tabs", type=int, default=2, help="pages each worker fetches at once")
    parser.add_argument("--per-host", type=int, default=None,
                        help="pages fetched at once from the site over all workers (default: the crawl's)")
    parser.add_argument("--latency", type=site_module.latency_arg, default=site_module.latency_arg("0.5-1.5"))
    parser.add_argument("--url", default=os.environ.get("DEEPBOT_TEST_POSTGRES"),
                        help="PostgreSQL server (default: $DEEPBOT_TEST_POSTGRES)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.url:
        raise SystemExit("give --url or set DEEPBOT_TEST_POSTGRES (scripts/postgres.sh starts a server)")
    site = site_module.build_site(args.pages)
    results: list[Result] = []
    with site_module.SiteServer(site, latency=args.latency) as server:
        for n in (int(w) for w in args.workers.split(",")):
            counts, wall, transactions, active_ms, cpu = run(n, args.tabs, server, args.url, args.per_host)
            pages = counts.page_gets
            rate = pages / wall
            one = results[0].pages_per_s / results[0].workers if results else rate / n
            results.append(Result(n, args.tabs, pages, wall, rate, rate / (n * one),
                                  transactions / max(1, pages), active_ms / max(1, pages),
                                  cpu / max(1, pages), counts.first_page_at,
                                  (pages - 1) / max(1e-9, counts.last_page_at - counts.first_page_at),
                                  os.getloadavg()[0]))
            print(f"  {n} workers: {pages} pages in {wall:.1f} s", file=sys.stderr)
    if args.json:
        print(json.dumps([asdict(r) for r in results], indent=2))
        return
    print(f"{args.pages}-page site, pages answered after {args.latency} s;"
          f" {args.tabs} pages at once per worker, per_host_concurrency {args.per_host or 'default'}")
    header = (f"{'workers':>7} {'pages':>6} {'wall s':>7} {'pages/s':>8} {'scaling':>8} {'tx/page':>8}"
              f" {'db ms/page':>11} {'CPU s/page':>11} {'start s':>8} {'pages/s between':>16} {'load':>5}")
    print(header)
    print("-" * len(header))
    for r in results:
        print(f"{r.workers:>7} {r.pages:>6} {r.wall_s:>7.1f} {r.pages_per_s:>8.2f} {r.scaling:>8.2f}"
              f" {r.transactions_per_page:>8.1f} {r.db_ms_per_page:>11.2f} {r.cpu_s_per_page:>11.2f}"
              f" {r.start_s:>8.1f} {r.between_pages_per_s:>16.2f} {r.load:>5.1f}")


if __name__ == "__main__":
    main()
