"""The content manager: download handlers, the relevance chain, the post-processing chain.

    Fetched ──handlers──► Content ──build_document──► Document
    Document ──RelevanceChain──► Decision (store/index it or not)
    ProcessContext ──PostProcessChain (main text, links, forms…)──► widened context
"""

from deepbot.content.document import build_document
from deepbot.content.extract import html_title, main_text, page_text, summarize
from deepbot.content.filters import (
    ACCEPT,
    ContentTypeFilter,
    Decision,
    KeywordFilter,
    RelevanceChain,
    RelevanceFilter,
    UrlFilter,
    relevance_chain,
)
from deepbot.content.handlers import (
    Content,
    Fetched,
    Handler,
    HandlerLimits,
    HandlerRegistry,
    default_registry,
)
from deepbot.content.postprocess import MainTextProcessor, PostProcessChain, ProcessContext, Processor
from deepbot.text.query import KeywordQuery, parse_query

__all__ = [
    "ACCEPT",
    "Content",
    "ContentTypeFilter",
    "Decision",
    "Fetched",
    "Handler",
    "HandlerLimits",
    "HandlerRegistry",
    "KeywordFilter",
    "KeywordQuery",
    "MainTextProcessor",
    "PostProcessChain",
    "ProcessContext",
    "Processor",
    "RelevanceChain",
    "RelevanceFilter",
    "UrlFilter",
    "build_document",
    "default_registry",
    "html_title",
    "main_text",
    "page_text",
    "parse_query",
    "relevance_chain",
    "summarize",
]
