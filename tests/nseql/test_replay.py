"""deepbot.replay: programs replayed in fresh browser contexts against the lab site."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from playwright.async_api import Browser

import nseql
from deepbot.errors import ReplayError
from deepbot.replay import ReplayStepError, load_program, replay, replay_in_browser
from fixtures.server import FixtureServer
from fixtures.sites import lab

pytestmark = pytest.mark.browser


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (Linux /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue  # exited while we looked
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def test_replay_submits_a_form_in_its_own_browser_and_leaves_no_process(
    site: FixtureServer, tmp_path: Path
) -> None:
    html = tmp_path / "result.html"
    before = descendants(os.getpid())
    task = asyncio.create_task(
        replay(
            f"navigate {site.url('/lab/form/')}\n"
            'fill "#q" "Les Misérables"\n'
            'select "#format" "Hardcover"\n'
            "check '#instock'\n"
            "click 'role=button[name=\"Search\"]'\n",
            html=html,
            timeout=10,
        )
    )
    spawned: set[int] = set()  # the driver and Chromium processes the replay started
    while not task.done():
        spawned |= descendants(os.getpid()) - before
        await asyncio.sleep(0.05)
    result = await task
    assert result.ok and result.error is None
    assert result.final_url.startswith(site.url("/lab/form/result?"))
    assert (result.title, result.steps_run, result.status) == ("Search results", 5, 200)
    assert '<dd id="got-q">Les Misérables</dd>' in result.html
    assert '<dd id="got-format">hc</dd>' in result.html
    assert html.read_text(encoding="utf-8") == result.html
    assert spawned, "the replay should have launched its own browser"
    assert not [pid for pid in spawned if alive(pid)]


async def test_replay_follows_a_javascript_only_anchor(browser: Browser, site: FixtureServer) -> None:
    result = await replay_in_browser(
        browser, f"navigate {site.url('/lab/js/')}\nclick 'text=Target B'\n", timeout=10
    )
    assert (result.ok, result.final_url, result.title) == (True, site.url("/lab/js/target-b"), "Target B")


async def test_replay_reports_the_status_of_the_page_a_script_moved_to(
    browser: Browser, site: FixtureServer
) -> None:
    moved = await replay_in_browser(browser, f"navigate {site.url('/lab/redirect/by-script')}\n", timeout=10)
    assert (moved.final_url, moved.status, moved.title) == (site.url("/lab/redirect/gone"), 410, "Gone")
    direct = await replay_in_browser(browser, f"navigate {site.url('/lab/redirect/start')}\n", timeout=10)
    assert (direct.final_url, direct.status) == (site.url("/lab/redirect/end"), 200)


async def test_replay_reaches_the_session_page_in_a_fresh_context(
    browser: Browser, site: FixtureServer
) -> None:
    members = await replay_in_browser(
        browser, f"navigate {site.url('/lab/session/')}\nclick 'text=Members area'\n", timeout=10
    )
    assert (members.ok, members.title, members.status) == (True, "Members area", 200)
    # Each replay starts from an empty session: the cookie above does not leak into it.
    direct = await replay_in_browser(browser, f"navigate {site.url('/lab/session/secret')}\n", timeout=10)
    assert (direct.ok, direct.status, direct.title) == (True, 403, "No session")


async def test_replay_opens_a_hover_menu(browser: Browser, site: FixtureServer) -> None:
    program = nseql.parse(
        f"navigate {site.url('/lab/menu/')}\nhover '#products'\nclick '#products .submenu a'\n"
    )
    result = await replay_in_browser(browser, program, timeout=10)
    assert (result.ok, result.final_url) == (True, site.url("/lab/menu/hover-target"))


async def test_failed_step_reports_line_reason_and_where_it_stopped(
    browser: Browser, site: FixtureServer, tmp_path: Path
) -> None:
    shot = tmp_path / "stopped.png"
    result = await replay_in_browser(
        browser,
        f"navigate {site.url('/lab/')}\nclick 'text=Menus'\nclick '#no-such-thing'\nback\n",
        timeout=4,  # each step's bound: the first page of a new context, on a loaded machine
        screenshot=shot,
    )
    assert not result.ok
    assert (result.steps_run, result.final_url, result.title) == (2, site.url("/lab/menu/"), "Menus")
    error = result.error
    assert isinstance(error, ReplayError) and isinstance(error, ReplayStepError)
    assert (error.line, error.kind, error.column) == (3, "not-found", None)
    assert "'#no-such-thing'" in error.reason
    assert "line 3" in str(error)
    assert shot.read_bytes().startswith(b"\x89PNG")  # the page where it stopped
    with pytest.raises(ReplayStepError):
        result.raise_for_error()


def test_parse_errors_become_replay_errors_with_position() -> None:
    with pytest.raises(ReplayStepError) as caught:
        load_program("navigate http://x.test/\nclik a\n")
    error = caught.value
    assert (error.line, error.column, error.kind) == (2, 1, "parse")
    assert "did you mean 'click'" in str(error)
    assert load_program(nseql.parse("back\n")) == nseql.Program.of(nseql.Back())


async def test_replay_captures_a_page_once_its_fetches_have_answered(
    browser: Browser, site: FixtureServer
) -> None:
    # The page draws its catalogue by XHR, then a book's details by fetch(), once loaded:
    # the replay shows it as the crawl stored it, not with its "Loading…" placeholder.
    result = await replay_in_browser(browser, f"navigate {site.url('/lab/spa/')}\n", timeout=10)
    assert result.ok and lab.SPA_SUMMARY in result.html and "<li>Solaris</li>" in result.html
    assert "Loading the catalogue…</p>" not in result.html and ">Loading details…<" not in result.html
