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

from collections.abc import Iterator
from dataclasses import dataclass, field

from deepbot.learn.rtdm import Classes, PageTree, similarity, tree_of

THRESHOLD = 0.8  # RTDM similarity to the sample from which a page is a target


@dataclass
class SiteMap:
    """The pages met so far, their parents, and which are targets."""

    sample_html: str
    threshold: float = THRESHOLD
    parents: dict[str, str | None] = field(default_factory=dict)  # url → the page that linked to it first
    scores: dict[str, float] = field(default_factory=dict)  # url → similarity to the sample
    _classes: Classes = field(default_factory=Classes, repr=False)
    _sample: PageTree | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not 0 < self.threshold <= 1:
            raise ValueError(f"the threshold must be in (0, 1], not {self.threshold}")
        self._sample = tree_of(self.sample_html, self._classes)

    def add(self, url: str, parent: str | None, html: str) -> float:
        """Record a page; return its similarity to the sample. A page met again keeps its
        first parent (breadth-first: the shortest path)."""
        self.parents.setdefault(url, parent)
        if url not in self.scores:
            assert self._sample is not None
            self.scores[url] = round(similarity(self._sample, tree_of(html, self._classes)), 4)
        return self.scores[url]

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
            out.append(node)
            node = self.parents[node]
        return out[::-1]

    def target_paths(self) -> Iterator[list[str]]:
        for url in self.targets:
            path = self.path(url)
            if path:  # the entry point as a target has no link to learn
                yield path
