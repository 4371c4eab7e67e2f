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

from deepbot.config.domain import Domain, load_domain
from deepbot.forms import analyze_page
from deepbot.forms.models import Evidence
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
    from deepbot.forms.fill import fill_steps

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
