"""DeepBot: a crawler for the deep web.

    async with Crawler(CrawlConfig(seeds=("https://shop.example/",))) as crawler:
        async for document in crawler.run():
            ...
"""

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.domain import Attribute, Domain, load_domain
from deepbot.errors import (
    BrowserError,
    ConfigError,
    DeepBotError,
    DomainError,
    FormError,
    ReplayError,
    StoreError,
)
from deepbot.forms import FormAnalysis, PageAnalysis, analyze_extracted, analyze_form, analyze_page
from deepbot.routes import Document, Route, SessionState, Via

__all__ = [
    "Attribute",
    "BrowserError",
    "ConfigError",
    "CrawlConfig",
    "Crawler",
    "DeepBotError",
    "Document",
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
    "load_domain",
]
__version__ = "0.1.0"
