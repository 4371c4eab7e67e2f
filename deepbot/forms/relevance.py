"""Relevance stage (paper §IV.B): a form is relevant to a domain iff Σ cᵢ·sᵢ > µ.

cᵢ is the confidence of the i-th field-attribute assignment and sᵢ the specificity
of its attribute: an ISBN field almost proves a books form, a price field proves
nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepbot.domain import Domain
from deepbot.forms.models import Assignment, DomainMatch, SimilarityEntry

__all__ = ["relevance", "score"]


def score(assignments: Sequence[Assignment], domain: Domain) -> float:
    """Σ confidence × specificity over the assignments, each attribute counted once."""
    return sum(a.confidence * domain.attribute(a.attribute).specificity for a in assignments if a.primary)


def relevance(
    assignments: Sequence[Assignment], domain: Domain, similarities: Sequence[SimilarityEntry] = ()
) -> DomainMatch:
    """The domain's verdict on a form: its score against the threshold µ."""
    total = score(assignments, domain)
    return DomainMatch(
        domain=domain.name,
        score=round(total, 4),
        threshold=domain.threshold,
        relevant=total > domain.threshold,
        assignments=tuple(assignments),
        similarities=tuple(similarities),
    )
