"""Chromium's command line keeps Playwright's switch values when DeepBot adds its own."""

from __future__ import annotations

import json

import psutil
import pytest
from playwright.async_api import async_playwright

from deepbot.browser import launch_chromium
from deepbot.browser.pool import _IMAGES_OFF, BrowserPool, BrowserSettings
from deepbot.browser.switches import (
    DISABLED_FEATURES,
    JS_FLAGS,
    chromium_args,
    driver_sources,
    playwright_switches,
    read_driver_switches,
)
from fixtures.server import FixtureServer


def _values(args: list[str], name: str) -> list[list[str]]:
    return [arg.split("=", 1)[1].split(",") for arg in args if arg.split("=", 1)[0] == name]


def test_the_installed_driver_is_read_not_the_fallback() -> None:
    # Fails when a Playwright upgrade moves these lists: update the reader and _FALLBACK.
    found = read_driver_switches(driver_sources())
    assert set(found) == {"--disable-features", "--enable-features", "--blink-settings"}
    assert {"HttpsUpgrades", "PaintHolding"} <= set(found["--disable-features"])
    assert "primaryHoverType=2" in found["--blink-settings"]


def test_list_switches_are_emitted_once_with_playwrights_values_first() -> None:
    args = chromium_args(_IMAGES_OFF, "--disable-features=Foo,Translate", "--mute-audio")
    [disabled] = _values(args, "--disable-features")
    assert disabled[: len(playwright_switches()["--disable-features"])] == list(
        playwright_switches()["--disable-features"]
    )
    assert {*DISABLED_FEATURES, "Foo"} <= set(disabled) and len(disabled) == len(set(disabled))
    [blink] = _values(args, "--blink-settings")
    assert blink == [*playwright_switches()["--blink-settings"], "imagesEnabled=false"]
    assert _values(args, "--enable-features") == []  # DeepBot sets none: Playwright's stands
    assert "--mute-audio" in args and "--no-sandbox" in args


def test_v8_flags_are_one_switch_with_the_callers_last() -> None:
    # Chromium would keep only the last --js-flags; V8 keeps a flag's last value.
    args = chromium_args("--js-flags=--max-old-space-size=512 --expose-gc")
    [flags] = [arg.split("=", 1)[1] for arg in args if arg.startswith("--js-flags=")]
    assert flags.split() == [*JS_FLAGS, "--max-old-space-size=512", "--expose-gc"]


def test_headed_browsers_get_no_headless_blink_settings() -> None:
    [blink] = _values(chromium_args(_IMAGES_OFF, headless=False), "--blink-settings")
    assert blink == ["imagesEnabled=false"]
    assert _values(chromium_args(headless=False), "--blink-settings") == []


@pytest.mark.browser
async def test_the_switch_chromium_keeps_has_every_value_it_was_given() -> None:
    # Chromium keeps the last occurrence of a switch: it must carry the earlier ones' values.
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    async with async_playwright() as pw:
        browser = await launch_chromium(pw, extra_args=(_IMAGES_OFF,))
        try:
            mains = []  # this browser only: the worker may run others (fixtures, subprocesses)
            for process in psutil.Process().children(recursive=True):
                try:
                    if process.pid not in before and "--remote-debugging-pipe" in process.cmdline():
                        mains.append(process.cmdline())
                except psutil.Error:
                    continue
            assert mains
            for cmdline in mains:
                for name in ("--disable-features", "--blink-settings"):
                    *earlier, kept = _values(cmdline, name)
                    assert all(set(values) <= set(kept) for values in earlier), name
                disabled = _values(cmdline, "--disable-features")[-1]
                blink = _values(cmdline, "--blink-settings")[-1]
                assert {"HttpsUpgrades", "PaintHolding", "SpareRendererForSitePerProcess"} <= set(disabled)
                js_flags = [arg for arg in cmdline if arg.startswith("--js-flags=")]
                assert js_flags == [f"--js-flags={' '.join(JS_FLAGS)}"]
                assert {"primaryHoverType=2", "imagesEnabled=false"} <= set(blink)
        finally:
            await browser.close()


@pytest.mark.browser
async def test_a_context_costs_one_renderer_and_no_browser_ui() -> None:
    # Each headless window preloads the address bar's WebUI dropdown in a renderer of
    # its own unless told not to: two renderers per worker instead of one.
    async with BrowserPool(2, BrowserSettings()) as pool:
        slots = [await pool.acquire() for _ in range(2)]
        try:
            for slot in slots:
                await slot.page.set_content("<p>x</p>")
            assert pool._browser is not None
            cdp = await pool._browser.new_browser_cdp_session()
            targets = (await cdp.send("Target.getTargets"))["targetInfos"]
            processes = (await cdp.send("SystemInfo.getProcessInfo"))["processInfo"]
            await cdp.detach()
        finally:
            for slot in slots:
                await pool.release(slot)
    assert [t["url"] for t in targets if t["type"] != "page"] == []
    assert [t["type"] for t in targets].count("page") == 2
    assert [p["type"] for p in processes].count("renderer") == 2


@pytest.mark.browser
async def test_a_same_site_navigation_keeps_the_tabs_frame_host(site: FixtureServer) -> None:
    # Left on, RenderDocument builds a speculative frame host (and, in the renderer, a
    # new WebView and compositor) for every navigation of a worker's reused tab.
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        await slot.page.goto(site.url("/"))
        assert pool._browser is not None
        await pool._browser.start_tracing(categories=["navigation"])
        for path in ("/lab/", "/", "/lab/"):
            await slot.page.goto(site.url(path))
        trace = json.loads(await pool._browser.stop_tracing())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    names = [event.get("name", "") for event in events]
    assert names.count("NavigationRequest::BeginNavigation") >= 3  # the trace saw the navigations
    assert "RenderFrameHostManager::CreateSpeculativeRenderFrameHost" not in names


@pytest.mark.browser
async def test_pool_pages_block_images_and_still_see_a_mouse() -> None:
    # A page that sees no mouse hides menus gated on (hover: hover); images stay off.
    gif = "data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=="
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        await slot.page.set_content(f'<img id="i" src="{gif}">')
        hover, fine, width = await slot.page.evaluate(
            "[matchMedia('(hover: hover)').matches, matchMedia('(pointer: fine)').matches,"
            " document.getElementById('i').naturalWidth]"
        )
    assert (hover, fine, width) == (True, True, 0)
