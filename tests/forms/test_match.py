"""Fields ↔ attributes: sim1, sim2, the cut and the paper's assignment rule; relevance."""

from __future__ import annotations

import pytest

from deepbot.config.domain import parse_domain
from deepbot.forms.match import alias_similarity, assign_attributes, similarity_table
from deepbot.forms.models import (
    Assignment,
    Box,
    Evidence,
    ExtractedForm,
    FieldLayout,
    FieldOption,
    FormField,
    Markup,
    SimilarityEntry,
    TextLink,
)
from deepbot.forms.relevance import relevance, score
from deepbot.forms.texts import MatchParams, name_words

BOOKS = parse_domain(
    """
name: books
threshold: 0.9
attributes:
  - {name: title, aliases: [book title, title], specificity: 0.6}
  - {name: author, aliases: [writer, written by], specificity: 0.7}
  - {name: format, aliases: [binding], specificity: 0.25}
  - {name: publisher, aliases: [published by], specificity: 0.5}
queries:
  - {title: java}
  - {title: xml, format: paperback}
"""
)
B = Box(x=0, y=0, width=10, height=10)


def entry(field: str, attribute: str, sim: float) -> SimilarityEntry:
    return SimilarityEntry(field=field, attribute=attribute, sim1=sim, sim2=0.0, similarity=sim)


def text_field(name: str, *texts: str, html_name: str = "") -> tuple[FormField, FieldLayout]:
    links = tuple(
        TextLink(text_id=i, text=t, distance=0, angle=180, evidence=Evidence.VISUAL, box=B)
        for i, t in enumerate(texts)
    )
    field = FormField(
        name=name, html_name=html_name, tag="input", type="text", kind="unbounded", selector="x", box=B
    )
    return field, FieldLayout(field=name, texts=links)


def test_name_words() -> None:
    assert name_words("ctl00$ContentPlaceHolder1$txtTitle") == "title"
    assert name_words("search[author_name]") == "author name"
    assert name_words("ddlBinding") == "binding"
    # a developer's short name is all some fields say: read it as the word it stands for
    assert name_words("q") == "query"
    assert name_words("s") == "search"
    assert name_words("vb_login_password") == "login password"
    assert name_words("user_pwd") == "user password"
    assert name_words("search") == "search"  # a noise word alone is what the name says
    assert name_words("search_text") == "search"  # "text" and "string" name no content
    assert name_words("txtSearchTitle") == "search title"
    assert name_words("x") == ""
    # beside a word, two letters are a code's prefix: "fp_email" is an e-mail
    assert name_words("fp_email") == "email"
    assert name_words("nl_firstname") == "first name"


def test_assignment_rule_prefers_covering_every_field() -> None:
    entries = [entry("f1", "a1", 0.8), entry("f2", "a1", 0.95), entry("f2", "a2", 0.9)]
    got = {(a.field, a.attribute) for a in assign_attributes(entries)}
    assert got == {("f1", "a1"), ("f2", "a2")}


def test_minimum_similarity_cut() -> None:
    entries = [entry("f1", "a1", 0.74), entry("f2", "a2", 0.75)]
    assert [(a.field, a.attribute) for a in assign_attributes(entries)] == [("f2", "a2")]
    assert assign_attributes(entries, MatchParams(min_similarity=0.5))[0].field == "f1"


def test_a_leftover_field_shares_its_best_attribute_without_counting_twice() -> None:
    entries = [entry("pmin", "price", 0.9), entry("pmax", "price", 0.85)]
    got = assign_attributes(entries)
    assert [(a.field, a.attribute, a.primary) for a in got] == [
        ("pmin", "price", True),
        ("pmax", "price", False),
    ]


def test_a_box_keeps_what_it_says_over_what_its_form_borrows_from_it() -> None:
    # A newsletter's one box: its placeholder "Enter your e-mail" (its own words) and its id
    # "subscribe"; the form's class "subscribe" (its own) and the box's placeholder (its
    # caption, borrowed). The box holds the e-mail, the form the subscription.
    from deepbot.forms.match import WHOLE_FORM

    def said(field: str, attribute: str, sim: float, evidence: Evidence) -> SimilarityEntry:
        return SimilarityEntry(field=field, attribute=attribute, sim1=sim, sim2=0.0, similarity=sim,
                               text=f"{field} {attribute}", evidence=evidence)

    entries = [said("email", "email", 1.0, Evidence.PLACEHOLDER),
               said("email", "purpose", 0.9, Evidence.NAME),
               said(WHOLE_FORM, "email", 1.0, Evidence.PLACEHOLDER),
               said(WHOLE_FORM, "purpose", 0.8, Evidence.FORM)]
    got = {(a.field, a.attribute) for a in assign_attributes(entries)}
    assert got == {("email", "email"), (WHOLE_FORM, "purpose")}
    # the borrowed reading still wins when it is clearly the better one
    entries[1] = said("email", "purpose", 1.0, Evidence.NAME)
    entries[3] = said(WHOLE_FORM, "purpose", 0.76, Evidence.FORM)
    got = {(a.field, a.attribute) for a in assign_attributes(entries)}
    assert got == {("email", "purpose"), (WHOLE_FORM, "email")}


SEARCH_TWICE = parse_domain(
    """
name: search
threshold: 0.6
attributes:
  - {name: terms, aliases: [search, keywords], specificity: 0.5}
  - {name: scope, aliases: [search in, category], specificity: 0.1}
  - {name: button, aliases: [search, go], specificity: 0.6}
queries:
  - {terms: java}
"""
)


def _said(field: str, attribute: str, sim: float, evidence: Evidence) -> SimilarityEntry:
    return SimilarityEntry(field=field, attribute=attribute, sim1=sim, sim2=0.0, similarity=sim,
                           text=f"{field} {attribute}", evidence=evidence)


def test_equal_readings_go_to_what_each_attribute_is() -> None:
    # "Search [____] [Search]", read by a domain whose box and button both say "search" (and
    # "search in" reads "search" too): three readings alike for the box and for the form.
    # The box takes what a query fills; the form the most telling of the rest.
    from deepbot.forms.match import WHOLE_FORM

    entries = [_said(f, a, 1.0, Evidence.LABEL if f else Evidence.BUTTON)
               for f in ("s", WHOLE_FORM) for a in ("scope", "terms", "button")]
    got = {(a.field, a.attribute) for a in assign_attributes(entries, MatchParams(), SEARCH_TWICE)}
    assert got == {("s", "terms"), (WHOLE_FORM, "button")}
    # a reading better by any margin still wins
    entries[0] = _said("s", "scope", 1.0, Evidence.LABEL)
    entries[1] = _said("s", "terms", 0.99, Evidence.LABEL)
    got = {(a.field, a.attribute) for a in assign_attributes(entries, MatchParams(), SEARCH_TWICE)}
    assert ("s", "scope") in got


def test_the_one_box_takes_what_the_form_says_a_query_fills() -> None:
    # "[____] [Search the portal]": the form holds the button's attribute, which no query
    # fills; its words read "search" for the query too, so the box is where it is typed
    from deepbot.forms.match import WHOLE_FORM, into_free_field

    form = ExtractedForm(index=0, selector="f", action="", method="get", box=B,
                         fields=(FormField(name="ppquery", html_name="ppquery", tag="input", type="text",
                                           kind="unbounded", selector="#q", box=B),))
    by_form = Assignment(field=WHOLE_FORM, attribute="button", confidence=0.9)
    whole = [_said(WHOLE_FORM, "button", 0.9, Evidence.BUTTON),
             _said(WHOLE_FORM, "terms", 0.9, Evidence.BUTTON)]
    got = into_free_field([], by_form, form, SEARCH_TWICE, None, whole, 0.75)
    assert [(a.field, a.attribute, a.confidence) for a in got] == [("ppquery", "terms", 0.9)]
    assert relevance(got, SEARCH_TWICE, form_attribute=by_form).relevant  # 0.45 + 0.54 > 0.6
    # under the cut, the form's words say nothing of the box
    assert into_free_field([], by_form, form, SEARCH_TWICE, None, whole, 0.95) == []
    # a box hidden in a form that shows is no box a person types in; in a hidden form
    # (a closed panel) every box is hidden, and the one box still takes the query
    hidden_box = form.fields[0].model_copy(update={"hidden": True})
    shown = form.model_copy(update={"fields": (hidden_box,)})
    assert into_free_field([], by_form, shown, SEARCH_TWICE, None, whole, 0.75) == []
    closed = shown.model_copy(update={"hidden": True})
    typed = into_free_field([], by_form, closed, SEARCH_TWICE, None, whole, 0.75)
    assert [a.field for a in typed] == ["ppquery"]


def test_a_compound_label_reads_as_its_parts_a_hair_below_its_whole() -> None:
    # "Username or Email": an alias of the whole ("username or email") wins over one of a
    # part ("username"), and each part still names the field ("Author / Editor" is an author)
    from deepbot.forms.texts import PART, field_texts

    field, layout = text_field("log", "Username or Email")
    weights = {t.text: t.weight for t in field_texts(field, layout)}
    assert weights == {"Username or Email": 1.0, "Username": PART, "Email": PART}
    assert 0.95 < PART < 1.0


def test_a_run_of_the_one_box_caption_stays_the_box_words() -> None:
    # The form reads the runs of its texts; those of its one box's caption ("Username or
    # Email") are the box's words, borrowed, not what the form says of itself ("Sign in")
    from deepbot.forms.models import FieldText
    from deepbot.forms.texts import _phrases

    said = [FieldText(text="Username or Email", evidence=Evidence.LABEL),
            FieldText(text="Sign in to your account", evidence=Evidence.BUTTON)]
    runs = {(t.text, t.evidence) for t in _phrases(said, frozenset())}
    assert ("username", Evidence.LABEL) in runs and ("username", Evidence.PHRASE) not in runs
    # "Sign in" reads "login"
    assert ("login", Evidence.BUTTON) in runs and ("account", Evidence.PHRASE) in runs


def test_sim1_from_texts_and_name_words() -> None:
    fields = [
        text_field("t", "Book Title:"),
        text_field("w", "Written by"),
        text_field("x", html_name="txtPublisher"),
    ]
    form = ExtractedForm(
        index=0, selector="s", action="", method="get", box=B, fields=tuple(f for f, _ in fields)
    )
    table = {(e.field, e.attribute): e for e in similarity_table(form, [lay for _, lay in fields], BOOKS)}
    assert table[("t", "title")].similarity == pytest.approx(1.0)
    assert table[("t", "title")].alias == "book title"
    assert table[("w", "author")].similarity == pytest.approx(1.0)
    assert table[("x", "publisher")].similarity == pytest.approx(0.9)  # name words count a little less
    assert ("t", "author") not in table


def test_sim2_matches_a_bounded_field_through_its_values() -> None:
    # radio buttons "Hardcover / Paperback" with no label: the domain's query value explains them
    options = tuple(FieldOption(value=v, selector="o", box=B) for v in ("hc", "pb"))
    radio = FormField(
        name="fmt", tag="input", type="radio", kind="bounded", selector="o", box=B, options=options
    )
    link = lambda t: (TextLink(text_id=0, text=t, distance=0, angle=0, evidence=Evidence.VISUAL, box=B),)  # noqa: E731
    layout = FieldLayout(field="fmt", option_texts=(link("Hardcover"), link("Paperback")))
    form = ExtractedForm(index=0, selector="s", action="", method="get", box=B, fields=(radio,))
    (got,) = [e for e in similarity_table(form, [layout], BOOKS) if e.attribute == "format"]
    assert (got.sim1, got.sim2, got.similarity) == (0.0, pytest.approx(1.0), pytest.approx(1.0))


def test_relevance_is_the_paper_sum_against_mu() -> None:
    domain = parse_domain(
        """
name: books
threshold: 0.9
attributes:
  - {name: title, specificity: 0.6}
  - {name: author, specificity: 0.7}
  - {name: format, specificity: 0.25}
"""
    )
    assignments = [
        Assignment(field="t", attribute="title", confidence=0.71),
        Assignment(field="a", attribute="author", confidence=1.0),
        Assignment(field="f", attribute="format", confidence=1.0),
    ]
    assert score(assignments, domain) == pytest.approx(1.376)  # the paper's (4)
    verdict = relevance(assignments, domain)
    assert verdict.relevant and verdict.score == pytest.approx(1.376)
    assert not relevance(assignments[2:], domain).relevant
    shared = Assignment(field="f2", attribute="format", confidence=1.0, primary=False)
    assert score([*assignments, shared], domain) == pytest.approx(1.376)
    exact = [Assignment(field="a", attribute="author", confidence=0.9 / 0.7)]
    assert not relevance(exact, domain).relevant or score(exact, domain) > 0.9  # strictly greater than µ


def test_a_score_shown_as_mu_is_not_over_it_by_a_rounding_of_the_sum() -> None:
    # 0.1 + 0.2 is 0.30000000000000004 in floating point: over µ 0.3 by nothing a person sees
    domain = parse_domain("name: d\nthreshold: 0.3\nattributes:\n  - {name: a, specificity: 0.1}\n"
                          "  - {name: b, specificity: 0.2}\n")
    both = [Assignment(field="x", attribute="a", confidence=1.0),
            Assignment(field="y", attribute="b", confidence=1.0)]
    assert score(both, domain) > 0.3
    verdict = relevance(both, domain)
    assert verdict.score == 0.3 and not verdict.relevant


def test_markup_hints_count_for_sim1() -> None:
    field = FormField(
        name="q",
        tag="input",
        type="text",
        kind="unbounded",
        selector="x",
        box=B,
        markup=Markup(placeholder="Author"),
    )
    form = ExtractedForm(index=0, selector="s", action="", method="get", box=B, fields=(field,))
    table = similarity_table(form, [FieldLayout(field="q")], BOOKS)
    assert {e.attribute for e in table if e.similarity >= 0.75} == {"author"}


def test_glued_identifiers_are_split_by_the_domains_words() -> None:
    from deepbot.forms.texts import split_glued

    words = frozenset({"lost", "password", "user", "newsletter", "email", "search"})
    assert split_glued("lostpasswordform", words) == ["lost", "password"]  # "form" is noise
    assert split_glued("newsletteremail", words) == ["newsletter", "email"]
    assert split_glued("password", words) is None  # a word of its own
    assert split_glued("passwordx", words) is None  # no split covers it all
    assert split_glued("searchform", words) == ["search"]


def test_a_password_is_held_by_a_box_it_is_typed_in() -> None:
    # A checkbox under "Password:" (the boxes a script would write are not there) holds no
    # password, nor, where a password box is, does a text box a sentence names it in
    login = parse_domain("""
name: login
threshold: 0.9
attributes:
  - {name: user, aliases: [username, user], specificity: 0.3}
  - {name: password, aliases: [password], specificity: 0.5}
  - {name: remember, aliases: [remember me], specificity: 0.2}
""")
    box = FormField(name="rm", tag="input", type="checkbox", kind="bounded", selector="c", box=B,
                    options=(FieldOption(value="1", selector="c", box=B),))
    near = (TextLink(text_id=0, text="Password:", distance=0, angle=90, evidence=Evidence.VISUAL, box=B),)
    form = ExtractedForm(index=0, selector="s", action="", method="get", box=B, fields=(box,))
    held = {e.attribute for e in similarity_table(form, [FieldLayout(field="rm", texts=near)], login)}
    assert "password" not in held
    user, user_layout = text_field("user", "Login with username, password and session length")
    secret = FormField(name="pw", tag="input", type="password", kind="unbounded", selector="p", box=B)
    form = ExtractedForm(index=0, selector="s", action="", method="get", box=B, fields=(user, secret))
    table = similarity_table(form, [user_layout, FieldLayout(field="pw")], login)
    assert "password" not in {e.attribute for e in table if e.field == "user"}
    assert [(a.field, a.attribute) for a in assign_attributes(table)] == [("pw", "password")]


def test_the_free_box_holds_first_what_the_form_says_it_holds() -> None:
    # "Find homes [Town or postcode ____]": the button says query louder than the box's
    # label, so the form holds it first; the box is still where the query is typed.
    from deepbot.forms.match import WHOLE_FORM, into_free_field

    box, _ = text_field("where", "Town or postcode")
    form = ExtractedForm(index=0, selector="s", action="", method="get", box=B, fields=(box,))
    by_form = Assignment(field=WHOLE_FORM, attribute="title", confidence=0.9)
    second = Assignment(field="where", attribute="title", confidence=0.8, primary=False)
    (got,) = into_free_field([second], by_form, form, BOOKS)
    assert (got.field, got.attribute, got.primary, got.confidence) == ("where", "title", True, 0.9)
    other = Assignment(field="where", attribute="author", confidence=0.8, primary=False)
    assert into_free_field([other], by_form, form, BOOKS) == [other]  # what else it holds stays


def test_a_checkbox_sentence_says_nothing_a_person_types() -> None:
    # "...alerts about your subscription, questions and privacy": ticking the box subscribes;
    # it gives no question, as it gives no e-mail address
    from deepbot.forms.models import FieldText
    from deepbot.forms.texts import _sentence_runs

    label = FieldText(text="Don't miss out! Get email alerts about your subscription, questions and privacy",
                      evidence=Evidence.VISUAL)
    runs = {t.text for t in _sentence_runs([label], frozenset({"question", "subscription", "email"}))}
    assert "subscription" in runs
    assert not [r for r in runs if "question" in r or "email" in r]


QUALIFIED = parse_domain(
    """
name: site search
threshold: 0.45
attributes:
  - {name: query, aliases: [Search, Search the forum, Search products, Enter keywords], specificity: 0.6}
  - {name: signup, aliases: [Newsletter, Sign up for our newsletter], specificity: 0.7}
  - {name: terms, aliases: [Terms, I agree to the terms], specificity: 0.3}
queries:
  - {query: java}
"""
)


def test_a_word_that_qualifies_a_shorter_alias_is_not_that_alias_alone() -> None:
    # The domain's own IDF makes "forum" weigh most in "Search the forum": the aliases share
    # "search". Alone, "forum" and "products" name the site, not a search.
    texts = ["forum", "products", "Forum search", "Search", "Sign up", "agree"]
    sims = dict(zip(texts, alias_similarity(QUALIFIED, texts).T, strict=True))
    assert sims["forum"][0] == 0.0 and sims["products"][0] == 0.0
    assert sims["Forum search"][0] == pytest.approx(1.0, abs=0.01) and sims["Search"][0] == 1.0
    # a word of forms still reads: "Sign up" is half of "Sign up for our newsletter"
    assert sims["Sign up"][1] > 0.3 and sims["agree"][2] > 0.5


def test_a_box_named_with_a_word_of_forms_reads_the_alias_it_qualifies() -> None:
    # "agree" is a word of forms: a box named "agree" is "I agree to the terms"; one
    # captioned "forum" is no search.
    field, layout = text_field("a", html_name="agree")
    form = ExtractedForm(index=0, selector="s", action="", method="post", box=B, fields=(field,))
    table = {(e.field, e.attribute): e.similarity for e in similarity_table(form, [layout], QUALIFIED)}
    assert table[("a", "terms")] > 0.5
    visual_field, visual = text_field("v", "forum")
    form = ExtractedForm(index=0, selector="s", action="", method="post", box=B, fields=(visual_field,))
    assert ("v", "query") not in {(e.field, e.attribute) for e in similarity_table(form, [visual], QUALIFIED)}
