"""The crawl's link policy: what the engine asks about priorities, in one object.

A crawl follows links breadth-first, best-first by a topic (policy.topic), by the paths
an HMM learned to the topic (policy.hmm), or by a sample page's structure
(policy.structure). The engine does not branch on which: it puts the policy's
processors in the chain (they rate each page's links before Obtain Links makes their
routes), asks it whether the best route left is worth leasing, whether a page counts
as on the topic, and lets it keep what it learned between runs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from deepbot.content.postprocess import Processor
from deepbot.errors import ConfigError
from deepbot.policy.structure import STOP_BELOW, StructureModel, StructureProcessor
from deepbot.policy.topic import Topic, TopicProcessor
from deepbot.routes import Document, Route, Via

if TYPE_CHECKING:
    from deepbot.policy.hmm import PathProcessor

log = logging.getLogger("deepbot.crawl")

SAVE_EVERY = 10.0  # seconds between two saves of a structure crawl's site model
_STATE = "structure"  # the name the site model is kept under in the frontier


class PolicyStore(Protocol):
    """What a policy needs of the frontier: its saved state, and raising queued routes."""

    def get_state(self, name: str) -> str | None: ...

    def put_state(self, name: str, value: str) -> None: ...

    def raise_priority(self, keys: Iterable[str], priority: float) -> int: ...


class LinkPolicy:
    """The link policy of one crawl: ``topic`` (best-first, or by learned paths with
    ``learn_from``, an earlier crawl's store), or ``like`` (a sample page's structure), or
    neither (breadth-first)."""

    def __init__(self, *, topic: str | None = None, threshold: float = 0.2, like: str | None = None) -> None:
        self.topic = Topic(topic) if topic else None
        self.threshold = threshold  # a page this near the topic counts as on it
        self.structure = StructureModel(like) if like else None
        self.paths: PathProcessor | None = None  # an HMM crawl's, trained when the crawl opens
        self._saved = time.monotonic()

    def learn_paths(self, store: Path, own: Path) -> None:
        """Train the HMM on the earlier crawl's ``store`` (not this crawl's, ``own``)."""
        from deepbot.policy.hmm import PathProcessor, describe, train, training_pages  # numpy: only here

        if self.topic is None:
            raise ConfigError(f"learn_from {store}: learning paths needs a topic")
        if store.resolve() == own.resolve():
            raise ConfigError(f"learn_from {store}: learn from an earlier crawl's store, not this one")
        try:
            model = train(training_pages(store), self.topic, self.threshold)
        except (FileNotFoundError, ValueError) as exc:
            raise ConfigError(f"learn_from {store}: {exc}") from None
        log.info("learned the paths to the topic from %s: %s", store, describe(model))
        self.paths = PathProcessor(model)

    def processors(self, raise_links: Callable[[list[str], float], object]) -> list[Processor]:
        """What rates a page's links, in order, before Obtain Links makes their routes.
        ``raise_links(urls, priority)``: raise the link routes of those URLs already queued."""
        out: list[Processor] = []
        if self.structure is not None:
            out.append(StructureProcessor(self.structure, raise_links))
        if self.paths is not None:
            out.append(self.paths)
        if self.topic is not None:  # last: best-first only where no learned policy rated the links
            out.append(TopicProcessor(self.topic))
        return out

    def resume(self, store: PolicyStore, sample: Callable[[], Document | None]) -> bool:
        """Go on from what an earlier run learned: the sample page it read (``sample()``, the
        stored seed) and the site model it saved. Whether there is a model to save."""
        if self.structure is None:
            return False
        found = sample()
        if found is not None and found.html:
            self.structure.learn_sample(found.html)
        learned = store.get_state(_STATE)
        if learned is not None and self.structure.restore(learned):
            log.info("a structure crawl resumed with what it had learned of the site")
        return True

    def save(self, store: PolicyStore, *, every: float = 0.0) -> None:
        """Keep what a structure crawl has learned of the site in the frontier, for a resumed
        crawl, if ``every`` seconds passed since the last save (a crash loses only the
        learning since; what routes carry, Route.hint, is never lost)."""
        if self.structure is not None and (every <= 0 or time.monotonic() - self._saved > every):
            store.put_state(_STATE, self.structure.state())
            self._saved = time.monotonic()

    def unpromising(self, route: Route) -> bool:
        """Whether a structure crawl has nothing worth fetching left, this being the best."""
        return self.structure is not None and route.via is not Via.SEED and route.priority < STOP_BELOW

    def on_topic(self, document: Document) -> bool | None:
        """Whether a page counts as on a focused crawl's topic (None: the crawl has none)."""
        if self.topic is None:
            return None
        return (document.meta.topic_similarity or 0.0) >= self.threshold
