"""The Form Analyzer (DeepBot paper §IV): which forms serve a domain, and how to query them.

extract (one page evaluation) → layout (texts ↔ fields) → match (fields ↔ attributes,
SoftTFIDF over Jaro-Winkler) → relevance (Σ confidence × specificity > µ).

The names below load on first use (PEP 562): the analyzer brings numpy and shapely
(~17 MB of a crawl's memory and ~0.1 s to import), which a crawl without a domain never needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deepbot.forms.analyzer import AnalyzerParams, analyze_extracted, analyze_form, analyze_page
    from deepbot.forms.annotate import annotate_screenshot
    from deepbot.forms.extract import build_extraction, extract_page
    from deepbot.forms.models import (
        Assignment,
        DomainMatch,
        ExtractedForm,
        FieldAnalysis,
        FormAnalysis,
        PageAnalysis,
        PageExtraction,
        SimilarityEntry,
    )

_MODULE_OF = {
    **dict.fromkeys(("AnalyzerParams", "analyze_extracted", "analyze_form", "analyze_page"), "analyzer"),
    "annotate_screenshot": "annotate",
    **dict.fromkeys(("build_extraction", "extract_page"), "extract"),
    **dict.fromkeys(("Assignment", "DomainMatch", "ExtractedForm", "FieldAnalysis", "FormAnalysis",
                     "PageAnalysis", "PageExtraction", "SimilarityEntry"), "models"),
}

__all__ = [
    "AnalyzerParams",
    "Assignment",
    "DomainMatch",
    "ExtractedForm",
    "FieldAnalysis",
    "FormAnalysis",
    "PageAnalysis",
    "PageExtraction",
    "SimilarityEntry",
    "analyze_extracted",
    "analyze_form",
    "analyze_page",
    "annotate_screenshot",
    "build_extraction",
    "extract_page",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
