"""Focused crawling, best-first: how near a text is to the crawl's topic.

The Best-First crawler of Batsakis, Petrakis and Milios ("Improving the performance of
focused web crawlers", §3.1): the topic and each text are term vectors, their
similarity the cosine of the two (the vector space model). Terms are words, lower-cased,
stop words dropped, Porter-stemmed (Snowball's English stemmer, as the paper stems).
Only term frequencies weigh: inverse document frequencies, the paper notes, are
unreliable while a crawl has seen few pages.

A link's priority is the average of the topic's similarity to the page that holds it
and to its anchor text (the paper's Eq. 3, its best variant): a page on the topic
likely points to more, and an anchor text summarises its target. The frontier leases
the highest priority first, so the crawl follows the most promising links first. A
page's own similarity decides whether it counts as relevant for the harvest rate
(relevant pages ÷ pages fetched), the paper's measure.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from typing import Any

import snowballstemmer

from deepbot.content.postprocess import ProcessContext

_WORD = re.compile(r"[^\W_]+")
# Words that say nothing of a topic (English; the stemmer is English too).
_STOP_WORDS = """
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had
has have having he her here hers him his how i if in into is it its itself just me more most my
no nor not now of off on once only or other our ours out over own same she should so some such
than that the their theirs them then there these they this those through to too under until up
very was we were what when where which while who whom why will with would you your yours
"""
_STOP = frozenset(_STOP_WORDS.split())
_MAX_WORDS = 20_000  # of a page: enough to know its topic, bounded on a huge page


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return str(_stemmer().stemWord(word))


def terms(text: str) -> Counter[str]:
    """The term-frequency vector of a text."""
    counts = Counter(word for word in _WORD.findall(text.lower())[:_MAX_WORDS]
                     if len(word) > 1 and word not in _STOP)
    vector: Counter[str] = Counter()
    for word, n in counts.items():
        vector[_stem(word)] += n
    return vector


class Topic:
    """A topic given as words ("gardening tools trowel spade"): similarity of texts to it."""

    def __init__(self, description: str) -> None:
        self.description = description
        self.vector = terms(description)
        if not self.vector:
            raise ValueError(f"the topic {description!r} has no words to look for")
        self._norm = math.sqrt(sum(n * n for n in self.vector.values()))

    def similarity(self, text: str) -> float:
        """Cosine of the topic's and the text's term vectors, in [0, 1]."""
        vector = terms(text)
        dot = sum(n * vector[t] for t, n in self.vector.items() if t in vector)
        if not dot:
            return 0.0
        return dot / (self._norm * math.sqrt(sum(n * n for n in vector.values())))

    def link_priority(self, page_similarity: float, anchor: str) -> float:
        """Eq. 3: the mean of the topic's similarity to the page and to the anchor text."""
        return round((page_similarity + self.similarity(anchor)) / 2, 6)


class TopicProcessor:
    """Post-processing for a focused crawl: the page's similarity to the topic
    (``meta.topic_similarity``) and, unless a learned policy rated the page's links
    already, their best-first priority (Eq. 3)."""

    name = "topic"

    def __init__(self, topic: Topic) -> None:
        self.topic = topic

    async def process(self, ctx: ProcessContext) -> ProcessContext | None:
        if ctx.snapshot is None:  # no links to rate: a page read outside a crawl
            return None
        topic, near = self.topic, self.topic.similarity(ctx.document.text)
        document = ctx.document.noted(topic_similarity=near)
        if ctx.link_priority is not None:
            return ctx.widened(document=document)
        return ctx.widened(document=document,
                           link_priority=lambda _url, text: topic.link_priority(near, text))
