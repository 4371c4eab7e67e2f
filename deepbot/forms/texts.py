"""What a form says of each field and of itself: the texts the match stage compares.

A field's texts are the visible texts of the layout stage (the paper's method) plus,
beyond the paper, the markup a person does not see in the flow: hidden labels,
aria-label, placeholder, title, a select's prompt option, the words of the field's name
and id (trusted a little less: ``name_weight``), its autocomplete token and input type.
The form as a whole says something too: its button, the path it is sent to, its heading,
its id and class, and runs of a few words inside them. Each text carries the evidence
that gave it (``Evidence``) and its weight. A form is read once, for every domain.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from deepbot.config.domain import Domain
from deepbot.forms.lexicon import FORM_WORDS
from deepbot.forms.models import (
    FORM_EVIDENCE,
    Evidence,
    ExtractedForm,
    FieldLayout,
    FieldText,
    FormField,
)
from deepbot.forms.textsim import STOPWORDS, fold, in_english, tokens

__all__ = [
    "TYPE_WORDS",
    "FormTexts",
    "MatchParams",
    "autocomplete_words",
    "confirming",
    "field_texts",
    "field_values",
    "form_evidence",
    "free_text",
    "name_words",
    "parts",
    "read_texts",
    "split_glued",
    "vocabulary",
]


@dataclass(frozen=True)
class MatchParams:
    min_similarity: float = 0.75
    name_weight: float = 0.9  # a control's name words: a developer's label, not the user's
    section_weight: float = 0.85  # a fieldset legend over several fields describes each loosely
    # What the markup says of a field without a person seeing it: trusted as much as a name.
    autocomplete_weight: float = 0.9
    type_weight: float = 0.85
    # What the form as a whole says (its button, the path it is sent to, its heading, its
    # id and class): evidence for the form's one free-text field, if it has one ("Search
    # [____] [Go]"), and for the attribute the form itself shows.
    button_weight: float = 0.9
    action_weight: float = 0.85
    heading_weight: float = 0.85
    form_weight: float = 0.8


# Widget prefixes of hand-named controls (txtTitle, ddlFormat, chkInStock) and
# framework noise (ctl00, ContentPlaceHolder1) carry no meaning beside other words.
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
        "frm",
        "val",
        "value",
        "text",
        "string",
        "str",
        "id",
        "vb",
        "wp",
        "js",
    }
)
# Developers' short names for what a field holds: a name is all some fields say.
ABBREVIATIONS: dict[str, str] = {
    "q": "query", "s": "search", "kw": "keywords", "kwd": "keywords", "qs": "query", "term": "search terms",
    "pw": "password", "pwd": "password", "pass": "password", "passwd": "password", "pword": "password",
    "usr": "user", "uname": "username", "uid": "user", "login": "login", "mail": "email",
    "fname": "first name", "lname": "last name", "firstname": "first name", "lastname": "last name",
    "surname": "last name", "fullname": "full name", "username": "username", "email": "email",
    "emailaddress": "email address", "tel": "phone", "telephone": "phone", "mobile": "phone",
    "zip": "zip code", "zipcode": "zip code", "postcode": "postal code", "addr": "address",
    "msg": "message", "subj": "subject", "qty": "quantity", "cat": "category", "dept": "department",
    "dob": "date of birth", "url": "website", "www": "website", "newsletter": "newsletter",
}  # fmt: skip
_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[^\W\d_a-zA-Z]+")


def name_words(name: str) -> str:
    """The meaningful words of a control's name or id: ``ctl00$Main$txtAuthorName`` → ``author
    name``, ``q`` → ``query``, ``user_pwd`` → ``user password``. A noise word ("search",
    "field") is dropped beside others, kept when it is all the name says."""
    last = re.split(r"[$.:\[\]/]+", name.strip("[]$.:/"))[-1] if name else ""
    raw = [w.lower() for w in _WORDS.findall(last)]
    if len(raw) == 1 and raw[0] in ABBREVIATIONS:
        return ABBREVIATIONS[raw[0]]
    words = [ABBREVIATIONS.get(w, w) for w in raw if len(w) > 1]
    kept = [w for w in words if w not in _NOISE]
    if any(len(w) > 2 for w in kept):
        # beside a word, two letters are a prefix of the code, not a word ("fp_email",
        # "nl_firstname", "tx_powermail"): they would only dilute it
        kept = [w for w in kept if len(w) > 2 or w in ABBREVIATIONS.values()]
    return " ".join(kept or words[-1:])


_SEPARATORS = re.compile(r"\s*(?:/|\||&|\+|,|;|\bor\b|\band\b|\bou\b|\bo\b|\boder\b|\bи\b|\bили\b|"
                         r"\beller\b|\blub\b|\bnebo\b|\bvagy\b|\barba\b|\bveya\b|\btai\b)\s*",
                         re.IGNORECASE)


PART = 0.99  # the weight of a compound label's part, against its whole's


def parts(text: str) -> list[str]:
    """A compound label's parts ("Author / Editor", "Artist or band", "Name & surname"): each
    names the field as well as the whole does. Only short labels split: a sentence's
    clauses are not labels."""
    if len(text) > 60:
        return []
    pieces = [p for p in _SEPARATORS.split(text) if p and tokens(p)]
    return pieces if len(pieces) > 1 else []


_EVERYTHING = re.compile(r"^\W*(all|any|every|todas?|todos?|tous|toutes|alle|tutti|tutte|qualquer|cualquier|"
                         r"все|wszystkie|alla|kaikki)\b", re.I)
# What an input's type says of it, where it says anything.
TYPE_WORDS = {"password": "password", "email": "email", "search": "search", "tel": "phone", "url": "website",
               "date": "date", "number": "number"}  # fmt: skip
# Autofill tokens (HTML's autocomplete attribute) in words; the others are read as they are.
_AUTOFILL = {"current-password": "password", "new-password": "new password", "given-name": "first name",
             "family-name": "last name", "additional-name": "middle name", "name": "name", "tel": "phone",
             "bday": "birthday", "street-address": "address", "address-line1": "address",
             "address-line2": "address", "postal-code": "postal code", "country-name": "country",
             "one-time-code": "code", "cc-number": "card number", "organization": "organization"}  # fmt: skip
_NOT_AUTOFILL = frozenset({"on", "off", "false", "true", "none", "nope", "disabled", "shipping", "billing",
                           "home", "work", "mobile", "fax", "pager", "webauthn"})  # fmt: skip


def autocomplete_words(value: str) -> str:
    """The words of an autocomplete attribute's field name ("section-x billing postal-code" →
    "postal code"; "off" → "")."""
    names = [t for t in value.lower().split() if t not in _NOT_AUTOFILL and not t.startswith("section-")]
    return " ".join(_AUTOFILL.get(t, t.replace("-", " ")) for t in names[-1:])


def _words_of_path(url: str) -> str:
    """The words of the path a form is sent to: ``/cgi-bin/search.pl`` → ``search``,
    ``/newsletter/subscribe`` → ``newsletter subscribe``."""
    path = urlsplit(url).path
    segments = [s for s in path.split("/") if s][-2:]
    words = []
    for seg in segments:
        stem = seg.rsplit(".", 1)[0] if "." in seg else seg
        words += [w.lower() for w in _WORDS.findall(stem) if len(w) > 1]
    return " ".join(w for w in words if w not in _PATH_NOISE)


_PATH_NOISE = frozenset({"cgi", "bin", "index", "default", "php", "asp", "aspx", "jsp", "do", "html",
                         "htm", "action", "en", "us", "www", "ajax", "api", "post", "get", "page",
                         "pages"})  # fmt: skip


def form_evidence(form: ExtractedForm, params: MatchParams = MatchParams()) -> list[FieldText]:
    """What a form as a whole says: its buttons' words, the words of the path it is sent
    to (as written: a form that posts to its own page says nothing), its heading, and
    the words of its id, name and class."""
    out: list[FieldText] = []
    for sub in form.submits[:3]:
        if sub.text and len(sub.text) <= 40:
            out.append(FieldText(text=sub.text, evidence=Evidence.BUTTON, weight=params.button_weight))
    if form.declared_action and not form.declared_action.lower().startswith("javascript:"):
        words = _words_of_path(form.declared_action)
        if words:
            out.append(FieldText(text=words, evidence=Evidence.ACTION, weight=params.action_weight))
    if form.heading and len(form.heading) <= 80:
        out.append(FieldText(text=form.heading, evidence=Evidence.HEADING, weight=params.heading_weight))
    for raw in dict.fromkeys((form.id, form.name, *form.classes.split()[:4])):
        words = " ".join(w.lower() for w in _WORDS.findall(raw) if len(w) > 1 and w.lower() not in _NOISE)
        if words:
            out.append(FieldText(text=words, evidence=Evidence.FORM, weight=params.form_weight))
    return _distinct(out)


def _distinct(texts: Sequence[FieldText]) -> list[FieldText]:
    """Each text once, with the best weight any evidence gave it; texts with no word go."""
    best: dict[str, FieldText] = {}
    for t in texts:
        if tokens(t.text) and (t.text not in best or t.weight > best[t.text].weight):
            best[t.text] = t
    return list(best.values())


def free_text(form: ExtractedForm) -> FormField | None:
    """The form's one field for free text, when it has exactly one: what its button and
    heading describe ("Search [____] [Go]", "Newsletter: [email] [Subscribe]")."""
    free = [f for f in form.fields if f.kind == "unbounded" and f.type != "password"]
    return free[0] if len(free) == 1 else None


def confirming(form: ExtractedForm) -> frozenset[int]:
    """The positions of the fields that repeat a password: the last of each run of two or
    more password fields one after the other (a sign-up's "Repeat password", a change of
    password's "Confirm new password"); with no such run, the last of two password fields.
    A sign-up that also asks for a partner's password and a card's security code (boxes
    that hide what is typed, far from the password) repeats only the one beside it."""
    shown = [i for i, f in enumerate(form.fields) if f.type != "hidden"]
    secret = [form.fields[i].type == "password" for i in shown] + [False]
    out = {i for k, i in enumerate(shown) if k and secret[k - 1] and secret[k] and not secret[k + 1]}
    passwords = [i for i in shown if form.fields[i].type == "password"]
    if not out and len(passwords) == 2:
        out.add(passwords[-1])
    return frozenset(out)


def field_texts(
    f: FormField, layout: FieldLayout, params: MatchParams = MatchParams(),
    form_texts: Sequence[FieldText] = (), *, confirms: bool = False,
) -> list[FieldText]:
    """The texts describing a field, each with its evidence and the weight it deserves:
    the layout's texts first (the paper's method), then what the markup says."""
    out = [FieldText(text=link.text, evidence=link.evidence) for link in layout.texts]
    if f.checkable and len(f.options) == 1:
        # a lone checkbox is named by its own label ("Remember me", "I agree to the terms")
        own = layout.option_texts[0] if layout.option_texts else ()
        out += [FieldText(text=link.text, evidence=link.evidence) for link in own]
        markup = f.options[0].markup
        out += [FieldText(text=t, evidence=Evidence.LABEL) for t in (markup.labels if markup else ())]
    m = f.markup
    shown = {link.text for link in layout.texts}
    out += [FieldText(text=t, evidence=Evidence.HIDDEN_LABEL) for t in m.labels if t not in shown]
    for text, evidence in ((m.legend, Evidence.LEGEND), (m.aria_label, Evidence.ARIA_LABEL),
                           (m.placeholder, Evidence.PLACEHOLDER), (m.title, Evidence.TITLE),
                           (m.prompt, Evidence.PROMPT)):  # fmt: skip
        if text:
            out.append(FieldText(text=text, evidence=evidence))
    if not m.prompt and f.tag == "select" and f.options:
        # A select showing "All categories" (a value of its own, "all" or "0") names itself
        # as a prompt does: a search's category or department refinement.
        shown_option = next((o for o in f.options if o.selected), f.options[0])
        if _EVERYTHING.match(shown_option.label) and len(tokens(shown_option.label)) > 1:
            out.append(FieldText(text=shown_option.label, evidence=Evidence.PROMPT))
    if m.section:
        out.append(FieldText(text=m.section, evidence=Evidence.SECTION, weight=params.section_weight))
    for raw in dict.fromkeys((f.html_name, f.id)):
        words = name_words(raw)
        if words:
            out.append(FieldText(text=words, evidence=Evidence.NAME, weight=params.name_weight))
        if words == "login" and f.kind == "unbounded":
            # a box named "login" holds one: the name a person logs in with, not the act a
            # button of that word does
            out.append(FieldText(text="username", evidence=Evidence.NAME, weight=params.name_weight))
    if m.autocomplete and (words := autocomplete_words(m.autocomplete)):
        out.append(FieldText(text=words, evidence=Evidence.AUTOCOMPLETE, weight=params.autocomplete_weight))
    if f.tag == "textarea":
        # a box of several lines is for a message, a comment, a description: what a person writes
        out.append(FieldText(text="message", evidence=Evidence.TYPE, weight=params.type_weight))
    elif f.type in TYPE_WORDS:
        word = TYPE_WORDS[f.type]
        if f.type == "password" and confirms:
            word = "confirm password"  # it repeats the password before it (confirming())
        out.append(FieldText(text=word, evidence=Evidence.TYPE, weight=params.type_weight))
    out += form_texts
    # a compound label's parts are texts of the field too, trusted a hair less than the
    # whole: an alias that says the whole ("Username or email") wins over one of a part
    out += [t.model_copy(update={"text": p, "weight": PART * t.weight})
            for t in list(out) for p in parts(t.text)]
    return _distinct(out)


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
class FormTexts:
    """A form's texts, read once for every domain it is matched against."""

    fields: tuple[tuple[FieldText, ...], ...]  # per field: its texts (field_texts)
    values: tuple[tuple[str, ...], ...]  # per field: the values a person can choose
    whole: tuple[FieldText, ...]  # the form as a whole: its evidence, its one free field's caption


def read_texts(
    form: ExtractedForm, layouts: Sequence[FieldLayout], params: MatchParams = MatchParams(),
    vocabulary: frozenset[str] = frozenset(),
) -> FormTexts:
    """Each field's texts and values, and the form's own, once for all domains. Words
    glued together in an identifier (``lostpasswordform``, ``userpassword``) are split
    where the domains' own ``vocabulary`` says where."""
    evidence = form_evidence(form, params)
    # A class list is a bag of keywords, not a phrase: each of its words names the form
    # alone ("newsletter subscribe", "ftr emailsignup").
    evidence = _distinct([*evidence, *_each_word(evidence, Evidence.FORM)])
    free, repeat = free_text(form), confirming(form)
    # The path a form is sent to is a bag of keywords too ("/account/forgot-password",
    # "/newsletter/inscription"), of the form alone: one of its words is not what the form's
    # free field holds (an e-mail box posted to /forgot-password is not a password).
    whole = _distinct([*evidence, *_each_word(evidence, Evidence.ACTION)])
    if free is not None:  # its caption, not what says what it holds (name, type, placeholder)
        layout = layouts[form.fields.index(free)]
        caption = [FieldText(text=link.text, evidence=link.evidence) for link in layout.texts]
        # a caption written inside the box is one too ("NEWSLETTER" as the placeholder of its e-mail box)
        m = free.markup
        caption += [FieldText(text=t, evidence=e) for t, e in ((m.placeholder, Evidence.PLACEHOLDER),
                    (m.aria_label, Evidence.ARIA_LABEL), (m.title, Evidence.TITLE)) if t]
        whole = _distinct([*whole, *caption])
    fields = [field_texts(f, lay, params, evidence if f is free else (), confirms=i in repeat)
              for i, (f, lay) in enumerate(zip(form.fields, layouts, strict=True))]
    # A field's name often starts with its form's ("newsletter_email" in form#newsletter,
    # "login_username" in form.login, "searchQuery" posted to /search): that word names
    # the form, and the rest what the field holds.
    own = {w for t in evidence if t.evidence in (Evidence.FORM, Evidence.ACTION) for w in t.text.split()}
    fields = [_unprefixed(texts, own) for texts in fields]
    # A lone checkbox's label is often a sentence ("I have read and accept the terms of use"):
    # its short runs of words are what it is about, as a long button's are the form's.
    fields = [_distinct([*texts, *_sentence_runs(_own_label(f, lay), vocabulary)]) if _lone(f) else texts
              for f, lay, texts in zip(form.fields, layouts, fields, strict=True)]
    if vocabulary:
        fields = [_unglued(texts, vocabulary) for texts in fields]
        whole = _unglued(whole, vocabulary)
    whole = _distinct([*whole, *_phrases(whole, vocabulary)])
    return FormTexts(
        fields=tuple(tuple(texts) for texts in fields),
        values=tuple(tuple(field_values(f, lay)) for f, lay in zip(form.fields, layouts, strict=True)),
        whole=tuple(whole),
    )


def _unprefixed(texts: Sequence[FieldText], form_words: set[str]) -> list[FieldText]:
    """A field's name without the words that name its form, when other words remain."""
    if not form_words:
        return list(texts)
    out = []
    for t in texts:
        if t.evidence == Evidence.NAME:
            rest = [w for w in t.text.split() if w not in form_words]
            if rest and len(rest) < len(t.text.split()):
                t = t.model_copy(update={"text": " ".join(rest)})
        out.append(t)
    return _distinct(out)


def _phrases(texts: Sequence[FieldText], vocabulary: frozenset[str]) -> list[FieldText]:
    """The runs of one to three words inside a form's short texts: "Request a new password"
    says "new password", "Search the PennPortal" says "search". Only runs with a word of the
    domains' ``vocabulary`` (when given) can match an alias."""
    out = []
    for t in texts:
        if t.evidence in _HINTS:
            continue  # what to type in the form's one box ("Search artists, albums…") is not the form
        words = [w for w in re.findall(r"\w+(?:-\w+)*", in_english(t.text)) if w not in STOPWORDS]
        # a heading may be a whole instruction ("Introduza abaixo o endereço de e-mail da
        # conta cuja senha esqueceu"): its runs are read up to twice as far as a button's
        if not 2 <= len(words) <= (12 if t.evidence == Evidence.HEADING else 6):
            continue
        for n in (1, 2, 3):
            for i in range(len(words) - n + 1):
                if n < len(words) and (not vocabulary or any(_known(w, vocabulary) for w in words[i:i + n])):
                    # a button's first words are what the form does ("Search the site"); a
                    # run of its one box's caption is still the box's words, not the form's
                    kind = (Evidence.BUTTON if i == 0 and t.evidence == Evidence.BUTTON
                            else Evidence.PHRASE if t.evidence in FORM_EVIDENCE else t.evidence)
                    out.append(FieldText(text=" ".join(words[i:i + n]), evidence=kind, weight=t.weight))
    return out


_HINTS = frozenset({Evidence.PLACEHOLDER, Evidence.ARIA_LABEL, Evidence.TITLE})

# What a sentence's runs may not say of the checkbox it labels: what a person types into a
# box ("...we will never share your e-mail address") is not what ticking a box gives.
# A message, a comment, a question or a subject is typed too ("...alerts about your
# subscription, questions, privacy").
_TYPED_WORDS = frozenset(w for word in (*TYPE_WORDS.values(), "name", "username", "message", "comment",
                                        "question", "subject") for w in tokens(word))


def _lone(f: FormField) -> bool:
    return f.checkable and len(f.options) == 1


def _own_label(f: FormField, layout: FieldLayout) -> list[FieldText]:
    """A lone checkbox's own label (its option's), not the texts around it."""
    own = [FieldText(text=link.text, evidence=link.evidence)
           for link in (layout.option_texts[0] if layout.option_texts else ())]
    markup = f.options[0].markup
    return own + [FieldText(text=t, evidence=Evidence.LABEL) for t in (markup.labels if markup else ())]


def _sentence_runs(texts: Sequence[FieldText], vocabulary: frozenset[str]) -> list[FieldText]:
    """Runs of one or two words of a checkbox's own label when that label is a sentence (six
    words or more), with a word of the domains' ``vocabulary`` and none of a typed box's,
    trusted a little less than the label."""
    out = []
    for t in _distinct(texts):
        words = [w for w in re.findall(r"\w+(?:-\w+)*", in_english(t.text)) if w not in STOPWORDS]
        if len(words) < 6:
            continue
        for n in (1, 2):
            for i in range(len(words) - n + 1):
                run = words[i:i + n]
                typed = any(_known(w, _TYPED_WORDS) for w in tokens(" ".join(run)))
                if any(_known(w, vocabulary) for w in run) and not typed:
                    out.append(FieldText(text=" ".join(run), evidence=t.evidence, weight=0.85 * t.weight))
    return out


def _known(word: str, vocabulary: frozenset[str]) -> bool:
    """Whether a word is one of the vocabulary's, or its plural ("passwords")."""
    return word in vocabulary or word.rstrip("s") in vocabulary


def _each_word(texts: Sequence[FieldText], evidence: Evidence) -> list[FieldText]:
    return [t.model_copy(update={"text": w}) for t in texts if t.evidence == evidence and " " in t.text
            for w in t.text.split()[:4]]


_GLUED = frozenset({Evidence.NAME, Evidence.ACTION, Evidence.FORM})


def _unglued(texts: Sequence[FieldText], vocabulary: frozenset[str]) -> list[FieldText]:
    out = []
    for t in texts:
        if t.evidence in _GLUED:
            # an identifier of the form is a bag of keywords: a known word glued to an unknown
            # one ("rokajaxsearch", "forgotpasswordpost") still says the known one
            loose = t.evidence != Evidence.NAME
            words = [" ".join(split_glued(w, vocabulary) or (loose and _loose_split(w, vocabulary)) or [w])
                     for w in t.text.split()]
            t = t.model_copy(update={"text": " ".join(words)})
        out.append(t)
    return _distinct(out)


def split_glued(word: str, vocabulary: frozenset[str]) -> list[str] | None:
    """``word`` as the fewest words of ``vocabulary`` (three letters or more; the noise of
    identifiers such as "form" may come between and is dropped), or None."""
    if len(word) < 6 or word in vocabulary:
        return None
    n = len(word)
    best: list[list[str] | None] = [None] * (n + 1)
    best[0] = []
    for end in range(3, n + 1):
        for start in range(0, end - 2):
            piece, before = word[start:end], best[start]
            if before is None or (piece not in vocabulary and piece not in _NOISE):
                continue
            if best[end] is None or len(before) + 1 < len(best[end] or ()):
                best[end] = [*before, piece]
    found = best[n]
    if found is None or len(found) < 2:
        return None
    meaningful = [w for w in found if w not in _NOISE]
    return meaningful or None


def _loose_split(word: str, vocabulary: frozenset[str]) -> list[str] | None:
    """``word`` as an unknown head or tail of two letters or more and the rest split into
    words of ``vocabulary`` (at least four letters of them), or None."""
    if len(word) < 6 or word in vocabulary:
        return None
    for k in range(2, len(word) - 3):
        tail = split_glued(word[k:], vocabulary) or ([word[k:]] if word[k:] in vocabulary else None)
        if tail:
            return [word[:k], *tail]
        head = split_glued(word[:-k], vocabulary) or ([word[:-k]] if word[:-k] in vocabulary else None)
        if head:
            return [*head, word[-k:]]
    return None


def vocabulary(domains: Sequence[Domain]) -> frozenset[str]:
    """Every word the domains' names and aliases use: what glued identifiers are split into."""
    return _vocabulary(tuple(d.model_dump_json() for d in domains))


@lru_cache(maxsize=32)
def _vocabulary(domains_json: tuple[str, ...]) -> frozenset[str]:
    domains = [Domain.model_validate_json(j) for j in domains_json]
    labels = [label for d in domains for a in d.attributes for label in a.labels]
    # The words as read (in English) and as written, and the form words of every language the
    # lexicon knows: "esqueceusenha" splits where "esqueceu" and "senha" end.
    written = [w for label in labels for w in _WORDS.findall(fold(label))]
    foreign = [w for phrases in FORM_WORDS.values() for p in phrases for w in _WORDS.findall(fold(p))]
    return frozenset(w for w in (*(w for label in labels for w in tokens(label)), *written, *foreign)
                     if len(w) >= 3)
