"""Cookie banners and consent walls: the harvest finds the overlay and the button a careful
person clicks (refusing what is optional where it can), the visit clicks it as a `dismiss`
step, and routes that start from that page replay it. (A wall that shows late, after the
step ran: tests/nseql/test_nseql_run.py.)"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page

import nseql
from deepbot.browser.pool import BrowserPool, BrowserSettings
from deepbot.crawl.visit import _HARVEST_JS, VisitOptions, find_overlay, harvest_args, visit
from deepbot.errors import BrowserError, ElementUnusable
from deepbot.routes import PageSnapshot, Route, SessionState, Via, page_identity
from deepbot.routes.sequences import append_steps, click_step, navigate_step
from fixtures.server import STATIC_ROOT, FixtureServer
from fixtures.sites import lab

pytestmark = pytest.mark.browser

BANNERS = json.loads((STATIC_ROOT / "consent" / "truth.json").read_text("utf-8"))
BANNERS.pop("_comment")
ARCHIVE_LINK = 'css=span.link'  # the index's script element, under the wall until it is answered
WALL_TEXT = "We use cookies to personalise content"


@contextlib.asynccontextmanager
async def _fresh_page(browser: Browser, url: str) -> AsyncIterator[Page]:
    """A page of its own context (no cookie from another test), at ``url``."""
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(url)
        yield page
    finally:
        await context.close()


@pytest.mark.parametrize("name", sorted(BANNERS))
async def test_the_banner_and_its_button_are_found(browser: Browser, site: FixtureServer, name: str) -> None:
    async with _fresh_page(browser, site.url(f"/consent/{name}")) as page:
        found = await find_overlay(page)
        expected = BANNERS[name]
        if expected is None:
            assert found is None
            return
        assert found is not None and found["text"] == expected
        # the selector names that one button, by its overlay and its words
        button = nseql.locate(page, found["selector"])
        assert await button.count() == 1
        words = [await button.get_attribute("value"), await button.inner_text(),
                 await button.get_attribute("aria-label")]
        assert expected in words


async def test_a_page_without_a_banner_is_harvested_at_once(browser: Browser, site: FixtureServer) -> None:
    async with _fresh_page(browser, site.url("/consent/fixed_header.html")) as page:
        found = json.loads(await page.evaluate(_HARVEST_JS, harvest_args(VisitOptions())))
        assert "consent" not in found and found["url"].endswith("fixed_header.html")


@pytest.mark.parametrize(("name", "frame"), [
    ("sourcepoint.html", 'css=iframe[title="SP Consent Message"]'),
    ("trustarc.html", 'css=iframe[title="TrustArc Cookie Consent Manager"]')])
async def test_a_notice_in_a_consent_managers_iframe_is_answered_in_it(
        browser: Browser, site: FixtureServer, name: str, frame: str) -> None:
    async with _fresh_page(browser, site.url(f"/consent/{name}")) as page:
        found = await find_overlay(page)
        # the iframe (another origin: its words are not the page's) by what names it on
        # every load (TrustArc's id changes each time), then the button in its document
        assert found is not None and found["selector"].startswith(f"{frame} >> enter-frame >> xpath=//")
        await nseql.run(nseql.Program.of(nseql.Dismiss(found["selector"])), page)
        assert await page.locator(frame.removeprefix("css=")).count() == 0  # the notice went
        assert (await page.context.cookies())[0]["name"] in ("consentUUID", "notice_preferences")


async def test_a_banner_inside_a_shadow_root_is_answered(browser: Browser, site: FixtureServer) -> None:
    async with _fresh_page(browser, site.url("/consent/usercentrics.html")) as page:
        found = json.loads(await page.evaluate(_HARVEST_JS, harvest_args(VisitOptions())))["consent"]
        # Playwright CSS pierces the shadow root: the host, then the button by its test id
        assert found["selector"] == ('css=div[id="usercentrics-root"] >> '
                                     'css=button[data-testid="uc-deny-all-button"]')
        await nseql.run(nseql.Program.of(nseql.Dismiss(found["selector"])), page)
        assert await page.locator("css=#uc-center-container").count() == 0


async def _visit(url: str, *, steps: str | None = None, options: VisitOptions | None = None,
                 acts: bool = False) -> PageSnapshot:
    go = steps or navigate_step(url)
    route = Route(key=url, url=url, via=Via.SCRIPT if acts else Via.LINK, steps=go, program=go,
                  acts_on=page_identity(url, "") if acts else None)
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        return await visit(route, SessionState(), slot, options or VisitOptions())


async def test_a_consent_wall_is_refused_and_the_page_read_without_it(site: FixtureServer) -> None:
    snapshot = await _visit(site.url("/lab/consent/"))
    assert snapshot.dismissed is not None
    (step,) = nseql.parse(snapshot.dismissed).steps
    assert isinstance(step, nseql.Dismiss) and step.comment == "overlay: Deny"
    assert {c["name"]: c["value"] for c in snapshot.session.cookies}["cc_choice"] == "denied"
    assert WALL_TEXT not in snapshot.text and "Local news" in snapshot.text
    assert [s.text for s in snapshot.scripts] == ["Browse the archive"]


async def test_a_wall_that_reloads_the_page_when_answered(site: FixtureServer) -> None:
    url = site.url("/lab/consent/?reload=1")
    snapshot = await _visit(url)
    assert snapshot.dismissed is not None and snapshot.url == url
    # the page read is the reloaded one: the server saw the choice
    assert lab.CONSENT_REFUSED in snapshot.text and WALL_TEXT not in snapshot.text


async def test_a_wall_in_another_origins_iframe_is_refused_in_it(site: FixtureServer) -> None:
    # shown after the page loaded (the manager fetched its settings first): the iframe is
    # read once its own document has come
    snapshot = await _visit(site.url("/lab/consent/?frame=1&late=1"))
    assert snapshot.dismissed is not None
    (step,) = nseql.parse(snapshot.dismissed).steps
    assert isinstance(step, nseql.Dismiss) and step.comment == "overlay: Deny"
    assert step.selector.startswith('css=iframe[title="Consent Message"] >> enter-frame >> ')
    assert {c["name"]: c["value"] for c in snapshot.session.cookies}["cc_choice"] == "denied"
    assert [s.text for s in snapshot.scripts] == ["Browse the archive"]


async def test_a_click_route_replays_a_dismissal_in_an_iframe(site: FixtureServer) -> None:
    url = site.url("/lab/consent/?frame=1")
    parent = await _visit(url)
    assert parent.dismissed is not None and "enter-frame" in parent.dismissed
    steps = append_steps(append_steps(navigate_step(url), parent.dismissed), click_step(ARCHIVE_LINK))
    child = await _visit(url, steps=steps, acts=True)
    assert child.url == site.url("/lab/consent/archive") and lab.CONSENT_REFUSED in child.text


async def test_without_dismissal_the_wall_stays_in_the_page(site: FixtureServer) -> None:
    snapshot = await _visit(site.url("/lab/consent/"), options=VisitOptions(dismiss_overlays=False))
    assert snapshot.dismissed is None and WALL_TEXT in snapshot.text
    assert not any(c["name"] == "cc_choice" for c in snapshot.session.cookies)


async def test_a_click_route_replays_the_dismissal_before_its_click(site: FixtureServer) -> None:
    url = site.url("/lab/consent/")
    parent = await _visit(url)
    assert parent.dismissed is not None
    steps = append_steps(append_steps(navigate_step(url), parent.dismissed), click_step(ARCHIVE_LINK))
    child = await _visit(url, steps=steps, acts=True)
    assert child.url == site.url("/lab/consent/archive") and lab.CONSENT_REFUSED in child.text
    assert child.dismissed is None  # refused once: the archive came without a wall


async def test_the_click_alone_is_stopped_by_the_wall(site: FixtureServer) -> None:
    url = site.url("/lab/consent/")
    steps = append_steps(navigate_step(url), click_step(ARCHIVE_LINK))
    with pytest.raises(ElementUnusable, match="is covered by <div#ccWall>"):
        await _visit(url, steps=steps, acts=True, options=VisitOptions(step_timeout_ms=1_500))


async def test_a_tab_forgets_the_last_routes_overlays(site: FixtureServer) -> None:
    url = site.url("/lab/consent/")
    first = Route(key="a", url=url, via=Via.LINK, steps=navigate_step(url), program=navigate_step(url))
    steps = append_steps(navigate_step(url), click_step(ARCHIVE_LINK))
    second = Route(key="b", url=url, via=Via.SCRIPT, steps=steps, program=steps,
                   acts_on=page_identity(url, ""))
    options = VisitOptions(step_timeout_ms=1_500, dismiss_overlays=False)
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        assert (await visit(first, SessionState(), slot, VisitOptions())).dismissed is not None
        # the same tab, a fresh session: the wall is back, and nothing clicks it away now
        with pytest.raises(BrowserError):
            await visit(second, SessionState(), slot, options)


def test_banner_truth_covers_every_fixture() -> None:
    pages = {p.name for p in Path(STATIC_ROOT / "consent").glob("*.html")}
    assert pages == set(BANNERS)
    assert any(v is None for v in BANNERS.values()) and sum(v is not None for v in BANNERS.values()) >= 6
