"""Revisit plans on each page's posterior over its change rate (empirical Bayes).

A point estimate of a page's change rate throws away how sure it is. A page visited every
ten days that changed at every visit may change once a week or ten times a day: its
likelihood is flat over that whole range, and any single number planned on is a guess.
Here each page keeps the whole distribution its history allows, and the distribution of
rates *across the crawl's pages* (the prior) is learned from every page's history at once:

1. **Likelihood** of a page's history at each rate λ of a log grid (Poisson changes): a
   revisit after t days that found the page unchanged has probability e^(−λt); one that
   found it changed, 1 − e^(−λt); one that found it changed *and* dates its last change s
   days before the visit (Last-Modified) has density λ·e^(−λs) (no change in the last s
   days, one at s). These are the likelihoods the estimators of Cho and Garcia-Molina
   maximise ("Estimating frequency of change", ACM TOIT 2003).
2. **Prior**: the nonparametric maximum-likelihood estimate of the mixing distribution
   (Kiefer and Wolfowitz 1956), weights on the grid fitted by EM (Laird 1978): each
   iteration sets every weight to the mean over pages of that grid point's posterior
   probability. The crawl's own histories, nothing assumed about their shape.
3. **Posterior** of each page: prior × likelihood, normalised.
4. **Plan**: a page visited f times a day has expected freshness
   E[(f/λ)(1 − e^(−λ/f))] under its posterior; a mixture of concave functions of f, so
   still concave, and the optimal policy's water-filling applies unchanged: every visited
   page gets the f where its marginal gain E[g(λ/f)/λ] equals a common μ (g(x) =
   1 − (1 + x)e^(−x)), pages whose first visit gains less than μ (E[1/λ] ≤ μ) none, and μ
   is bisected until the visits sum to the budget.

With a posterior concentrated on one rate this is the optimal policy on that rate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]

# Change rates the prior is fitted on (changes per day): once in ~3 years to ~700 a day,
# 10 points a decade. Rates outside are lumped at the ends: the plan treats them alike anyway
# (never worth more than the floor, or too fast for any budget).
GRID = np.geomspace(1e-3, 1e3, 61)
EM_ITERATIONS = 200  # EM for the NPMLE converges slowly but each step is two matrix-vector products
# The prior is a distribution over 61 rates: this many pages' histories pin it down, and a
# store of 100,000 documents fits it in a fifth of the time.
PRIOR_SAMPLE = 20_000
# Visit rates (visits per day) on which each page's marginal gain is tabulated: once in
# ~270 years to 1,000 times a day, 40 points a decade, interpolated in log-log between them.
_FREQS = np.geomspace(1e-5, 1e3, 321)
_BISECTIONS = 80


class Observed(Protocol):
    """What a page's revisits saw (``revisit.History`` has these)."""

    @property
    def gaps(self) -> tuple[float, ...]: ...
    @property
    def changed(self) -> tuple[bool, ...]: ...
    @property
    def since_change(self) -> tuple[float | None, ...]: ...


def log_likelihoods(histories: Sequence[Observed], grid: Array = GRID) -> Array:
    """log P(history | λ) for each page (rows) at each rate of ``grid`` (columns), up to a
    constant per page."""
    lam = np.asarray(grid, dtype=float)
    out = np.zeros((len(histories), lam.size))
    rows: list[int] = []
    changed_gaps: list[float] = []
    for i, h in enumerate(histories):
        since = h.since_change if len(h.since_change) == len(h.gaps) else (None,) * len(h.gaps)
        unchanged = dated = exposure = 0.0
        for gap, c, s in zip(h.gaps, h.changed, since, strict=True):
            if not c:
                unchanged += gap
            elif s is not None:
                dated += 1
                exposure += max(s, 1 / 86_400)  # an HTTP date's resolution: a second
            else:
                rows.append(i)
                changed_gaps.append(gap)
        out[i] = dated * np.log(lam) - lam * (unchanged + exposure)
    if rows:
        terms = np.log(-np.expm1(-np.outer(changed_gaps, lam)))
        np.add.at(out, np.asarray(rows), terms)
    return out


def fit_prior(loglik: Array, iterations: int = EM_ITERATIONS) -> Array:
    """Weights on the grid maximising Π_pages Σ_k w_k L_ik (the NPMLE), by EM from uniform weights."""
    n, k = loglik.shape
    if n == 0:
        return np.full(k, 1 / k)
    lik = np.exp(loglik - loglik.max(axis=1, keepdims=True))
    w = np.full(k, 1 / k)
    for _ in range(iterations):
        # The mean posterior of each grid point, w_k · Σ_i L_ik / (Σ_j w_j L_ij) / n, as two
        # matrix-vector products: no n × k posterior matrix is built at each step.
        w = w * (lik.T @ (1 / (lik @ w))) / n
    return np.asarray(w / w.sum(), dtype=float)


def posteriors(histories: Sequence[Observed], grid: Array = GRID) -> Array:
    """Each page's posterior over ``grid`` (rows sum to 1), under the prior fitted to all of them."""
    loglik = log_likelihoods(histories, grid)
    # A page with no revisit yet says nothing about the prior (its likelihood is flat).
    informative = np.flatnonzero([bool(h.gaps) for h in histories])
    # Past PRIOR_SAMPLE pages, every k-th one fits it: a reproducible sample, the same in every run.
    informative = informative[::max(1, math.ceil(informative.size / PRIOR_SAMPLE))]
    prior = fit_prior(loglik[informative]) if informative.size else np.full(len(grid), 1 / len(grid))
    post = np.exp(loglik - loglik.max(axis=1, keepdims=True)) * prior
    return np.asarray(post / post.sum(axis=1, keepdims=True), dtype=float)


def posterior_means(post: Array, grid: Array = GRID) -> Array:
    return np.asarray(post @ np.asarray(grid, dtype=float), dtype=float)


def expected_freshness(post: Array, interval: Array, grid: Array = GRID) -> Array:
    """E[F(λ, I)] per page under its posterior, for visits every ``interval`` days."""
    lam = np.asarray(grid, dtype=float)
    gap = np.asarray(interval, dtype=float)[:, None]
    x = lam[None, :] * gap
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        fresh = np.where(np.isinf(gap), 0.0, -np.expm1(-x) / x)
    return np.asarray((post * fresh).sum(axis=1), dtype=float)


def _marginals(post: Array, grid: Array) -> npt.NDArray[np.float32]:
    """dE[F]/df per page (rows) at each visit rate of _FREQS (columns): E[g(λ/f)/λ]."""
    lam = np.asarray(grid, dtype=float)
    x = lam[None, :] / _FREQS[:, None]
    gain = -np.expm1(-x) - x * np.exp(-x)  # g(x) = 1 − (1 + x)e^(−x), exact for small x
    # float32: the table is the plan's largest array (1.3 KB a page), and interpolation
    # between its columns errs far more than 7 digits do.
    table = (gain / lam[None, :]).T.astype(np.float32)
    return np.asarray(post.astype(np.float32) @ table, dtype=np.float32)


def _rates_at(marg: npt.NDArray[np.float32], first: Array, log_mu: float) -> Array:
    """Each page's f with E[g(λ/f)/λ] = μ, interpolated in log-log on _FREQS; 0 where even the
    first visit gains less than μ (E[1/λ] ≤ μ)."""
    mu = math.exp(log_mu)
    above = (marg >= mu).sum(axis=1)  # marginals fall with f: how many tabulated f gain ≥ μ
    out = np.zeros(marg.shape[0])
    top = above >= _FREQS.size
    out[top] = _FREQS[-1]
    inside = (above > 0) & ~top
    j = above[inside]
    rows = np.flatnonzero(inside)
    hi, lo = np.log(marg[rows, j - 1].astype(float)), np.log(marg[rows, j].astype(float))
    share = np.where(hi > lo, (hi - log_mu) / np.where(hi > lo, hi - lo, 1.0), 0.0)
    logf = np.log(_FREQS[j - 1]) + share * (np.log(_FREQS[j]) - np.log(_FREQS[j - 1]))
    out[rows] = np.exp(logf)
    # Below the table's first rate: still worth a visit if the very first one gains more than μ.
    low = (above == 0) & (first > mu)
    out[low] = _FREQS[0]
    return out


def optimal_rates(post: Array, budget: float, grid: Array = GRID) -> Array:
    """Visits per day per page maximising the sum of expected freshness under the posteriors,
    summing to ``budget``."""
    n = post.shape[0]
    if n == 0:
        return np.zeros(0)
    lam = np.asarray(grid, dtype=float)
    marg = _marginals(post, grid)
    first = post @ (1 / lam)  # the marginal gain of a page's first visits: E[1/λ]
    lo, hi = math.log(float(marg[:, -1].min()) * 0.5 + 1e-300), math.log(float(first.max()))
    for _ in range(_BISECTIONS):
        mid = (lo + hi) / 2
        if _rates_at(marg, first, mid).sum() > budget:
            lo = mid
        else:
            hi = mid
    found = _rates_at(marg, first, hi)
    spent = found.sum()
    return found * (budget / spent) if spent > 0 else np.full(n, budget / n)
