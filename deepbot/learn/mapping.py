"""Site mapping: from the pages a breadth-first walk met, the Target Pages Map.

Vidal et al. (SIGIR 2006, §4.1): every page reached from the entry point is compared
with the sample page; those alike enough (RTDM similarity at or above a threshold) are
*targets*; the paths from the entry point to the targets form the Target Pages Map,
from which the navigation pattern is generated (``patterns.navigation_patterns``).

``SiteMap`` is fed one page at a time (its URL, the URL of the page whose link led to
it, its HTML) in the order a breadth-first walk meets them, so each page keeps the
first, shortest path to it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Set
from dataclasses import dataclass, field

from deepbot.learn.patterns import (
    K,
    NavigationPattern,
    backward,
    group_urls,
    navigation_patterns,
    repeating_targets,
    skippable,
)
from deepbot.learn.rtdm import Classes, PageTree, similarity, tree_of

THRESHOLD = 0.8  # RTDM similarity to the sample from which a page is a target
# Steps (sets of pages tried) the search for the fewest links to the targets may take
# before it gives bounds instead (``SiteMap.least_links``).
SEARCH_STEPS = 20_000
# A pattern whose last level repeats over the targets makes every rerun read every target
# again, for its links (new targets may be linked from old ones alone). It is taken for
# fewer links only where the best pattern without it traverses more than this many links
# per target (most of Vidal et al.'s generated crawlers, Table 3, stay within it), or for more targets.
REPEAT_TARGETS_ABOVE = 1.2
MAX_LISTER_GROUPS = 20  # groups of pages linking to targets tried as the way to them, most targets first


@dataclass
class SiteMap:
    """The pages met so far, their parents, and which are targets."""

    sample_html: str
    threshold: float = THRESHOLD
    parents: dict[str, str | None] = field(default_factory=dict)  # url → the page that linked to it first
    scores: dict[str, float] = field(default_factory=dict)  # url → similarity to the sample
    # url → every link of the page (not only those to pages first met there): the site's graph,
    # on which candidate patterns are run before one is chosen (``traversal``)
    links: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # (page, click address) → the URL the click led to: script-driven steps of the graph
    clicks: dict[tuple[str, str], str] = field(default_factory=dict)
    steps: dict[str, str] = field(default_factory=dict)  # url → the click address it was first reached by
    _classes: Classes = field(default_factory=Classes, repr=False)
    _sample: PageTree | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not 0 < self.threshold <= 1:
            raise ValueError(f"the threshold must be in (0, 1], not {self.threshold}")
        self._sample = tree_of(self.sample_html, self._classes)

    def add(self, url: str, parent: str | None, html: str, links: Iterable[str] = ()) -> float:
        """Record a page and its links; return its similarity to the sample. A page met again
        keeps its first parent (breadth-first: the shortest path)."""
        self.parents.setdefault(url, parent)
        self.links.setdefault(url, tuple(dict.fromkeys(links)))
        if url not in self.scores:
            assert self._sample is not None
            self.scores[url] = round(similarity(self._sample, tree_of(html, self._classes)), 4)
        return self.scores[url]

    def add_click(self, page: str, address: str, url: str) -> None:
        """Record that clicking ``address`` on ``page`` led to ``url`` (added with ``add``)."""
        if (page, address) not in self.clicks:
            self.clicks[page, address] = url
            self.links[page] = (*self.links.get(page, ()), address)
        if self.parents.get(url) == page:  # the click is the way the walk first met it
            self.steps.setdefault(url, address)

    def _to(self, page: str, link: str) -> str:
        """Where a link or click of ``page`` leads."""
        return self.clicks.get((page, link), link)

    def _reached(self, page: str) -> set[str]:
        """The pages the links and clicks of ``page`` lead to."""
        return {self._to(page, link) for link in self.links.get(page, ())}

    def is_target(self, url: str) -> bool:
        return self.scores.get(url, 0.0) >= self.threshold

    @property
    def targets(self) -> list[str]:
        return [url for url in self.scores if self.is_target(url)]

    def path(self, url: str) -> list[str]:
        """The URLs of the links followed from the entry point to ``url`` (the entry point
        itself left out), or [] for the entry point."""
        out: list[str] = []
        seen: set[str] = set()
        node: str | None = url
        while node is not None and self.parents.get(node) is not None and node not in seen:
            seen.add(node)
            out.append(self.steps.get(node, node))
            node = self.parents[node]
        return out[::-1]

    def target_paths(self) -> Iterator[list[str]]:
        for url in self.targets:
            path = self.path(url)
            if path:  # the entry point as a target has no link to learn
                yield path

    @property
    def entry(self) -> str | None:
        """The page the mapping started from (the one without a parent)."""
        return next((url for url, parent in self.parents.items() if parent is None), None)

    def traversal(self, pattern: NavigationPattern) -> Traversal:
        """What the generated crawler would do on the mapped site (Vidal et al.'s Figure 9,
        as ``PatternProcessor`` runs it): breadth-first from the entry, at each level only
        the links the pattern follows, each URL once; a page of the last level is a target
        if it is built like the sample, and only a target's links are followed when that
        level repeats. A page the mapping never fetched counts as traversed, with no links
        and not a target."""
        entry = self.entry
        if entry is None:
            return Traversal(frozenset(), 0, ())
        last = len(pattern.levels) - 1
        matched = [0] * len(pattern.levels)
        queue: deque[tuple[str, int]] = deque([(entry, -1)])
        seen = {entry}
        reached: set[str] = set()
        while queue:
            url, level = queue.popleft()
            if level == last:
                if not self.is_target(url):
                    continue  # fetched to be rejected: its links are not followed
                reached.add(url)
                if not pattern.over_targets:
                    continue
            for link in self.links.get(url, ()):
                nxt = pattern.next_level(level, link)
                dest = self._to(url, link)
                if nxt is None or dest in seen or (nxt == level and backward(url, link)):
                    continue
                seen.add(dest)
                matched[nxt] += 1
                queue.append((dest, nxt))
        return Traversal(frozenset(reached), len(seen) - 1, tuple(matched))

    def lister_paths(self) -> Iterator[list[list[str]]]:
        """For each group of alike pages that link to targets (a listing's pages, a hub's,
        the targets themselves), a path to every target one of them links to: the shortest
        path to the one nearest the entry, then the link to the target. The shortest paths
        alone (``target_paths``) take whichever listing the breadth-first walk met first,
        and a listing met late (a pager's tenth page) is never on them."""
        entry = self.entry
        if entry is None:
            return
        # Breadth-first over every link, not only the first: the shortest path to each page.
        before: dict[str, str | None] = {entry: None}
        step: dict[str, str] = {}  # page → the link or click that reached it
        queue = deque([entry])
        while queue:
            url = queue.popleft()
            for link in self.links.get(url, ()):
                dest = self._to(url, link)
                if dest not in before and dest in self.scores:
                    before[dest], step[dest] = url, link
                    queue.append(dest)

        def way(url: str) -> list[str]:
            out: list[str] = []
            node: str | None = url
            while node is not None and node != entry:
                out.append(step[node])
                node = before[node]
            return out[::-1]

        targets = set(self.targets) - {entry}
        listers = [url for url in before if targets & self._reached(url)]
        # Grouped as the paper groups URLs (K = 2), and more narrowly (K = 1): /page/N/ and
        # /tag/NAME/ are alike at K = 2, and a pattern through both fetches the tag pages
        # for targets the pager already lists.
        groups = {tuple(g): None for k in (1, K) for g in group_urls(listers, k)}
        ranked = sorted(groups, key=lambda g: -len(targets.intersection(set().union(*map(self._reached, g)))))
        for group in ranked[:MAX_LISTER_GROUPS]:  # in breadth-first order: the nearest lister first
            paths: dict[str, list[str]] = {}
            for lister in group:
                for link in self.links[lister]:
                    dest = self._to(lister, link)
                    if dest in targets and dest not in paths and dest != lister:
                        paths[dest] = [*way(lister), link]
            yield list(paths.values())


    def least_links(self, *, leaves: bool = False) -> Least | None:
        """The fewest links any crawler from the entry must traverse to fetch every target
        the mapping reached, on the mapped link graph (None without an entry). ``leaves``:
        with no link followed from a target, as a navigation pattern does (its last level
        is the targets); otherwise a target's links count as ways to others too (a music
        guide's "similar artists")."""
        entry = self.entry
        if entry is None:
            return None
        graph = {page: set() if leaves and page != entry and self.is_target(page)
                 else self._reached(page) & self.scores.keys() for page in self.scores}

        def reached(keep: set[str]) -> set[str]:
            return _reach(graph, entry, keep)

        pages = set(graph)
        targets = reached(pages) & set(self.targets) - {entry}
        others = [page for page in reached(pages) if page != entry and page not in targets]
        # A page every way to some target runs through must be fetched by any crawler.
        forced = {page for page in others if not targets <= reached(pages - {page})}
        keep = {entry, *targets, *others}
        # Drop every other page without which the targets are still reached, those that
        # link to fewest targets first: what is left is a way to all of them.
        for page in sorted(others, key=lambda p: (len(graph[p] & targets), p)):
            if page not in forced and targets <= reached(keep - {page}):
                keep.discard(page)
        # Then the fewest pages to add to the targets and the forced pages, by a search in
        # order of size (iterative deepening), within a budget: past it, the sizes tried
        # all fell short, a higher lower bound.
        base = frozenset({entry, *targets, *forced})
        low = len(targets) + len(forced)
        high = len(keep) - 1
        if not leaves:  # a way with no link from a target is a way too
            bound = self.least_links(leaves=True)
            high = min(high, bound.high if bound is not None else high)
        for size in range(high - low):
            try:
                if _addable(graph, entry, base, size):
                    return Least(low + size, low + size, len(targets))
            except _Spent:
                return Least(low + size, high, len(targets))
        return Least(high, high, len(targets))


def _reach(graph: dict[str, set[str]], entry: str, keep: Set[str]) -> set[str]:
    """The pages reached from ``entry`` through the pages of ``keep`` alone."""
    seen, queue = {entry}, deque([entry])
    while queue:
        for dest in graph[queue.popleft()]:
            if dest in keep and dest not in seen:
                seen.add(dest)
                queue.append(dest)
    return seen


class _Spent(Exception):
    """The search for the fewest links spent its budget."""


def _addable(graph: dict[str, set[str]], entry: str, base: frozenset[str], size: int) -> bool:
    """Whether ``size`` pages added to ``base`` make every page of it reachable from
    ``entry`` through its pages alone. Each step adds one page that any solution holds:
    a link into a page no chosen page links to, else into what is not reached yet (the
    first page off the reached ones on a way to it is one not chosen)."""
    into: dict[str, set[str]] = {}
    for page, dests in graph.items():
        for dest in dests:
            into.setdefault(dest, set()).add(page)
    failed: dict[frozenset[str], int] = {}  # chosen pages → the most pages left that did not do
    tried = 0

    def search(chosen: frozenset[str], left: int) -> bool:
        nonlocal tried
        if failed.get(chosen, -1) >= left:
            return False
        tried += 1
        if tried > SEARCH_STEPS:
            raise _Spent
        seen = _reach(graph, entry, chosen)
        missing = chosen - seen
        if not missing:
            return True
        options: set[str] | None = None
        if left:
            for page in missing:
                sources = into.get(page, set())
                if not sources & chosen and (options is None or len(sources) < len(options)):
                    options = sources
            if options is None:
                options = {dest for page in seen for dest in graph[page]} - chosen
            if any(search(chosen | {page}, left - 1) for page in sorted(options)):
                return True
        failed[chosen] = left
        return False

    return search(base, size)


@dataclass(frozen=True)
class Least:
    """The fewest links a crawler from the entry must traverse (pages fetched but the entry,
    as Vidal et al. count) to fetch every target of a mapped site. At least ``low``: the
    targets, and each page that every way to one of them runs through. At most ``high``:
    the pages of one way to all of them, left when every page the targets can do without
    is dropped. When the two are equal, that is the minimum; otherwise the minimum is
    between them (finding it is a Steiner tree problem)."""

    low: int
    high: int
    targets: int

    @property
    def exact(self) -> bool:
        return self.low == self.high

    def per_target(self) -> str:
        """The figure per target, as the bench prints it: one number when it is exact."""
        low, high = (round(n / max(self.targets, 1), 2) for n in (self.low, self.high))
        return f"{low:.2f}" if self.exact else f"{low:.2f}–{high:.2f}"


@dataclass(frozen=True)
class Traversal:
    """A pattern run on the mapped site: the targets it reaches, the links it traverses
    (every page fetched but the entry), and the links each level followed."""

    reached: frozenset[str]
    traversed: int
    matched: tuple[int, ...]


@dataclass(frozen=True)
class Choice:
    """The navigation pattern chosen from a map, what it does on the mapped site, and what
    the other candidates reach that it does not."""

    pattern: NavigationPattern
    run: Traversal
    missed: frozenset[str]  # targets of the map the pattern does not reach
    other_shapes: int  # other candidates that reach some of them


def choose_pattern(sitemap: SiteMap) -> Choice | None:
    """The paper's candidates come from the shortest paths to the targets; the paths
    through each group of pages that link to targets give more (a pager the walk met
    late). Each also with its last level repeating over the targets (a target's links to
    related targets). Each runs on the mapped site: the one that reaches most targets is
    taken, and of those the one that traverses fewest links (hubs whose lists overlap cost
    more than the pager that lists each target once); but one repeating over the targets
    only where no other reaches as many within ``REPEAT_TARGETS_ABOVE`` links per target.
    None when no target has a path."""
    candidates = navigation_patterns(list(sitemap.target_paths()))
    for paths in sitemap.lister_paths():
        candidates.extend(navigation_patterns(paths))
    candidates.extend(skippable(candidates))
    # After the others: on a tie, a pattern that follows no link from a target is kept.
    candidates.extend(repeating_targets(candidates))
    if not candidates:
        return None
    runs = [sitemap.traversal(pattern) for pattern in candidates]
    # Ties keep the first: the paper's own choice when no other does better.
    pick = min(range(len(candidates)), key=lambda n: (-len(runs[n].reached), runs[n].traversed))
    plain = [n for n, pattern in enumerate(candidates) if not pattern.over_targets]
    if candidates[pick].over_targets and plain:
        best = min(plain, key=lambda n: (-len(runs[n].reached), runs[n].traversed))
        found = len(runs[best].reached)
        if found == len(runs[pick].reached) and runs[best].traversed <= REPEAT_TARGETS_ABOVE * found:
            pick = best
    run = runs[pick]
    missed = frozenset(sitemap.targets) - run.reached - {sitemap.entry}
    others = {p.levels for p, r in zip(candidates, runs, strict=True) if r.reached - run.reached}
    return Choice(candidates[pick], run, missed, len(others))
