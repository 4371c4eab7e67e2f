"""Several worker processes on one PostgreSQL store crawl a fixture shop with its domain, in real
Chromium: together they store what one process stores alone, and a worker killed, a worker
stopped, or the database restarted, loses nothing and doubles nothing.

One single-process crawl (SQLite) is the reference for every scenario; the fixture server's
request log tells whether a page was fetched more often than in that crawl.
"""

from __future__ import annotations

import itertools
import os
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from deepbot.demo.server import Handler
from deepbot.frontier.postgres import PostgresRouteStore
from fixtures.server import FixtureServer, Request, Response
from postgres.database import Databases, admin_url

# One xdist worker for the module: the reference crawl is made once, not once per worker.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(600),
              pytest.mark.xdist_group("postgres-workers")]

SLICE = (r"/books/search/advanced$", r"/books/results", r"/books/item/")
ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Reference:
    documents: list[tuple[str, str]]  # (route_key, final_url)
    hits: Counter[str]  # requests per path, as the single process made them


def _crawl_flags(site: FixtureServer, config: Path) -> list[str]:
    flags = ["--seed", site.url("/books/search/advanced"), "--domain", str(ROOT / "domains/books.yaml"),
             "--depth", "2", "--quiet", "--config", str(config)]
    for pattern in SLICE:
        flags += ["--include", pattern]
    return flags


def _deepbot(*args: str) -> list[str]:
    return [sys.executable, "-m", "deepbot", *args]


def _start(cmd: list[str]) -> subprocess.Popen[str]:
    # Its own process group: a kill takes its Chromium down with it, as a lost machine would.
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=ROOT)


def _pages(site: FixtureServer) -> Counter[str]:
    return Counter(path for _, path in site.hits if path.startswith("/books/"))


def _documents(url: str) -> list[tuple[str, str]]:
    with psycopg.connect(url) as conn:
        return sorted(conn.execute("SELECT route_key, final_url FROM documents").fetchall())


def _published(url: str, deadline_s: float = 60) -> None:
    """Wait until `deepbot crawl` has put the crawl's configuration in the database."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            with PostgresRouteStore(url, recover=False, reconnect_s=1) as store:
                if store.get_state("crawl:config") is not None:
                    return
        except Exception:  # the schema may not be there yet
            pass
        time.sleep(0.3)
    raise AssertionError("the crawl's configuration was never published")


def _finish(processes: list[subprocess.Popen[str]], timeout: float = 300) -> list[tuple[int, str]]:
    done = []
    for process in processes:
        out, err = process.communicate(timeout=timeout)
        done.append((process.returncode, out + err))
    return done


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("workers") / "crawl.yaml"
    # Short leases: a killed worker's routes come back soon. A delay between visits to the host
    # (taken in turns by every worker) makes the crawl last about 20 s however fast the machine,
    # so a worker can be killed, stopped or cut off from the database while it is under way.
    path.write_text("lease_ttl: 8\nworkers: 1\nmin_delay: 0.5\n")
    return path


class TimedServer(FixtureServer):
    """The fixture web, with when each request arrived; and, while ``hold`` is set, each page
    of a site answered that many seconds late, its start and end logged in ``spans``."""

    def __init__(self) -> None:
        super().__init__()
        self.arrivals: list[tuple[float, str]] = []
        self.hold = 0.0
        self.spans: list[tuple[float, float, str]] = []
        resolve = self.app.resolve

        def timed(method: str, path: str) -> tuple[Handler, dict[str, str]] | None:
            found = resolve(method, path)
            if found is None or not self.hold or path == "/robots.txt":
                return found
            handler, params = found

            def held(request: Request) -> Response:
                began = time.monotonic()
                time.sleep(self.hold)  # long enough for visits let through together to overlap
                answer = handler(request)
                self.spans.append((began, time.monotonic(), path))
                return answer

            return held, params

        self.app.resolve = timed  # type: ignore[method-assign]

    def record(self, request: Request) -> None:
        super().record(request)
        self.arrivals.append((time.monotonic(), request.path))

    def most_at_once(self) -> int:
        """The most page requests the server was answering at one time."""
        edges = sorted([(start, 1) for start, _, _ in self.spans] + [(end, -1) for _, end, _ in self.spans])
        running = most = 0
        for _, step in edges:  # at a tie an end sorts first: touching spans do not overlap
            running += step
            most = max(most, running)
        return most


@pytest.fixture(scope="module")
def site() -> Iterator[TimedServer]:
    with TimedServer() as server:
        yield server


@pytest.fixture(scope="module")
def reference(site: FixtureServer, config: Path, tmp_path_factory: pytest.TempPathFactory) -> Reference:
    admin_url()  # skipped (failed in CI) before a crawl is spent, when there is no server
    store = tmp_path_factory.mktemp("reference") / "one.sqlite"
    site.hits.clear()
    subprocess.run(_deepbot("crawl", "--store", str(store), *_crawl_flags(site, config)), check=True,
                   timeout=300, capture_output=True, cwd=ROOT)
    import sqlite3

    with sqlite3.connect(store) as db:
        documents = sorted(db.execute("SELECT route_key, final_url FROM documents"))
    assert len(documents) >= 20  # the form, its result pages and the books they list
    return Reference(documents, _pages(site))


@pytest.fixture
def shared(databases: Databases) -> str:
    return databases.create()


def _start_crawl(site: FixtureServer, config: Path, url: str, workers: int) -> list[subprocess.Popen[str]]:
    """`deepbot crawl` on the database, then ``workers - 1`` `deepbot worker` processes."""
    started = [_start(_deepbot("crawl", "--store", url, *_crawl_flags(site, config)))]
    _published(url)
    started += [_start(_deepbot("worker", "--store", url, "--quiet")) for _ in range(workers - 1)]
    return started


def test_three_workers_store_what_one_process_stores(site: FixtureServer, config: Path,
                                                    reference: Reference, shared: str) -> None:
    site.hits.clear()
    ended = _finish(_start_crawl(site, config, shared, 3))
    assert [code for code, _ in ended] == [0, 0, 0], ended
    assert _documents(shared) == reference.documents
    assert _pages(site) == reference.hits  # no page fetched more often than by one process
    assert sum(1 for _, path in site.hits if path == "/robots.txt") == 1  # once for the crawl, kept
    with PostgresRouteStore(shared, recover=False) as store:
        workers = store.workers()
        assert len(workers) == 3 and all(w.state == "finished" for w in workers)
        assert sum(w.routes_done for w in workers) == len(reference.documents)  # each route done once
        assert sum(1 for w in workers if w.routes_done) >= 2  # and they shared the work


def test_a_worker_killed_twice_loses_nothing_and_doubles_nothing(site: FixtureServer, config: Path,
                                                                 reference: Reference, shared: str) -> None:
    processes = _start_crawl(site, config, shared, 3)
    kills = 0
    for _ in range(2):  # the first worker, then its replacement, each killed mid-crawl
        time.sleep(4)
        victim = processes[1]
        if victim.poll() is not None:
            break
        os.killpg(victim.pid, signal.SIGKILL)
        victim.communicate(timeout=30)  # its pipes closed too
        kills += 1
        processes[1] = _start(_deepbot("worker", "--store", shared, "--quiet"))
    assert kills >= 1, "the crawl ended before a worker could be killed"
    ended = _finish([processes[0], processes[2], processes[1]])
    assert [code for code, _ in ended] == [0, 0, 0], ended
    assert _documents(shared) == reference.documents  # nothing lost, nothing doubled
    with psycopg.connect(shared) as conn:
        states = dict(conn.execute("SELECT state, count(*) FROM route_states GROUP BY state").fetchall())
    assert states == {2: len(reference.documents)}  # every route done, none failed or left leased


def test_sigterm_finishes_what_is_in_flight_and_gives_the_rest_back(
        site: FixtureServer, config: Path, reference: Reference, shared: str) -> None:
    processes = _start_crawl(site, config, shared, 2)
    stopped = processes[1]
    with PostgresRouteStore(shared, recover=False) as store:
        end = time.monotonic() + 120
        while not any(w.pid == stopped.pid for w in store.workers()) and time.monotonic() < end:
            time.sleep(0.2)  # registered: its browser is up and its signal handlers in place
    time.sleep(2)  # into its first routes
    assert stopped.poll() is None, "the worker ended before it could be stopped"
    began = time.monotonic()
    stopped.send_signal(signal.SIGTERM)
    code, output = _finish([stopped], timeout=120)[0]
    assert code == 130 and "finishing the routes in flight" in output, output
    assert time.monotonic() - began < 60
    with PostgresRouteStore(shared, recover=False) as store:
        mine = [w for w in store.workers() if w.pid == stopped.pid]
        assert [w.state for w in mine] == ["stopped"]
    with psycopg.connect(shared) as conn:
        held = conn.execute("SELECT count(*) FROM routes WHERE state = 1 AND lease_process LIKE %s",
                            (f"%:{stopped.pid}:%",)).fetchone()
    assert held == (0,)  # nothing of it waits for a lease to expire
    [(code, output)] = _finish(processes[:1])
    assert code == 0, output
    assert _documents(shared) == reference.documents


@pytest.mark.skipif(not os.environ.get("DEEPBOT_TEST_POSTGRES_DATA"),
                    reason="restarting the server needs the cluster scripts/postgres.sh started "
                    "(DEEPBOT_TEST_POSTGRES_DATA)")
def test_a_database_restart_mid_crawl_loses_nothing(site: FixtureServer, config: Path,
                                                    reference: Reference, shared: str) -> None:
    data = os.environ["DEEPBOT_TEST_POSTGRES_DATA"]
    processes = _start_crawl(site, config, shared, 2)
    time.sleep(5)
    assert all(p.poll() is None for p in processes), "the crawl ended before the restart"
    ctl = next(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    as_owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    subprocess.run([*as_owner, str(ctl), "-D", data, "-m", "fast", "-w", "stop"], check=True, timeout=60,
                   capture_output=True)
    time.sleep(3)  # the workers meet a database that is not there
    subprocess.run([*as_owner, str(ctl), "-D", data, "-l", str(Path(data).parent / "server.log"), "-w",
                    "start"], check=True, timeout=60, capture_output=True)
    ended = _finish(processes)
    assert [code for code, _ in ended] == [0, 0], ended
    assert _documents(shared) == reference.documents


def test_the_per_host_delay_holds_across_workers(site: TimedServer, reference: Reference, shared: str,
                                                 tmp_path: Path) -> None:
    """Two processes, one host, min_delay 1 s: visits start a second apart whichever process
    makes them (the turn is taken in the database), as the server saw them arrive."""
    polite = tmp_path / "polite.yaml"
    polite.write_text("lease_ttl: 8\nworkers: 2\nmin_delay: 1.0\nmax_pages: 14\n")
    site.arrivals.clear()
    ended = _finish(_start_crawl(site, polite, shared, 2))
    assert [code for code, _ in ended] == [0, 0], ended
    with PostgresRouteStore(shared, recover=False) as store:
        assert sum(1 for w in store.workers() if w.routes_done) == 2  # both fetched pages
    # A book's page is one request per visit (a form's visit is two: the form, then its results).
    books = sorted(when for when, path in site.arrivals if path.startswith("/books/item/"))
    assert len(books) >= 3
    gaps = [b - a for a, b in itertools.pairwise(books)]
    # A visit starts 1 s after the last one of either process; its request reaches the server
    # some tenths later, more or less (a loaded machine's jitter). Two processes spacing their
    # own visits only would meet the server about every half second, at times together.
    assert min(gaps) >= 0.3, gaps
    assert statistics.median(gaps) >= 0.9, gaps


def test_max_pages_holds_for_the_whole_crawl(site: FixtureServer, shared: str, tmp_path: Path) -> None:
    """max_pages is the crawl's, not each worker's: two processes of two tabs each stop at the
    routes done over the whole crawl, passing it by no more than the visits already in flight."""
    limited = tmp_path / "limited.yaml"
    limited.write_text("lease_ttl: 30\nworkers: 2\nmax_pages: 6\n")
    ended = _finish(_start_crawl(site, limited, shared, 2))
    assert [code for code, _ in ended] == [0, 0], ended
    with psycopg.connect(shared) as conn:
        done = conn.execute("SELECT count(*) FROM route_states WHERE state = 2").fetchone()
        left = conn.execute("SELECT count(*) FROM route_states WHERE state = 0").fetchone()
    assert done is not None and left is not None
    # Each of the 4 tabs checks the budget before it leases: at worst all 4 pass it at once
    # with 5 routes done or in flight (each worker alone would have taken 6).
    assert 6 <= done[0] <= 6 + 3, done
    assert left[0] > 0  # the crawl had more to do: the budget stopped it


@pytest.mark.parametrize("limit", [1, 2])
def test_per_host_concurrency_holds_across_workers(site: TimedServer, shared: str, tmp_path: Path,
                                                   limit: int) -> None:
    """Two processes of two tabs each, one host, per_host_concurrency 1 then 2: the server never
    answers more pages at once than the limit (each process alone would let the limit through),
    as its log of each page's start and end shows; robots.txt is fetched once for the crawl."""
    polite = tmp_path / "polite.yaml"
    polite.write_text(f"lease_ttl: 30\nworkers: 2\nmin_delay: 0\nper_host_concurrency: {limit}\n"
                      "max_pages: 16\n")
    site.spans.clear()
    site.hits.clear()
    site.hold = 0.4
    try:
        ended = _finish(_start_crawl(site, polite, shared, 2))
    finally:
        site.hold = 0.0
    assert [code for code, _ in ended] == [0, 0], ended
    with PostgresRouteStore(shared, recover=False) as store:
        assert sum(1 for w in store.workers() if w.routes_done) == 2  # both fetched pages
    assert len(site.spans) >= 12
    # Four tabs with pages waiting: without the shared slots each process lets `limit` pages
    # through, twice the limit together; with them the limit is reached, never passed.
    assert site.most_at_once() == limit, sorted(site.spans)
    assert sum(1 for _, path in site.hits if path == "/robots.txt") == 1
    with psycopg.connect(shared) as conn:  # every slot given back at the end
        assert conn.execute("SELECT count(*) FROM host_slots WHERE holder IS NOT NULL").fetchone() == (0,)
