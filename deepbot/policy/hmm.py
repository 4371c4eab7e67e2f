"""Focused crawling that learns paths: the HMM crawler.

Liu, Janssen and Milios's Hidden Markov Model crawler, as improved by Batsakis, Petrakis
and Milios ("Improving the performance of focused web crawlers", §3.3). A page has a
hidden state, its distance in links to the nearest relevant page (level 0: relevant; 1,
2; 3: three or more), and a visible one, the cluster its content falls in (C0: the
relevant pages; C1…Ck: the others, grouped by k-means). Trained on pages whose levels
are known, the model knows how levels follow one another along links (transitions) and
which clusters each level shows (emissions). While crawling, each route carries the
belief over its page's level; reading the page's cluster sharpens it, and one step of
the transitions gives the belief over its links' targets: their priority is the
probability that a link leads to a relevant page. Pages that do not look like the topic
but lead to it (an index, a section front) are followed early for that reason.

The improvement of Batsakis et al. tells apart pages with one cluster sequence: a link's
priority is the mean of that probability and the similarity of the page and the anchor
text to the centroid of the relevant pages.

Training set: a user of the original crawler browsed and labelled pages; here it is an
earlier crawl's store (``--learn-from``), its documents and all the links between them
(read from their HTML, not only the link each was first reached by: a breadth-first
crawl reaches a page by its shortest way, seldom the way that leads on to the topic),
labelled by the topic: a page at least ``topic_threshold`` near it is relevant.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from deepbot.content.postprocess import ProcessContext
from deepbot.policy.structure import link_collections
from deepbot.policy.topic import Topic, terms
from deepbot.routes import canonical_url

LEVELS = 4  # 0, 1, 2 links from a relevant page, and 3 or more
CLUSTERS = 4  # k of the k-means over the pages that are not relevant
_VOCABULARY = 2000  # terms the clusters are computed over: the most frequent
_ITERATIONS = 20


@dataclass(frozen=True)
class TrainingPage:
    url: str
    parent: str | None  # the URL of the page whose link led here, if known
    text: str
    links: tuple[str, ...] = ()  # the URLs it links to (those among the training pages count)


def _edges(pages: list[TrainingPage]) -> set[tuple[str, str]]:
    """The links between training pages: (from, to), each once; and the crawl's own way
    to each page (its parent), which a page's HTML may no longer show."""
    known = {p.url for p in pages}
    edges = {(p.parent, p.url) for p in pages if p.parent in known}
    edges |= {(p.url, target) for p in pages for target in p.links if target in known and target != p.url}
    return edges


def levels(pages: list[TrainingPage], relevant: set[str]) -> dict[str, int]:
    """Each page's distance in links to the nearest relevant page it leads to, at most 3."""
    parents: dict[str, set[str]] = {}
    for source, target in _edges(pages):
        parents.setdefault(target, set()).add(source)
    level = dict.fromkeys((p.url for p in pages), LEVELS - 1)
    queue = deque((url, 0) for url in relevant if url in level)
    for url, _ in queue:
        level[url] = 0
    while queue:  # backwards over the links, breadth-first from every relevant page
        url, distance = queue.popleft()
        for parent in parents.get(url, ()):
            if parent in level and distance + 1 < level[parent]:
                level[parent] = distance + 1
                queue.append((parent, distance + 1))
    return level


def _normalise(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    return np.asarray(np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0))


class PathModel:
    """The trained HMM: clusters (centroids over a vocabulary), transitions, emissions."""

    def __init__(self, vocabulary: list[str], centroids: np.ndarray, initial: np.ndarray,
                 transitions: np.ndarray, emissions: np.ndarray) -> None:
        self.vocabulary = {term: n for n, term in enumerate(vocabulary)}
        self.centroids = centroids  # one unit row per cluster; row 0 is the relevant pages'
        self.initial = initial  # P(level) of a seed
        self.transitions = transitions  # P(child's level | page's level)
        self.emissions = emissions  # P(cluster | level)

    def vector(self, text: str) -> np.ndarray:
        row = np.zeros(len(self.vocabulary))
        for term, n in terms(text).items():
            if term in self.vocabulary:
                row[self.vocabulary[term]] = n
        return _normalise(row)

    def cluster(self, text: str) -> int:
        return int(np.argmax(self.centroids @ self.vector(text)))

    def relevance(self, text: str) -> float:
        """Cosine similarity to the centroid of the relevant pages."""
        return float(self.centroids[0] @ self.vector(text))

    def step(self, belief: np.ndarray, text: str) -> np.ndarray:
        """The belief over a page's level, once its cluster is seen, carried one link on:
        the belief over the level of the pages it links to."""
        seen = belief * self.emissions[:, self.cluster(text)]
        total = seen.sum()
        seen = seen / total if total > 0 else belief
        return np.asarray(seen @ self.transitions)


def _kmeans(rows: np.ndarray, k: int) -> np.ndarray:
    """Spherical k-means (cosine), deterministic: farthest-point seeding from the first row."""
    if len(rows) == 0:
        return np.zeros((0, rows.shape[1]))
    centres = [rows[0]]
    while len(centres) < min(k, len(rows)):
        nearest = np.max(rows @ np.array(centres).T, axis=1)
        centres.append(rows[int(np.argmin(nearest))])
    centroids = np.array(centres)
    for _ in range(_ITERATIONS):
        assigned = np.argmax(rows @ centroids.T, axis=1)
        moved = _normalise(np.array([rows[assigned == c].sum(axis=0) if np.any(assigned == c)
                                     else centroids[c] for c in range(len(centroids))]))
        if np.allclose(moved, centroids):
            break
        centroids = moved
    return centroids


def train(pages: list[TrainingPage], topic: Topic, threshold: float, *, k: int = CLUSTERS) -> PathModel:
    """The HMM of a set of pages and the links between them, labelled by the topic."""
    relevant = {p.url for p in pages if topic.similarity(p.text) >= threshold}
    if not relevant:
        raise ValueError("no page of the training crawl is near the topic: nothing to learn paths to")
    level = levels(pages, relevant)
    counted = [terms(p.text) for p in pages]
    frequency: Counter[str] = Counter()
    for vector in counted:
        frequency.update(vector.keys())
    vocabulary = [term for term, _ in frequency.most_common(_VOCABULARY)]
    index = {term: n for n, term in enumerate(vocabulary)}
    rows = np.zeros((len(pages), len(vocabulary)))
    for n, vector in enumerate(counted):
        for term, count in vector.items():
            if term in index:
                rows[n, index[term]] = count
    rows = _normalise(rows)
    is_relevant = np.array([p.url in relevant for p in pages])
    centroids = np.vstack([_normalise(rows[is_relevant].sum(axis=0)), _kmeans(rows[~is_relevant], k)])
    cluster = np.argmax(rows @ centroids.T, axis=1)
    # Counts with Laplace's +1: a level or a cluster never seen in training is not impossible.
    initial = np.ones(LEVELS)
    transitions = np.ones((LEVELS, LEVELS))
    emissions = np.ones((LEVELS, len(centroids)))
    for n, page in enumerate(pages):
        emissions[level[page.url], cluster[n]] += 1
        if page.parent is None:
            initial[level[page.url]] += 1
    for source, target in _edges(pages):
        transitions[level[source], level[target]] += 1
    return PathModel(vocabulary, centroids, initial / initial.sum(),
                     transitions / transitions.sum(axis=1, keepdims=True),
                     emissions / emissions.sum(axis=1, keepdims=True))


def training_pages(store: Path) -> list[TrainingPage]:
    """The pages of an earlier crawl's store, each with the page whose link led to it."""
    from deepbot.frontier.open import open_route_store
    from deepbot.store.open import open_document_store

    if not store.is_file():
        raise FileNotFoundError("no such store to learn from")
    with open_document_store(store, create=False) as documents, \
            open_route_store(store, recover=False) as routes:
        pages = []
        url_of: dict[str, str] = {}
        parent_of: dict[str, str | None] = {}
        for doc in documents.iter_documents(html=True):
            record = routes.get(doc.route_key)
            parent_of[doc.route_key] = record.route.parent if record is not None else None
            url_of[doc.route_key] = canonical_url(doc.final_url)
            links = link_collections(doc.html, doc.final_url) if doc.html else {}
            pages.append((doc.route_key, doc.text, tuple({u for urls in links.values() for u in urls})))
    return [TrainingPage(url_of[key], url_of.get(parent_of[key] or ""), text, links)
            for key, text, links in pages]


class PathProcessor:
    """Post-processing for an HMM crawl: the belief over each page's level, and the
    priorities Obtain Links gives its links. A link's route carries the belief over its
    page's level (Route.hint), so a resumed crawl goes on with it."""

    name = "paths"

    def __init__(self, model: PathModel) -> None:
        self.model = model

    async def process(self, ctx: ProcessContext) -> ProcessContext:
        text = ctx.document.text
        onward = self.model.step(self.belief(ctx.route.hint), text)
        leads = float(onward[0])  # P(a link of this page leads to a relevant page)
        near = self.model.relevance(text)
        model, carried = self.model, ",".join(f"{p:.6g}" for p in onward)

        def rate(_url: str, anchor: str) -> float:
            return round((leads + (near + model.relevance(anchor)) / 2) / 2, 6)

        return ctx.widened(document=ctx.document.noted(path_to_topic=leads), link_priority=rate,
                           link_hint=lambda _url: carried)

    def belief(self, hint: str | None) -> np.ndarray:
        """The belief a route carries; a seed's (or a route from before) is the prior."""
        try:
            belief = np.array([float(p) for p in (hint or "").split(",")])
        except ValueError:
            return self.model.initial
        return belief if belief.shape == self.model.initial.shape else self.model.initial


def describe(model: PathModel) -> str:
    """One line: how likely a link leads to a relevant page from each level."""
    lead = ", ".join(f"L{level} {model.transitions[level, 0]:.2f}" for level in range(LEVELS))
    return (f"{len(model.centroids) - 1} clusters besides the relevant pages; "
            f"P(next is relevant | level): {lead}")
