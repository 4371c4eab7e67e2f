"""Match stage (paper §IV.A, "Associating form fields and domain attributes").

sim1(f, a) = max textSim(alias, field text) over the attribute's name and aliases
and the field's texts. For a bounded field also sim2(f, a) = the mean, over the
values the domain's queries use for a, of the best textSim(value, field value); the
similarity is max(sim1, sim2). Pairs under ``min_similarity`` are dropped, then each
attribute takes one field and each field one attribute: as many fields as possible
get an attribute, and among those choices the most similar (the paper's rule: f2
best for a1 and a2, f1 also fits a1 → f1-a1 and f2-a2).

Field texts are the visible texts of the layout stage plus, beyond the paper, the
markup a person does not see in the flow: hidden labels, aria-label, placeholder,
title, a select's prompt option, and the words of the field's name and id (trusted a
little less: ``name_weight``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from deepbot.domain import Domain
from deepbot.forms.assign import assign
from deepbot.forms.models import Assignment, ExtractedForm, FieldLayout, FormField, SimilarityEntry
from deepbot.forms.textsim import SoftTfidf, tokens

__all__ = [
    "MatchParams",
    "alias_similarity",
    "assign_attributes",
    "field_texts",
    "field_values",
    "name_words",
    "similarity_table",
]


@dataclass(frozen=True)
class MatchParams:
    min_similarity: float = 0.75
    name_weight: float = 0.9  # a control's name words: a developer's label, not the user's
    section_weight: float = 0.85  # a fieldset legend over several fields describes each loosely


# Widget prefixes of hand-named controls (txtTitle, ddlFormat, chkInStock) and
# framework noise (ctl00, ContentPlaceHolder1) carry no meaning.
_NOISE = frozenset(
    {
        "txt",
        "tb",
        "tbx",
        "ddl",
        "dd",
        "drp",
        "lst",
        "cbo",
        "cmb",
        "chk",
        "cb",
        "rb",
        "rdo",
        "rad",
        "sel",
        "inp",
        "input",
        "fld",
        "field",
        "lbl",
        "ctl",
        "ctrl",
        "content",
        "place",
        "holder",
        "main",
        "form",
        "search",
        "frm",
        "val",
    }
)
_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")


def name_words(name: str) -> str:
    """The meaningful words of a control's name or id: ``ctl00$Main$txtAuthorName`` → ``author name``."""
    last = re.split(r"[$.:\[\]/]+", name.strip("[]$.:/"))[-1] if name else ""
    words = [w.lower() for w in _WORDS.findall(last)]
    return " ".join(w for w in words if len(w) > 1 and w not in _NOISE)


def field_texts(
    f: FormField, layout: FieldLayout, name_weight: float = 0.9, section_weight: float = 0.85
) -> list[tuple[str, float]]:
    """The texts describing a field with the weight each deserves."""
    out: list[tuple[str, float]] = [(link.text, 1.0) for link in layout.texts]
    m = f.markup
    for hint in (*m.labels, m.legend, m.aria_label, m.placeholder, m.title, m.prompt):
        if hint:
            out.append((hint, 1.0))
    if m.section:
        out.append((m.section, section_weight))
    for raw in dict.fromkeys((f.html_name, f.id)):
        words = name_words(raw)
        if words:
            out.append((words, name_weight))
    seen: dict[str, float] = {}
    for text, weight in out:
        if tokens(text):
            seen[text] = max(weight, seen.get(text, 0.0))
    return list(seen.items())


def field_values(f: FormField, layout: FieldLayout) -> list[str]:
    """The values a person can choose: option texts (and values, which are often words)."""
    if f.kind != "bounded":
        return []
    values: dict[str, None] = {}
    for i, option in enumerate(f.options):
        label = option.label
        if f.checkable and i < len(layout.option_texts) and layout.option_texts[i]:
            label = " ".join(link.text for link in layout.option_texts[i])
        for v in (label, option.value):
            if v and tokens(v):
                values.setdefault(v, None)
    return list(values)


@dataclass(frozen=True)
class _DomainSide:
    """A domain's texts, flattened, with the scorer fitted on them (built once per domain)."""

    scorer: SoftTfidf
    labels: tuple[str, ...]  # every attribute's name and aliases, attribute after attribute
    label_slices: tuple[slice, ...]
    values: tuple[str, ...]  # every attribute's query values
    value_slices: tuple[slice, ...]


def _slices(groups: Sequence[Sequence[str]]) -> tuple[slice, ...]:
    out, start = [], 0
    for g in groups:
        out.append(slice(start, start + len(g)))
        start += len(g)
    return tuple(out)


# Words every kind of form uses. They join the IDF corpus so that they weigh little
# wherever they appear: "Your name" must not pass for "author name".
BACKGROUND: tuple[str, ...] = (
    "name", "full name", "first name", "last name", "user name", "your name", "email", "email address",
    "password", "phone number", "address", "city", "country", "postcode", "date", "from", "to", "min",
    "max", "number", "type", "code", "search", "search for", "keywords", "any", "all", "other", "more",
)  # fmt: skip


@lru_cache(maxsize=32)
def _domain_side(domain_json: str) -> _DomainSide:
    # IDF comes from the domain's own vocabulary (labels and query values) and the
    # background of generic form words: a word neither uses counts as rare, so it
    # dilutes a text it appears in. Keyed by the definition's JSON so that equal
    # domains share the work.
    domain = Domain.model_validate_json(domain_json)
    labels = [a.labels for a in domain.attributes]
    values = [domain.query_values(a.name) for a in domain.attributes]
    flat_labels = tuple(s for g in labels for s in g)
    flat_values = tuple(v for g in values for v in g)
    return _DomainSide(
        scorer=SoftTfidf((*flat_labels, *flat_values, *BACKGROUND)),
        labels=flat_labels,
        label_slices=_slices(labels),
        values=flat_values,
        value_slices=_slices(values),
    )


def alias_similarity(domain: Domain, texts: Sequence[str]) -> np.ndarray:
    """attributes × texts: the best SoftTFIDF similarity of each text to an attribute's
    name or aliases (sim1 without weights)."""
    side = _domain_side(domain.model_dump_json())
    out = np.zeros((len(domain.attributes), len(texts)))
    if texts:
        table = side.scorer.table(side.labels, list(texts))
        for i, ls in enumerate(side.label_slices):
            if ls.stop > ls.start:
                out[i] = table[ls].max(axis=0)
    return out


def similarity_table(
    form: ExtractedForm,
    layouts: Sequence[FieldLayout],
    domain: Domain,
    params: MatchParams = MatchParams(),
) -> list[SimilarityEntry]:
    """Every (field, attribute) pair with its sim1, sim2 and similarity."""
    side = _domain_side(domain.model_dump_json())
    texts = [
        field_texts(f, lay, params.name_weight, params.section_weight)
        for f, lay in zip(form.fields, layouts, strict=True)
    ]
    values = [field_values(f, lay) for f, lay in zip(form.fields, layouts, strict=True)]
    flat_texts = [t for group in texts for t, _ in group]
    weights = np.array([w for group in texts for _, w in group])
    # sim1 table: aliases × field texts (weighted); sim2 table: query values × field values
    sims = side.scorer.table(side.labels, flat_texts) * weights[None, :] if flat_texts else None
    flat_values = [v for group in values for v in group]
    vsims = side.scorer.table(side.values, flat_values) if side.values and flat_values else None
    text_slices, value_slices = _slices([[t for t, _ in g] for g in texts]), _slices(values)

    entries: list[SimilarityEntry] = []
    for f, ts, vs in zip(form.fields, text_slices, value_slices, strict=True):
        for attribute, ls, qs in zip(domain.attributes, side.label_slices, side.value_slices, strict=True):
            sim1, best_text, best_alias = 0.0, "", ""
            if sims is not None and ts.stop > ts.start:
                block = sims[ls, ts]
                li, ti = np.unravel_index(int(block.argmax()), block.shape)
                sim1 = float(block[li, ti])
                if sim1 > 0:
                    best_alias, best_text = side.labels[ls.start + li], flat_texts[ts.start + ti]
            sim2 = 0.0
            if f.kind == "bounded" and vsims is not None and qs.stop > qs.start and vs.stop > vs.start:
                sim2 = float(vsims[qs, vs].max(axis=1).mean())
            similarity = max(sim1, sim2)
            if similarity > 0:
                entries.append(
                    SimilarityEntry(
                        field=f.name,
                        attribute=attribute.name,
                        sim1=round(sim1, 4),
                        sim2=round(sim2, 4),
                        similarity=round(similarity, 4),
                        text=best_text,
                        alias=best_alias,
                    )
                )
    return entries


def assign_attributes(
    entries: Sequence[SimilarityEntry], params: MatchParams = MatchParams()
) -> list[Assignment]:
    """The paper's assignment rule on the entries that reach ``min_similarity``.

    First one field per attribute and one attribute per field, as many pairs as
    possible, the most similar among those. Then, as the paper guarantees that no
    field with an entry above the threshold is left unassigned, a field still without
    an attribute shares its best one (a price range's second box, the second of two
    "format" checkboxes): such an assignment is not ``primary`` and adds nothing to
    the form's relevance, which counts each attribute once.
    """
    kept = [e for e in entries if e.similarity >= params.min_similarity]
    fields = list(dict.fromkeys(e.field for e in kept))
    attributes = list(dict.fromkeys(e.attribute for e in kept))
    table: dict[tuple[str, str], float] = {(e.field, e.attribute): e.similarity for e in kept}
    matrix = [[1.0 - table[(f, a)] if (f, a) in table else None for a in attributes] for f in fields]
    out = [
        Assignment(field=fields[r], attribute=attributes[c], confidence=table[(fields[r], attributes[c])])
        for r, c in assign(matrix)
    ]
    done = {a.field for a in out}
    for f in fields:
        if f not in done:
            best = max(attributes, key=lambda a: table.get((f, a), -1.0))
            out.append(Assignment(field=f, attribute=best, confidence=table[(f, best)], primary=False))
    order = {f: i for i, f in enumerate(fields)}
    return sorted(out, key=lambda a: order[a.field])
