"""The real-apps benchmark (bench/realapps.py) runs end to end on one app, Datasette, with
a small page budget (Datasette is in the test extra, so CI crawls one real app; elsewhere
the test skips without it). What is asserted is what the benchmark counts and that its
figures agree with each other, never how well DeepBot did."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(90)
def test_realapps_bench_scores_a_datasette_crawl() -> None:
    pytest.importorskip("datasette", reason="pip install datasette (bench/requirements-realapps.txt)")
    # 150 pages (~25 s): in a crawl with no topic the table page's query routes wait their
    # turn behind the links queued before them (~120 routes here), so a smaller budget runs none.
    argv = [sys.executable, str(BENCH / "realapps.py"), "--app", "datasette", "--max-pages", "150", "--json"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=80, check=False, cwd=BENCH.parent)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [row] = json.loads(done.stdout)
    assert row["app"] == "datasette" and row["records"] == 3000
    # The table page's filter form is relevant to the library domain, and some of its queries ran.
    assert row["relevant_forms"] >= 1 and 1 <= row["queries_run"] <= row["query_routes"]
    assert 0 < row["fetched"] <= 150
    queries = row["per_query"]
    assert len(queries) == 4 and all(q["truth"] > 0 for q in queries.values())
    assert row["truth"] <= sum(q["truth"] for q in queries.values())
    assert 0 <= row["found_via_forms"] <= row["found"] <= row["truth"]
    assert row["recall"] == pytest.approx(row["found"] / row["truth"], abs=1e-4)
    if row["reached_via_forms"]:
        assert 0 <= row["precision"] <= 1
