"""How alike two pages are built: RTDM, the restricted top-down tree edit distance.

de Castro Reis, Golgher, da Silva and Laender, "Automatic web news extraction using tree
edit distance" (WWW 2004), as Vidal et al. use it to tell target pages from the rest
("Structure-driven crawler generation by example", SIGIR 2006).

A page is its tree of tags, text nodes as ``#text`` leaves; what the text says does not
count, only where it stands. The edit operations are restricted top-down: a subtree is
inserted or deleted whole, at the cost of its size, and a node may be relabelled (cost
1) while its children are matched in order. Two steps, as in the paper:

1. identical subtrees are found first: every subtree gets an *equivalence class* (its
   label and its children's classes, interned bottom-up, linear in the nodes), shared by
   both trees, so an identical pair costs 0 without looking inside;
2. the mapping of two children lists is an edit distance over them (Yang's algorithm),
   recursing only into pairs of different classes, memoised by class pair, and skipped
   when the size difference alone makes them dearer than deleting one and inserting the
   other.

``similarity`` normalises the distance to [0, 1]: 1 - distance / (|T1| + |T2|), where
|T1| + |T2| is the cost of deleting one page and inserting the other.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from selectolax.lexbor import LexborHTMLParser, LexborNode

# Not part of what a person sees as the page's structure.
_SKIP = frozenset({"script", "style", "noscript", "template", "head", "-comment", "!doctype", "link", "meta"})
TEXT = "#text"
MAX_NODES = 20_000  # a hostile or giant page is cut here (in document order): bounded work
_VECTOR_CELLS = 400  # children lists this long (m × n cells) are mapped with numpy
_CLASS_PAIRS = 400  # ... when their children fall in at most this many pairs of classes
MAX_DEPTH = 256  # deeper nesting is cut: no real layout needs it, and recursion stays bounded


@dataclass(frozen=True, eq=False)
class PageTree:
    """A page's tag tree in preorder: node 0 is the root.

    ``classes`` are equivalence-class ids in the ``Classes`` the tree was built with;
    two trees compare only when built with the same one.
    """

    labels: tuple[str, ...]
    children: tuple[tuple[int, ...], ...]
    sizes: tuple[int, ...]
    classes: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.labels)


class Classes:
    """Interns (label, children's classes): identical subtrees of any tree get one id."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, tuple[int, ...]], int] = {}

    def of(self, label: str, children: tuple[int, ...]) -> int:
        key = (label, children)
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self._ids)
        return found


def tree_of(html: str, classes: Classes, *, max_nodes: int = MAX_NODES) -> PageTree:
    """The tag tree of an HTML page (its ``<body>``, or the whole document if it has none).

    Bounded: at most ``max_nodes`` nodes (in document order) and MAX_DEPTH levels, so a
    hostile page costs bounded time and the distance's recursion stays shallow.
    """
    parser = LexborHTMLParser(html)
    root = parser.body or parser.root
    labels: list[str] = ["body" if root is None else (root.tag or "body")]
    kids: list[list[int]] = [[]]
    # Explicit stack of (node, parent index, depth), children pushed in reverse: preorder.
    stack: list[tuple[LexborNode, int, int]] = []
    if root is not None:
        stack.extend((c, 0, 1) for c in reversed(list(root.iter(include_text=True))))
    while stack and len(labels) < max_nodes:
        node, parent, depth = stack.pop()
        tag = node.tag or ""
        if tag == "-text":
            if (node.text_content or "").strip():
                kids[parent].append(len(labels))
                labels.append(TEXT)
                kids.append([])
            continue
        if tag in _SKIP or tag.startswith("-") or depth > MAX_DEPTH:
            continue
        index = len(labels)
        kids[parent].append(index)
        labels.append(tag)
        kids.append([])
        stack.extend((c, index, depth + 1) for c in reversed(list(node.iter(include_text=True))))
    return _finish(labels, kids, classes)


def _finish(labels: list[str], kids: list[list[int]], classes: Classes) -> PageTree:
    n = len(labels)
    sizes = [1] * n
    ids = [0] * n
    for i in range(n - 1, -1, -1):  # preorder reversed: children before parents
        sizes[i] += sum(sizes[c] for c in kids[i])
        ids[i] = classes.of(labels[i], tuple(ids[c] for c in kids[i]))
    return PageTree(tuple(labels), tuple(tuple(k) for k in kids), tuple(sizes), tuple(ids))


def distance(a: PageTree, b: PageTree) -> int:
    """The restricted top-down edit distance between two trees built with one ``Classes``."""
    memo: dict[tuple[int, int], int] = {}

    def rtdm(i: int, j: int) -> int:
        ci, cj = a.classes[i], b.classes[j]
        if ci == cj:
            return 0
        key = (ci, cj)
        found = memo.get(key)
        if found is not None:
            return found
        cost = (a.labels[i] != b.labels[j]) + _children(a.children[i], b.children[j])
        memo[key] = cost
        return cost

    def _children(xs: tuple[int, ...], ys: tuple[int, ...]) -> int:
        # Edit distance over two ordered children lists; deleting/inserting a child
        # costs its subtree's size, matching two costs their own distance.
        if len(xs) * len(ys) >= _VECTOR_CELLS:
            by_class = _class_costs(xs, ys)
            if by_class is not None:
                return _children_vectorised(xs, ys, by_class)
        size_a, size_b = a.sizes, b.sizes
        prev = [0] * (len(ys) + 1)
        for k, y in enumerate(ys, 1):
            prev[k] = prev[k - 1] + size_b[y]
        for x in xs:
            sx = size_a[x]
            cur = [prev[0] + sx]
            for k, y in enumerate(ys, 1):
                best = min(prev[k] + sx, cur[k - 1] + size_b[y])
                diag = prev[k - 1]
                # Matching costs at least the size difference: skip pairs that cannot win.
                if diag + abs(sx - size_b[y]) < best:
                    best = min(best, diag + rtdm(x, y))
                cur.append(best)
            prev = cur
        return prev[-1]

    def _class_costs(xs: tuple[int, ...], ys: tuple[int, ...]) -> dict[tuple[int, int], int] | None:
        """The distance of every pair of children classes, when there are few (a template's
        repeated items); None when there are too many to be worth it."""
        firsts_a = {a.classes[x]: x for x in reversed(xs)}
        firsts_b = {b.classes[y]: y for y in reversed(ys)}
        if len(firsts_a) * len(firsts_b) > _CLASS_PAIRS:
            return None
        return {(ca, cb): rtdm(x, y) for ca, x in firsts_a.items() for cb, y in firsts_b.items()}

    def _children_vectorised(xs: tuple[int, ...], ys: tuple[int, ...],
                             by_class: dict[tuple[int, int], int]) -> int:
        # Row by row, the left-to-right dependency cur[k] = min(A[k], cur[k-1] + size(y_k))
        # is a running minimum: cur[k] = S[k] + min over t ≤ k of (A[t] - S[t]), S the
        # prefix sums of the sizes of ys (with A[0] = prev[0] + size(x)).
        col_class = {cb: n for n, cb in enumerate(sorted({b.classes[y] for y in ys}))}
        row_class = {ca: n for n, ca in enumerate(sorted({a.classes[x] for x in xs}))}
        table = np.empty((len(row_class), len(col_class)), dtype=np.int64)
        for (ca, cb), cost in by_class.items():
            table[row_class[ca], col_class[cb]] = cost
        cols = np.fromiter((col_class[b.classes[y]] for y in ys), dtype=np.int64, count=len(ys))
        sizes_b = np.fromiter((b.sizes[y] for y in ys), dtype=np.int64, count=len(ys))
        prefix = np.concatenate(([0], np.cumsum(sizes_b)))
        prev = prefix.copy()
        for x in xs:
            sx = a.sizes[x]
            match = prev[:-1] + table[row_class[a.classes[x]], cols]
            best = np.minimum(prev[1:] + sx, match)
            start = np.concatenate(([prev[0] + sx], best))
            prev = prefix + np.minimum.accumulate(start - prefix)
        return int(prev[-1])

    return rtdm(0, 0)


def similarity(a: PageTree, b: PageTree) -> float:
    """1 for trees of one structure, falling to 0 for trees with nothing in common."""
    total = len(a) + len(b)
    return 1.0 - distance(a, b) / total if total else 1.0
