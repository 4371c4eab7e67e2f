"""DeepBot: a crawler for the deep web.

    async with Crawler(CrawlConfig(seeds=("https://shop.example/",))) as crawler:
        async for document in crawler.run():
            ...

    for document in deepbot.crawl(seeds=["https://shop.example/"], store="shop.sqlite"):
        ...  # the same, from synchronous code (see deepbot.crawl.iterator)

``deepbot.crawl`` is the function; the ``deepbot.crawl`` package (engine, stats…) is
imported by its submodules' names, e.g. ``from deepbot.crawl.engine import Crawler``.
"""

from typing import TYPE_CHECKING, Any

from deepbot.config import CrawlConfig
from deepbot.config.domain import Attribute, Domain, load_domain
from deepbot.crawl.engine import Crawler
from deepbot.crawl.iterator import CrawlIterator, crawl
from deepbot.errors import (
    BrowserError,
    ConfigError,
    DeepBotError,
    DomainError,
    FormError,
    ReplayError,
    StoreError,
)
from deepbot.forms.models import FormAnalysis, PageAnalysis
from deepbot.replay import DocumentReplay, replay_document
from deepbot.routes import Document, Route, SessionState, Via

if TYPE_CHECKING:
    from deepbot.forms.analyzer import analyze_extracted, analyze_form, analyze_page

__all__ = [
    "Attribute",
    "BrowserError",
    "ConfigError",
    "CrawlConfig",
    "CrawlIterator",
    "Crawler",
    "DeepBotError",
    "Document",
    "DocumentReplay",
    "Domain",
    "DomainError",
    "FormAnalysis",
    "FormError",
    "PageAnalysis",
    "ReplayError",
    "Route",
    "SessionState",
    "StoreError",
    "Via",
    "analyze_extracted",
    "analyze_form",
    "analyze_page",
    "crawl",
    "load_domain",
    "replay_document",
]
__version__ = "0.1.0"

_ANALYZER = frozenset({"analyze_extracted", "analyze_form", "analyze_page"})


def __getattr__(name: str) -> Any:
    # The Form Analyzer loads numpy and shapely: only when it is asked for (deepbot.forms).
    if name in _ANALYZER:
        from deepbot import forms

        return getattr(forms, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
