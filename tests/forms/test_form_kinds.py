"""The kinds of real form the analyzer used to miss, each modelled on real markup
(``fixtures/static/forms/kinds/``), against the form-type domains in ``domains/forms/``:
forms that say what they are only through their markup (a name, a placeholder, an
icon button, an autocomplete token), through what they sit under or are sent to, a
form hidden in a closed modal, compound labels, labels with accents."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from deepbot.cli.analyze import report
from deepbot.config.domain import Domain, load_domain
from deepbot.forms import analyze_page
from deepbot.forms.fill import fill_steps
from deepbot.forms.models import DomainMatch, Evidence, FormAnalysis, PageAnalysis
from fixtures.server import STATIC_ROOT, FixtureServer

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
KINDS = STATIC_ROOT / "forms" / "kinds"
_ALL = json.loads((KINDS / "truth.json").read_text(encoding="utf-8"))
TRUTH: dict[str, list[dict[str, Any]]] = {k: v for k, v in _ALL.items() if k.endswith(".html")}


@pytest.fixture(scope="module")
def domains() -> list[Domain]:
    return [load_domain(p) for p in sorted((ROOT / "domains" / "forms").glob("*.yaml"))]


@pytest_asyncio.fixture(scope="module")
async def page(browser: Browser) -> AsyncIterator[Page]:
    page = await browser.new_page()
    yield page
    await page.close()


@pytest.mark.parametrize("file", sorted(TRUTH))
async def test_each_form_is_read_as_its_kind(page: Page, site: FixtureServer, domains: list[Domain],
                                             file: str) -> None:
    await page.goto(site.url(f"/forms/kinds/{file}"))
    analysis = await analyze_page(page, domains)
    forms = [f for f in analysis.forms if not f.virtual]
    assert len(forms) == len(TRUTH[file])
    for form, truth in zip(forms, TRUTH[file], strict=True):
        best = form.best_domain
        scores = {d.domain: d.score for d in form.domains}
        assert best is not None and best.domain == truth["type"], (form.form_index, scores)
        assert form.hidden == truth.get("hidden", False)
        names = {f.name: f.html_name for f in form.fields}
        found = {names[a.field]: a.attribute for a in best.assignments}
        for field, attribute in truth["fields"].items():
            assert found.get(field) == attribute, (field, found)


async def test_json_says_which_evidence_gave_each_text(page: Page, site: FixtureServer,
                                                       domains: list[Domain]) -> None:
    await page.goto(site.url("/forms/kinds/recovery.html"))
    form = (await analyze_page(page, domains)).forms[0]
    email = form.field("user[email]")
    kinds = {t.evidence for t in email.evidence}
    # the visible <label>, the form's heading, button and action (its name, autofill token
    # and type all say "email": the text is kept once, with its best evidence)
    assert {Evidence.LABEL, Evidence.HEADING, Evidence.BUTTON, Evidence.ACTION} <= kinds
    assert [t.text.casefold() for t in email.evidence].count("email") == 2  # 'Email' (label), 'email'
    recovery = next(d for d in form.domains if d.domain == "password_recovery")
    assert recovery.form_attribute is not None and recovery.form_attribute.attribute == "purpose"
    entry = next(e for e in recovery.similarities if e.field == "" and e.attribute == "purpose")
    assert entry.evidence in (Evidence.HEADING, Evidence.BUTTON, Evidence.PHRASE)


async def test_a_field_with_no_text_is_named_by_its_markup(page: Page, site: FixtureServer,
                                                           domains: list[Domain]) -> None:
    await page.goto(site.url("/forms/kinds/header_search.html"))
    theme, engine = (await analyze_page(page, domains)).forms[:2]
    s = {t.evidence: t.text for t in theme.field("s").evidence}
    assert s[Evidence.NAME] == "search" and s[Evidence.PLACEHOLDER] == "Search …"
    assert theme.field("s").links == ()  # no text on the page is its
    q = {t.evidence: t.text for t in engine.field("q").evidence}
    assert q[Evidence.NAME] == "query" and q[Evidence.BUTTON] == "Go" and q[Evidence.ACTION] == "search"
    assert Evidence.HEADING not in q  # the article's title before its <aside> heads no form


async def test_a_filter_row_names_what_its_own_value_box_holds(page: Page, site: FixtureServer) -> None:
    # Datasette's table page: the column select pairs with the value box in its own row,
    # not with the search box just above it, and a word is looked for with "contains"
    import nseql

    books = load_domain(ROOT / "domains" / "books.yaml")
    await page.goto(site.url("/forms/kinds/filter_row.html"))
    form = (await analyze_page(page, [books])).forms[0]
    match = form.domains[0]
    assert match.chooser is not None and match.chooser.target == "_filter_value"
    filled = fill_steps(form, match, {"title": "lantern"})
    assert filled is not None
    op = form.field("_filter_op").selector
    assert nseql.Select(op, "contains", by="value") in filled.steps
    assert nseql.Fill(form.field("_filter_value").selector, "lantern") in filled.steps
    assert all(getattr(s, "selector", None) != form.field("_search").selector for s in filled.steps)


@pytest.mark.timeout(120)
async def test_a_page_whose_forms_cannot_be_read_is_still_crawled(tmp_path: Path) -> None:
    # Its script makes every reading of its forms throw: the page is stored, its link is
    # followed, and the summary says its forms were skipped (the route used to fail)
    from deepbot.config import CrawlConfig
    from deepbot.crawl.engine import Crawler
    from deepbot.crawl.runner import summary

    with FixtureServer() as site:
        config = CrawlConfig.model_validate({
            "seeds": (site.url("/forms/kinds/hostile_forms.html"),), "depth": 1, "workers": 1,
            "domains": (ROOT / "domains" / "books.yaml",), "store": tmp_path / "s.sqlite"})
        async with Crawler(config) as crawler:
            stored = {doc.url async for doc in crawler.run()}
            counts = crawler.frontier.counts()
            text = summary(crawler.stats, counts, "s.sqlite", forms=crawler.forms.counts)
    failed = sum(n for state, n in counts.items() if state.value == "failed")
    assert site.url("/forms/kinds/hostile_forms.html") in stored
    assert site.url("/forms/kinds/recovery.html") in stored
    assert failed == 0
    assert "forms could not be read" in text, text


async def _search_form(page: Page, site: FixtureServer, domains: list[Domain],
                       file: str) -> tuple[Domain, FormAnalysis, DomainMatch]:
    """The search domain, the page's first form and that domain's verdict on it."""
    search = next(d for d in domains if d.name == "search")
    await page.goto(site.url(f"/forms/kinds/{file}"))
    form = (await analyze_page(page, [search])).forms[0]
    return search, form, form.domains[0]


async def test_a_search_names_its_filters_and_leaves_them_as_they_are(page: Page, site: FixtureServer,
                                                                      domains: list[Domain]) -> None:
    # The search domain's category refines: it names each choice box nothing else holds, but
    # not the sort order or the page size, and the filling and the score ignore them
    search, form, match = await _search_form(page, site, domains, "search_filters.html")
    names = {f.name: f.html_name for f in form.fields}
    held = {names[a.field]: a for a in match.assignments}
    assert {n for n, a in held.items() if a.refines} == {"make", "PriceFrom", "fuel", "NewAndUsed", "photo"}
    assert all(not a.primary for a in held.values() if a.refines)
    assert held["cat"].primary and not held["cat"].refines  # its label says "Category"
    assert not {"sortBy", "dir", "n"} & held.keys()
    filled = fill_steps(form, match, {"query": "volvo"})
    assert filled is not None
    touched = {getattr(s, "selector", None) for s in filled.steps}
    assert not touched & {form.field(n).selector for n in ("make", "PriceFrom", "fuel", "photo")}
    plain = search.model_copy(update={"attributes": tuple(a.model_copy(update={"refines": False})
                                                          for a in search.attributes)})
    alone = (await analyze_page(page, [plain])).forms[0].domains[0]
    assert alone.score == match.score and not any(a.refines for a in alone.assignments)
    # unsaid, the attribute named "category" holds them all the same
    unsaid = search.model_copy(update={"attributes": tuple(a.model_copy(update={"refines": None})
                                                           for a in search.attributes)})
    named = (await analyze_page(page, [unsaid])).forms[0].domains[0]
    assert named.assignments == match.assignments


async def test_the_one_box_of_a_form_named_by_its_button_takes_the_query(page: Page, site: FixtureServer,
                                                                         domains: list[Domain]) -> None:
    # "Search the staff portal" names a search, and the box's name says nothing: the query
    # is typed in the one box there is, and the score counts the query once
    _, form, match = await _search_form(page, site, domains, "button_named_search.html")
    assert [(a.field, a.attribute, a.primary) for a in match.assignments] == [("pp_val", "query", True)]
    assert match.form_attribute is not None and match.form_attribute.attribute == "query"
    assert match.score == round(match.form_attribute.confidence * 0.6, 4)
    filled = fill_steps(form, match, {"query": "java"})
    assert filled is not None and filled.values == {"pp_val": "java"}


async def test_a_folded_or_waiting_filter_is_still_a_filter(page: Page, site: FixtureServer,
                                                            domains: list[Domain]) -> None:
    # A dropdown of checkboxes a script opens, and a list a script enables once a region is
    # chosen, are the search's filters: named from their markup, never filled. A hidden box
    # for words is a trap for robots: not a field at all.
    _, form, match = await _search_form(page, site, domains, "folded_filters.html")
    fields = {f.html_name: f for f in form.fields}
    assert "homepage" not in fields
    assert all(fields[n].hidden for n in ("am[garden]", "am[parking]", "am[pets]"))
    assert [fields[n].options[0].label for n in ("am[garden]", "am[pets]")] == ["Garden", "Pets allowed"]
    said = report(PageAnalysis(url="u", forms=(form,))).splitlines()
    folded = [line.endswith("(folded away: read from its markup)") for line in said if " bounded " in line]
    assert folded == [False, False, True, True, True, False]  # region, district, 3 amenities, order
    assert not fields["region"].hidden and not fields["district"].hidden
    held = {form.field(a.field).html_name: a for a in match.assignments}
    assert "order" not in held
    filled = fill_steps(form, match, {"query": "leeds"})
    assert filled is not None and filled.values == {"where": "leeds"}


def test_boxes_a_domain_holds_at_specificity_zero_do_not_make_the_form_its_kind() -> None:
    # Two blind writers gave their login file attributes of specificity 0 for a sign-up's
    # e-mail and "confirm password", so that no login attribute would take them. Counted as
    # explained, they made the login explain every box of a sign-up, and its lower µ won.
    from deepbot.config.domain import parse_domain
    from deepbot.forms.models import Assignment, Box, FieldAnalysis
    from deepbot.forms.relevance import relevance

    login = parse_domain("name: login\nthreshold: 0.6\nattributes:\n"
                         "  - {name: user, specificity: 0.3}\n  - {name: password, specificity: 0.6}\n"
                         "  - {name: confirm, specificity: 0}\n  - {name: email, specificity: 0.01}\n")
    signup = parse_domain("name: signup\nthreshold: 0.9\nattributes:\n"
                          "  - {name: user, specificity: 0.2}\n  - {name: email, specificity: 0.2}\n"
                          "  - {name: password, specificity: 0.3}\n  - {name: confirm, specificity: 0.5}\n")
    boxes = {"u": "user", "e": "email", "p": "password", "p2": "confirm"}
    held = [Assignment(field=f, attribute=a, confidence=1.0) for f, a in boxes.items()]
    box = Box(x=0, y=0, width=100, height=20)
    fields = tuple(FieldAnalysis(name=f, kind="unbounded", type="text", tag="input", selector=f"#{f}",
                                 box=box) for f in boxes)
    verdicts = (relevance(held, login), relevance(held, signup))
    assert verdicts[0].relevant and verdicts[0].silent == ("confirm", "email")
    form = FormAnalysis(form_index=0, selector="#f", action="", method="post", box=box, fields=fields,
                        domains=verdicts)
    assert form.best_domain is not None and form.best_domain.domain == "signup"
