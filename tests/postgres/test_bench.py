"""The PostgreSQL benchmarks run end to end at a small size, each by its one command, so that a
change to the code they drive cannot break them unnoticed. What they measure is not asserted
(they are benchmarks); what they count is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from postgres.database import admin_url

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _bench_json(*argv: str, timeout: float) -> Any:
    done = subprocess.run([sys.executable, *argv, "--url", admin_url(), "--json"], capture_output=True,
                          text=True, timeout=timeout, check=False, cwd=BENCH.parent,
                          env={**os.environ, "DEEPBOT_TEST_POSTGRES": ""})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_concurrent_clients_drain_every_route_once() -> None:
    # The benchmark checks as it goes that the clients leased and acked each route once
    # (their counts add up to the routes pushed, nothing pending); exit 0 says so.
    rows = _bench_json(str(BENCH / "frontier.py"), "--backend", "postgres", "--sizes", "600",
                       "--clients", "1,3", timeout=290)
    assert [(row["routes"], row["clients"]) for row in rows] == [(600, 1), (600, 3)]
    assert all(row["lease_ack_per_s"] > 0 and row["push_per_s"] > 0 for row in rows)
    assert rows[0]["busiest_share"] == 1.0


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_cpu_per_route_is_read_for_the_clients_and_the_server() -> None:
    # --cpu: the clients' CPU from themselves, the server's from /proc (the test server is local).
    # 3,000 routes: the server's share is some 0.3 s, 30 of /proc's 10 ms ticks (at 400 routes a
    # loaded CI machine once charged its backends none).
    [row] = _bench_json(str(BENCH / "frontier.py"), "--backend", "postgres", "--sizes", "3000",
                        "--clients", "2", "--cpu", timeout=290)
    assert row["client_cpu_us"] > 0 and row["server_cpu_us"] > 0


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(400)
def test_the_workers_bench_crawls_the_whole_site_each_time() -> None:
    rows = _bench_json(str(BENCH / "workers.py"), "--workers", "1,2", "--pages", "12", "--latency", "0.05",
                       timeout=390)
    assert [row["workers"] for row in rows] == [1, 2]
    assert all(row["pages"] >= 12 for row in rows)  # every page, as the server counted them
    assert all(row["transactions_per_page"] > 0 for row in rows)
