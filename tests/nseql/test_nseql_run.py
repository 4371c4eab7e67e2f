"""The NSEQL interpreter in real Chromium against the lab fixture site."""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import socket
import time
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Page, Route

try:  # where Playwright's client sends each message to its driver
    from playwright._impl.connection import Connection
except ImportError:  # pragma: no cover - upstream's module name
    from playwright._impl._connection import Connection  # type: ignore[no-redef]

from deepbot.browser import fetches
from fixtures.server import FixtureServer
from fixtures.sites.lab import POPUP_AD, SESSION_TOKEN
from nseql import Failure, StepError, forget_overlays, parse, run
from nseql.navigation import NavigationTracker

pytestmark = pytest.mark.browser

FAST = {"step_timeout_ms": 1500, "navigation_timeout_ms": 5000, "load_timeout_ms": 1000}


async def echoed(page: Page) -> dict[str, str]:
    """The name → value pairs the lab's form result page echoes."""
    pairs: list[list[str]] = await page.eval_on_selector_all(
        "#echo dt", "dts => dts.map(dt => [dt.textContent, dt.nextElementSibling.textContent])"
    )
    return dict((name, value) for name, value in pairs)


async def test_fill_select_check_and_click_submit_the_form(page: Page, site: FixtureServer) -> None:
    program = parse(
        f"navigate {site.url('/lab/form/')}\n"
        'fill "#q" "Ça va, \\"Dune\\" & co"\n'
        'select "#format" "Paperback"\n'
        'check "#instock"\n'
        "click 'role=button[name=\"Search\"]'\n"
    )
    result = await run(program, page, **FAST)
    assert result.final_url.startswith(site.url("/lab/form/result?"))
    assert (result.steps_run, result.status) == (5, 200)
    assert await echoed(page) == {
        "q": 'Ça va, "Dune" & co',
        "format": "pb",
        "instock": "1",
        "submit": "search",
    }


async def test_select_by_value_uncheck_and_press_enter(page: Page, site: FixtureServer) -> None:
    program = parse(
        f"navigate {site.url('/lab/form/')}\n"
        'check "#instock"\n'
        'uncheck "#instock"\n'
        'select "#format" value "eb"\n'
        'fill "#q" "dune"\n'
        'press "#q" "Enter"\n'
    )
    result = await run(program, page, **FAST)
    assert "/lab/form/result" in result.final_url
    # Implicit submission sends the default button as the submitter, unlike form.submit().
    assert await echoed(page) == {"q": "dune", "format": "eb", "submit": "search"}


async def test_submit_bypasses_onsubmit_and_a_shadowed_submit(page: Page, site: FixtureServer) -> None:
    # The quick-search form returns false from onsubmit, so Enter goes nowhere...
    blocked = parse(
        f"navigate {site.url('/lab/form/')}\nfill '#legacy-q' \"old\"\npress '#legacy-q' \"Enter\"\n"
    )
    result = await run(blocked, page, **FAST)
    assert result.final_url == site.url("/lab/form/")
    # ...but `submit` calls HTMLFormElement.submit() on the field's form directly.
    await run(parse("submit '#legacy-q'\n"), page, **FAST)
    assert await echoed(page) == {"q": "old"}
    # The main form has a control named "submit" that shadows form.submit.
    await run(parse(f"navigate {site.url('/lab/form/')}\nfill '#q' \"x\"\nsubmit '#search'\n"), page, **FAST)
    assert await echoed(page) == {"q": "x", "format": ""}  # form.submit() sends no submitter


@pytest.mark.parametrize(
    ("element", "target"), [("#js-a", "a"), ("#js-b", "b"), ("#js-c", "c"), ("#js-d", "d")]
)
async def test_script_only_navigation_is_followed(
    page: Page, site: FixtureServer, element: str, target: str
) -> None:
    result = await run(parse(f"navigate {site.url('/lab/js/')}\nclick '{element}'\n"), page, **FAST)
    assert result.final_url == site.url(f"/lab/js/target-{target}")
    assert await page.title() == f"Target {target.upper()}"


async def test_wait_navigation_catches_a_delayed_script_navigation(page: Page, site: FixtureServer) -> None:
    program = parse(f"navigate {site.url('/lab/js/')}\nclick '#js-later'\nwait navigation\n")
    result = await run(program, page, **FAST)
    assert result.final_url == site.url("/lab/js/target-a")


async def test_back_returns_to_the_previous_page(page: Page, site: FixtureServer) -> None:
    program = parse(f"navigate {site.url('/lab/js/')}\nclick '#js-b'\nback\n")
    result = await run(program, page, **FAST)
    assert result.final_url == site.url("/lab/js/")


async def test_hover_reveals_a_menu_link(page: Page, site: FixtureServer) -> None:
    program = parse(f"navigate {site.url('/lab/menu/')}\nhover '#products'\nclick 'text=All products'\n")
    result = await run(program, page, **FAST)
    assert result.final_url == site.url("/lab/menu/hover-target")


async def test_click_reveals_a_menu_link_and_wait_sees_it(page: Page, site: FixtureServer) -> None:
    program = parse(
        f"navigate {site.url('/lab/menu/')}\n"
        "click '#more'\n"
        "wait '#more-panel a'\n"
        "click 'text=Company history'\n"
    )
    result = await run(program, page, **FAST)
    assert result.final_url == site.url("/lab/menu/click-target")


DENY = "'#ccWall button[data-choice=denied]'"  # the lab's consent wall: its refusing button
WALL_SHOWN = "() => !!document.getElementById('ccDialog')"


async def test_dismiss_clicks_an_overlay_that_is_shown(page: Page, site: FixtureServer) -> None:
    await run(parse(f"navigate {site.url('/lab/consent/')}\n"), page, **FAST)
    assert await page.evaluate(WALL_SHOWN)  # shown as the page is parsed
    await run(parse(f"dismiss {DENY}\nclick 'text=Browse the archive'\n"), page, **FAST)
    assert page.url == site.url("/lab/consent/archive")
    assert await page.inner_text("#choice") == "Cookie choice: denied"


async def held(page: Page, url_glob: str) -> asyncio.Event:
    """Holds the page's requests to ``url_glob`` in the browser until the event is set: what
    a late script fetches comes after the steps ran, however slow the machine."""
    release = asyncio.Event()

    async def hold(route: Route) -> None:
        await release.wait()
        await route.continue_()

    await page.route(url_glob, hold)
    return release


async def test_dismiss_watches_for_an_overlay_that_shows_later(page: Page, site: FixtureServer) -> None:
    # The wall comes once the consent script has fetched its settings: after the step ran.
    settings = await held(page, "**/lab/consent/cmp.json")
    result = await run(parse(f"navigate {site.url('/lab/consent/?late=1')}\ndismiss {DENY}\n"), page, **FAST)
    assert result.steps_run == 2 and not await page.evaluate(WALL_SHOWN)
    settings.set()
    await page.wait_for_function(WALL_SHOWN)  # no action: nothing is clicked yet
    # The next action, in a later run, finds it first and clicks it away.
    await run(parse("click 'text=Browse the archive'\n"), page, **FAST)
    assert await page.inner_text("#choice") == "Cookie choice: denied"


async def test_dismiss_does_nothing_where_the_overlay_never_shows(page: Page, site: FixtureServer) -> None:
    program = parse(f"navigate {site.url('/lab/js/')}\ndismiss {DENY}\nclick '#js-b'\n")
    result = await run(program, page, **FAST)
    assert result.steps_run == 3 and result.final_url == site.url("/lab/js/target-b")


async def test_an_overlay_that_stays_after_its_click_does_not_hold_later_actions(
        page: Page, site: FixtureServer) -> None:
    # The banner's buttons do nothing here (a broken consent script): the handler clicks
    # again before each action, and the action goes on rather than wait for it to go.
    program = parse(f"navigate {site.url('/consent/onetrust.html')}\n"
                    "dismiss '#onetrust-reject-all-handler'\nclick '#buy'\nclick '#buy'\n")
    result = await run(program, page, **FAST)
    assert result.steps_run == 4 and await page.locator("#onetrust-banner-sdk").is_visible()


async def test_a_forgotten_overlay_is_left_alone(page: Page, site: FixtureServer) -> None:
    settings = await held(page, "**/lab/consent/cmp.json")  # the wall comes after the run
    await run(parse(f"navigate {site.url('/lab/consent/?late=1')}\ndismiss {DENY}\n"), page, **FAST)
    await forget_overlays(page)
    settings.set()
    await page.wait_for_function(WALL_SHOWN)
    with pytest.raises(StepError) as caught:
        await run(parse("click 'text=Browse the archive'\n"), page, **FAST)
    assert caught.value.kind is Failure.NOT_ACTIONABLE and "is covered by <div#ccWall>" in caught.value.reason


# The same wall drawn in an iframe of another origin (?frame=1): its button is reached
# by entering the frame.
FRAMED_DENY = "'iframe[title=\"Consent Message\"] >> enter-frame >> button[data-choice=denied]'"


async def test_an_element_in_another_origins_iframe_is_reached(page: Page, site: FixtureServer) -> None:
    await run(parse(f"navigate {site.url('/lab/consent/?frame=1')}\n"), page, **FAST)
    # the button is not in the page's own document
    assert await page.locator("button[data-choice=denied]").count() == 0
    await run(parse(f"click {FRAMED_DENY}\nclick 'text=Browse the archive'\n"), page, **FAST)
    assert await page.inner_text("#choice") == "Cookie choice: denied"


async def test_dismiss_watches_an_iframe_that_shows_later(page: Page, site: FixtureServer) -> None:
    result = await run(parse(f"navigate {site.url('/lab/consent/?late=1&frame=1')}\ndismiss {FRAMED_DENY}\n"),
                       page, **FAST)
    assert result.steps_run == 2
    # The wall comes once the settings are fetched (or it came and the watch answered it
    # already: Playwright may check its handlers while it waits, not only before an action).
    shown = "() => !!document.getElementById('ccFrame') || document.cookie.includes('cc_choice=')"
    await page.wait_for_function(shown)
    # The frame's document comes 0.3 s later, from another origin (a renderer of its own):
    # the click waits as long as it takes the watch to answer it, not FAST's 1.5 s.
    await run(parse("click 'text=Browse the archive'\n"), page, **{**FAST, "step_timeout_ms": 10_000})
    assert await page.inner_text("#choice") == "Cookie choice: denied"


async def test_a_missing_iframe_is_named_in_the_failure(page: Page, site: FixtureServer) -> None:
    await run(parse(f"navigate {site.url('/lab/js/')}\n"), page, **FAST)
    with pytest.raises(StepError) as caught:
        await run(parse(f"click {FRAMED_DENY}\n"), page, step_timeout_ms=300)
    assert caught.value.kind is Failure.NOT_FOUND and "enter-frame" in caught.value.reason


WIDGETS = """<form>
<select id="chosen" name="format" style="display:none"><option value="">Any</option>
<option value="PB">Paperback</option></select>
<div class="chosen-container"><a class="chosen-single"><span>Any</span></a></div>
<div style="display:none"><select id="collapsed" name="sort"><option>Title</option><option>Date</option>
</select></div>
<script>document.getElementById('chosen').onchange = (e) => { document.title = e.target.value; };</script>
</form>"""


async def test_select_chooses_in_a_select_a_widget_replaced(page: Page) -> None:
    await page.set_content(WIDGETS)
    result = await run(parse('select "#chosen" "Paperback"\n'), page, **FAST)
    assert result.steps_run == 1 and await page.title() == "PB"  # the change event the widget listens to
    # a select hidden with all around it is not one a person could reach: it still fails
    with pytest.raises(StepError) as caught:
        await run(parse('select "#collapsed" "Date"\n'), page, step_timeout_ms=300)
    assert caught.value.kind is Failure.NOT_ACTIONABLE


async def test_select_like_waits_for_the_options_a_script_brings(page: Page, site: FixtureServer) -> None:
    # The car site's models come from its API 300 ms after a make is chosen.
    program = parse(f"navigate {site.url('/cars/')}\nselect '#make' value \"toyota\"\n"
                    'select "#model" like "corolla"\n')
    # (A plain tab counts no fetches: the step waits for its option until its timeout.)
    assert (await run(program, page, **{**FAST, "step_timeout_ms": 10_000})).steps_run == 3
    assert await page.eval_on_selector("#model", "el => el.value") == "corolla"  # not "Corolla Cross"
    error = await step_error(page, f"navigate {site.url('/cars/')}\nselect '#make' value \"ford\"\n"
                                   'select "#model" like "corolla"\n', step_timeout_ms=3000)
    assert (error.kind, error.steps_run) == (Failure.NOT_FOUND, 2)
    assert "no option like 'corolla'" in error.reason and "'Fiesta'" in error.reason


async def test_select_like_stops_waiting_once_the_options_have_come(page: Page) -> None:
    # In a mini-browser the page counts its fetches: once the models have come (after 1.2 s,
    # longer than the options stay still before it gives up) and none is like the text,
    # the step fails then, not at its timeout.
    await fetches.install(page.context)
    with FixtureServer(options={"cars_models_delay": 1.2}) as slow:
        program = parse(f"navigate {slow.url('/cars/')}\nselect '#make' value \"toyota\"\n"
                        'select "#model" like "corolla"\n')
        found = await run(program, page, **{**FAST, "step_timeout_ms": 4000})
        assert found.steps_run == 3
        assert await page.eval_on_selector("#model", "el => el.value") == "corolla"
        started = time.monotonic()
        error = await step_error(page, f"navigate {slow.url('/cars/')}\nselect '#make' value \"ford\"\n"
                                       'select "#model" like "corolla"\n', step_timeout_ms=8000)
    assert (error.kind, error.steps_run) == (Failure.NOT_FOUND, 2)
    assert "once the page had fetched its options" in error.reason and "'Fiesta'" in error.reason
    assert time.monotonic() - started < 8  # it did not wait out the step timeout


async def test_session_set_by_script_opens_the_members_area(page: Page, site: FixtureServer) -> None:
    program = parse(f"navigate {site.url('/lab/session/')}\nclick 'text=Members area'\n")
    result = await run(program, page, **FAST)
    assert (result.final_url, result.status) == (site.url("/lab/session/secret"), 200)
    assert await page.inner_text("#stored") == f"Stored token: {SESSION_TOKEN}"


async def test_redirects_are_followed_to_the_end(page: Page, site: FixtureServer) -> None:
    program = parse(f"navigate {site.url('/lab/')}\nclick 'text=Redirect chain'\n")
    result = await run(program, page, **FAST)
    assert (result.final_url, result.status) == (site.url("/lab/redirect/end"), 200)


async def test_relative_navigate_and_wait_url(page: Page, site: FixtureServer) -> None:
    program = parse(
        f"navigate {site.url('/lab/')}\n"
        "navigate form/\n"
        "fill '#q' \"z\"\n"
        "press '#q' \"Enter\"\n"
        "wait url 'result\\?q=z'\n"
    )
    result = await run(program, page, **FAST)
    assert result.final_url.startswith(site.url("/lab/form/result?q=z"))


async def test_a_program_compiled_once_runs_many_times(page: Page, site: FixtureServer) -> None:
    program = parse(f"navigate {site.url('/lab/js/')}\nclick '#js-c'\n")
    first = await run(program, page, **FAST)
    second = await run(program, page, **FAST)
    # (whether the load event came within FAST's 1 s is the machine's, not the program's)
    assert dataclasses.replace(first, loaded=True) == dataclasses.replace(second, loaded=True)
    assert first.final_url == site.url("/lab/js/target-c")


async def test_a_never_settling_page_is_usable_after_domcontentloaded(
    page: Page, site: FixtureServer
) -> None:
    started = time.monotonic()
    result = await run(
        parse(f"navigate {site.url('/lab/never-settles')}\nclick 'text=Back to the lab'\n"),
        page,
        step_timeout_ms=5000,
        navigation_timeout_ms=10_000,
        load_timeout_ms=300,
    )
    assert result.final_url == site.url("/lab/")
    assert time.monotonic() - started < 8  # bounded by the load grace, not by the 60 s hang


async def step_error(page: Page, text: str, **limits: float) -> StepError:
    with pytest.raises(StepError) as caught:
        await run(parse(text), page, **{**FAST, **limits})
    return caught.value


async def test_missing_element_names_the_line(page: Page, site: FixtureServer) -> None:
    error = await step_error(page, f"navigate {site.url('/lab/')}\n# a comment\nclick '#missing'\n")
    assert (error.kind, error.line, error.steps_run) == (Failure.NOT_FOUND, 3, 1)
    assert "'#missing'" in error.reason
    assert str(error).startswith('line 3: click "#missing": no element matches')


async def test_hover_menu_link_is_absent_without_hover(page: Page, site: FixtureServer) -> None:
    error = await step_error(page, f"navigate {site.url('/lab/menu/')}\nclick 'text=All products'\n")
    assert (error.kind, error.line) == (Failure.NOT_FOUND, 2)


async def test_ambiguous_selector(page: Page, site: FixtureServer) -> None:
    error = await step_error(page, f"navigate {site.url('/lab/js/')}\nclick button\n")
    assert error.kind is Failure.AMBIGUOUS
    assert "matches 2 elements" in error.reason


async def test_invalid_selector(page: Page, site: FixtureServer) -> None:
    error = await step_error(page, f"navigate {site.url('/lab/')}\nclick 'nope=x'\n")
    assert error.kind is Failure.INVALID_SELECTOR


async def test_redirect_loop_is_a_navigation_error(page: Page, site: FixtureServer) -> None:
    error = await step_error(page, f"navigate {site.url('/lab/')}\nclick 'text=Redirect loop'\n")
    assert (error.kind, error.line) == (Failure.NAVIGATION, 2)
    assert "ERR_TOO_MANY_REDIRECTS" in error.reason
    error = await step_error(page, f"navigate {site.url('/lab/redirect/loop-b')}\n")
    assert (error.kind, error.line) == (Failure.NAVIGATION, 1)


async def test_submit_outside_any_form(page: Page, site: FixtureServer) -> None:
    error = await step_error(page, f"navigate {site.url('/lab/form/')}\nsubmit h1\n")
    assert error.kind is Failure.NO_FORM


async def test_back_without_history(page: Page) -> None:
    error = await step_error(page, "back\n")
    assert (error.kind, error.steps_run) == (Failure.NO_HISTORY, 0)


async def test_missing_option_and_wrong_kind_of_element(page: Page, site: FixtureServer) -> None:
    error = await step_error(page, f"navigate {site.url('/lab/form/')}\nselect '#format' \"Vinyl\"\n")
    assert error.kind is Failure.NOT_FOUND
    assert "no option with label 'Vinyl'" in error.reason
    error = await step_error(page, f"navigate {site.url('/lab/form/')}\ncheck '#q'\n")
    assert error.kind is Failure.NOT_ACTIONABLE


async def test_hidden_element_is_not_actionable(page: Page, site: FixtureServer) -> None:
    await page.goto(site.url("/lab/menu/"))
    await page.evaluate("document.getElementById('more').style.display = 'none'")
    error = await step_error(page, "click '#more'\n")
    assert error.kind is Failure.NOT_ACTIONABLE
    assert "is hidden (display: none on it)" in error.reason
    # A closed menu's item fails in its grace (0.5 s), not the step's 10 s, saying what hides it.
    await page.evaluate("document.getElementById('more-panel').innerHTML = '<a id=\"in\" href=\"#\">In</a>';"
                        "document.getElementById('more-panel').style.display = 'none'")
    started = time.monotonic()
    error = await step_error(page, "click '#in'\n", step_timeout_ms=10_000)
    assert time.monotonic() - started < 3  # 0.5 s and round trips, on a loaded machine
    assert error.kind is Failure.NOT_ACTIONABLE
    assert error.reason == "'#in' is hidden (display: none on <div#more-panel>): a person could not click it"


async def test_timeouts_are_bounded_and_typed(page: Page, site: FixtureServer) -> None:
    error = await step_error(page, f"navigate {site.url('/lab/slow?s=3')}\n", navigation_timeout_ms=500)
    assert error.kind is Failure.TIMEOUT
    error = await step_error(
        page, f"navigate {site.url('/lab/never-settles')}\nwait load\n", navigation_timeout_ms=3000
    )
    assert (error.kind, error.line) == (Failure.TIMEOUT, 2)
    error = await step_error(page, "wait navigation\n", navigation_timeout_ms=300)
    assert error.kind is Failure.TIMEOUT
    await run(parse(f"navigate {site.url('/lab/')}\n"), page, **FAST)  # not under the 300 ms below
    error = await step_error(page, "wait url 'nowhere'\n", navigation_timeout_ms=300)
    assert (error.kind, error.line) == (Failure.TIMEOUT, 1)


async def test_unreachable_host_is_a_navigation_error(page: Page) -> None:
    error = await step_error(page, "navigate http://127.0.0.1:9/\n")
    assert error.kind is Failure.NAVIGATION
    assert "net::ERR_" in error.reason


async def test_closed_page(page: Page, site: FixtureServer) -> None:
    await page.close()
    error = await step_error(page, f"navigate {site.url('/lab/')}\n")
    assert error.kind is Failure.CLOSED


async def test_a_click_whose_navigation_brings_no_page_leaves_it(page: Page, site: FixtureServer) -> None:
    """A 204 and a download end the navigation quietly: the run goes on, on the same page."""
    edges = site.url("/lab/edges/")
    for link in ("#to-empty", "#to-file"):
        result = await run(parse(f"navigate {edges}\nclick '{link}'\nwait 'h1'\n"), page, **FAST)
        assert (result.final_url, result.status, result.steps_run) == (edges, 200, 3), link
        assert result.response is not None and result.response.url == edges


@pytest.mark.parametrize(("start", "steps", "lands_on"), [
    # A form that opens its results in a new window, submitted by an image button.
    ("/music/search/finder", "fill 'input[name=ar]' \"Miles\"\nclick 'input[name=go]'\n", "/music/find"),
    # A form sent by page script (form.submit(), no submit event) into a popup named "results".
    ("/books/search/finder", "fill 'input[name=t]' \"java\"\nclick 'a.btn'\n", "/books/find"),
    # A link of a frame page, shown alone, that targets a frame of its frameset.
    ("/lab/frames/nav", "click 'text=Catalogue'\n", "/lab/frames/catalog"),
])
async def test_what_would_open_in_another_window_opens_in_this_tab(
        page: Page, site: FixtureServer, start: str, steps: str, lands_on: str) -> None:
    result = await run(parse(f"navigate {site.url(start)}\n{steps}"), page, **FAST)
    assert result.final_url.split("?")[0] == site.url(lands_on) and result.status == 200
    assert page.context.pages == [page]  # no popup: the results are where the run reads


@pytest.mark.parametrize(("link", "item"), [
    ("text=Item one", 1),  # a javascript: link to a helper that calls window.open
    ("text=Item two", 2),  # window.open in the onclick of a "#" link
    ("span.more", 3),  # the helper in the onclick of a span
])
async def test_a_window_the_action_opens_comes_to_this_tab(
        page: Page, site: FixtureServer, link: str, item: int) -> None:
    popups = []
    page.context.on("page", lambda popup: popups.append(popup))
    result = await run(parse(f"navigate {site.url('/lab/popups/')}\nclick '{link}'\n"), page, **FAST)
    assert (result.final_url, result.status) == (site.url(f"/lab/popups/item-{item}"), 200)
    assert "Shown in its own window" in await page.inner_text("body")
    # The page's own popup (an offer, opened on load with no action) still opens; nothing else.
    for _ in range(100):
        if popups:
            break
        await asyncio.sleep(0.05)
    for popup in popups:
        await popup.wait_for_load_state("domcontentloaded")
    assert [urlsplit(p.url).path for p in popups] == [POPUP_AD]


async def test_a_click_to_a_dead_server_is_a_navigation_error(page: Page, site: FixtureServer) -> None:
    with socket.socket() as probe:  # a loopback port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        dead = probe.getsockname()[1]
    error = await step_error(page, f"navigate {site.url(f'/lab/edges/?dead={dead}')}\nclick '#to-nowhere'\n")
    assert (error.kind, error.line) == (Failure.NAVIGATION, 2)
    assert "net::ERR_CONNECTION_REFUSED" in error.reason


async def test_a_click_reports_the_response_of_the_page_it_led_to(page: Page, site: FixtureServer) -> None:
    edges = site.url("/lab/edges/")
    result = await run(parse(f"navigate {edges}\nclick '#to-gone'\n"), page, **FAST)
    assert result.status == 410 and result.response is not None
    assert result.response.url == site.url("/lab/redirect/gone")
    # Through redirects: the response of the page at the end of the chain.
    result = await run(parse(f"navigate {edges}\nclick '#to-chain'\n"), page, **FAST)
    assert (result.final_url, result.status) == (site.url("/lab/redirect/end"), 200)
    assert result.response is not None and result.response.url == site.url("/lab/redirect/end")
    assert "text/html" in (await result.response.all_headers())["content-type"]


def _navigated(url: str, error: str | None = None) -> dict[str, object]:
    """A main-frame navigation event as Playwright's client receives it (no new document)."""
    return {"url": url, "name": "", "newDocument": None, "error": error}


async def test_an_error_page_committed_before_its_failure_counts_as_the_failure(page: Page) -> None:
    """Chromium reports a failed navigation, then commits its error page; should the
    commit ever come first, the error page still counts as the failure, not a page."""
    tracker = NavigationTracker(page)
    mark = tracker.mark()
    tracker._on_navigated(_navigated("chrome-error://chromewebdata/"))
    assert (await tracker.wait(mark)).failure == "the browser showed its error page"
    # Reported in the usual order, the failure's own text is kept, and counted once.
    mark = tracker.mark()
    tracker._on_navigated(_navigated("http://x/", "net::ERR_CONNECTION_RESET"))
    tracker._on_navigated(_navigated("chrome-error://chromewebdata/"))
    assert tracker.failure_since(mark) == "net::ERR_CONNECTION_RESET"
    assert tracker.failures == mark.failures + 1


def test_a_playwright_without_frame_navigation_events_is_named() -> None:
    """The tracker relies on Playwright's own frame navigation events: if a release
    ever drops them, every run says so, rather than silently missing navigations."""
    page = SimpleNamespace(main_frame=SimpleNamespace(_impl_obj=SimpleNamespace()))
    with pytest.raises(RuntimeError, match=r"Frame\._event_emitter"):
        NavigationTracker(page)  # type: ignore[arg-type]


async def test_waiting_for_load_states_sends_the_driver_nothing(
        page: Page, site: FixtureServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run waits for each page's load states on the frame's own events: Playwright's
    waiter would report itself to the driver (`__waitInfo__` messages) on every wait."""
    sent: collections.Counter[str] = collections.Counter()
    original = Connection.send_message_to_server

    def send(self: Connection, obj: Any, method: str, *args: Any, **kwargs: Any) -> Any:
        sent[method] += 1
        return original(self, obj, method, *args, **kwargs)

    monkeypatch.setattr(Connection, "send_message_to_server", send)
    program = parse(f"navigate {site.url('/lab/libs/')}\nclick '#libs-next'\nwait load\nback\n")
    result = await run(program, page, **FAST)
    assert result.final_url == site.url("/lab/libs/") and result.loaded
    assert sent["__waitInfo__"] == 0 and sent["goto"] == 1, dict(sent)


async def test_a_page_closed_while_a_run_waits_for_its_load_is_closed(
        page: Page, site: FixtureServer) -> None:
    # The page's load waits on an image that hangs; the page closes meanwhile.
    await page.set_content(f'<a id="go" href="{site.url("/lab/never-settles")}">go</a>')
    program = parse("click '#go'\nwait load\n")
    waiting = asyncio.ensure_future(run(program, page, **{**FAST, "load_timeout_ms": 0}))
    await asyncio.sleep(0.5)
    await page.close()
    with pytest.raises(StepError) as caught:
        await asyncio.wait_for(waiting, 5)
    assert caught.value.kind is Failure.CLOSED


async def test_a_javascript_link_that_navigates_a_little_later_is_followed(
        page: Page, site: FixtureServer) -> None:
    # A javascript: link whose script navigates after a short delay, as one that sends an
    # analytics beacon first does (and as any javascript: link's task can run on a busy
    # machine): the click is a navigation all the same, not a click that did nothing.
    target = site.url("/lab/js/target-a")
    html = (f'<!doctype html><a id="go" href="javascript:setTimeout(function () '
            f'{{ location.assign(\'{target}\'); }}, 60)">Go</a>')

    async def serve(route: Route) -> None:
        await route.fulfill(status=200, content_type="text/html", body=html)

    await page.route(site.url("/lab/beacon-link"), serve)
    result = await run(parse(f"navigate {site.url('/lab/beacon-link')}\nclick '#go'\n"), page, **FAST)
    assert result.final_url == target
    assert await page.title() == "Target A"
