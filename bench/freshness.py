"""A simulated web for the revisit policies (deepbot.policy.revisit).

Each page changes as a Poisson process with a known rate, drawn log-uniformly between
``--min-rate`` and ``--max-rate`` changes per day. A crawler may make ``--budget`` visits
per day in all. Three policies share that budget: uniform, proportional and optimal.
Each runs twice: on the true rates (an oracle), and on rates it estimated itself from a
first ``--learn`` days of uniform visits (what a real crawl can do). Every policy then
visits each page at fixed intervals with a random phase, for ``--days`` days.

Freshness and age are measured on the simulated timeline, not taken from the formulas:
a copy is fresh from a visit until the page's next change, and stale (its age growing)
from then until the next visit. The formula's value is printed beside the measured one.

With ``--last-modified SHARE``, that share of the pages' servers send Last-Modified: a
revisit that finds such a page changed also learns when its last change was, and the
estimates use it (the likelihood of the dated change; ``estimate_rate_dated``).

The optimal policy plans on each page's posterior over its rate (empirical Bayes,
deepbot.policy.posterior); ``--estimator point`` plans on one estimated rate per page
with probes, as before 2026-11-28. The proportional policy always uses point estimates.

    python bench/freshness.py                 # 2,000 pages, 200 visits/day, 8 weeks
    python bench/freshness.py --json          # one JSON object
    python bench/freshness.py --last-modified 0.5

The survey's claim (uniform ≥ proportional in freshness) and the goal (optimal
≥ 1.1 × uniform at the same budget) are checked and printed; the exit code is 0 either way.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from deepbot.policy.revisit import Estimator, History, Policy, freshness, plan, visit_rates


@dataclass(frozen=True)
class Row:
    policy: str
    rates: str  # "true" or "estimated"
    freshness: float  # measured, time-averaged over pages and days
    freshness_formula: float  # the expectation for the rates the policy chose
    age_days: float  # measured mean age
    visits_per_day: float  # measured
    unvisited_pages: int  # pages the policy never revisits


def _changes(rng: np.random.Generator, rate: float, end: float) -> np.ndarray:
    return np.sort(rng.uniform(0.0, end, rng.poisson(rate * end)))


def _score(changes: np.ndarray, fetches: np.ndarray, start: float, end: float) -> tuple[float, float]:
    """Fresh days and the integral of age (day²) of one page over [start, end).

    ``fetches`` are sorted and the first is at or before ``start`` (the copy in hand then).
    """
    fetches = fetches[fetches < end]
    seg_end = np.append(fetches[1:], end)
    idx = np.searchsorted(changes, fetches, side="right")
    first = np.full(fetches.size, np.inf)
    later = idx < changes.size
    first[later] = changes[idx[later]]  # the first change after each fetch
    lo = np.maximum(fetches, start)
    keep = seg_end > lo
    lo, hi, first = lo[keep], seg_end[keep], first[keep]
    stale_from = np.clip(first, lo, hi)
    fresh = float((stale_from - lo).sum())
    stale = first < hi
    aged = float((((hi[stale] - first[stale]) ** 2 - (stale_from[stale] - first[stale]) ** 2) / 2).sum())
    return fresh, aged


@dataclass
class _Page:
    changes: np.ndarray
    fetches: list[float]
    gaps: list[float]
    seen: list[bool]
    dated: bool = False  # its server sends Last-Modified: a changed visit knows its last change
    since: list[float | None] = field(default_factory=list)

    def fetch(self, at: float) -> None:
        last = self.fetches[-1]
        within = self.changes[(self.changes > last) & (self.changes <= at)]
        self.gaps.append(at - last)
        self.seen.append(bool(within.size))
        self.since.append(float(at - within[-1]) if self.dated and within.size else None)
        self.fetches.append(at)

    def history(self) -> History:
        return History(tuple(self.gaps), tuple(self.seen), tuple(self.since) if self.dated else ())

    def copy(self) -> _Page:
        return _Page(self.changes, list(self.fetches), list(self.gaps), list(self.seen), self.dated,
                     list(self.since))


def _learned(rng: np.random.Generator, changes: list[np.ndarray], budget: float, learn: float,
             dated: np.ndarray) -> list[_Page]:
    """Every page fetched at day 0, then visited uniformly (random phases) until ``learn``."""
    step = len(changes) / budget
    pages = []
    for times, lm in zip(changes, dated, strict=True):
        page = _Page(times, [0.0], [], [], bool(lm))
        for at in np.arange(rng.uniform(0, step), learn, step):
            page.fetch(float(at))
        pages.append(page)
    return pages


def _run(rng: np.random.Generator, pages: list[_Page], true: np.ndarray, policy: Policy, estimated: bool,
         budget: float, learn: float, horizon: float, epoch: float,
         estimator: Estimator = Estimator.POSTERIOR) -> tuple[np.ndarray, int]:
    """Visit under ``policy`` from ``learn`` to ``horizon``, planning again every ``epoch`` days
    (on re-estimated rates when ``estimated``). Returns the last plan's visit rates and visits made."""
    visits = 0
    per_day = np.zeros(len(pages))
    for begin in np.arange(learn, horizon, epoch):
        stop = min(begin + epoch, horizon)
        if estimated:
            per_day = plan([p.history() for p in pages], budget, policy, estimator=estimator)
        else:
            per_day = visit_rates(true, budget, policy)
        for page, f in zip(pages, per_day, strict=True):
            if f <= 0:
                continue
            interval = 1 / f
            at = page.fetches[-1] + interval
            if at < begin:  # overdue under the new plan: spread the catch-up over the interval
                at = begin + rng.uniform(0, min(interval, epoch))
            while at < stop:
                page.fetch(at)
                visits += 1
                at += interval
    return per_day, visits


def simulate(pages: int, budget: float, days: float, learn: float, min_rate: float, max_rate: float,
             seed: int, epoch: float = 7.0, last_modified: float = 0.0,
             estimator: Estimator = Estimator.POSTERIOR) -> list[Row]:
    rng = np.random.default_rng(seed)
    true = np.exp(rng.uniform(math.log(min_rate), math.log(max_rate), pages))
    horizon = learn + days
    changes = [_changes(rng, float(rate), horizon) for rate in true]
    # Which servers send Last-Modified: drawn from a stream of its own, so the pages, their
    # changes and the visits' phases are the same whatever the share.
    dated = np.random.default_rng([seed, 1]).uniform(size=pages) < last_modified
    learned = _learned(rng, changes, budget, learn, dated)
    rows = []
    for estimated in (False, True):
        for policy in Policy:
            state = [p.copy() for p in learned]
            per_day, visits = _run(rng, state, true, policy, estimated, budget, learn, horizon, epoch,
                                   estimator)
            fresh = aged = 0.0
            for page in state:
                f, a = _score(page.changes, np.array(page.fetches), learn, horizon)
                fresh, aged = fresh + f, aged + a
            with np.errstate(divide="ignore"):
                intervals = np.where(per_day > 0, 1 / per_day, np.inf)
            expected = float(freshness(true, intervals).mean())
            rows.append(Row(
                policy.value, "estimated" if estimated else "true", round(fresh / (pages * days), 4),
                round(expected, 4), round(aged / (pages * days), 3), round(visits / days, 1),
                int((per_day == 0).sum())))
    return rows


def _checks(rows: list[Row]) -> list[tuple[str, bool, str]]:
    out = []
    for rates in ("true", "estimated"):
        by = {r.policy: r for r in rows if r.rates == rates}
        uni, prop, opt = by["uniform"], by["proportional"], by["optimal"]
        out.append((f"uniform ≥ proportional ({rates} rates)", uni.freshness >= prop.freshness,
                    f"{uni.freshness:.3f} vs {prop.freshness:.3f}"))
        ratio = opt.freshness / uni.freshness if uni.freshness else math.inf
        out.append((f"optimal ≥ 1.1 × uniform ({rates} rates)", ratio >= 1.1, f"{ratio:.2f}×"))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--budget", type=float, default=200.0, help="visits per day, all pages together")
    parser.add_argument("--days", type=float, default=56.0, help="days measured after learning")
    parser.add_argument("--learn", type=float, default=14.0, help="days of uniform visits to estimate rates")
    parser.add_argument("--min-rate", type=float, default=1 / 60, help="changes/day of the stillest pages")
    parser.add_argument("--max-rate", type=float, default=10.0, help="changes per day of the busiest pages")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--last-modified", type=float, default=0.0, metavar="SHARE",
                        help="share of pages whose server sends Last-Modified (0–1): a revisit that finds "
                             "such a page changed knows when it last changed")
    parser.add_argument("--estimator", choices=[e.value for e in Estimator], default=Estimator.POSTERIOR,
                        help="how the optimal policy reads the histories: each page's posterior over "
                             "its rate (empirical Bayes, the default) or one rate per page, with probes")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.pages < 1 or args.budget <= 0 or args.days <= 0 or args.learn <= 0:
        parser.error("--pages, --budget, --days and --learn must be > 0")
    if not 0 <= args.last_modified <= 1:
        parser.error("--last-modified is a share, from 0 to 1")
    began = time.perf_counter()
    rows = simulate(args.pages, args.budget, args.days, args.learn, args.min_rate, args.max_rate, args.seed,
                    last_modified=args.last_modified, estimator=Estimator(args.estimator))
    checks = _checks(rows)
    seconds = round(time.perf_counter() - began, 2)
    if args.json:
        json.dump({"pages": args.pages, "budget_per_day": args.budget, "days": args.days,
                   "learn_days": args.learn, "last_modified_share": args.last_modified,
                   "estimator": args.estimator,
                   "rows": [asdict(r) for r in rows], "seconds": seconds,
                   "checks": [{"check": c, "holds": ok, "value": v} for c, ok, v in checks]}, sys.stdout)
        print()
        return 0
    print(f"{args.pages} pages, rates {args.min_rate:.3g}–{args.max_rate:.3g} changes/day (log-uniform), "
          f"budget {args.budget:g} visits/day, {args.learn:g} days learning + {args.days:g} days measured, "
          f"{args.last_modified:.0%} of servers send Last-Modified, optimal on the {args.estimator} "
          "estimator")
    print(f"{'policy':<13}{'rates':<11}{'freshness':>10}{'formula':>9}{'age (days)':>12}"
          f"{'visits/day':>12}{'never revisited':>17}")
    for r in rows:
        print(f"{r.policy:<13}{r.rates:<11}{r.freshness:>10.3f}{r.freshness_formula:>9.3f}{r.age_days:>12.2f}"
              f"{r.visits_per_day:>12.1f}{r.unvisited_pages:>17}")
    for check, ok, value in checks:
        print(f"{'holds' if ok else 'FAILS':<6} {check}: {value}")
    print(f"({seconds} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
