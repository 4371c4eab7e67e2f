"""The analyzer, frontier and form-metrics benchmarks run end to end, each by its one
command, so that a change to the code they drive cannot break them unnoticed. What they
measure is not asserted (they are benchmarks); what they count is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from deepbot.forms.evaluate import load_truth, truth_associations
from fixtures.server import STATIC_ROOT

BENCH = Path(__file__).resolve().parents[2] / "bench"
FORMS = STATIC_ROOT / "forms"


def _bench_json(*argv: str, timeout: float) -> Any:
    done = subprocess.run([sys.executable, *argv, "--json"], capture_output=True, text=True,
                          timeout=timeout, check=False, cwd=BENCH.parent)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.timeout(60)
def test_frontier_bench_drains_every_route_it_pushed(tmp_path: Path) -> None:
    # The benchmark checks itself as it goes (every push new, every re-push a duplicate,
    # as many leases and acks as routes, nothing pending at the end); exit 0 says so.
    rows = _bench_json(str(BENCH / "frontier.py"), "--sizes", "1000,3000", "--dir", str(tmp_path), timeout=50)
    assert [row["routes"] for row in rows] == [1000, 3000]
    for row in rows:
        rates = ("push_per_s", "repush_per_s", "lease_per_s", "ack_per_s", "push_lease_ops_per_s",
                 "push_lease_ops_per_cpu_s")
        assert all(row[key] > 0 for key in rates), row
        assert row["push_us_first"] > 0 and row["push_us_last"] > 0 and row["cpu_us_push"] > 0
        assert row["file_mb"] > 0
        assert row["mb_per_million"] == pytest.approx(row["file_mb"] * 1e6 / row["routes"])
    assert list(tmp_path.iterdir()) == []  # its temporary files are gone


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(120)
def test_analyzer_bench_times_every_labelled_form() -> None:
    report = _bench_json(str(BENCH / "analyzer.py"), "--repeat", "1", timeout=110)
    truth = load_truth(FORMS / "truth.json")
    pages = {row["page"]: row for row in report["pages"]}
    assert set(pages) == {p.name for p in FORMS.glob("*.html")}
    for name, row in pages.items():
        if name in truth:  # every labelled form found on its page, and timed
            assert row["forms"] == len(truth[name]["forms"]), row
        # The script's own time is inside the evaluate's round trip, reported apart from Python's.
        assert 0 < row["in_page_ms_per_form"] <= row["evaluate_ms_per_form"], row
        assert row["python_ms_per_form"] > 0, row
    summary = report["summary"]
    assert summary["pages"] == len(pages) and summary["forms"] == sum(row["forms"] for row in pages.values())
    assert summary["total_ms_per_form_max"] >= summary["total_ms_per_form_median"] > 0


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(120)
def test_form_metrics_bench_scores_every_true_association() -> None:
    report = _bench_json(str(BENCH / "form_metrics.py"), timeout=110)
    real = truth_associations(load_truth(FORMS / "truth.json"))
    for kind in ("text_field", "field_attribute", "form_domain"):
        wanted: dict[str, set[Any]] = getattr(real, kind)
        by_group = report[kind]
        assert set(by_group) == {*wanted, "overall"}, kind
        for group, pairs in wanted.items():  # measured against the whole labelled set
            assert by_group[group]["real"] == len(pairs), (kind, group)
        overall = by_group["overall"]
        assert overall["real"] == sum(len(pairs) for pairs in wanted.values())
        assert 0 < overall["hits"] <= min(overall["found"], overall["real"])
        assert overall["precision"] == pytest.approx(overall["hits"] / overall["found"], abs=1e-4)
        assert overall["recall"] == pytest.approx(overall["hits"] / overall["real"], abs=1e-4)


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(120)
def test_focus_bench_counts_what_each_crawler_reached() -> None:
    rows = _bench_json(str(BENCH / "focus.py"), "--budgets", "12", timeout=110)
    assert [(row["crawler"], row["budget"], row["fetched"]) for row in rows] == [
        ("breadth-first", 12, 12), ("best-first", 12, 12), ("HMM", 12, 12)]
    for row in rows:
        assert 0 <= row["relevant"] <= 12
        assert row["harvest_rate"] == pytest.approx(row["relevant"] / 12, abs=1e-4)


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(180)
def test_structure_bench_scores_what_the_structure_crawl_stored() -> None:
    rows = _bench_json(str(BENCH / "structure.py"), "--budgets", "15", timeout=170)
    first = [(row["crawler"], row["fetched"]) for row in rows[:2]]
    assert first == [("breadth-first", 15), ("structure", 15)]
    for row in rows[:2]:
        assert 0 <= row["players_fetched"] <= row["pages_to_last_player"] <= 15
    structure = rows[1]
    assert 0 <= structure["precision"] <= 1 and structure["recall"] == pytest.approx(
        structure["precision"] * structure["stored"] / 48, abs=1e-3)
    # Then learn's mapping of the whole site, the crawl of the pattern it wrote, and its rerun
    # after the site gained pages.
    mapping, pattern, rerun = rows[2:]
    assert mapping["crawler"] == "learn (mapping)" and mapping["players_fetched"] == 48
    assert pattern["recall"] == pytest.approx(pattern["precision"] * pattern["stored"] / 48, abs=1e-3)
    assert pattern["fetched"] >= pattern["stored"]
    assert rerun["crawler"].startswith("pattern, rerun") and 0 < rerun["stored"] <= rerun["fetched"]


@pytest.mark.timeout(120)
def test_freshness_bench_runs_every_policy_on_true_and_estimated_rates() -> None:
    out = _bench_json(str(BENCH / "freshness.py"), "--pages", "200", "--budget", "20", "--learn", "7",
                      "--days", "14", timeout=110)
    rows = {(row["policy"], row["rates"]): row for row in out["rows"]}
    policies = ("uniform", "proportional", "optimal")
    assert set(rows) == {(p, r) for p in policies for r in ("true", "estimated")}
    for row in rows.values():
        assert 0 <= row["freshness"] <= 1 and row["age_days"] >= 0
        assert row["visits_per_day"] == pytest.approx(20, rel=0.15)  # every policy spends the same budget
    # Measured on the simulated timeline, the oracle's rows agree with the formula.
    assert rows["uniform", "true"]["freshness"] == pytest.approx(rows["uniform", "true"]["freshness_formula"],
                                                                 abs=0.05)
    assert len(out["checks"]) == 4
