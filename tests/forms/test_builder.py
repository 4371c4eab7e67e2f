"""Filter builders (fixtures/sites/builder.py): rows of [label] [operator ▾]
[value] that an "Add filter" menu or select adds by script. The analyzer tries each entry,
labels the row's value control with it, leaves the operator at its default, and the fill
steps add the row before they fill it; a row already on the page gives its label to its
value control, not to the operator beside the label."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser

import nseql
from deepbot.config.domain import Domain, load_domain, parse_domain
from deepbot.forms.analyzer import analyze_page
from deepbot.forms.fill import fill_steps
from deepbot.forms.models import FormAnalysis
from fixtures.server import FixtureServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

BOOKS = load_domain(Path("domains/books.yaml"))
# An issue tracker's domain as a user would write it (bench/realapps/tracker.yaml's words).
TRACKER = parse_domain("""
name: tracker
threshold: 0.9
attributes:
  - {name: title, aliases: [title, summary, subject], specificity: 0.6}
  - {name: status, aliases: [status, state], specificity: 0.6}
queries:
  - {title: printer}
  - {status: closed}
""")


async def _analyse(browser: Browser, url: str, domain: Domain) -> tuple[FormAnalysis, int]:
    page = await browser.new_page()
    try:
        await page.goto(url)
        analysis = await analyze_page(page, [domain])
        rows = await page.evaluate("document.querySelectorAll('form tr').length")
        return analysis.forms[0], int(rows)
    finally:
        await page.close()


async def test_menu_entries_add_rows_whose_value_the_entry_labels(browser: Browser,
                                                                  site: FixtureServer) -> None:
    form, rows = await _analyse(browser, site.url("/builder/books/"), BOOKS)
    assert rows == 0  # each row tried was taken out again: the page is as it loaded
    [match] = form.relevant_domains  # before: an empty form, score 0
    held = {a.attribute: form.field(a.field) for a in match.assignments}
    assert {"title", "author", "publisher", "pubdate"} <= set(held)
    title = held["title"]
    assert title.kind == "unbounded" and title.hints == ("Title",)
    # Found again as the value box of the last row added: its name depends on how many
    # rows came before it.
    assert title.selector.endswith("/*[last()]//input)[1]")
    filled = fill_steps(form, match, {"title": "java"})
    assert filled is not None
    lines = nseql.dump(nseql.Program(filled.steps)).splitlines()
    assert len(lines) == 4, lines
    assert lines[0] == "click 'xpath=//*[@id=\"add-filter\"]'"  # opens the menu
    # Its entry, within the menu (a link elsewhere on the page could say "Title" too).
    assert lines[1].startswith("click ") and 'normalize-space(.)=\"Title\"' in lines[1]
    value = title.selector.removeprefix("xpath=")
    assert lines[2:] == [f"wait 'xpath={value}'", f"fill 'xpath={value}' \"java\""]
    # The operator keeps its default: nothing selects in the row.
    assert not any(line.startswith("select ") for line in lines)


async def test_an_add_filter_select_and_a_row_already_there(browser: Browser, site: FixtureServer) -> None:
    form, _ = await _analyse(browser, site.url("/builder/issues/"), TRACKER)
    [match] = form.relevant_domains
    primary = {a.attribute: a.field for a in match.assignments if a.primary}
    # The Status row's label is its value select's (before: the operator's, or the switch's).
    assert primary["status"] == "v[status][]"
    assert form.field("v[status][]").texts == ("Status",)
    assert form.field("op[status]").texts == ()
    assert "f[]" not in {f.name for f in form.fields}  # the row's switch stays as the page set it
    # Subject has no row yet: choosing it in "Add filter" adds one.
    assert primary["title"] == "v[subject][]"
    assert "add_filter_select" not in {f.name for f in form.fields}
    filled = fill_steps(form, match, {"title": "printer"})
    assert filled is not None
    lines = nseql.dump(nseql.Program(filled.steps)).splitlines()
    assert lines == ["select 'xpath=//*[@id=\"add_filter_select\"]' value \"subject\"",
                     "wait 'xpath=//*[@id=\"values_subject\"]'",
                     "fill 'xpath=//*[@id=\"values_subject\"]' \"printer\""]
    closed = fill_steps(form, match, {"status": "closed"})
    assert closed is not None and closed.values == {"v[status][]": "closed"}
