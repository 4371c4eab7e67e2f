"""Frontier benchmark: push and lease+ack rates on SQLite as the frontier grows.

    python bench/frontier.py [--sizes 10000,100000,1000000] [--json]

For each size N, on a fresh temporary file: push N routes in batches (as a page's
links arrive), push 10,000 already-seen routes again (dedupe at size N), then drain
the frontier the way the engine does: lease a batch, ack each route on its own.
Cost per operation is shown for the first and the last tenth of each phase, so a
cost that grows with the frontier shows up as a rising µs/op within one size as
well as across sizes. Route building is not timed; serialising it is. URLs carry a
hashed path segment, so keys land all over the key index as real links do.

Rates are wall-clock; the CPU columns (this process's CPU time per route, all
phases) are what to compare on a shared, busy machine.

    python bench/frontier.py --clients 1,4,16 [--backend sqlite|postgres] [--url URL]

With ``--clients``, for each size and client count: push the N routes, then drain them
with that many client processes at once, each leasing a batch and acking each route on
its own, as workers on several machines do; the rate is routes leased and acked per
second, all clients together. PostgreSQL runs on a new database of the server at
``--url`` (default: $DEEPBOT_TEST_POSTGRES) for each run, dropped after: a copy of one the
routes were pushed into once per size (so push/s is that one push's). ``--drain N`` leases
and acks only the first N routes of each size: the rate at that size, without the hour a
whole 10⁶-route drain takes. The 1-minute load average is shown beside each figure: the
machine may be shared. ``--cpu`` prints the CPU per route of the clients and of the PostgreSQL
server (its processes, read from /proc: a server on this machine); ``--profile DIR`` also runs
each client's drain under cProfile, CPU time, a file per client in DIR (the clients' CPU printed
then includes cProfile's own).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from deepbot.frontier import SqliteRouteStore
from deepbot.routes import Route, Via, route_key

PUSH_BATCH = 500  # links found on one page, roughly
LEASE_BATCH = 50
REPUSH = 10_000


def make_routes(start: int, count: int) -> list[Route]:
    """Realistic routes: ~80-character URLs, a few lines of NSEQL, a session digest."""
    routes = []
    for i in range(start, start + count):
        slug = hashlib.blake2b(i.to_bytes(8, "little"), digest_size=6).hexdigest()
        parent = f"https://shop.example.com/catalogue/category-{i // 997 % 50:02d}/listing?page={i // 40}"
        url = f"https://shop.example.com/books/{slug}/item-{i:09d}/details?ref=list&sort=title"
        routes.append(
            Route(
                key=route_key(Via.LINK, url),
                url=url,
                via=Via.LINK,
                depth=1 + i % 4,
                seed="https://shop.example.com/",
                steps=f'navigate "{parent}"\nclick css=a[href="/books/{slug}/item-{i:09d}/details"]\n',
                program=(
                    'navigate "https://shop.example.com/"\nclick text="Catalogue"\n'
                    f'navigate "{parent}"\nclick css=a[href="/books/{slug}/item-{i:09d}/details"]\n'
                ),
                session="5f0c3a9e4d2b7c1a8e6f3d0b9a7c5e21",
                parent=route_key(Via.LINK, parent),
                priority=float(-(1 + i % 4)),  # breadth-first: shallower first
            )
        )
    return routes


def batches(n: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n, size):
        yield start, min(size, n - start)


class Phase:
    """Wall and CPU time of one kind of operation, sample by sample."""

    def __init__(self) -> None:
        self.samples: list[tuple[int, float]] = []  # (operations, wall seconds)
        self.cpu = 0.0

    @contextmanager
    def timing(self, ops: list[int]) -> Iterator[None]:
        """Time the block; ``ops[0]``, set inside it, is how many operations it did."""
        wall, cpu = time.perf_counter(), time.process_time()
        yield
        self.cpu += time.process_time() - cpu
        self.samples.append((ops[0], time.perf_counter() - wall))

    @property
    def ops(self) -> int:
        return sum(k for k, _ in self.samples)

    @property
    def wall(self) -> float:
        return sum(t for _, t in self.samples)

    def tenths(self) -> tuple[float, float]:
        """Wall µs per op over the first and the last tenth of the samples."""
        def cost(part: list[tuple[int, float]]) -> float:
            return 1e6 * sum(t for _, t in part) / max(1, sum(k for k, _ in part))

        tenth = max(1, len(self.samples) // 10)
        return cost(self.samples[:tenth]), cost(self.samples[-tenth:])


@dataclass
class Result:
    routes: int
    push_per_s: float
    push_us_first: float  # wall µs per route, first tenth of the pushes
    push_us_last: float  # ... and last tenth
    repush_per_s: float  # already-seen routes, at full size
    lease_per_s: float
    lease_us_first: float
    lease_us_last: float
    ack_per_s: float
    push_lease_ops_per_s: float  # (pushes + leases) / (push time + lease time)
    cpu_us_push: float  # CPU µs per route pushed
    cpu_us_lease: float
    cpu_us_ack: float
    push_lease_ops_per_cpu_s: float  # (pushes + leases) / their CPU time
    file_mb: float
    mb_per_million: float


def run(n: int, directory: Path) -> Result:
    path = directory / f"frontier-{n}.db"
    push, repush, lease, ack = Phase(), Phase(), Phase(), Phase()
    store = SqliteRouteStore(path)
    for start, count in batches(n, PUSH_BATCH):
        routes = make_routes(start, count)
        with push.timing([count]):
            assert store.push(routes) == count
    store.close()
    size = sum(p.stat().st_size for p in directory.glob(path.name + "*"))  # with -wal

    store = SqliteRouteStore(path)
    seen = make_routes(n - min(n, REPUSH), min(n, REPUSH))
    for start in range(0, len(seen), PUSH_BATCH):
        batch = seen[start : start + PUSH_BATCH]
        with repush.timing([len(batch)]):
            assert store.push(batch) == 0

    while True:
        got = [0]
        with lease.timing(got):
            leases = store.lease(LEASE_BATCH, "bench", ttl_s=600)
            got[0] = len(leases)
        if not leases:
            lease.samples.pop()  # the empty lease that ends the drain
            break
        with ack.timing([len(leases)]):
            for granted in leases:
                store.ack_done(granted)
    assert store.pending() == 0 and lease.ops == ack.ops == n
    store.close()
    for p in directory.glob(path.name + "*"):
        p.unlink()

    push_first, push_last = push.tenths()
    lease_first, lease_last = lease.tenths()
    return Result(
        routes=n,
        push_per_s=n / push.wall,
        push_us_first=push_first,
        push_us_last=push_last,
        repush_per_s=repush.ops / repush.wall,
        lease_per_s=n / lease.wall,
        lease_us_first=lease_first,
        lease_us_last=lease_last,
        ack_per_s=n / ack.wall,
        push_lease_ops_per_s=2 * n / (push.wall + lease.wall),
        cpu_us_push=1e6 * push.cpu / n,
        cpu_us_lease=1e6 * lease.cpu / n,
        cpu_us_ack=1e6 * ack.cpu / n,
        push_lease_ops_per_cpu_s=2 * n / (push.cpu + lease.cpu),
        file_mb=size / 1e6,
        mb_per_million=size / n,
    )


@dataclass
class ClientsResult:
    backend: str
    routes: int
    clients: int
    push_per_s: float
    lease_ack_per_s: float  # routes leased and acked per second, every client together
    busiest_share: float  # the largest share of the routes one client got
    drained: int  # routes leased and acked (all of them, or --drain's first ones)
    load: float  # the machine's 1-minute load average at the end of the drain
    client_cpu_us: float  # CPU µs per route in the clients (their drain only)
    server_cpu_us: float | None  # CPU µs per route in the PostgreSQL server's processes (--cpu)


def _client(backend: str, where: str, lease_batch: int, quota: int, start: object, done: object,
            profile: str | None = None, measured: object = None) -> None:
    store = _open(backend, where)
    start.wait()  # type: ignore[attr-defined]
    profiler = None
    if profile:  # --profile: this client's drain under cProfile, one file per client process
        import cProfile

        profiler = cProfile.Profile(time.process_time)  # CPU, not wall: the machine is shared
        profiler.enable()
    cpu = time.process_time()
    count = 0
    while count < quota and (leases := store.lease(min(lease_batch, quota - count), "bench", ttl_s=600)):
        for granted in leases:
            store.ack_done(granted)
        count += len(leases)
    cpu = time.process_time() - cpu
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(str(Path(profile or ".") / f"client-{os.getpid()}.prof"))
    if measured is None:
        store.close()
        done.put((count, cpu))  # type: ignore[attr-defined]
        return
    done.put((count, cpu))  # type: ignore[attr-defined]
    measured.wait()  # type: ignore[attr-defined]  # its backends' CPU read before they exit
    store.close()


def _open(backend: str, where: str) -> Any:
    if backend == "postgres":
        from deepbot.frontier.postgres import PostgresRouteStore

        return PostgresRouteStore(where, recover=False)
    return SqliteRouteStore(where, recover=False)


@contextmanager
def _storage(backend: str, url: str | None, directory: Path, n: int, clients: int,
             template: str | None = None) -> Iterator[str]:
    """Where one run's store lives: a new SQLite file, or a new PostgreSQL database (a copy of
    ``template``, a database already holding the routes, when there is one)."""
    if backend == "sqlite":
        path = directory / f"clients-{n}-{clients}.db"
        yield str(path)
        for p in directory.glob(path.name + "*"):
            p.unlink()
        return
    import psycopg

    if not url:
        raise SystemExit("--backend postgres needs --url or $DEEPBOT_TEST_POSTGRES")
    name = f"deepbot_bench_{n}_{clients}_{int(time.time())}"
    copy = f" TEMPLATE {template}" if template else ""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}{copy}".encode())
    try:
        yield url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)".encode())


def _push_all(store: Any, n: int) -> float:
    """Push n routes in a page's batches; the rate."""
    began = time.perf_counter()
    for start, count in batches(n, PUSH_BATCH):
        assert store.push(make_routes(start, count)) == count
    return n / (time.perf_counter() - began)


def _server_cpu(url: str) -> float:
    """CPU seconds used so far by the PostgreSQL server at ``url``: its postmaster's children, alive
    now, from /proc (the server on this machine; a backend that exited meanwhile is not counted,
    and the clients' backends live as long as the clients)."""
    import psycopg

    with psycopg.connect(url) as conn:  # its backend's parent is the postmaster: read while it lives
        row = conn.execute("SELECT pg_backend_pid()").fetchone()
        assert row is not None
        postmaster = Path(f"/proc/{row[0]}/stat").read_text().rsplit(")", 1)[1].split()[1]
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in os.listdir("/proc"):  # not Path.glob: a process that exits during its scan is an error
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # not a process, or exited meanwhile
        if fields[1] == postmaster:
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def run_clients(backend: str, url: str | None, n: int, clients: int, directory: Path,
                lease_batch: int, drain: int | None = None, template: tuple[str, float] | None = None,
                profile: str | None = None, cpu: bool = False) -> ClientsResult:
    """Push n routes (or copy ``template``: a database holding them, and its push rate), then
    drain them, or the first ``drain`` of them, with that many clients."""
    import multiprocessing

    with _storage(backend, url, directory, n, clients, template[0] if template else None) as where:
        store = _open(backend, where)
        push_rate = template[1] if template else _push_all(store, n)
        taken = min(n, drain or n)
        context = multiprocessing.get_context("spawn")
        go, done = context.Event(), context.Queue()
        measured = context.Event() if (cpu or profile) and backend == "postgres" else None
        quotas = [taken // clients + (i < taken % clients) for i in range(clients)]
        workers = [context.Process(target=_client, args=(backend, where, lease_batch, quota, go, done,
                                                                   profile, measured))
                   for quota in quotas]
        for worker in workers:
            worker.start()
        time.sleep(2 + 0.2 * clients)  # every client has opened its store before the clock starts
        server = _server_cpu(where) if measured is not None else None
        began = time.perf_counter()
        go.set()
        answers = [done.get() for _ in workers]
        drain_s = time.perf_counter() - began
        if server is not None and measured is not None:
            server = _server_cpu(where) - server
            measured.set()
        for worker in workers:
            worker.join()
        counts = [count for count, _ in answers]
        assert sum(counts) == taken and store.pending() == n - taken, (counts, store.pending())
        store.close()
    return ClientsResult(backend, n, clients, push_rate, taken / drain_s, max(counts) / taken,
                         taken, os.getloadavg()[0], 1e6 * sum(cpu for _, cpu in answers) / taken,
                         None if server is None else 1e6 * server / taken)


@contextmanager
def _template(backend: str, url: str | None, n: int, directory: Path) -> Iterator[tuple[str, float] | None]:
    """For PostgreSQL, a database holding n routes pushed once, that each client count's run
    copies (CREATE DATABASE … TEMPLATE: a file copy), and its push rate."""
    if backend != "postgres":
        yield None
        return
    with _storage(backend, url, directory, n, 0) as where:
        store = _open(backend, where)
        rate = _push_all(store, n)
        store.close()
        yield where.rsplit("/", 1)[1], rate


def main_clients(args: argparse.Namespace, sizes: list[int]) -> None:
    url = args.url or os.environ.get("DEEPBOT_TEST_POSTGRES")
    clients = [int(c) for c in (args.clients or "1").split(",")]
    results = []
    with tempfile.TemporaryDirectory(prefix="deepbot-bench-", dir=args.dir) as tmp:
        for n in sizes:
            with _template(args.backend, url, n, Path(tmp)) as template:
                for c in clients:
                    results.append(run_clients(args.backend, url, n, c, Path(tmp), args.lease_batch,
                                               args.drain, template, args.profile, args.cpu))
                    if not args.json:
                        print(f"  done {n:,} routes, {c} clients", file=sys.stderr)
    if args.json:
        print(json.dumps([asdict(r) for r in results], indent=2))
        return
    print(f"{args.backend} frontier, concurrent clients (processes): lease batches of {args.lease_batch},"
          " one ack per route")
    header = (f"{'routes':>10} {'drained':>8} {'clients':>7} {'push/s':>8} {'lease+ack/s':>12}"
              f" {'busiest client':>15} {'load':>5}")
    print(header)
    print("-" * len(header))
    for r in results:
        print(f"{r.routes:>10,} {r.drained:>8,} {r.clients:>7} {r.push_per_s:>8,.0f}"
              f" {r.lease_ack_per_s:>12,.0f} {r.busiest_share:>14.0%} {r.load:>5.1f}")
        if args.cpu or args.profile:
            server = "" if r.server_cpu_us is None else f", server {r.server_cpu_us:.0f}"
            print(f"{'':>10} CPU µs per route: clients {r.client_cpu_us:.0f}{server}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated route counts")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--dir", default=None, help="where the temporary files go (default: system temp)")
    parser.add_argument("--clients", default=None, help="comma-separated client counts: the concurrent run")
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--url", default=None, help="PostgreSQL server (default: $DEEPBOT_TEST_POSTGRES)")
    parser.add_argument("--lease-batch", type=int, default=LEASE_BATCH)
    parser.add_argument("--drain", type=int, default=None,
                        help="with --clients: lease and ack only the first N routes of each size (10⁶ at"
                        " a few hundred a second is most of an hour)")
    parser.add_argument("--cpu", action="store_true",
                        help="with --clients: the CPU per route of the clients and of the PostgreSQL server")
    parser.add_argument("--profile", default=None, metavar="DIR",
                        help="with --clients: --cpu, and each client's drain under cProfile"
                        " (DIR/client-PID.prof)")
    args = parser.parse_args()
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",")]
    if args.clients or args.backend == "postgres":
        main_clients(args, sizes)
        return
    results = []
    with tempfile.TemporaryDirectory(prefix="deepbot-bench-", dir=args.dir) as tmp:
        for n in sizes:
            results.append(run(n, Path(tmp)))
            if not args.json:
                print(f"  done {n:,} routes", file=sys.stderr)
    if args.json:
        print(json.dumps([asdict(r) for r in results], indent=2))
        return
    print(f"SQLite frontier: push batches of {PUSH_BATCH}, lease batches of {LEASE_BATCH}, one ack per route")
    header = (
        f"{'routes':>10} {'push/s':>8} {'µs/push 1st→last':>17} {'re-push/s':>10} {'lease/s':>8} "
        f"{'µs/lease 1st→last':>18} {'ack/s':>7} {'push+lease/s':>13} "
        f"{'CPU µs push/lease/ack':>22} {'push+lease/CPU s':>17} {'MB/10⁶':>7}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        cpu = f"{r.cpu_us_push:.0f} / {r.cpu_us_lease:.0f} / {r.cpu_us_ack:.0f}"
        print(
            f"{r.routes:>10,} {r.push_per_s:>8,.0f} {f'{r.push_us_first:.1f} → {r.push_us_last:.1f}':>17} "
            f"{r.repush_per_s:>10,.0f} {r.lease_per_s:>8,.0f} "
            f"{f'{r.lease_us_first:.1f} → {r.lease_us_last:.1f}':>18} {r.ack_per_s:>7,.0f} "
            f"{r.push_lease_ops_per_s:>13,.0f} {cpu:>22} {r.push_lease_ops_per_cpu_s:>17,.0f} "
            f"{r.mb_per_million:>7.0f}"
        )


if __name__ == "__main__":
    main()
