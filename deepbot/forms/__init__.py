"""The Form Analyzer (DeepBot paper §IV): which forms serve a domain, and how to query them.

extract (one page evaluation) → layout (texts ↔ fields) → match (fields ↔ attributes,
SoftTFIDF over Jaro-Winkler) → relevance (Σ confidence × specificity > µ).
"""

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
