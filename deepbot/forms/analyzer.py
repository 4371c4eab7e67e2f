"""The Form Analyzer (paper §IV.A-B): panels → extract → layout → match (and chooser) → relevance.

``analyze_page`` costs one page evaluation; everything after it is pure Python on the
extraction (``analyze_extracted``, ``analyze_form``), so it is testable and timeable
without a browser.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from playwright.async_api import Page

from deepbot.config.domain import Domain
from deepbot.content import challenge
from deepbot.forms.builder import add_rows, base_fields, find_rows
from deepbot.forms.chooser import find_chooser, without_chooser
from deepbot.forms.extract import extract_page
from deepbot.forms.filter_rows import label_values, without_switches
from deepbot.forms.layout import LayoutParams, form_texts, layout_form
from deepbot.forms.match import WHOLE_FORM, assign_attributes, into_free_field, similarity_table, whole_form
from deepbot.forms.models import (
    FORM_EVIDENCE,
    ExtractedForm,
    FieldAnalysis,
    FieldLayout,
    FieldText,
    FormAnalysis,
    FormField,
    FormLayout,
    OptionAnalysis,
    PageAnalysis,
    PageExtraction,
)
from deepbot.forms.panels import open_panels
from deepbot.forms.refine import refine
from deepbot.forms.relevance import relevance
from deepbot.forms.texts import MatchParams, field_texts, form_evidence, read_texts, vocabulary

__all__ = ["AnalyzerParams", "analyze_extracted", "analyze_form", "analyze_page"]


@dataclass(frozen=True)
class AnalyzerParams:
    layout: LayoutParams = field(default_factory=LayoutParams)
    match: MatchParams = field(default_factory=MatchParams)


async def analyze_page(
    page: Page, domains: Sequence[Domain], params: AnalyzerParams = AnalyzerParams(),
    *, only: Callable[[ExtractedForm], bool] | None = None,
) -> PageAnalysis:
    """Analyse every form of the page against every domain, its folded panels opened first;
    with ``only``, the forms it accepts (a crawl leaves out those it knows already)."""
    opened = await open_panels(page)
    rows = await find_rows(page)  # before the extraction: it marks the builders' toggles
    analysis = analyze_extracted(add_rows(await extract_page(page), rows), domains, params, only=only)
    if not opened:
        return analysis
    forms = tuple(f.model_copy(update={"opened": opened.get(f.form_index, ())}) for f in analysis.forms)
    return analysis.model_copy(update={"forms": forms})


def analyze_extracted(
    extraction: PageExtraction, domains: Sequence[Domain], params: AnalyzerParams = AnalyzerParams(),
    *, only: Callable[[ExtractedForm], bool] | None = None,
) -> PageAnalysis:
    return PageAnalysis(
        url=extraction.url,
        title=extraction.title,
        forms=tuple(analyze_form(extraction, form, domains, params) for form in extraction.forms
                    if only is None or only(form)),
    )


def analyze_form(
    extraction: PageExtraction,
    form: ExtractedForm | int,
    domains: Sequence[Domain],
    params: AnalyzerParams = AnalyzerParams(),
) -> FormAnalysis:
    """One form (or its index in ``document.forms``) against every domain."""
    if isinstance(form, int):
        form = next(f for f in extraction.forms if f.index == form)
    form = without_switches(form)  # a filter row's switch is left as the page set it
    # A choice box a script keeps folded away (a dropdown of checkboxes) has no place in the
    # layout: it is read from its markup, and only as a refinement of the form it is in.
    in_order = form
    folded = () if form.hidden else tuple(f for f in form.fields if f.hidden)
    if folded:
        form = form.model_copy(update={"fields": tuple(f for f in form.fields if not f.hidden)})
    folded_layouts = tuple(FieldLayout(field=f.name) for f in folded)
    folded_texts = [field_texts(f, lay, params.match) for f, lay in zip(folded, folded_layouts, strict=True)]
    whole_fields = form.model_copy(update={"fields": (*form.fields, *folded)}) if folded else form
    shown = base_fields(form)  # a filter builder's rows are not on the page: their entry labels them
    if form.hidden:  # nothing shows: no layout to read, the markup is all the evidence
        layout = FormLayout(cell=(8.0, 19.2), fields=tuple(FieldLayout(field=f.name) for f in shown.fields))
    else:
        layout = label_values(shown, layout_form(shown, form_texts(extraction, shown, params.layout),
                                                 params.layout))
    added = tuple(FieldLayout(field=f.name) for f in form.fields if f.added_by)
    layout = layout.model_copy(update={"fields": (*layout.fields, *added)})
    verdicts = []
    read = read_texts(form, layout.fields, params.match, vocabulary(domains))
    for domain in domains:
        whole, named_by_form = whole_form(form, layout.fields, domain, params.match, read)
        form_named = frozenset(e.attribute for e in whole if e.evidence in FORM_EVIDENCE
                               and e.similarity >= params.match.min_similarity)
        table = similarity_table(form, layout.fields, domain, params.match, read, form_named)
        chooser = find_chooser(form, layout.fields, domain, layout.cell[1], params.match)
        named = {n.attribute for n in chooser.attributes} if chooser else set()
        whole = [e for e in whole if e.attribute not in named]
        paired = assign_attributes([*without_chooser(table, chooser), *whole], params.match, domain,
                                   choices={f.name for f in form.fields if f.kind == "bounded"})
        by_form = next((a for a in paired if a.field == WHOLE_FORM), None)
        assignments = into_free_field([a for a in paired if a.field != WHOLE_FORM], by_form, form, domain,
                                      chooser, whole, params.match.min_similarity)
        verdict = refine(relevance(assignments, domain, [*table, *whole], chooser, by_form), domain,
                         whole_fields, [*read.fields, *folded_texts])
        verdicts.append(verdict.model_copy(update={"named_by_form": named_by_form}))
    read_of = {f.name: (lay, texts) for f, lay, texts in zip(
        whole_fields.fields, (*layout.fields, *folded_layouts), [*read.fields, *folded_texts], strict=True)}
    fields = tuple(_field(f, *read_of[f.name]) for f in in_order.fields)
    return FormAnalysis(
        form_index=form.index,
        selector=form.selector,
        virtual=form.virtual,
        action=form.action,
        method=form.method,
        box=form.box,
        fields=fields,
        submits=form.submits,
        script_anchors=form.anchors,
        domains=tuple(verdicts),
        cell=layout.cell,
        hidden=form.hidden,
        evidence=tuple(form_evidence(form, params.match)),
        challenge=challenge.guard(form.challenge, ((f.html_name, f.id, *f.texts, *f.hints)
                                                   for f in fields if f.kind == "unbounded")),
    )


def _field(f: FormField, lay: FieldLayout, evidence: Sequence[FieldText]) -> FieldAnalysis:
    shown = {link.text for link in lay.texts}
    m = f.markup
    hints = [h for h in (*m.labels, m.legend) if h and h not in shown]
    hints += [h for h in (m.aria_label, m.placeholder, m.title, m.prompt, m.section) if h]
    options = []
    for i, o in enumerate(f.options):
        links = lay.option_texts[i] if i < len(lay.option_texts) else ()
        texts = tuple(link.text for link in links)
        # a checkbox that does not show has no layout: its declared <label> names it
        declared = o.markup.labels[0] if o.markup is not None and o.markup.labels else ""
        options.append(
            OptionAnalysis(
                value=o.value,
                label=" ".join(texts) if texts else (o.label or declared or o.value),
                selected=o.selected,
                selector=o.selector,
                texts=texts,
            )
        )
    return FieldAnalysis(
        name=f.name,
        kind=f.kind,
        type=f.type,
        tag=f.tag,
        html_name=f.html_name,
        id=f.id,
        selector=f.selector,
        box=f.box,
        texts=tuple(link.text for link in lay.texts),
        links=lay.texts,
        hints=tuple(dict.fromkeys(hints)),
        values=tuple(o.label for o in options) if f.kind == "bounded" else (),
        options=tuple(options),
        multiple=f.multiple,
        required=f.required,
        evidence=tuple(evidence),
        hidden=f.hidden,
        added_by=f.added_by,
    )
