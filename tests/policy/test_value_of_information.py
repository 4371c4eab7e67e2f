"""The value of information of probing a saturated page (deepbot.policy.posterior.probe_values)
and the posterior plan that spends probes where it is positive (deepbot.policy.revisit)."""

from __future__ import annotations

import numpy as np
import pytest

from deepbot.policy.posterior import GRID, plan_values, probe_values
from deepbot.policy.revisit import KG_SHARE, History, Policy, plan

SLOW, FAST = 20, 50  # GRID[20] = 0.1, GRID[50] = 100 changes a day


def test_the_grid_points_used_here() -> None:
    assert GRID[SLOW] == pytest.approx(0.1) and GRID[FAST] == pytest.approx(100.0)


def test_a_page_whose_rate_is_known_gains_nothing_from_probes() -> None:
    known = np.zeros((1, GRID.size))
    known[0, SLOW] = 1.0
    # No information: the value does not grow with the days it could be used for.
    short = probe_values(known, 0.5, 0.2, 8, 10.0, 7.0)
    long = probe_values(known, 0.5, 0.2, 8, 1000.0, 7.0)
    assert long == pytest.approx(short)


def test_probes_that_tell_the_two_rates_apart_are_worth_perfect_information() -> None:
    # Half a chance of 0.1 changes a day, half of 100: eight probes 0.1 day apart all find a
    # change at 100 a day (1 - e^(-10) each) and nearly never at 0.1 a day, so afterwards the
    # rate is known. Their value over 100 days is then the expected value of perfect
    # information: 100 × (½ V(0.1) + ½ V(100) - V(mixture)), V the best plan's net value a day.
    mixed = np.zeros((1, GRID.size))
    mixed[0, [SLOW, FAST]] = 0.5
    mu = 0.5
    points = np.zeros((2, GRID.size))
    points[0, SLOW] = points[1, FAST] = 1.0
    each = plan_values(points, mu)
    perfect = 100 * (each.mean() - plan_values(mixed, mu)[0])
    assert perfect > 1.0  # knowing matters: 0.1 a day is worth visits, 100 a day is not
    got = probe_values(mixed, mu, 0.1, 8, 100.0, 0.0)[0]  # no epoch: the information alone
    assert got == pytest.approx(perfect, rel=1e-3)
    # One probe a week apart tells the two apart far less (both likely changed).
    assert probe_values(mixed, mu, 7.0, 1, 100.0, 0.0)[0] < 0.5 * perfect


def _crawl() -> list[History]:
    rng = np.random.default_rng(3)
    calm = [History((7.0,) * 4, tuple(bool(x) for x in rng.random(4) < 0.3)) for _ in range(300)]
    saturated = [History((7.0,) * 4, (True,) * 4) for _ in range(100)]
    return calm + saturated


def test_the_plan_probes_only_saturated_pages_within_its_share() -> None:
    stories = _crawl()
    budget = 80.0  # calm pages get a visit every 4 days, saturated ones worth finding out
    per_day = plan(stories, budget, Policy.OPTIMAL, horizon=56.0, epoch=7.0)
    assert per_day.sum() == pytest.approx(budget)
    without = plan(stories, budget, Policy.OPTIMAL)
    probed = per_day > without.max()  # a probe visits more often than any planned page
    assert probed.any()
    assert not probed[:300].any()  # never a page whose revisits found it unchanged
    assert per_day[probed].sum() <= KG_SHARE * budget + 1e-9
    # With no plan after this one, information is worth nothing: no probes, the plain plan.
    assert plan(stories, budget, Policy.OPTIMAL, horizon=7.0, epoch=7.0) == pytest.approx(without)
