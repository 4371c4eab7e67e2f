"""One-to-one assignment: most pairs first, then least cost."""

from __future__ import annotations

from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from deepbot.forms.assign import assign


def brute(cost: list[list[float | None]]) -> tuple[int, float]:
    rows, cols = len(cost), len(cost[0])
    best = (0, 0.0)
    if rows <= cols:
        for perm in permutations(range(cols), rows):
            pairs = [(i, j) for i, j in enumerate(perm) if cost[i][j] is not None]
            score = (len(pairs), -sum(cost[i][j] or 0.0 for i, j in pairs))
            if score > (best[0], -best[1]):
                best = (len(pairs), -score[1])
    else:
        return brute([list(col) for col in zip(*cost, strict=True)])
    return best


def test_the_paper_example() -> None:
    # f2 is the best field for a1 and a2, f1 also fits a1: f1-a1 and f2-a2, not f2-a1 alone
    cost = [[0.2, None], [0.0, 0.1]]  # rows f1, f2; columns a1, a2
    assert assign(cost) == [(0, 0), (1, 1)]


def test_forbidden_and_empty() -> None:
    assert assign([]) == []
    assert assign([[None, None]]) == []
    assert assign([[None], [0.5], [0.1]]) == [(2, 0)]


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda r: st.integers(1, 4).flatmap(
            lambda c: st.lists(
                st.lists(st.one_of(st.none(), st.floats(0, 1)), min_size=c, max_size=c),
                min_size=r,
                max_size=r,
            )
        )
    )
)
def test_matches_brute_force(cost: list[list[float | None]]) -> None:
    pairs = assign(cost)
    assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
    assert all(cost[i][j] is not None for i, j in pairs)
    n, total = brute(cost)
    assert len(pairs) == n
    assert abs(sum(cost[i][j] or 0.0 for i, j in pairs) - total) < 1e-9
