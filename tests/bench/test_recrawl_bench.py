"""bench/recrawl.py runs end to end on a small archive: the figures are not asserted
(a benchmark), what it counts is."""

from __future__ import annotations

import pytest

from tests.bench.test_issue_benchmarks import BENCH, _bench_json


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(300)
def test_recrawl_bench_compares_a_recrawl_with_and_without_validators() -> None:
    out = _bench_json(str(BENCH / "recrawl.py"), "--pages", "3", "--rounds", "1", "--workers", "2",
                      timeout=280)
    with_304, without = out["rows"]
    # 3 reading lists, home, news, search page, clock, 3 queries' results, 5 books.
    assert with_304["documents"] == without["documents"] == 15
    assert with_304["not_modified"] == 15 - 1 - 3  # all but the clock and the results
    assert without["not_modified"] == 0
    assert without["rounds"][0]["browser_pages"] > with_304["rounds"][0]["browser_pages"]
    assert all(row["crawl_s"] > 0 and row["recrawl_s"] > 0 for row in out["rows"])
