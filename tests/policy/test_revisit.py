"""The revisit policies and the change-rate estimator (deepbot.policy.revisit)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepbot.policy.revisit import (
    PROBE_SHARE,
    Estimator,
    History,
    Policy,
    age,
    estimate_rate,
    freshness,
    plan,
    revisit_order,
    visit_rates,
)

rates_lists = st.lists(st.floats(min_value=0.001, max_value=50.0), min_size=1, max_size=40)


def test_freshness_and_age_have_their_limits() -> None:
    # A page never changing is always fresh; revisiting it often or rarely changes nothing.
    assert freshness(0.0, 10.0) == 1.0 and age(0.0, 10.0) == 0.0
    # Visited far more often than it changes: nearly always fresh, nearly no age.
    assert freshness(1.0, 1e-4) == pytest.approx(1.0, abs=1e-4)
    # One change a day, visited daily: (1 - 1/e) of the time fresh; age 1/2 - 1 + (1 - 1/e) days.
    assert freshness(1.0, 1.0) == pytest.approx(1 - math.exp(-1))
    assert age(1.0, 1.0) == pytest.approx(0.5 - 1 + (1 - math.exp(-1)))
    assert freshness(1.0, math.inf) == 0.0 and age(1.0, math.inf) == math.inf


@settings(max_examples=30, deadline=None)
@given(rates=rates_lists, share=st.floats(min_value=0.05, max_value=5.0))
def test_policies_spend_the_budget_and_uniform_beats_proportional(rates: list[float], share: float) -> None:
    budget = share * len(rates)
    mean = {}
    for policy in Policy:
        per_day = visit_rates(rates, budget, policy)
        assert per_day.sum() == pytest.approx(budget, rel=1e-6)
        assert (per_day >= 0).all()
        with np.errstate(divide="ignore"):
            mean[policy] = float(freshness(rates, np.where(per_day > 0, 1 / per_day, np.inf)).mean())
    # Cho and Garcia-Molina: uniform ≥ proportional for any rates; the optimum ≥ both.
    assert mean[Policy.UNIFORM] >= mean[Policy.PROPORTIONAL] - 1e-9
    assert mean[Policy.OPTIMAL] >= mean[Policy.UNIFORM] - 1e-6


def test_the_optimal_policy_skips_pages_that_change_too_often_for_the_budget() -> None:
    rates = [0.1] * 9 + [100.0]
    per_day = visit_rates(rates, 1.0, Policy.OPTIMAL)
    assert per_day[-1] == 0.0  # a hundred changes a day: no visit a day or so apart keeps it fresh
    assert per_day[:-1] == pytest.approx(np.full(9, 1 / 9))


def test_the_estimator_corrects_the_bias_of_counting_detected_changes() -> None:
    # Visits a day apart of a page changing twice a day: most intervals hold 2+ changes,
    # so counting detected changes (X/n) says at most one a day; the estimator gets close to 2.
    rng = np.random.default_rng(3)
    lam, n = 2.0, 4000
    changed = (rng.poisson(lam, n) > 0).tolist()
    naive = sum(changed) / n
    assert naive < 0.9
    assert estimate_rate([1.0] * n, changed) == pytest.approx(lam, rel=0.08)


def test_irregular_visits_use_the_maximum_likelihood_estimate() -> None:
    rng = np.random.default_rng(4)
    lam = 0.3
    gaps = rng.choice([0.5, 2.0, 7.0], 3000).tolist()
    changed = [bool(rng.poisson(lam * g) > 0) for g in gaps]
    assert estimate_rate(gaps, changed) == pytest.approx(lam, rel=0.1)


def test_a_page_never_seen_to_change_keeps_a_small_rate_not_zero() -> None:
    rate = estimate_rate([7.0] * 4, [False] * 4)
    assert 0 < rate < 1 / 28  # less than one change over the four weeks observed


def test_bad_histories_are_refused() -> None:
    with pytest.raises(ValueError, match="one 'changed' flag"):
        estimate_rate([1.0], [])
    with pytest.raises(ValueError, match="> 0 days"):
        estimate_rate([0.0], [True])
    with pytest.raises(ValueError, match="budget"):
        visit_rates([1.0], 0, Policy.UNIFORM)


def test_a_plan_probes_saturated_pages_and_keeps_every_page_visited() -> None:
    histories = [History((7.0, 7.0), (False, True))] * 8 + [History((7.0, 7.0), (True, True))] * 2
    per_day = plan(histories, 2.0, Policy.OPTIMAL, estimator=Estimator.POINT)
    assert per_day.sum() == pytest.approx(2.0)
    # Saturated pages are probed (every 5/8 day), but probes take at most their share of the budget.
    assert per_day[-2:].sum() == pytest.approx(PROBE_SHARE * 2.0)
    assert per_day[-1] > 3 * per_day[0] > 0
    few = [histories[0]] * 39 + [histories[-1]]  # one saturated page in 40, 10 visits a day
    probed = plan(few, 10.0, Policy.OPTIMAL, estimator=Estimator.POINT)[-1]
    assert probed == pytest.approx(1 / (40 / 10.0 / 8))  # every half day


def test_revisit_order_puts_the_most_overdue_first() -> None:
    order = revisit_order({"a": 1.0, "b": 0.1, "c": 0.0, "d": 0.5}, {"a": 9.0, "b": -5.0, "d": 9.5}, now=10.0)
    assert order == ["b", "a", "d"]  # b: 1.5 intervals since its visit, a: 1, d: 0.25; c: never due


def test_the_estimators_give_the_values_of_their_formulas_computed_by_hand() -> None:
    # Regular intervals, Cho and Garcia-Molina's bias-corrected -ln((n - X + 0.5) / (n + 0.5)) / I:
    # X = 2 of n = 4 daily revisits: -ln(2.5 / 4.5) = ln 1.8;
    # X = n = 3 every 2 days: -ln(0.5 / 3.5) / 2 = ln 7 / 2.
    assert estimate_rate([1.0] * 4, [True, False, True, False]) == pytest.approx(0.5877866649021191, rel=1e-9)
    assert estimate_rate([2.0] * 3, [True] * 3) == pytest.approx(0.9729550745276566, rel=1e-9)
    # Irregular intervals, the maximum likelihood: Σ_changed t / (e^(λt) - 1) = Σ_unchanged t.
    # Changed after 1 day, unchanged after 2: 1 / (e^λ - 1) = 2, λ = ln 1.5.
    assert estimate_rate([1.0, 2.0], [True, False]) == pytest.approx(0.4054651081081644, rel=1e-9)
    # Changed after 1 day twice, unchanged after 3: 2 / (e^λ - 1) = 3, λ = ln(5/3).
    assert estimate_rate([1.0, 1.0, 3.0], [True, True, False]) == pytest.approx(0.5108256237659907, rel=1e-9)


def test_the_optimal_visit_rates_equalise_the_marginal_freshness() -> None:
    # Cho and Garcia-Molina's solution: every revisited page has the same ∂F/∂f = μ, where
    # ∂F/∂f = (1 - (1 + λ/f) e^(-λ/f)) / λ; a page with 1/λ ≤ μ is not revisited.
    rates = np.array([0.05, 0.3, 1.0, 2.0, 40.0])
    per_day = visit_rates(rates, 1.5, Policy.OPTIMAL)
    seen = per_day > 0
    x = rates[seen] / per_day[seen]
    marginal = (1 - (1 + x) * np.exp(-x)) / rates[seen]
    assert marginal == pytest.approx(np.full(seen.sum(), marginal[0]), rel=1e-6)
    assert not seen[-1] and 1 / rates[-1] <= marginal[0]
    # And nothing nearby does better: moving a little budget between two pages loses freshness.
    def mean_fresh(f: np.ndarray) -> float:
        with np.errstate(divide="ignore"):
            return float(freshness(rates, np.where(f > 0, 1 / f, np.inf)).mean())

    moved = per_day.copy()
    moved[0] += 0.01
    moved[2] -= 0.01
    assert mean_fresh(moved) < mean_fresh(per_day)
