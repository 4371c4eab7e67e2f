"""The annotated screenshot: lines that stop at the boxes they join, the submit way marked."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from deepbot.config.domain import Domain, load_domain
from deepbot.forms import analyze_page
from deepbot.forms.annotate import (
    _DRAW,
    _OVERLAY_ID,
    _REMOVE,
    annotate_screenshot,
    edge_to_edge,
    overlay_items,
)
from deepbot.forms.models import Box
from fixtures.server import FixtureServer

ROOT = Path(__file__).resolve().parents[2]


def _on_edge(x: float, y: float, box: Box, eps: float = 0.01) -> bool:
    on_side = min(abs(x - box.x), abs(x - box.right)) < eps and box.y - eps <= y <= box.bottom + eps
    on_top = min(abs(y - box.y), abs(y - box.bottom)) < eps and box.x - eps <= x <= box.right + eps
    return on_side or on_top


def test_a_line_to_a_label_on_the_left_runs_between_the_facing_edges() -> None:
    field, label = Box(x=100, y=10, width=200, height=20), Box(x=10, y=12, width=60, height=16)
    assert edge_to_edge(field, label) == (100.0, 20.0, 70.0, 20.0)


@pytest.mark.parametrize("label", [Box(x=0, y=0, width=50, height=14), Box(x=400, y=90, width=30, height=12),
                                   Box(x=180, y=-40, width=40, height=10)])
def test_a_slanted_line_starts_and_ends_on_the_box_edges(label: Box) -> None:
    field = Box(x=100, y=30, width=200, height=24)
    line = edge_to_edge(field, label)
    assert line is not None
    x1, y1, x2, y2 = line
    assert _on_edge(x1, y1, field) and _on_edge(x2, y2, label)


def test_overlapping_boxes_get_no_line() -> None:
    field = Box(x=100, y=30, width=200, height=24)
    assert edge_to_edge(field, Box(x=110, y=34, width=80, height=14)) is None  # a label inside the box
    assert edge_to_edge(field, field) is None


@pytest.fixture(scope="module")
def books() -> list[Domain]:
    return [load_domain(ROOT / "domains" / "books.yaml")]


@pytest_asyncio.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    page = await browser.new_page()
    yield page
    await page.close()


async def _drawn(page: Page, items: list[dict[str, object]]) -> dict[str, list[dict[str, str]]]:
    """The overlay's elements by tag, with their attributes (and a text's text), as drawn."""
    await page.evaluate(_DRAW, {"id": _OVERLAY_ID, "items": items})
    try:
        drawn: dict[str, list[dict[str, str]]] = await page.evaluate("""(id) => {
          const out = {line: [], rect: [], text: []};
          for (const el of document.getElementById(id).children) {
            const attrs = Object.fromEntries([...el.attributes].map((a) => [a.name, a.value]));
            if (el.tagName === 'text') attrs.content = el.textContent;
            out[el.tagName].push(attrs);
          }
          return out;
        }""", _OVERLAY_ID)
        return drawn
    finally:
        await page.evaluate(_REMOVE, _OVERLAY_ID)


def _box(attrs: dict[str, str]) -> Box:
    return Box(x=float(attrs["x"]), y=float(attrs["y"]), width=float(attrs["width"]),
               height=float(attrs["height"]))


@pytest.mark.browser
async def test_lines_stop_at_the_label_box_and_the_submit_button_is_outlined_and_tagged(
    page: Page, site: FixtureServer, books: list[Domain], tmp_path: Path
) -> None:
    await page.goto(site.url("/forms/books_labels_above.html"))
    analysis = await analyze_page(page, books)
    drawn = await _drawn(page, overlay_items(analysis))

    labels = [_box(r) for r in drawn["rect"] if r.get("stroke-dasharray")]
    assert len(labels) >= 6 and len(drawn["line"]) >= 6
    for line in drawn["line"]:
        x2, y2 = float(line["x2"]), float(line["y2"])
        assert any(_on_edge(x2, y2, label) for label in labels), line  # ends at a label's edge
        for label in labels:  # and crosses none of them
            mid = ((float(line["x1"]) + x2) / 2, (y2 + float(line["y1"])) / 2)
            assert not (label.x < mid[0] < label.right and label.y < mid[1] < label.bottom), (line, label)

    button = await page.get_by_role("button", name="Search").bounding_box()
    assert button is not None
    outlined = [_box(r) for r in drawn["rect"] if r.get("stroke-width") == "3"]
    assert len(outlined) == 1
    assert (outlined[0].x, outlined[0].y, outlined[0].width, outlined[0].height) == pytest.approx(
        (button["x"], button["y"], button["width"], button["height"]), abs=1)
    (tag,) = [t for t in drawn["text"] if t["content"] == "submit"]
    assert button["x"] <= float(tag["x"]) <= button["x"] + button["width"]
    assert float(tag["y"]) > button["y"] + button["height"]  # under the button, not on it

    shot = tmp_path / "shot.png"
    await annotate_screenshot(page, analysis, shot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert await page.evaluate("(id) => document.getElementById(id) === null", _OVERLAY_ID)


@pytest.mark.browser
async def test_a_form_submitted_by_enter_says_so_at_its_field(
    page: Page, site: FixtureServer, books: list[Domain]
) -> None:
    await page.goto(site.url("/forms/books_app_panel.html"))
    analysis = await analyze_page(page, books)
    items = overlay_items(analysis)
    # The footer's sign-up box: its one button does not say "search", so Enter comes first.
    (footer,) = [f for f in analysis.forms if any(field.type == "email" for field in f.fields)]
    (email,) = footer.fields
    (item,) = [i for i in items if i["box"] == email.box.model_dump()]
    assert item["label"].endswith("Enter submits")
    assert not any(i["label"] == "submit" and i["box"] == footer.submits[0].box.model_dump() for i in items)
    # The panel's "Search" (an icon button named by its aria-label), not its "Clear".
    (panel,) = [f for f in analysis.forms if f.relevant_domains]
    search = next(s for s in panel.submits if "Search" in s.selector)
    assert [i["box"] for i in items if i["label"] == "submit"] == [search.box.model_dump()]


@pytest.mark.browser
async def test_a_filter_is_tagged_as_one(page: Page, site: FixtureServer) -> None:
    search = load_domain(Path(__file__).resolve().parents[2] / "domains" / "forms" / "search.yaml")
    await page.goto(site.url("/forms/kinds/search_filters.html"))
    analysis = await analyze_page(page, [search])
    fields = analysis.forms[0].fields  # the overlay's items come field by field, then the button
    labels = {f.name: i["label"] for f, i in zip(fields, overlay_items(analysis), strict=False)}
    assert labels["make"] == "category 0.50 (a filter)"
    assert labels["cat"].startswith("category 1.00") and "filter" not in labels["cat"]
    assert labels["sortBy"] == ""
