"""The typed objects the Form Analyzer's stages hand each other.

extract → ``PageExtraction`` (forms, fields, options, submit controls, script anchors,
visible texts with boxes) → layout → ``FormLayout`` (texts per field) → match →
``DomainMatch`` (similarity table, assignments, score, relevance) → ``FormAnalysis``
and ``PageAnalysis``, which ``deepbot analyze --json`` prints.

Boxes are CSS pixels in page coordinates (scroll offsets added).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "FORM_EVIDENCE",
    "Assignment",
    "Box",
    "Chooser",
    "DomainMatch",
    "Evidence",
    "ExtractedForm",
    "FieldAnalysis",
    "FieldLayout",
    "FieldOption",
    "FieldText",
    "FormAnalysis",
    "FormField",
    "FormLayout",
    "Markup",
    "NamedAttribute",
    "OptionAnalysis",
    "PageAnalysis",
    "PageExtraction",
    "PageText",
    "ScriptAnchor",
    "SimilarityEntry",
    "SubmitControl",
    "TextLink",
]

FieldKind = Literal["bounded", "unbounded"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Box(_Frozen):
    x: float
    y: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def bottom(self) -> float:
        return self.y + self.height

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.width / 2, self.y + self.height / 2)

    def union(self, *others: Box) -> Box:
        boxes = (self, *others)
        x, y = min(b.x for b in boxes), min(b.y for b in boxes)
        return Box(x=x, y=y, width=max(b.right for b in boxes) - x, height=max(b.bottom for b in boxes) - y)

    def expanded(self, dx: float, dy: float) -> Box:
        return Box(x=self.x - dx, y=self.y - dy, width=self.width + 2 * dx, height=self.height + 2 * dy)

    def same_row(self, other: Box) -> bool:
        """Whether the two sit on one line: each one's vertical centre inside the other."""
        return self.y <= other.center[1] <= self.bottom and other.y <= self.center[1] <= other.bottom

    def intersects(self, other: Box) -> bool:
        return not (
            other.x > self.right or other.right < self.x or other.y > self.bottom or other.bottom < self.y
        )


# ---------------------------------------------------------------- extraction


class PageText(_Frozen):
    """A visible run of text: consecutive inline text with no control or block between."""

    id: int
    text: str
    box: Box
    font_size: float = 16.0
    form: int | None = None  # index in document.forms of the form element holding it
    cell: bool = False  # the box is the table cell's: this is the cell's only text
    heading: bool = False  # inside h1-h6, caption or legend: titles a section, labels no field


class Markup(_Frozen):
    """What the HTML says about a field, besides what it looks like."""

    label_ids: tuple[int, ...] = ()  # visible texts inside <label for>/wrapping <label>
    labelledby_ids: tuple[int, ...] = ()  # visible texts inside aria-labelledby targets
    describedby_ids: tuple[int, ...] = ()  # visible texts inside aria-describedby targets
    legend_ids: tuple[int, ...] = ()  # the legend (or group label) of a fieldset holding only this field
    labels: tuple[str, ...] = ()  # every label's text, including visually hidden ones
    legend: str = ""  # the text of that legend or group label
    section: str = ""  # the legend of a fieldset holding this and other fields
    aria_label: str = ""
    placeholder: str = ""
    title: str = ""
    autocomplete: str = ""  # the autofill tokens ("username", "section-a shipping postal-code")
    prompt: str = ""  # a select's empty-valued option shown in the box ("Any genre")

    @property
    def bound_ids(self) -> tuple[int, ...]:
        return (*self.label_ids, *self.labelledby_ids, *self.describedby_ids, *self.legend_ids)


class FieldOption(_Frozen):
    """One value of a bounded field: a select option or one radio button/checkbox."""

    value: str
    label: str = ""  # the option's text; for a radio/checkbox filled in by the layout stage
    selected: bool = False
    disabled: bool = False
    selector: str | None = None  # radio/checkbox only: the input to click
    box: Box | None = None  # radio/checkbox only
    markup: Markup | None = None  # radio/checkbox only


class FormField(_Frozen):
    name: str  # the name attribute; unique in the form (synthetic when absent or repeated)
    html_name: str = ""
    id: str = ""
    tag: str
    type: str  # text, search, select-one, select-multiple, radio, checkbox, textarea…
    kind: FieldKind
    selector: str  # a Playwright selector of the element (of the first option for a group)
    box: Box
    options: tuple[FieldOption, ...] = ()
    multiple: bool = False
    required: bool = False
    disabled: bool = False
    markup: Markup = Markup()
    hidden: bool = False  # not shown (its form is hidden): its box is empty, its texts are markup's
    # A filter builder's row field (forms.builder): not on the page until a person adds its row.
    # The NSEQL steps (canonical lines) that add it and wait for it; its label is the entry chosen.
    added_by: tuple[str, ...] = ()

    @property
    def checkable(self) -> bool:
        return self.type in ("radio", "checkbox")


class SubmitControl(_Frozen):
    type: Literal["submit", "image", "button"]
    tag: str
    text: str
    name: str = ""
    selector: str
    box: Box
    distance: float = 0.0  # pixels from the fields (a virtual form's buttons; 0 in a form)


class ScriptAnchor(_Frozen):
    """An element with script in href/onclick near the form (a possible way to submit)."""

    text: str
    href: str = ""
    onclick: bool = False
    selector: str
    box: Box
    distance: float  # pixels from the form's controls


class ExtractedForm(_Frozen):
    index: int  # position in document.forms; virtual forms follow, in document order
    selector: str
    # No <form>: controls outside every form, grouped by the nearest element that holds
    # a button too (the selector names it). Submitted by its buttons or Enter only.
    virtual: bool = False
    action: str
    method: str
    name: str = ""
    id: str = ""
    box: Box  # union of its visible controls
    fields: tuple[FormField, ...] = ()
    submits: tuple[SubmitControl, ...] = ()
    anchors: tuple[ScriptAnchor, ...] = ()
    # CAPTCHA widgets in it a person must answer (their tag, class, id, src): challenge.py
    challenge: tuple[str, ...] = ()
    # No control of it shows (a login in a closed modal): analysed from markup, never submitted.
    hidden: bool = False
    classes: str = ""  # its class attribute
    heading: str = ""  # the heading or legend it sits under ("Forgot your password?")
    declared_action: str = ""  # its action attribute as written ("" when it posts to its page)


class PageExtraction(_Frozen):
    url: str
    title: str = ""
    forms: tuple[ExtractedForm, ...] = ()
    texts: tuple[PageText, ...] = ()  # texts in or near forms; ids index this tuple


# ---------------------------------------------------------------- layout


class Evidence(StrEnum):
    """Where a field's text comes from. The first four place a text on the page; the
    others are what the markup says of the field, or of its form as a whole."""

    VISUAL = "visual"  # distance and angle (the paper's method)
    LABEL = "label"  # <label for> or a wrapping <label>
    ARIA = "aria"  # aria-labelledby / aria-describedby
    LEGEND = "legend"  # the legend of a fieldset holding only this field
    HIDDEN_LABEL = "hidden-label"  # a declared label that does not show (screen readers only)
    ARIA_LABEL = "aria-label"
    PLACEHOLDER = "placeholder"
    TITLE = "title"
    PROMPT = "prompt"  # a select's empty choice ("Any genre")
    SECTION = "section"  # the legend of a fieldset holding this and other fields
    NAME = "name"  # the words of the field's name and id (search[author_name] → author name)
    AUTOCOMPLETE = "autocomplete"  # its autofill tokens (current-password → password)
    TYPE = "type"  # what its input type says (password, email, search, tel…)
    BUTTON = "button"  # the form's submit button: its text, value, alt or title
    ACTION = "action"  # the words of the path the form is sent to (/search, login.php)
    FORM = "form"  # the form's id, name and class words (newsletter-form)
    HEADING = "heading"  # the heading the form sits under
    PHRASE = "phrase"  # a run of words inside the form's button, heading or identifiers


class FieldText(_Frozen):
    """A text that describes a field, the evidence it comes from and how much it is trusted."""

    text: str
    evidence: Evidence
    weight: float = 1.0


class TextLink(_Frozen):
    text_id: int
    text: str
    distance: int  # character cells
    angle: int  # degrees from the field to the text, a multiple of 45, counter-clockwise, 0 = right
    evidence: Evidence
    box: Box


class FieldLayout(_Frozen):
    field: str
    texts: tuple[TextLink, ...] = ()
    option_texts: tuple[tuple[TextLink, ...], ...] = ()  # radio/checkbox: per option


class FormLayout(_Frozen):
    cell: tuple[float, float]  # character cell (width, height) in pixels
    fields: tuple[FieldLayout, ...] = ()

    def of(self, field: str) -> FieldLayout:
        for fl in self.fields:
            if fl.field == field:
                return fl
        raise KeyError(field)


# ---------------------------------------------------------------- matching


class SimilarityEntry(_Frozen):
    field: str
    attribute: str
    sim1: float  # best alias × field text
    sim2: float  # bounded fields: mean over query values of the best field value
    similarity: float
    text: str = ""  # the field text behind sim1
    alias: str = ""  # the alias behind sim1
    evidence: Evidence | None = None  # where that text comes from


class Assignment(_Frozen):
    field: str
    attribute: str
    confidence: float
    primary: bool = True  # False: the field shares an attribute another field holds
    refines: bool = False  # a choice box held by the domain's refining attribute (never primary)


class NamedAttribute(_Frozen):
    """An option of a chooser that names a domain attribute."""

    attribute: str
    value: str  # the option's value (a radio button's too)
    label: str  # what the option says
    confidence: float


class Chooser(_Frozen):
    """A bounded field whose options name what a text field searches ("Search by: Title /
    Author / ISBN [____]", a library catalogue's index select): the pair stands for a
    field of each attribute named, one at a time."""

    field: str  # the select or radio group
    target: str  # the text field the value goes in
    attributes: tuple[NamedAttribute, ...]


class DomainMatch(_Frozen):
    domain: str
    score: float
    threshold: float
    relevant: bool
    assignments: tuple[Assignment, ...] = ()
    similarities: tuple[SimilarityEntry, ...] = ()  # the table, pairs above zero
    chooser: Chooser | None = None
    # An attribute the form as a whole shows (its button, heading, action: "Reset
    # password", /newsletter) and no field holds; it counts towards the score, fills nothing.
    form_attribute: Assignment | None = None
    # The form's own words (button, action, heading, id, class) name one of its attributes.
    named_by_form: bool = False
    # Attributes whose specificity says nothing of the domain (``SILENT``): they hold boxes,
    # and words, of other kinds of form so that nothing else here takes them.
    silent: tuple[str, ...] = ()


# ---------------------------------------------------------------- results


class OptionAnalysis(_Frozen):
    value: str
    label: str
    selected: bool = False
    selector: str | None = None
    texts: tuple[str, ...] = ()


class FieldAnalysis(_Frozen):
    name: str
    kind: FieldKind
    type: str
    tag: str
    html_name: str = ""
    id: str = ""
    selector: str
    box: Box
    texts: tuple[str, ...] = ()  # visible texts associated with the field, best first
    links: tuple[TextLink, ...] = ()
    hints: tuple[str, ...] = ()  # markup texts: hidden labels, aria-label, placeholder, title…
    evidence: tuple[FieldText, ...] = ()  # every text the match stage reads, with its evidence and weight
    hidden: bool = False
    values: tuple[str, ...] = ()  # bounded: the option labels a person reads
    options: tuple[OptionAnalysis, ...] = ()
    multiple: bool = False
    required: bool = False
    added_by: tuple[str, ...] = ()  # see FormField.added_by


# What a form says of itself, not of one of its fields (FieldText evidence kinds).
FORM_EVIDENCE = frozenset({Evidence.BUTTON, Evidence.ACTION, Evidence.HEADING, Evidence.FORM,
                           Evidence.PHRASE})


class FormAnalysis(_Frozen):
    form_index: int
    selector: str
    virtual: bool = False  # see ExtractedForm.virtual
    action: str
    method: str
    box: Box
    fields: tuple[FieldAnalysis, ...] = ()
    submits: tuple[SubmitControl, ...] = ()
    script_anchors: tuple[ScriptAnchor, ...] = ()
    domains: tuple[DomainMatch, ...] = ()
    cell: tuple[float, float] = (8.0, 19.2)
    # What makes a person prove they are one before it is sent ("reCAPTCHA", "a CAPTCHA
    # field: 'Enter the code shown'"): DeepBot does not query such a form.
    challenge: str | None = None
    # Toggles clicked to show its folded fields ("Advanced search ▾"): selectors, in order.
    opened: tuple[str, ...] = ()
    hidden: bool = False  # none of its controls shows: analysed from markup, never submitted
    evidence: tuple[FieldText, ...] = ()  # what the form as a whole says (button, action, heading)

    @property
    def relevant_domains(self) -> tuple[DomainMatch, ...]:
        return tuple(d for d in self.domains if d.relevant)

    @property
    def best_domain(self) -> DomainMatch | None:
        """The relevant domain the form fits best, or None. Each is ranked by how many
        times its score is its µ, weighed by the square of the share of the form's items
        (its fields, and its own words) it explains: a sign-up form of a user name, an
        e-mail, a password and "Sign up" passes a login domain's µ too, yet leaves its
        e-mail or its button unexplained."""
        # a folded box of a form that shows is no item a person sees to explain
        shown = [f.name for f in self.fields
                 if (f.kind == "unbounded" or f.values) and (self.hidden or not f.hidden)]
        # What the form says of itself (its button, heading, action) is one more thing to
        # explain, when a relevant domain reads it: "Register" beside an e-mail and a password.
        said = any(d.relevant and d.form_attribute is not None and d.form_attribute.attribute not in d.silent
                   for d in self.domains)
        ranked = []
        for i, d in enumerate(self.domains):
            if not d.relevant:
                continue
            # A box held by a silent attribute is one the domain says is another kind's: a
            # login file's "confirm password" at specificity 0 does not make a sign-up a login.
            held = ({a.field for a in d.assignments if a.primary and a.attribute not in d.silent}
                    | ({d.chooser.field} if d.chooser else set()))
            own = d.form_attribute is not None and d.form_attribute.attribute not in d.silent
            # a login form's "Log in" names the login domain's user even when a field holds it
            explained = len(held & set(shown)) + (said and (own or d.named_by_form))
            items = len(shown) + said
            share = explained / items if items else 1.0
            times = d.score / d.threshold if d.threshold > 0 else float("inf")
            # The share counts twice: a domain that leaves an item of the form unexplained
            # must score far more times its µ to win (a login file's 1.6 times its µ, beside
            # a sign-up file's 1.4 that explains the "Sign up" button too, is not enough; a
            # writer's µ says when a form is relevant, not how sure the kinds' files are
            # against each other). Then the score, for domains that explain nothing shown.
            ranked.append((times * share * share, times, i))
        return self.domains[max(ranked)[-1]] if ranked else None

    def field(self, name: str) -> FieldAnalysis:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


class PageAnalysis(_Frozen):
    url: str
    title: str = ""
    forms: tuple[FormAnalysis, ...] = ()
