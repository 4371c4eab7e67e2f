"""One-to-one assignment: as many pairs as possible, then the cheapest.

Both association steps of the paper need it: every field keeps at least one text
(layout), and every field with an entry above the threshold gets an attribute when
an alternative exists (match). A Hungarian algorithm (Kuhn-Munkres with potentials,
O(n²m)) on a matrix where forbidden pairs cost more than any set of allowed ones.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["assign"]


def assign(cost: Sequence[Sequence[float | None]]) -> list[tuple[int, int]]:
    """Pairs (row, column), each row and column used at most once, ``None`` forbidden.

    Among the assignments with the most allowed pairs, returns one of least total
    cost. Costs must be non-negative. The result is sorted by row.
    """
    rows = len(cost)
    cols = len(cost[0]) if rows else 0
    if not rows or not cols:
        return []
    allowed = [c for row in cost for c in row if c is not None]
    if not allowed:
        return []
    # A forbidden pair costs more than any difference allowed pairs can make, so a
    # matching with one more allowed pair always wins.
    big = (max(allowed) + 1.0) * (min(rows, cols) + 1)
    transpose = rows > cols
    n, m = (cols, rows) if transpose else (rows, cols)

    def at(i: int, j: int) -> float:
        c = cost[j][i] if transpose else cost[i][j]
        return big if c is None else c

    inf = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    p = [0] * (m + 1)  # p[j]: the row matched to column j (1-based, 0 = none)
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            delta = inf
            j1 = 0
            ui0 = u[i0]
            for j in range(1, m + 1):
                if not used[j]:
                    cur = at(i0 - 1, j - 1) - ui0 - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    pairs = []
    for j in range(1, m + 1):
        if p[j]:
            i, jj = p[j] - 1, j - 1
            r, c = (jj, i) if transpose else (i, jj)
            if cost[r][c] is not None:
                pairs.append((r, c))
    return sorted(pairs)
