"""When to revisit a stored page: change-rate estimates and the revisit policies.

A page is *fresh* while the stored copy equals the live one, and its *age* is how long
the live page has differed from the copy (0 while fresh). For a page whose changes
follow a Poisson process of rate λ (changes per day), revisited every I days, the
time-averaged freshness and age are (Cho and Garcia-Molina, "Effective page refresh
policies for web crawlers", ACM TODS 2003)::

    F(λ, I) = (1 - e^(-λI)) / (λI)
    A(λ, I) = I/2 - 1/λ + (1 - e^(-λI)) / (λ²I)

Three policies share a budget of B visits per day among N pages:

- ``uniform``: every page every N/B days.
- ``proportional``: visits in proportion to each page's change rate.
- ``optimal``: the visit rates that maximise the mean freshness under the budget. F is
  concave in the visit rate f = 1/I, so at the optimum every revisited page has the same
  marginal gain dF/df = μ, and a page that changes so often that even its first visit
  gains less than μ (1/λ ≤ μ) is not revisited at all: the policy *penalises* pages that
  change too often, which is why uniform beats proportional (Cho and Garcia-Molina).

Change rates come from a page's history (``estimate_rate``): a revisit tells only
*whether* the page changed since the previous one, never how many times, so counting
detected changes underestimates λ. The estimator of Cho and Garcia-Molina ("Estimating
frequency of change", ACM TOIT 2003) corrects that bias. Where the server also says when
the page last changed (``Last-Modified``), the same paper's estimator on last-modified
dates (``estimate_rate_dated``) uses that time, and a page that changed at every visit is
no longer a mystery: the time since its last change says how often it changes.

By default the optimal policy plans on each page's *posterior* over its rate rather than
on one estimate (``Estimator.POSTERIOR``, deepbot.policy.posterior: empirical Bayes).

Sources of the formulas, and how they were checked (tests/policy/test_revisit.py and
test_last_modified.py compute each on values worked by hand):

- F and A above, and the optimal policy's condition (every revisited page at the same
  marginal freshness ∂F/∂f = μ, none for a page whose first visit gains less): Cho and
  Garcia-Molina, "Effective page refresh policies for web crawlers", ACM TODS 28(4), 2003.
  The same Lagrangian, solved per page for a given multiplier and searched in the
  multiplier, is written out in Frontera's (crawl-frontier) "Optimal revisiting algorithm"
  (docs/source/topics/scheduler-optimal.rst, as stored in the yuanbei/frontera repository)
  for another objective, f·(1 − e^(−λ/f)) per page; the derivation carries over.
- ``estimate_rate`` on regular intervals: −ln((n − X + 0.5) / (n + 0.5)) / I, Cho and
  Garcia-Molina, "Estimating frequency of change", ACM TOIT 3(3), 2003 (the 0.5s keep it
  finite at X = n and reduce its bias); Frontera's page above has the uncorrected maximum
  likelihood, ln(1 + X / (n − X)) / I.
- ``estimate_rate`` on irregular intervals: the maximum likelihood of the same paper, the
  root of Σ_changed t / (e^(λt) − 1) = Σ_unchanged t; Frontera's page derives the same
  equation from the same likelihood.
- ``estimate_rate_dated``: the same paper, section 6 (last-modified dates), as written in
  its docstring.

The paper's full text was not at hand (the library holds its opening pages); where its
formulas are quoted here they were checked against the likelihoods they maximise (written
out again in deepbot.policy.posterior) and against the sources above.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from urllib.parse import urlsplit

import numpy as np
import numpy.typing as npt

from deepbot.policy.posterior import optimal_rates, posteriors
from deepbot.store.base import Change, Visit

Rates = npt.NDArray[np.float64]

_DAY = 86_400.0
_STAMPED = timedelta(minutes=1)  # a Last-Modified this close to the visit dates the response, not a change
_BISECTIONS = 80  # halvings: enough for float64 precision over the ranges searched below


class Policy(StrEnum):
    UNIFORM = "uniform"
    PROPORTIONAL = "proportional"
    OPTIMAL = "optimal"


class Estimator(StrEnum):
    """How the optimal policy reads the pages' histories (``plan``)."""

    POSTERIOR = "posterior"  # each page's posterior over its rate, the prior fitted to all (empirical Bayes)
    POINT = "point"  # one estimated rate per page, saturated pages probed (before 2026-11-28)


def freshness(rate: Rates | float, interval: Rates | float) -> Rates:
    """Expected time-averaged freshness, in [0, 1], of pages changing at ``rate`` per day and
    revisited every ``interval`` days (an infinite interval: never revisited, freshness 0;
    a rate of 0: always fresh)."""
    lam = np.asarray(rate, dtype=float)
    gap = np.asarray(interval, dtype=float)
    x = lam * gap
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        fresh = np.where(x > 0, -np.expm1(-x) / x, 1.0)
    return np.where(np.isinf(gap) & (lam > 0), 0.0, fresh)


def age(rate: Rates | float, interval: Rates | float) -> Rates:
    """Expected time-averaged age in days of the same pages (how long the copy has been stale)."""
    lam = np.asarray(rate, dtype=float)
    gap = np.asarray(interval, dtype=float)
    x = lam * gap
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        aged = gap / 2 - 1 / lam + (-np.expm1(-x)) / (lam * x)
    return np.where(lam > 0, np.where(np.isinf(gap), np.inf, np.maximum(aged, 0.0)), 0.0)


def visit_rates(rates: Sequence[float] | Rates, budget: float, policy: Policy | str) -> Rates:
    """Visits per day for each page under ``policy``, summing to ``budget`` visits per day.

    ``rates`` are the pages' change rates (changes per day; estimates are fine).
    """
    lam = np.asarray(rates, dtype=float)
    if lam.ndim != 1 or (lam < 0).any() or not np.isfinite(lam).all():
        raise ValueError("change rates must be finite and ≥ 0")
    if budget <= 0:
        raise ValueError(f"the budget must be > 0 visits per day, not {budget}")
    n = lam.size
    if n == 0:
        return lam.copy()
    policy = Policy(policy)
    if policy is Policy.UNIFORM:
        return np.full(n, budget / n)
    if policy is Policy.PROPORTIONAL:
        total = lam.sum()
        return np.full(n, budget / n) if total == 0 else budget * lam / total
    return _optimal(lam, budget)


def _g_inverse(target: Rates) -> Rates:
    """x with g(x) = 1 - (1 + x)·e^(-x) = target, for targets in (0, 1); g rises from 0 to 1."""
    lo = np.zeros_like(target)
    hi = np.full_like(target, 1.0)
    grow = 1 - (1 + hi) * np.exp(-hi) < target
    while grow.any():  # bracket: double hi until g(hi) ≥ target
        hi = np.where(grow, hi * 2, hi)
        grow = 1 - (1 + hi) * np.exp(-hi) < target
    for _ in range(_BISECTIONS):
        mid = (lo + hi) / 2
        below = 1 - (1 + mid) * np.exp(-mid) < target
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return (lo + hi) / 2


def _rates_at(lam: Rates, mu: float) -> Rates:
    """Visit rates where each page's marginal freshness gain equals ``mu``.

    With x = λ/f, dF/df = g(x)/λ; so g(x) = μλ, and pages with μλ ≥ 1 get no visits.
    """
    visited = (lam > 0) & (mu * lam < 1)
    out = np.zeros_like(lam)
    if visited.any():
        out[visited] = lam[visited] / _g_inverse(mu * lam[visited])
    return out


def _optimal(lam: Rates, budget: float) -> Rates:
    changing = lam > 0
    if not changing.any():  # nothing ever changes: any spread is optimal
        return np.full(lam.size, budget / lam.size)
    # Σ f(μ) falls as μ rises; bisect μ in log space between "everything" and "nothing".
    lo, hi = math.log(1e-12), math.log(1 / lam[changing].min())
    for _ in range(_BISECTIONS):
        mid = (lo + hi) / 2
        if _rates_at(lam, math.exp(mid)).sum() > budget:
            lo = mid
        else:
            hi = mid
    found = _rates_at(lam, math.exp(hi))
    spent = found.sum()
    return found * (budget / spent) if spent > 0 else np.full(lam.size, budget / lam.size)


def estimate_rate(intervals: Sequence[float], changed: Sequence[bool]) -> float:
    """Changes per day of a page from its revisits: the days between two visits, and whether
    the page had changed at the second one.

    Regular intervals use the bias-corrected estimator of Cho and Garcia-Molina,
    λ = -ln((n - X + 0.5) / (n + 0.5)) / I for X changes detected in n visits I days apart.
    Irregular intervals use the maximum-likelihood estimate, the λ that solves
    Σ_changed t / (e^(λt) - 1) = Σ_unchanged t; when every visit saw a change (no finite
    maximum), the corrected estimator on the mean interval stands in.

    A page never seen to change is given half a change over the whole span observed
    (X = 0.5 above), not 0: it may change yet, and a rate of 0 would stop its visits for good.
    """
    if len(intervals) != len(changed):
        raise ValueError("one 'changed' flag per interval")
    tally: Counter[tuple[float, bool]] = Counter()
    for t, c in zip(intervals, changed, strict=True):
        gap = float(t)
        if gap <= 0 or not math.isfinite(gap):
            raise ValueError("intervals must be finite and > 0 days")
        tally[gap, bool(c)] += 1
    n = sum(tally.values())
    if n == 0:
        return 0.0
    detected = sum(k for (_, c), k in tally.items() if c)
    gaps = {gap for gap, _ in tally}
    mean = sum(gap * k for (gap, _), k in tally.items()) / n
    if detected == 0:
        return -math.log(n / (n + 0.5)) / mean
    if detected == n or max(gaps) - min(gaps) <= 1e-9 * mean:
        return -math.log((n - detected + 0.5) / (n + 0.5)) / mean
    return _mle(tally)


def estimate_rate_dated(intervals: Sequence[float], changed: Sequence[bool],
                        since_change: Sequence[float | None]) -> float:
    """Changes per day of a page whose server says when it last changed (Last-Modified).

    ``since_change[i]`` is, for a revisit that found the page changed, the days from the
    page's last change to that visit (None for an unchanged revisit: it is not needed).
    The estimator of Cho and Garcia-Molina for last-modified dates ("Estimating frequency of
    change", ACM TOIT 2003, section 6), for X changes detected in n revisits::

        λ = (X - 1 - X / (n · ln(1 - X/n))) / T

    where T sums, over the revisits, the time the page was *seen* not to change: the days
    since its last change for a changed revisit, the whole interval for an unchanged one
    (the likelihood of the observations is λ^X · e^(-λT), so X/T is the maximum-likelihood
    estimate; the numerator corrects its bias, from X - 1 when every revisit found a change
    to X when few did). With X = n = 1 the numerator is 0; the maximum-likelihood 1/T stands
    in, since one change dated is still evidence of the rate. With X = 0 nothing is dated,
    and ``estimate_rate`` (half a change over the span) stands in.
    """
    if not len(intervals) == len(changed) == len(since_change):
        raise ValueError("one 'changed' flag and one 'since_change' per interval")
    n = len(intervals)
    detected = sum(bool(c) for c in changed)
    if detected == 0:
        return estimate_rate(intervals, changed)
    exposure = 0.0
    for gap, c, since in zip(intervals, changed, since_change, strict=True):
        if not (0 < gap < math.inf):
            raise ValueError("intervals must be finite and > 0 days")
        if c and (since is None or not 0 <= since <= gap):
            raise ValueError("a changed revisit needs the days since the last change, within its interval")
        exposure += float(since) if c and since is not None else float(gap)
    # HTTP dates have a resolution of one second: a change dated at the visit itself was
    # seen unchanged for up to that long, and a T of 0 would give an infinite rate.
    exposure = max(exposure, 1 / _DAY)
    if detected == n:
        if n == 1:
            return estimate_rate(intervals, changed)
        numerator = n - 1.0
    else:
        numerator = detected - 1 - detected / (n * math.log(1 - detected / n))
    return numerator / exposure


def _mle(tally: Counter[tuple[float, bool]]) -> float:
    unchanged = sum(gap * k for (gap, c), k in tally.items() if not c)
    seen = [(gap, k) for (gap, c), k in tally.items() if c]

    def excess(lam: float) -> float:  # falls from +∞ (λ→0) to -unchanged (λ→∞)
        return sum(k * gap / math.expm1(lam * gap) for gap, k in seen) - unchanged

    lo, hi = 1e-12, 1.0
    while excess(hi) > 0:
        hi *= 2
    for _ in range(_BISECTIONS):
        mid = math.sqrt(lo * hi)  # geometric: λ spans orders of magnitude
        if excess(mid) > 0:
            lo = mid
        else:
            hi = mid
    return math.sqrt(lo * hi)


@dataclass(frozen=True)
class History:
    """What the revisits of one page saw: days between two visits, and whether it had changed."""

    gaps: tuple[float, ...] = ()
    changed: tuple[bool, ...] = ()
    # Per revisit, the days from the page's last change (its Last-Modified) to the visit,
    # where the server said it; empty when it never did.
    since_change: tuple[float | None, ...] = ()

    @property
    def dated(self) -> bool:
        """Every revisit that found a change knows when the change was (Last-Modified)."""
        return (len(self.since_change) == len(self.changed) and any(self.changed)
                and all(s is not None for s, c in zip(self.since_change, self.changed, strict=True) if c))

    @property
    def dates_changes(self) -> bool:
        """Its server said when the page changed, at least once (Last-Modified)."""
        return any(s is not None for s in self.since_change)

    @property
    def saturated(self) -> bool:
        """Every revisit found a change and none says when: the page changes at least as
        often as it was visited, and how much more often, no estimate can tell."""
        return bool(self.changed) and all(self.changed) and not self.dated

    def rate(self) -> float:
        if self.dated:
            return estimate_rate_dated(self.gaps, self.changed, self.since_change)
        return estimate_rate(self.gaps, self.changed)


PROBE_SHARE = 0.5  # at most this share of the budget goes to probing saturated pages


def plan(histories: Sequence[History], budget: float, policy: Policy | str, *,
         min_interval: float | None = None, estimator: Estimator | str = Estimator.POSTERIOR) -> Rates:
    """Visits per day for each page, from the pages' histories, summing to ``budget``.

    The optimal policy plans on each page's posterior over its change rate by default
    (``Estimator.POSTERIOR``, deepbot.policy.posterior): a page whose revisits all found
    it changed gets the visits that are best on average over the rates its history allows,
    weighted by how common such rates are among the crawl's pages.

    The proportional policy, and the optimal one with ``Estimator.POINT``, run on one
    estimated rate per page (``History.rate``), and first *probe* each saturated page: its
    next visit comes after half its last gap, until a revisit finds it unchanged and its
    rate can be estimated. Without probes, a page that changes ten times a day and one
    that changes once a week look alike when both are visited weekly. Probing stops at
    ``min_interval`` days (by default an eighth of the uniform interval, N/B/8): a page
    that changes more often than that is one the optimal policy skips anyway. Probes take
    at most PROBE_SHARE of the budget of the pages whose server does not date their changes
    (Last-Modified): a dated page's rate is estimated without probes
    (``estimate_rate_dated``). The rest is shared by the policy.

    Either way every page keeps a visit at least every 8 uniform intervals (N/B × 8 days).
    """
    policy = Policy(policy)
    if policy is Policy.OPTIMAL and histories and Estimator(estimator) is Estimator.POSTERIOR:
        return _plan_posterior(histories, budget)
    rates = np.array([h.rate() for h in histories], dtype=float)
    if policy is Policy.UNIFORM or not histories:
        return visit_rates(rates, budget, policy)
    floor = len(histories) / budget / 8 if min_interval is None else min_interval
    probe = np.array([1 / floor if h.saturated and sum(g <= floor * 1.01 for g in h.gaps) < 2 else 0.0
                      for h in histories])
    # A page whose server dates its changes needs no probe: its share of the budget is not
    # spent on probing the others (with half the servers dating, probes at half the whole
    # budget took it from the dated pages the policy had found worth visiting).
    cap = PROBE_SHARE * budget * sum(not h.dates_changes for h in histories) / len(histories)
    if probe.sum() > cap:
        probe *= cap / probe.sum()
    out: Rates = np.maximum(probe, _least(budget, len(histories)))
    rest = probe == 0
    if rest.any():
        spare = budget - out.sum()
        out[rest] += visit_rates(rates[rest], spare, policy) if spare > 0 else 0.0
    return out


def _least(budget: float, pages: int) -> float:
    """The visits a day every page keeps: a rate estimated wrong (or a page whose pace
    changed) is found out, where a rate of 0 would hide it for good. (Without it the
    posterior plan measured 0.00–0.01 higher in the simulation, whose pages never change pace.)"""
    return budget / pages / 8


def _plan_posterior(histories: Sequence[History], budget: float) -> Rates:
    least = _least(budget, len(histories))
    # No probes: a saturated page's posterior already says how likely each rate is, and
    # probes on top of it measured 0.94× (half the budget) and 1.02× (a fifth) against 1.03×.
    return least + optimal_rates(posteriors(histories), budget - least * len(histories))


def revisit_order(visit_rate: Mapping[str, float], last_visit: Mapping[str, float], now: float) -> list[str]:
    """Page keys by how overdue they are under their visit rates (most overdue first).

    Times are in days; a page with a visit rate of 0 is never due. Pages of the same
    overdueness keep their key order, so a schedule is reproducible.
    """
    due: list[tuple[float, str]] = []
    for key, rate in visit_rate.items():
        if rate <= 0:
            continue
        elapsed = now - last_visit.get(key, -math.inf)
        due.append((-(elapsed * rate), key))  # elapsed intervals: > 1 means overdue
    return [key for _, key in sorted(due)]


def history_of(visits: Sequence[Visit]) -> History:
    """A document's History from its visits in the store (in time order): the days between
    two visits, whether the later one found it changed (or back after it went), and, where
    its server sent Last-Modified, the days from that change to the visit.

    A Last-Modified at or before the previous visit, on a page the fingerprints say changed
    since, describes something else than the text (a template, a file the page is built
    from); one within a minute of the visit (or after it) is most likely the server
    stamping its response with the time it was made, as dynamic pages do, and would make
    any page look as if it changed every second. Either way that revisit is undated, and
    the page's rate comes from the changes alone, as if its server sent no dates.
    """
    gaps: list[float] = []
    changed: list[bool] = []
    since: list[float | None] = []
    for before, after in itertools.pairwise(visits):
        gap = (after.at - before.at).total_seconds() / _DAY
        if gap > 0:  # two visits in one instant (a retried commit) tell nothing
            found = after.change in (Change.CHANGED, Change.NEW)
            gaps.append(gap)
            changed.append(found)
            modified = after.last_modified if found else None
            dated = modified is not None and before.at < modified < after.at - _STAMPED
            since.append((after.at - modified).total_seconds() / _DAY if dated and modified else None)
    # No revisit dated: the same History as a server that never says (since_change empty).
    return History(tuple(gaps), tuple(changed), tuple(since) if any(s is not None for s in since) else ())


@dataclass(frozen=True)
class HostChanges:
    """What the revisits of one host's documents found (``deepbot status``)."""

    documents: int  # with a visit in the history
    revisits: int
    changed: int  # revisits that found a change
    gone: int  # documents found gone
    changes_per_day: float | None  # mean estimated change rate of its revisited documents


def host_changes(visits: Iterable[Visit]) -> dict[str, HostChanges]:
    """Per host (of the documents' URLs), from the store's visits in time order."""
    by_doc: dict[str, list[Visit]] = defaultdict(list)
    for visit in visits:
        by_doc[visit.doc_id].append(visit)
    hosts: dict[str, list[list[Visit]]] = defaultdict(list)
    for seen in by_doc.values():
        hosts[urlsplit(seen[-1].url).netloc].append(seen)
    out = {}
    for host, docs in sorted(hosts.items()):
        stories = [history_of(seen) for seen in docs]
        rates = [story.rate() for story in stories if story.gaps]
        out[host] = HostChanges(
            documents=len(docs), revisits=sum(len(story.gaps) for story in stories),
            changed=sum(sum(story.changed) for story in stories),
            gone=sum(seen[-1].change is Change.GONE for seen in docs),
            changes_per_day=round(sum(rates) / len(rates), 4) if rates else None)
    return out
