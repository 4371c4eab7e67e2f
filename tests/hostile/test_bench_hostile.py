"""bench/hostile.py runs end to end by its one command, at a small size, so that a change to
what it drives cannot break it unnoticed. What it measures is not asserted (it is a
benchmark), but for the bound it exists to show: what its probes' crawls did is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(180)
def test_the_hostile_bench_measures_a_bomb_beside_a_normal_page(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(BENCH / "hostile.py"), "--only", "normal,download-bomb-300k",
                           "--limit-mb", "2000", "--json", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=170, check=False, cwd=BENCH.parent)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rows = {row["probe"]: row for row in json.loads(done.stdout)}
    assert rows["normal"]["stored"] == 1 and rows["normal"]["requests"] == 1
    bomb = rows["download-bomb-300k"]
    # Given up, not killed by the watchdog nor timed out: "response too large", never retried.
    assert not bomb["killed"] and not bomb["timed_out"] and bomb["failed"] == 1, bomb
    assert "response too large" in bomb["reason"] and bomb["peak_rss_mb"] < 2000, bomb
