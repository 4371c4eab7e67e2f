"""`deepbot crawl` as a person runs it: a real process against the fixture web, its output
read. Every crawl says why it stopped; a rerun says it resumes; Ctrl-C says how to resume;
output that is no terminal gets progress lines; --json is one object a script can read."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from fixtures.server import FixtureServer

pytestmark = [pytest.mark.browser]

PROGRESS = re.compile(r"\d+ pages fetched, \d+ queued, \d+ failed, [\d.]+ pages/s")


def _crawl(site: FixtureServer, store: Path, *flags: str) -> list[str]:
    return [sys.executable, "-m", "deepbot", "crawl", "--seed", site.url("/lab/"), "--store", str(store),
            "--workers", "2", *flags]


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=100, check=False)


@pytest.mark.timeout(120)
def test_max_pages_counts_every_run_and_the_rerun_says_so(site: FixtureServer, tmp_path: Path) -> None:
    command = _crawl(site, tmp_path / "s.sqlite", "--max-pages", "3", "--json")
    first = _run(command)
    assert first.returncode == 0, first.stderr[-2000:]
    end: dict[str, Any] = json.loads(first.stdout)  # stdout holds only the JSON object
    said = (end["stopped"], end["pages_fetched"], end["resumed"], end["done_in_store"])
    assert said == ("max_pages", 3, 0, 3)
    assert end["queued"] > 0 and end["routes"]["queued"] + end["routes"]["leased"] == end["queued"]
    words = first.stderr.splitlines()
    assert words[-1] == ("stopped: --max-pages 3 reached (3 pages stored in this store, over all runs; raise"
                         " it or use a new --store)") == end["stopped_line"]
    assert not any(line.startswith("resuming:") for line in words)

    again = _run(command)  # the same command: the budget is spent, and it says so at once
    assert again.returncode == 0, again.stderr[-2000:]
    rerun = json.loads(again.stdout)
    assert (rerun["stopped"], rerun["pages_fetched"], rerun["resumed"]) == ("max_pages", 0, end["queued"])
    words = again.stderr.splitlines()
    assert f"resuming: {end['queued']} routes queued from an earlier run" in words
    assert words[-1] == end["stopped_line"]
    assert set(rerun) == set(end) == {
        "stopped", "stopped_line", "resumed", "pages_fetched", "documents_stored", "routes_failed",
        "pages_per_second", "seconds", "queued", "done_in_store", "max_pages", "routes", "outcomes",
        "failures", "skipped", "store"}


@pytest.mark.timeout(120)
def test_a_crawl_that_runs_out_of_routes_says_so_last(site: FixtureServer, tmp_path: Path) -> None:
    done = _run(_crawl(site, tmp_path / "s.sqlite", "--depth", "0"))
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Crawl finished: 1 pages fetched")
    assert lines[-1] == "stopped: frontier empty"


@pytest.mark.timeout(150)
def test_ctrl_c_says_how_to_resume_and_the_rerun_resumes(site: FixtureServer, tmp_path: Path) -> None:
    # Slowed (one page at a time, 0.3 s apart) so that it still runs when its first progress line comes.
    command = _crawl(site, tmp_path / "s.sqlite", "--per-host-concurrency", "1", "--min-delay", "0.3")
    # Its own process group, signalled as a whole: what Ctrl-C on a terminal does (Chromium too).
    crawl = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        assert crawl.stderr is not None
        seen: list[str] = []
        deadline = time.monotonic() + 60
        # stdout and stderr are pipes, no terminal: a progress line comes within 5 s of the start.
        while not any(PROGRESS.search(line) for line in seen) and time.monotonic() < deadline:
            seen.append(crawl.stderr.readline())
            assert seen[-1] or crawl.poll() is None, "".join(seen)
        assert any(PROGRESS.search(line) for line in seen), "".join(seen)
        os.killpg(crawl.pid, signal.SIGINT)
        out, err = crawl.communicate(timeout=60)
    finally:
        if crawl.poll() is None:
            os.killpg(crawl.pid, signal.SIGKILL)
            crawl.wait()
    assert crawl.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    last = out.splitlines()[-1]
    stopped = re.fullmatch(r"stopped: interrupted \(Ctrl-C\) — run the same command to resume: "
                           r"(\d+) routes queued", last)
    assert stopped and int(stopped[1]) > 0, out[-2000:]
    assert out.startswith("Crawl finished: ")  # and what it did before, as any crawl says

    # The same command again says it resumes, with what the interrupted one left queued.
    # (Bounded by a budget of one more page than the store holds, to end soon.)
    done = int(re.search(r"Routes: done (\d+)", out)[1])  # type: ignore[index]
    again = _run([*command, "--max-pages", str(done + 1), "--quiet"])
    assert again.returncode == 0, again.stderr[-2000:]
    lines = again.stdout.splitlines()
    assert lines[0] == f"resuming: {stopped[1]} routes queued from an earlier run"
    assert lines[-1].startswith(f"stopped: --max-pages {done + 1} reached ({done + 1} pages stored")
    assert not any(PROGRESS.search(line) for line in again.stderr.splitlines())  # --quiet
