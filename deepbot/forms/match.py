"""Match stage (paper §IV.A, "Associating form fields and domain attributes").

sim1(f, a) = max textSim(alias, field text) over the attribute's name and aliases
and the field's texts (``deepbot.forms.texts``). For a bounded field also sim2(f, a) =
the mean, over the values the domain's queries use for a, of the best textSim(value,
field value); the similarity is max(sim1, sim2). Pairs under ``min_similarity`` are
dropped, then each attribute takes one field and each field one attribute: as many
fields as possible get an attribute, and among those choices the most similar (the
paper's rule: f2 best for a1 and a2, f1 also fits a1 → f1-a1 and f2-a2).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from deepbot.config.domain import Domain
from deepbot.forms.assign import assign
from deepbot.forms.models import (
    FORM_EVIDENCE,
    Assignment,
    Chooser,
    Evidence,
    ExtractedForm,
    FieldLayout,
    FieldText,
    SimilarityEntry,
)
from deepbot.forms.refine import refining
from deepbot.forms.relevance import SILENT
from deepbot.forms.texts import TYPE_WORDS, FormTexts, MatchParams, confirming, free_text, read_texts
from deepbot.forms.textsim import FORM_VOCABULARY, SoftTfidf, tokens

__all__ = [
    "WHOLE_FORM",
    "alias_similarity",
    "assign_attributes",
    "form_entries",
    "into_free_field",
    "similarity_table",
    "whole_form",
]


@dataclass(frozen=True)
class _DomainSide:
    """A domain's texts, flattened, with the scorer fitted on them (built once per domain)."""

    scorer: SoftTfidf
    labels: tuple[str, ...]  # every attribute's name and aliases, attribute after attribute
    label_slices: tuple[slice, ...]
    values: tuple[str, ...]  # every attribute's query values
    value_slices: tuple[slice, ...]
    # the words an alias needs a text to have, if any (see ``_needs``), and their rows
    needs: tuple[str, ...]
    need_rows: tuple[int, ...]
    # each alias's reading of what only a password box holds: "password", "confirm password"
    secrets: np.ndarray  # labels × 2


def _slices(groups: Sequence[Sequence[object]]) -> tuple[slice, ...]:
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
    scorer = SoftTfidf((*flat_labels, *flat_values, *BACKGROUND))
    slices = _slices(labels)
    needs, need_rows = _needs(flat_labels, slices)
    side = _DomainSide(scorer=scorer, labels=flat_labels, label_slices=slices, values=flat_values,
                       value_slices=_slices(values), needs=needs, need_rows=need_rows,
                       secrets=np.zeros((0, 2)))
    # what only a password box holds is read as any text is: through the side itself
    return replace(side, secrets=_frozen(_label_table(side, ["password", "confirm password"])))


def _needs(labels: Sequence[str], slices: Sequence[slice]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """For each alias that holds a shorter alias of its attribute and more ("Search" in "Search
    the forum"), the words a text must have one of to read as it: the shorter aliases' words
    and its words of forms ("Sign up" in "Sign up for our newsletter"). Each alias's row in
    the needs, or -1 when it needs nothing."""
    words = [frozenset(tokens(label)) for label in labels]
    needs: dict[str, int] = {}
    rows: list[int] = []
    for ls in slices:
        for i in range(ls.start, ls.stop):
            heads = [words[j] for j in range(ls.start, ls.stop) if words[j] and words[j] < words[i]]
            need = frozenset().union(*heads) | (words[i] & FORM_VOCABULARY)
            if not heads or need >= words[i]:
                rows.append(-1)
                continue
            rows.append(needs.setdefault(" ".join(sorted(need)), len(needs)))
    return tuple(needs), tuple(rows)


def _label_table(side: _DomainSide, texts: Sequence[str]) -> np.ndarray:
    """aliases × texts: SoftTFIDF, but an alias that extends a shorter one of its attribute
    reads a text only when the text has a word it needs (``_needs``). The words it adds
    qualify the shorter one; alone they name the site, not the field. The IDF learnt from
    the domain's own aliases makes them weigh most, because the words the aliases share are
    the common ones: "forum" alone read as "Search the forum" at 0.78, and "products" as
    "Search products" at 0.92, though the attribute also says "Search"."""
    table = side.scorer.table(side.labels, texts)
    if side.needs and len(texts):
        rows = np.asarray(side.need_rows)
        needing = np.flatnonzero(rows >= 0)
        # only the texts such an alias reads at all are asked for the needed words: most
        # texts of a form read as none of them (the second table cost 1.3 ms a form)
        read = np.flatnonzero(table[needing].any(axis=0))
        if read.size:
            has = side.scorer.table(side.needs, [texts[int(c)] for c in read]) > 0
            table[np.ix_(needing, read)] *= has[rows[needing]]
    return table


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)  # shared by every form the cached side serves
    return array


def alias_similarity(domain: Domain, texts: Sequence[str]) -> np.ndarray:
    """attributes × texts: the best SoftTFIDF similarity of each text to an attribute's
    name or aliases (sim1 without weights)."""
    side = _domain_side(domain.model_dump_json())
    out = np.zeros((len(domain.attributes), len(texts)))
    if texts:
        table = _label_table(side, list(texts))
        for i, ls in enumerate(side.label_slices):
            if ls.stop > ls.start:
                out[i] = table[ls].max(axis=0)
    return out



def similarity_table(
    form: ExtractedForm,
    layouts: Sequence[FieldLayout],
    domain: Domain,
    params: MatchParams = MatchParams(),
    read: FormTexts | None = None,
    form_named: frozenset[str] = frozenset(),
) -> list[SimilarityEntry]:
    """Every (field, attribute) pair with its sim1, sim2 and similarity. ``form_named``: the
    attributes the form as a whole names (its button, heading, action, identifiers)."""
    side = _domain_side(domain.model_dump_json())
    read = read or read_texts(form, layouts, params)
    texts, values = read.fields, read.values
    flat = [t for group in texts for t in group]
    flat_texts = [t.text for t in flat]
    weights = np.array([t.weight for t in flat])
    # sim1 table: aliases × field texts (weighted); sim2 table: query values × field values
    sims = _label_table(side, flat_texts) * weights[None, :] if flat_texts else None
    flat_values = [v for group in values for v in group]
    vsims = side.scorer.table(side.values, flat_values) if side.values and flat_values else None
    text_slices, value_slices = _slices(texts), _slices(values)

    said = [a.name in form_named for a in domain.attributes]
    # the words the form shows a person as its own (its button, its heading): what it does
    shown = frozenset(w for t in read.whole if t.evidence in (Evidence.BUTTON, Evidence.HEADING)
                      for w in tokens(t.text))
    agreed = _agreed_names(flat, side, weights, said, shown) if flat else None
    repeat = confirming(form)
    secrets = side.secrets.T  # aliases' reading of each
    # A password is typed, and where a form has a box that hides what is typed, in that box:
    # a "Remember me" checkbox under "Password:" holds none, nor does a user box whose
    # sentence names the password.
    hides = any(f.type == "password" for f in form.fields)
    # the form's own words a field borrows (its one free field's): they never make it a secret
    borrowed = np.array([t.evidence in FORM_EVIDENCE for t in flat], dtype=bool)
    entries: list[SimilarityEntry] = []
    for n, (f, ts, vs) in enumerate(zip(form.fields, text_slices, value_slices, strict=True)):
        for attribute, ls, qs in zip(domain.attributes, side.label_slices, side.value_slices, strict=True):
            sim1, best = 0.0, None
            best_alias = ""
            if sims is not None and ts.stop > ts.start:
                block = sims[ls, ts]
                if agreed is not None:
                    block = np.maximum(block, agreed[ls, ts])
                if secrets[:, ls].max() >= params.min_similarity and borrowed[ts].any():
                    # a button "Confirm" does not make the e-mail box beside it a password's
                    block = np.where(borrowed[ts][None, :], 0.0, block)
                if ((hides and f.type != "password") or f.kind == "bounded") \
                        and secrets[0][ls].max() >= params.min_similarity:
                    block = np.zeros_like(block)
                if f.type == "password" and secrets[int(n in repeat)][ls].max() < params.min_similarity:
                    # a box that hides what is typed holds a secret: only an attribute its type
                    # reads as ("Password (forgot password?)" is no recovery form's purpose)
                    block = np.zeros_like(block)
                li, ti = np.unravel_index(int(block.argmax()), block.shape)
                sim1 = float(block[li, ti])
                if sim1 > 0:
                    best_alias, best = side.labels[ls.start + li], flat[ts.start + ti]
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
                        text=best.text if best else "",
                        alias=best_alias,
                        evidence=best.evidence if best else None,
                    )
                )
    return entries


def _agreed_names(flat: Sequence[FieldText], side: _DomainSide, weights: np.ndarray,
                  form_named: Sequence[bool] = (), shown: frozenset[str] = frozenset()) -> np.ndarray | None:
    """aliases × texts: for a name of two or three words each of which is an alias of one
    attribute ("user_login", "email_addr"), the weakest word's similarity to that
    attribute, at each of its aliases' rows; 0 elsewhere. Such a name says the attribute
    twice, not something else beside it. A word that reads as an attribute the form's own
    words name (``form_named``, per attribute: "signup" under a button "Sign up") names the
    form, not the field, and is left out: "emailsignup" is the e-mail of a sign-up form. So
    is a word the form ``shown`` a person as its own, on its button or in its heading, whatever
    the domain calls it: under "Sign up for our newsletter", "emailsignup" is an e-mail."""
    named = [(i, t.text.split()) for i, t in enumerate(flat) if t.evidence == Evidence.NAME
             and 2 <= len(t.text.split()) <= 3]
    if not named:
        return None
    words = sorted({w for _, ws in named for w in ws})
    table = _label_table(side, words)
    column = {w: j for j, w in enumerate(words)}
    bests = [table[ls].max(axis=0) if ls.stop > ls.start else np.zeros(len(words))
             for ls in side.label_slices]
    said = [b for b, on in zip(bests, form_named, strict=False) if on]
    form_word = np.max(said, axis=0) >= 0.9 if said else np.zeros(len(words), dtype=bool)
    form_word |= np.array([tokens(w) != () and set(tokens(w)) <= shown for w in words], dtype=bool)
    out = np.zeros((len(side.labels), len(flat)))
    for a, ls in enumerate(side.label_slices):
        if ls.stop == ls.start:
            continue
        best = bests[a]  # each word's best alias of this attribute
        for i, ws in named:
            mine = [w for w in ws if not (form_word[column[w]] and best[column[w]] < 0.9)]
            if a < len(form_named) and form_named[a]:
                mine = ws  # the form's own attribute: every word must say it
            weakest = min(best[column[w]] for w in mine) if mine else 0.0
            if weakest >= 0.9:
                out[ls, i] = weakest * weights[i]
    return out


WHOLE_FORM = ""  # the field name of the form as a whole in similarity entries and assignments


def _typed(labels: Sequence[str]) -> bool:
    """Whether an attribute is one an input type names (a password, an e-mail, a search
    box, a phone number): what a person types into a field. The form as a whole holds such
    an attribute only on what it shows a person (its button, its heading), not on its
    identifiers: a recovery form's class "user-pass" says what the form is about, not
    that it asks for a password. A search is the exception: a form sent to /search, or of
    class "search", is a search whatever its fields are (a listing's drop-downs)."""
    return any(tokens(label) in _TYPED for label in labels)


_TYPED = frozenset(tokens(word) for word in TYPE_WORDS.values() if word != "search")


def form_entries(
    form: ExtractedForm,
    layouts: Sequence[FieldLayout],
    domain: Domain,
    params: MatchParams = MatchParams(),
    read: FormTexts | None = None,
) -> list[SimilarityEntry]:
    """The form as a whole as one more row of the similarity table (field ``WHOLE_FORM``):
    its button, action, heading, id and class, and, in a form of one free-text field,
    that field's texts too ("Newsletter [____] [Go]": the caption of the field is the
    form's). It may hold an attribute no field holds (a recovery form's "Reset
    password", a newsletter's heading), which counts towards the score and fills nothing."""
    return whole_form(form, layouts, domain, params, read)[0]


def whole_form(
    form: ExtractedForm,
    layouts: Sequence[FieldLayout],
    domain: Domain,
    params: MatchParams = MatchParams(),
    read: FormTexts | None = None,
) -> tuple[list[SimilarityEntry], bool]:
    """``form_entries``, and whether the form's own words (its button, action, heading, id
    and class, not the caption of its one box) name an attribute of the domain."""
    whole = (read or read_texts(form, layouts, params)).whole
    if not whole:
        return [], False
    side = _domain_side(domain.model_dump_json())
    weights = np.array([t.weight for t in whole])
    sims = _label_table(side, [t.text for t in whole]) * weights[None, :]
    own = np.array([t.evidence in FORM_EVIDENCE for t in whole])
    named = False
    entries = []
    # What a typed attribute may not be read from, for the form as a whole: its identifiers,
    # and its one box's caption (the box reads that itself).
    identifiers = np.array([t.evidence in (Evidence.FORM, Evidence.ACTION, Evidence.PHRASE)
                            or t.evidence not in FORM_EVIDENCE for t in whole])
    # What only a password box holds (a password, its confirmation) is no form's purpose: a
    # button "Confirm" or a heading "Password" says what the form does, not what it is.
    secret = side.secrets.max(axis=1)
    for attribute, ls in zip(domain.attributes, side.label_slices, strict=True):
        if ls.stop == ls.start or secret[ls].max() >= params.min_similarity:
            continue
        block = sims[ls]
        if _typed(attribute.labels) and identifiers.any():
            block = np.where(identifiers[None, :], 0.0, block)
        named = named or bool(attribute.specificity >= SILENT and own.any()
                              and block[:, own].max() >= params.min_similarity)
        li, ti = np.unravel_index(int(block.argmax()), block.shape)
        value = round(float(block[li, ti]), 4)
        if value > 0:
            entries.append(SimilarityEntry(field=WHOLE_FORM, attribute=attribute.name, sim1=value, sim2=0.0,
                                           similarity=value, text=whole[int(ti)].text,
                                           alias=side.labels[ls.start + int(li)],
                                           evidence=whole[int(ti)].evidence))
    return entries, named


# What an assignment costs more for each pair read from the other's evidence (the form's
# from its one box's caption, a box's from its form's button), in similarity: 0.15 lets a
# box keep its own reading that is up to 0.15 weaker.
BORROWED = 0.15
# Among readings equally similar (two attributes whose aliases both say "search"), a box
# takes an attribute the domain's queries fill, so that a query has a box to be typed in,
# and the form as a whole takes the more telling attribute (the higher specificity): what
# a form says of itself is its purpose, what a box holds is typed. In similarity: far below
# any difference two texts make, so only ties are settled by it.
TIE = 1e-4


def assign_attributes(
    entries: Sequence[SimilarityEntry], params: MatchParams = MatchParams(), domain: Domain | None = None,
    choices: Collection[str] = (),
) -> list[Assignment]:
    """The paper's assignment rule on the entries that reach ``min_similarity``.

    First one field per attribute and one attribute per field, as many pairs as
    possible, the most similar among those. Then, as the paper guarantees that no
    field with an entry above the threshold is left unassigned, a field still without
    an attribute shares its best one (a price range's second box, the second of two
    "format" checkboxes): such an assignment is not ``primary`` and adds nothing to
    the form's relevance, which counts each attribute once. ``choices``: the names of the
    form's choice boxes (lists, radio buttons, checkboxes), for ties (see TIE).
    """
    kept = [e for e in entries if e.similarity >= params.min_similarity]
    # A field's words read best as one attribute are not also a weaker reading of another
    # ("Keywords" is keywords, not "author keywords"): such a shadow would let the field be
    # pushed off what it says.
    best_text: dict[tuple[str, str], float] = {}
    for e in kept:
        best_text[(e.field, e.text)] = max(best_text.get((e.field, e.text), 0.0), e.similarity)
    kept = [e for e in kept
            if e.field == WHOLE_FORM or not e.text or e.similarity >= best_text[(e.field, e.text)]]
    fields = list(dict.fromkeys(e.field for e in kept))
    attributes = list(dict.fromkeys(e.attribute for e in kept))
    table: dict[tuple[str, str], float] = {(e.field, e.attribute): e.similarity for e in kept}
    # Ties go to the field over the form as a whole (a field's attribute is one a query
    # can fill). Each one's own evidence goes before what it borrows (a field's from the
    # form's button or heading, the form's from its one field's caption) unless the borrowed
    # reading is clearly the better one: the caption is the box's own words too. A box
    # whose placeholder says "e-mail" and whose id says "subscribe", in form#subscribe-blog,
    # holds the e-mail, and the form the subscription, not the other way round.
    borrowed = {(e.field, e.attribute) for e in kept
                if (e.field == WHOLE_FORM) != (e.evidence in FORM_EVIDENCE) and e.evidence is not None}
    tie = _ties(domain, attributes)
    matrix = [[1.0 - table[(f, a)] + 1e-6 * (f == WHOLE_FORM) + BORROWED * ((f, a) in borrowed)
               - TIE * (tie[a][2] if f == WHOLE_FORM else tie[a][0] + tie[a][1] * (1 if f in choices else -1))
               if (f, a) in table else None for a in attributes] for f in fields]
    out = [
        Assignment(field=fields[r], attribute=attributes[c], confidence=table[(fields[r], attributes[c])])
        for r, c in assign(matrix)
    ]
    done = {a.field for a in out}
    for f in fields:
        if f not in done and f != WHOLE_FORM:
            best = max(attributes, key=lambda a: table.get((f, a), -1.0))
            out.append(Assignment(field=f, attribute=best, confidence=table[(f, best)], primary=False))
    order = {f: i for i, f in enumerate(fields)}
    return sorted(out, key=lambda a: order[a.field])


def _ties(domain: Domain | None, attributes: Sequence[str]) -> dict[str, tuple[float, float, float]]:
    """Per attribute: how much a box prefers it, what being the refining attribute adds to
    that (taken away for a box a person types in), and its specificity (see TIE). A box
    prefers an attribute the domain's queries fill; a choice box the refining attribute,
    which names the form's choice boxes, and a box a person types in that one least (a
    file may have no queries: a search box named ``s`` reads "search" and "search in"
    alike)."""
    if domain is None:
        return {a: (0.0, 0.0, 0.0) for a in attributes}
    known = {a.name: a for a in domain.attributes}
    refiner = refining(domain)
    return {a: (float(bool(domain.query_values(a))), 0.5 * (a == refiner),
                known[a].specificity if a in known else 0.0)
            for a in attributes}


def into_free_field(assignments: Sequence[Assignment], by_form: Assignment | None, form: ExtractedForm,
                    domain: Domain, chooser: Chooser | None = None,
                    whole: Sequence[SimilarityEntry] = (), min_similarity: float = 1.0) -> list[Assignment]:
    """The form's one free-text box holds what the form as a whole says, when that is an
    attribute the domain's queries fill and nothing else holds the box or the attribute.

    "Search the portal [____] [Go]": the button names a search, and a query is typed in the
    only box there is, whatever the box's name says (``ppquery``, ``searchword``). An
    attribute no query fills (a login's or a newsletter's purpose) stays the form's. The
    box takes the form's confidence, so the score is the same; a box that held the attribute
    second to the form holds it first. A box a chooser types in
    ("Search by: [Title ▾] [____]") is the chooser's.

    When the form holds an attribute no query fills (a domain's "search button"), its words
    may still read as one a query fills (``whole``: the form's readings, at
    ``min_similarity`` or more): the box takes the best such reading, and the form keeps its
    own. A domain that names "Search" in both attributes says both are there.
    """
    if by_form is not None and not domain.query_values(by_form.attribute):
        held = {a.attribute for a in assignments if a.primary}
        filled = [e for e in whole if e.field == WHOLE_FORM and e.similarity >= min_similarity
                  and e.attribute not in held and e.attribute != by_form.attribute
                  and domain.query_values(e.attribute)]
        best = max(filled, key=lambda e: e.similarity, default=None)
        if best is None:
            return list(assignments)
        return into_free_field(assignments, Assignment(field=WHOLE_FORM, attribute=best.attribute,
                                                       confidence=best.similarity), form, domain, chooser)
    if by_form is None:
        return list(assignments)
    free = free_text(form)
    # A box hidden in a form that shows is no box a person types in; in a hidden form (a
    # closed panel) every box is hidden, and its one box is still where the query goes.
    if free is None or (free.hidden and not form.hidden) or free.disabled:
        return list(assignments)
    if chooser is not None and free.name in (chooser.field, chooser.target):
        return list(assignments)
    if any(a.attribute == by_form.attribute and a.primary for a in assignments):
        return list(assignments)
    # The box may hold the attribute already, second to the form ("Find homes" over "Town or
    # postcode"): it is still where the query is typed.
    second = [a for a in assignments if a.field == free.name]
    if any(a.attribute != by_form.attribute or a.primary for a in second):
        return list(assignments)
    typed = Assignment(field=free.name, attribute=by_form.attribute, confidence=by_form.confidence)
    order = {f.name: i for i, f in enumerate(form.fields)}
    kept = [a for a in assignments if a.field != free.name]
    return sorted([*kept, typed], key=lambda a: order.get(a.field, len(order)))
