"""The change-rate estimator on last-modified dates (deepbot.policy.revisit.estimate_rate_dated)
and the histories that feed it."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from deepbot.policy.revisit import (
    PROBE_SHARE,
    Estimator,
    History,
    Policy,
    estimate_rate,
    estimate_rate_dated,
    history_of,
    plan,
)
from deepbot.store import Change
from deepbot.store.base import Visit

DAY0 = datetime(2026, 11, 1, tzinfo=UTC)


def test_the_estimator_gives_the_papers_values_computed_by_hand() -> None:
    # Four daily revisits, changes found at the first and third, 6 h and 12 h after the change.
    # X = 2, n = 4; T = 0.25 + 1 + 0.5 + 1 = 2.75 days seen unchanged;
    # λ = (X - 1 - X / (n ln(1 - X/n))) / T = (1 + 1 / (2 ln 2)) / 2.75 = 1.7213475 / 2.75.
    rate = estimate_rate_dated([1.0] * 4, [True, False, True, False], [0.25, None, 0.5, None])
    assert rate == pytest.approx(0.6259445528889, rel=1e-12)
    # X = 1, n = 3, every 2 days; T = 0.5 + 2 + 2 = 4.5; λ = (0 - 1 / (3 ln(2/3))) / 4.5.
    rate = estimate_rate_dated([2.0] * 3, [True, False, False], [0.5, None, None])
    assert rate == pytest.approx(0.1826891453612, rel=1e-12)
    # Every revisit found a change (X = n = 3): the numerator is n - 1; T = 0.5 + 0.25 + 0.25.
    assert estimate_rate_dated([2.0] * 3, [True] * 3, [0.5, 0.25, 0.25]) == pytest.approx(2.0)


def test_too_little_to_date_falls_back_to_the_estimator_on_changes_alone() -> None:
    # X = n = 1: the paper's numerator is 0; X = 0: nothing is dated.
    assert estimate_rate_dated([5.0], [True], [1.0]) == pytest.approx(estimate_rate([5.0], [True]))
    assert estimate_rate_dated([5.0] * 2, [False] * 2, [None] * 2) == estimate_rate([5.0] * 2, [False] * 2)
    # A change dated at the visit itself counts one second unchanged (an HTTP date's resolution).
    assert estimate_rate_dated([1.0] * 2, [True] * 2, [0.0, 0.0]) == pytest.approx(86_400.0)
    with pytest.raises(ValueError, match="since the last change"):
        estimate_rate_dated([1.0], [True], [2.0])  # a change before the previous visit
    with pytest.raises(ValueError, match="one 'changed'"):
        estimate_rate_dated([1.0], [True], [])


def test_dates_tell_a_page_that_changed_at_every_visit_apart() -> None:
    # Pages changing 20 and 50 times a day, visited daily: both changed at every visit, so the
    # changes alone give both the same rate; the dates of their last changes do not.
    rng = np.random.default_rng(3)
    for lam in (20.0, 50.0):
        since = [float(min(rng.exponential(1 / lam), 1.0)) for _ in range(200)]
        changed = [s < 1.0 for s in since]
        dates = [s if c else None for s, c in zip(since, changed, strict=True)]
        dated = estimate_rate_dated([1.0] * 200, changed, dates)
        assert dated == pytest.approx(lam, rel=0.15)
        assert all(changed)
        assert estimate_rate([1.0] * 200, changed) == pytest.approx(math.log(401))  # -ln(0.5 / 200.5)


def test_a_dated_page_is_not_saturated_and_is_not_probed() -> None:
    undated = History((7.0, 7.0), (True, True))
    dated = History((7.0, 7.0), (True, True), (0.01, 0.02))  # changes every few minutes
    assert undated.saturated and not undated.dated
    assert dated.dated and not dated.saturated
    assert dated.rate() == pytest.approx(1 / 0.03)
    calm = [History((7.0, 7.0), (False, True))] * 8
    per_day = plan([*calm, dated, undated], 2.0, Policy.OPTIMAL, estimator=Estimator.POINT)
    # The undated page is probed; the dated one changes too often for the budget: the floor only.
    assert per_day[-1] > per_day[0] > per_day[-2] == pytest.approx(2.0 / 10 / 8)


def _visit(days: float, change: Change, modified: float | None = None) -> Visit:
    return Visit(doc_id="d", url="https://example.org/", at=DAY0 + timedelta(days=days), change=change,
                 last_modified=None if modified is None else DAY0 + timedelta(days=modified))


def test_a_history_dates_its_changes_from_the_visits_last_modified() -> None:
    story = history_of([
        _visit(0, Change.NEW, -3),
        _visit(2, Change.CHANGED, 1.5),  # changed half a day before the visit
        _visit(4, Change.UNCHANGED),  # a 304: nothing to date
        _visit(6, Change.CHANGED, 5.75),
    ])
    assert story.gaps == (2.0, 2.0, 2.0) and story.changed == (True, False, True)
    assert story.since_change == pytest.approx((0.5, None, 0.25))
    assert story.dated
    # A Last-Modified from before the previous visit, on a page whose text changed since, says
    # nothing of that change: the revisit is undated, and so is the page.
    stale = history_of([_visit(0, Change.NEW, -3), _visit(2, Change.CHANGED, -3)])
    assert stale.since_change == () and not stale.dated and stale.saturated
    assert stale.rate() == pytest.approx(-math.log(0.5 / 1.5) / 2)
    # A Last-Modified at the moment of the visit (or after it: the server's clock ahead) is a
    # response stamped when it was made, as dynamic pages do: it dates no change either.
    for stamp in (2 - 10 / 86_400, 2.0, 2 + 30 / 86_400):
        stamped = history_of([_visit(0, Change.NEW, 0.0), _visit(2, Change.CHANGED, stamp)])
        assert stamped.since_change == () and stamped.saturated
    assert history_of([_visit(0, Change.NEW), _visit(2, Change.CHANGED, 2 - 120 / 86_400)]).dated


def test_probes_take_no_budget_from_the_pages_whose_server_dates_their_changes() -> None:
    calm = History((7.0, 7.0), (False, True))
    saturated = History((7.0, 7.0), (True, True))
    dated = History((7.0, 7.0), (False, True), (None, 2.0))
    alone = plan([calm] * 8 + [saturated] * 2, 2.0, Policy.OPTIMAL, estimator=Estimator.POINT)
    assert alone[-2:].sum() == pytest.approx(PROBE_SHARE * 2.0)
    # Half the pages dated: the probes get half the share, the rest goes to the policy.
    mixed = plan([dated] * 5 + [calm] * 3 + [saturated] * 2, 2.0, Policy.OPTIMAL, estimator=Estimator.POINT)
    assert mixed[-2:].sum() == pytest.approx(PROBE_SHARE * 2.0 * 5 / 10)
    assert mixed.sum() == pytest.approx(2.0)
