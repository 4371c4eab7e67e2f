"""SIGKILL a crawl at random moments, rerun the same command: nothing lost, nothing doubled."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from fixtures.server import FixtureServer
from fixtures.sites import lab

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(600)]

KILLS = 20
WORKERS = 2


def _command(site: FixtureServer, store: Path) -> list[str]:
    return [sys.executable, "-m", "deepbot", "crawl", "--seed", site.url("/lab/"), "--store", str(store),
            "--workers", str(WORKERS), "--depth", "3", "--quiet"]


def _start(cmd: list[str]) -> subprocess.Popen[bytes]:
    # Its own process group, so the kill takes Chromium down with it, as a crash would.
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _documents(store: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(store) as db:
        return sorted(db.execute("SELECT route_key, final_url FROM documents"))


def _route_states(store: Path) -> Counter[int]:
    with sqlite3.connect(store) as db:
        return Counter(state for (state,) in db.execute("SELECT state FROM routes"))


def _page_hits(site: FixtureServer) -> Counter[str]:
    # Not the frames' documents: they load with the page that frames them, whatever its route.
    pages = set(lab.EXPECTED_PAGES - lab.IN_FRAMES)
    return Counter(p.split("?")[0] for _, p in site.hits if p.split("?")[0] in pages)


def test_sigkill_many_times_then_resume_equals_uninterrupted_crawl(tmp_path: Path) -> None:
    rng = random.Random(20261122)
    with FixtureServer() as site:
        baseline_store = tmp_path / "baseline.sqlite"
        subprocess.run(_command(site, baseline_store), check=True, timeout=300, capture_output=True)
        baseline_docs = _documents(baseline_store)
        baseline_hits = _page_hits(site)
        port = site.port  # the second site takes the same origin, so route keys compare equal
    assert len(baseline_docs) >= len(lab.EXPECTED_PAGES)

    with FixtureServer(port=port) as site:
        store = tmp_path / "killed.sqlite"
        cmd = _command(site, store)
        kills = 0
        finished_early = False
        while kills < KILLS:
            proc = _start(cmd)
            time.sleep(rng.uniform(0.8, 3.5))
            if proc.poll() is not None:  # the crawl finished before this kill
                finished_early = True
                break
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
            kills += 1
        final = subprocess.run(cmd, timeout=300, capture_output=True, text=True)
        assert final.returncode == 0, final.stderr
        hits = _page_hits(site)

    assert kills >= 10 or finished_early
    # No route lost: the same documents as the uninterrupted crawl, none twice.
    assert _documents(store) == baseline_docs
    states = _route_states(store)
    assert states.get(0, 0) == 0 and states.get(1, 0) == 0  # nothing queued or leased is left behind
    # Refetches are bounded by what was in flight at each kill: at most WORKERS routes, each
    # loading at most two of the lab's pages (a click or a jump-menu route: its page, then
    # the target). A resume that ran done routes again would refetch every page each time.
    duplicate_fetches = sum(max(0, hits[p] - baseline_hits[p]) for p in hits)
    bound = kills * WORKERS * 2
    print(f"kills={kills} duplicate_fetches={duplicate_fetches} bound={bound}")
    assert duplicate_fetches <= bound
