"""Plans on each page's posterior over its change rate (deepbot.policy.posterior), and the
recrawl planning from the store as the simulation does."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from deepbot.crawl.recrawl import choose_revisits
from deepbot.frontier import SqliteRouteStore
from deepbot.policy.posterior import GRID, fit_prior, log_likelihoods, optimal_rates, posteriors
from deepbot.policy.revisit import History, Policy, freshness, history_of, plan, revisit_order, visit_rates
from deepbot.routes import Document, Via, route_key
from deepbot.store import SqliteDocumentStore

DAY0 = datetime(2026, 11, 1, tzinfo=UTC)


def test_the_likelihood_of_a_history_computed_by_hand() -> None:
    # Changed after 2 days (undated), unchanged after 1, changed after 3 with its last change
    # half a day before the visit: log L = ln(1 - e^(-2λ)) - λ + ln λ - 0.5 λ.
    story = History((2.0, 1.0, 3.0), (True, False, True), (None, None, 0.5))
    got = log_likelihoods([story], np.array([0.5, 2.0]))[0]
    assert got == pytest.approx([-1.9018223260, -2.3253382663], rel=1e-9)
    # Without dates the changed revisits count only as "changed": ln(1 - e^(-2λ)) - λ + ln(1 - e^(-3λ)).
    plain = log_likelihoods([History((2.0, 1.0, 3.0), (True, False, True))], np.array([0.5]))[0, 0]
    assert plain == pytest.approx(math.log(1 - math.exp(-1)) - 0.5 + math.log(1 - math.exp(-1.5)))


def test_the_prior_fitted_to_the_crawl_finds_its_two_kinds_of_page() -> None:
    # Half the pages change once in ten days, half five times a day; daily revisits.
    rng = np.random.default_rng(5)
    rates = [0.1] * 150 + [5.0] * 150
    stories = [History((1.0,) * 30, tuple(bool(x) for x in rng.poisson(lam, 30) > 0)) for lam in rates]
    prior = fit_prior(log_likelihoods(stories))
    assert prior.sum() == pytest.approx(1.0)
    slow = prior[(GRID > 0.05) & (GRID < 0.2)].sum()
    fast = prior[GRID > 2.5].sum()  # changed at (nearly) every daily visit: anything fast fits
    assert slow == pytest.approx(0.5, abs=0.05) and fast == pytest.approx(0.5, abs=0.05)


def test_a_posterior_on_one_rate_plans_as_the_optimal_policy_on_that_rate() -> None:
    picks = np.array([10, 20, 25, 30, 35, 40, 45, 50])  # 0.01 to 100 changes a day
    post = np.zeros((picks.size, GRID.size))
    post[np.arange(picks.size), picks] = 1.0
    got = optimal_rates(post, 2.0)
    want = visit_rates(GRID[picks], 2.0, Policy.OPTIMAL)
    assert got.sum() == pytest.approx(2.0)
    assert got == pytest.approx(want, rel=0.02, abs=1e-6)
    assert got[-1] == 0.0  # a hundred changes a day: no visit keeps it fresh


def test_a_saturated_page_is_planned_on_the_rates_its_history_allows() -> None:
    # A crawl of mostly slow pages: a page that changed at each of two weekly revisits may
    # well be one of them changing a bit faster, and gets visits (fewer than the pages whose
    # rate is known: it may be a fast one too); one that changed at each of
    # twenty revisits an hour apart changes too often for any budget: the floor only.
    calm = [History((7.0, 7.0, 7.0), (False, True, False))] * 40
    weekly = History((7.0, 7.0), (True, True))
    hourly = History((1 / 24,) * 20, (True,) * 20)
    per_day = plan([*calm, weekly, hourly], 4.2, Policy.OPTIMAL)
    assert per_day.sum() == pytest.approx(4.2)
    floor = 4.2 / 42 / 8
    assert per_day[-1] == pytest.approx(floor)
    assert per_day[0] > per_day[-2] > 4 * floor
    post = posteriors([*calm, weekly, hourly])
    slow = post[:, GRID < 1].sum(axis=1)  # the chance it changes less than once a day
    assert slow[0] == pytest.approx(1.0) and 0.5 < slow[-2] < 0.95 and slow[-1] < 1e-9


def test_the_plan_beats_the_point_estimate_on_a_simulated_crawl() -> None:
    # 400 pages, rates log-uniform 1/60 to 10 a day, five uniform revisits each at random
    # phases: the expected freshness (true rates) of the posterior plan is above the point one's.
    rng = np.random.default_rng(11)
    true = np.exp(rng.uniform(math.log(1 / 60), math.log(10), 400))
    stories = []
    for lam in true:
        gaps = tuple(float(g) for g in rng.uniform(5, 15, 5))
        stories.append(History(gaps, tuple(bool(rng.poisson(lam * g) > 0) for g in gaps)))
    fresh = {}
    for estimator in ("posterior", "point"):
        per_day = plan(stories, 40.0, Policy.OPTIMAL, estimator=estimator)
        fresh[estimator] = float(freshness(true, np.where(per_day > 0, 1 / per_day, np.inf)).mean())
    assert fresh["posterior"] > fresh["point"]


def _doc(path: str, days: float, text: str) -> Document:
    url = f"https://shop.example{path}"
    return Document(route_key=route_key(Via.LINK, url), url=url, final_url=url, text=text,
                    nseql=f'navigate "{url}"', via=Via.LINK, fetched_at=DAY0 + timedelta(days=days))


def test_a_recrawl_plans_from_the_stores_histories_as_the_simulation_does(tmp_path: Path) -> None:
    # Simulated pages (Poisson changes, irregular visits) written to a store as a crawl's
    # visits: the recrawl's histories are the simulation's, and its order is the one the
    # simulation's plan (the same function, default estimator) gives.
    rng = np.random.default_rng(2)
    stories: list[History] = []
    last: dict[str, float] = {}
    store = tmp_path / "s.sqlite"
    with SqliteDocumentStore(store) as documents, SqliteRouteStore(store) as frontier:
        for i, lam in enumerate(np.exp(rng.uniform(math.log(0.02), math.log(5), 30))):
            at, version, gaps, seen = 0.0, 0, [], []
            documents.upsert(_doc(f"/p{i}", at, "v0"))
            for _ in range(int(rng.integers(2, 7))):
                gap = float(rng.uniform(0.5, 6))
                changed = bool(rng.poisson(lam * gap) > 0)
                at, version = at + gap, version + changed
                documents.upsert(_doc(f"/p{i}", at, f"v{version}"))
                gaps.append(gap)
                seen.append(changed)
            stories.append(History(tuple(gaps), tuple(seen)))
            last[f"/p{i}"] = at
        stored = {doc.url.rsplit("/", 1)[1]: doc.id for doc in documents.iter_documents(html=False)}
        visits: dict[str, list] = {}
        for visit in documents.visits():
            visits.setdefault(visit.doc_id, []).append(visit)
        for i, story in enumerate(stories):
            mine = history_of(visits[stored[f"p{i}"]])
            assert mine.changed == story.changed and mine.gaps == pytest.approx(story.gaps, abs=1e-6)
        now = DAY0 + timedelta(days=max(last.values()) + 1)
        chosen = choose_revisits(documents, frontier, policy="optimal", budget=10, now=now)
    rates = plan(stories, 10.0, Policy.OPTIMAL)
    epoch = min(last.values())
    order = revisit_order({f"/p{i}": float(r) for i, r in enumerate(rates)},
                          {key: at - epoch for key, at in last.items()}, max(last.values()) + 1 - epoch)
    assert [r.route.url.rsplit("/", 1)[1] for r in chosen] == [key.lstrip("/") for key in order[:10]]
