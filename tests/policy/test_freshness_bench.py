"""bench/freshness.py's --last-modified: the same simulated web at every share, and dates
that help the optimal policy's estimates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "freshness.py"


def _rows(*args: str) -> dict[tuple[str, str], dict[str, float]]:
    out = subprocess.run([sys.executable, str(BENCH), "--pages", "300", "--budget", "30", "--learn", "14",
                          "--days", "28", "--seed", "3", "--json", *args],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    return {(row["policy"], row["rates"]): row for row in json.loads(out)["rows"]}


def test_the_share_of_dated_servers_changes_only_the_estimates() -> None:
    none, default, every = _rows("--last-modified", "0"), _rows(), _rows("--last-modified", "1")
    assert none == default  # the headline rows: no server sends Last-Modified
    for policy in ("uniform", "proportional", "optimal"):
        assert every[policy, "true"] == none[policy, "true"]  # the same pages, changes and visits
    assert every["uniform", "estimated"] == none["uniform", "estimated"]  # uniform reads no rates
    # Dates tell the pages that change too often for the budget apart: optimal skips them.
    assert every["optimal", "estimated"]["freshness"] > none["optimal", "estimated"]["freshness"]
