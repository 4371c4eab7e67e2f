"""Per-host concurrency over every process of a shared crawl: the slots of ``host_slots``
(PostgresRouteStore.take_slot/free_slot), and Politeness taking them. Two route stores with
identities of their own stand for two worker processes; the browser test of the same limit,
with worker processes and a server's log, is in test_workers.py."""

from __future__ import annotations

import asyncio
import time

from deepbot.crawl.politeness import HostTurns, Politeness
from deepbot.frontier.postgres import PostgresRouteStore


def _store(url: str, name: str, clock: list[float] | None = None) -> PostgresRouteStore:
    if clock is None:
        return PostgresRouteStore(url, process=f"test-host:{name}:1", recover=False)
    return PostgresRouteStore(url, process=f"test-host:{name}:1", recover=False, clock=lambda: clock[0])


def test_a_host_s_slots_are_shared_freed_and_expire(postgres_url: str) -> None:
    now = [1000.0]
    with _store(postgres_url, "1", now) as one, _store(postgres_url, "2", now) as two:
        assert isinstance(one, HostTurns)
        first = one.take_slot("shop.example", 2, 30)
        second = two.take_slot("shop.example", 2, 30)
        assert first is not None and second is not None and first != second
        assert two.take_slot("shop.example", 2, 30) is None  # both held, by either process
        assert one.take_slot("other.example", 2, 30) is not None  # another host has its own
        assert one.take_slot("shop.example", 3, 30) is not None  # a larger limit adds a slot
        one.free_slot("shop.example", first)
        again = two.take_slot("shop.example", 2, 30)
        assert again is not None and two.take_slot("shop.example", 2, 30) is None
        one.free_slot("shop.example", first)  # a second free of a slot since taken by another: nothing
        assert two.take_slot("shop.example", 2, 30) is None
        now[0] += 31  # their holders never gave them back (died): free once their time is up
        assert one.take_slot("shop.example", 2, 30) is not None


def test_a_dead_process_s_slots_come_back_at_recover(postgres_url: str) -> None:
    with PostgresRouteStore(postgres_url, process="test-host:999999:1", recover=False) as dead:
        assert dead.take_slot("shop.example", 1, 3600) is not None
    # The identity of a process of this machine that no longer runs (pid 999999, started at 1).
    with PostgresRouteStore(postgres_url, process=f"{_this_host()}:999998:1", recover=False) as gone:
        assert gone.take_slot("shop.example", 1, 3600) is None
        gone.free_slot("shop.example", "nobody")
    with PostgresRouteStore(postgres_url) as alive:  # recover() at opening
        assert alive.take_slot("shop.example", 1, 3600) is None  # "test-host" is not this machine
    with PostgresRouteStore(postgres_url, process=f"{_this_host()}:999997:1", recover=False) as mine:
        assert mine.take_slot("here.example", 1, 3600) is not None
    with PostgresRouteStore(postgres_url) as alive:
        assert alive.take_slot("here.example", 1, 3600) is not None  # a dead local holder's slot, freed


def _this_host() -> str:
    from deepbot.frontier.process import current_identity

    return current_identity().rsplit(":", 2)[0]


async def test_visits_of_two_processes_never_overlap_past_the_limit(postgres_url: str) -> None:
    """Two Politeness objects (two processes) with per_host 1 and 2: the visits they let run
    at once, counted as they start and end, never pass the limit over both."""
    for limit in (1, 2):
        running, most = 0, 0

        async def visit(polite: Politeness, url: str) -> None:
            nonlocal running, most
            async with polite.slot(url):
                running += 1
                most = max(most, running)
                await asyncio.sleep(0.05)
                running -= 1

        with _store(postgres_url, f"a{limit}") as a, _store(postgres_url, f"b{limit}") as b:
            sides = [Politeness(per_host=limit, min_delay=0), Politeness(per_host=limit, min_delay=0)]
            sides[0].shared, sides[1].shared = a, b
            url = f"http://shop{limit}.example/page"
            began = time.monotonic()
            await asyncio.gather(*(visit(sides[i % 2], url) for i in range(12)))
            # Alone, each side would let `limit` run: together they would reach twice the limit.
            assert most == limit, (limit, most)
            assert time.monotonic() - began >= 12 * 0.05 / limit
            held = a.database.read("SELECT count(*) FROM host_slots WHERE holder IS NOT NULL")
            assert held == [(0,)]  # every slot given back
