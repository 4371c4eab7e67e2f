"""Relevance stage (paper §IV.B): a form is relevant to a domain iff Σ cᵢ·sᵢ > µ.

cᵢ is the confidence of the i-th field-attribute assignment and sᵢ the specificity
of its attribute: an ISBN field almost proves a books form, a price field proves
nothing. A chooser's attributes (``deepbot.forms.chooser``) count like fields'.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepbot.config.domain import Domain
from deepbot.forms.models import Assignment, Chooser, DomainMatch, SimilarityEntry

__all__ = ["SILENT", "relevance", "score"]

# A specificity under this says a box tells nothing of the domain: less than a price field
# (0.05), which appears in every kind of form. Users give such attributes to take in the
# boxes of other kinds of form ("confirm password" in a login file).
SILENT = 0.05


def score(assignments: Sequence[Assignment], domain: Domain, chooser: Chooser | None = None,
          form_attribute: Assignment | None = None) -> float:
    """Σ confidence × specificity over the assignments, each attribute counted once, over
    the attributes a chooser names that no field holds, and over the one the form as a
    whole shows."""
    total = sum(a.confidence * domain.attribute(a.attribute).specificity for a in assignments if a.primary)
    held = {a.attribute for a in assignments if a.primary}
    if chooser is not None:
        total += sum(n.confidence * domain.attribute(n.attribute).specificity
                     for n in chooser.attributes if n.attribute not in held)
        held |= {n.attribute for n in chooser.attributes}
    if form_attribute is not None and form_attribute.attribute not in held:
        total += form_attribute.confidence * domain.attribute(form_attribute.attribute).specificity
    return total


def relevance(
    assignments: Sequence[Assignment], domain: Domain, similarities: Sequence[SimilarityEntry] = (),
    chooser: Chooser | None = None, form_attribute: Assignment | None = None,
) -> DomainMatch:
    """The domain's verdict on a form: its score against the threshold µ."""
    # Compared as it is shown, rounded: a score shown as 0.3 against µ 0.3 is not relevant,
    # whichever way the sum fell in floating point (0.1 + 0.2 is 0.30000000000000004).
    total = round(score(assignments, domain, chooser, form_attribute), 4)
    return DomainMatch(
        domain=domain.name,
        score=total,
        threshold=domain.threshold,
        relevant=total > domain.threshold,
        assignments=tuple(assignments),
        similarities=tuple(similarities),
        chooser=chooser,
        form_attribute=form_attribute,
        silent=tuple(a.name for a in domain.attributes if a.specificity < SILENT),
    )
