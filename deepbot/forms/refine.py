"""Refinements: the choice boxes of a search form that narrow its results.

A search form says what it searches in its query box. Its other choice boxes narrow the
results: a make and a model, a price range, a number of adults, "titles only", "any
date". Their labels are as many as the things a site sells, so no alias can name them all.
A domain names them together, by one attribute marked ``refines: true``. Where no
attribute is marked, the first whose name says it is a category ("category", "section",
"department", "filter", "facet", "refinement", in the usual spellings) does it, unless
marked ``refines: false``: a search's category box and its other filters are one kind of
thing. Only the name counts, not the aliases: a books domain's ``subject`` may have the
alias "category" and still be a subject, not "Language" or "Binding".

Once a domain claims a form (its score passed µ), that attribute also holds each choice
box (a bounded field: a select, a radio group, a checkbox) that no attribute and no chooser
holds, and that does not sort or page the results. Such an assignment is not ``primary``:
the box is named, left as the page set it when the form is filled, and adds nothing to the
score. A box that waits for another choice (a model list disabled until a make is chosen)
and one a script folds away (a dropdown of checkboxes) are filters too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepbot.config.domain import Domain
from deepbot.forms.models import Assignment, DomainMatch, ExtractedForm, FieldText, FormField
from deepbot.forms.textsim import in_english

__all__ = ["CONFIDENCE", "refine", "refining", "sorts_or_pages"]

# How sure a refinement is: the form is the domain's and the box chooses, but nothing the
# box says was compared with an alias.
CONFIDENCE = 0.5

# A box that orders or pages the results shows the same records, so it refines nothing.
# "sort" is read as a stem: sortBy, sorting, Sortierung, sortowanie, sorteer. The
# lexicon reads the other languages' words as these English ones.
_SORTS_OR_PAGES = re.compile(r"\bsort|\bper page\b|\bpage size\b|\bascending\b|\bdescending\b"
                             r"|\blow(?:est)? to high(?:est)?\b|\bhigh(?:est)? to low(?:est)?\b")


# The words of an attribute's name that narrows a search to a part of the site. Stems, so
# that "categories", "kategorie", "categoría", "категория" and "departments" are read too;
# "_", "-" and a capital part the words of a name ("search_category", "searchCategory").
_NARROWS = re.compile(r"(?:^|[\W_])(?:categor|kategor|категор|section|department|filter|facet|refine)",
                      re.IGNORECASE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def refining(domain: Domain) -> str | None:
    """The name of the attribute that holds the domain's filters, or None.

    The one marked ``refines: true``; else the first whose name says it is a category and
    that is not marked ``refines: false``.
    """
    marked = next((a.name for a in domain.attributes if a.refines is True), None)
    if marked is not None:
        return marked
    return next((a.name for a in domain.attributes
                 if a.refines is None and _NARROWS.search(_CAMEL.sub(" ", a.name))), None)


def sorts_or_pages(field: FormField, texts: Sequence[FieldText]) -> bool:
    """Whether the box orders or pages the results, by its texts, its name or its options."""
    said = [*(t.text for t in texts), field.html_name, *(o.label for o in field.options)]
    return any(_SORTS_OR_PAGES.search(in_english(s)) for s in said if s)


def refine(verdict: DomainMatch, domain: Domain, form: ExtractedForm,
           texts: Sequence[Sequence[FieldText]]) -> DomainMatch:
    """The verdict with the form's refinements held by the domain's refining attribute.

    ``texts`` are the form's fields' texts, in the order of ``form.fields``.
    """
    attribute = refining(domain)
    if attribute is None or not verdict.relevant:
        return verdict
    held = {a.field for a in verdict.assignments}
    if verdict.chooser is not None:
        held |= {verdict.chooser.field, verdict.chooser.target}
    added = tuple(
        Assignment(field=f.name, attribute=attribute, confidence=CONFIDENCE, primary=False, refines=True)
        for f, said in zip(form.fields, texts, strict=True)
        if f.kind == "bounded" and f.name not in held and not sorts_or_pages(f, said)
    )
    return verdict.model_copy(update={"assignments": (*verdict.assignments, *added)}) if added else verdict
