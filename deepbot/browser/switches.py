"""Chromium's command line: DeepBot's switches merged into Playwright's.

Chromium keeps only the *last* occurrence of a switch. Playwright passes its own
``--disable-features`` list (features that break automation: HTTPS upgrades of http
navigations, paint holding, storage partitioning, CORS restarts under interception…)
and, headless, a ``--blink-settings`` that makes the page see a mouse (so ``(hover:
hover)`` menus work). A caller's switch of the same name, appended after them, silently
drops all of Playwright's values. So the list-valued switches are emitted once, as the
union of Playwright's values and DeepBot's; V8's ``--js-flags`` likewise.

Playwright does not export those values; they are read from the driver it ships, with
a copy of version 1.65's as the fallback if its layout changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

__all__ = [
    "CHROMIUM_ARGS", "DISABLED_FEATURES", "JS_FLAGS", "chromium_args", "driver_sources",
    "playwright_switches", "read_driver_switches",
]

# Without the background-networking flags Chromium keeps dialling Google services,
# which a closed network refuses many times a second; --no-sandbox is needed as root.
CHROMIUM_ARGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--disable-dev-shm-usage",
)

# V8's flags, one switch with space-separated values (a caller's are appended: V8
# keeps the last value of a flag). A reused page's renderer fills V8's first heap
# limit with dead documents for ~25 routes before its first full collection, every
# worker at once, and then settles at ~100 MB. A small first limit and V8's
# low-memory heap sizing (neither does it alone) keep it at ~50 MB: peak memory at
# eight workers 1,400 -> 1,085 MB, CPU per page within the noise (at most ~5 %).
# `bench/README.md` has the figures.
JS_FLAGS: tuple[str, ...] = ("--optimize-for-size", "--initial-old-space-size=8")

DISABLED_FEATURES: tuple[str, ...] = (
    "Translate",
    "MediaRouter",
    "OptimizationHints",
    # Chromium keeps a warm renderer for the next navigation, but for one browser
    # context only; with one context per worker it is launched and thrown away over
    # and over (60-80 renderer processes for 240 pages at four workers, against 8
    # without it), costing more CPU than it saves. `bench/README.md` has the figures.
    "SpareRendererForSitePerProcess",
    # Full Chromium (headed, or headless where no headless shell is installed) gives
    # every browser context a window, and every window preloads its address bar's
    # dropdown (chrome://omnibox-popup.top-chrome/, two WebUI pages) in a renderer of
    # its own: ~0.7 s of CPU when the context opens and ~45 MB for as long as it
    # lives, per worker. Nobody sees that dropdown here.
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
    # Chromium gives every cross-document navigation a new frame host, even to a page
    # of the same site in the same tab: in the renderer a new WebView and compositor
    # (and the old ones torn down), in the browser a speculative frame host. A worker
    # reuses its tab for route after route, so this was paid on every page: with it off,
    # 10-27 % less CPU per page and 9-37 % more pages/s (`bench/README.md` has the figures).
    "RenderDocument",
)

# The switches whose value is a comma-separated list, merged rather than repeated.
_LIST_SWITCHES = ("--disable-features", "--enable-features", "--blink-settings")

# Playwright 1.65's values, used only if they cannot be read from the installed driver.
_FALLBACK: dict[str, tuple[str, ...]] = {
    "--disable-features": (
        "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
        "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
        "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin",
        "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch",
    ),
    "--enable-features": ("CDPScreenshotNewSurface", "SkipListAccountsWithoutGaiaCookies"),
    "--blink-settings": (
        "primaryHoverType=2", "availableHoverTypes=2", "primaryPointerType=4", "availablePointerTypes=4",
    ),
}  # fmt: skip

_DRIVER_FILES = ("coreBundle.js", "server/chromium/chromiumSwitches.js", "server/chromium/chromium.js")
_LISTS = {
    "--disable-features": re.compile(r"disabledFeatures\s*=\s*\[(.*?)\]", re.S),
    "--enable-features": re.compile(r"enabledFeatures\s*=\s*\(\)\s*=>\s*\[(.*?)\]", re.S),
}
_BLINK_SETTINGS = re.compile(r'"--blink-settings=([^"]+)"')
_LINE_COMMENT = re.compile(r"//[^\n]*")
_STRING = re.compile(r'"([^"\\]*)"')


@cache
def playwright_switches() -> dict[str, tuple[str, ...]]:
    """Playwright's own values of the list-valued switches (``--blink-settings``: headless)."""
    found = read_driver_switches(driver_sources())
    return {name: found.get(name) or values for name, values in _FALLBACK.items()}


def read_driver_switches(sources: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The values found in the driver's JavaScript (missing names were not found)."""
    found: dict[str, tuple[str, ...]] = {}
    for source in sources:
        for name, pattern in _LISTS.items():
            if name not in found and (match := pattern.search(source)):
                strings = _STRING.findall(_LINE_COMMENT.sub("", match.group(1)))
                found[name] = tuple(s for s in strings if s)
        if "--blink-settings" not in found and (match := _BLINK_SETTINGS.search(source)):
            found["--blink-settings"] = tuple(match.group(1).split(","))
    return found


def driver_sources() -> Iterator[str]:
    try:
        import playwright
    except ImportError:  # pragma: no cover - playwright is a dependency
        return
    lib = Path(playwright.__file__).parent / "driver" / "package" / "lib"
    for name in _DRIVER_FILES:
        try:
            yield (lib / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue


def chromium_args(*extra: str, headless: bool = True) -> list[str]:
    """DeepBot's switches plus ``extra``. A list-valued switch that DeepBot sets is
    emitted once, Playwright's values first, so that appending it loses nothing."""
    ours: dict[str, list[str]] = {name: [] for name in _LIST_SWITCHES}
    ours["--disable-features"].extend(DISABLED_FEATURES)
    plain: list[str] = []
    js_flags = list(JS_FLAGS)
    for arg in (*CHROMIUM_ARGS, *extra):
        name, _, value = arg.partition("=")
        if name in ours:
            ours[name].extend(v for v in value.split(",") if v)
        elif name == "--js-flags":
            js_flags.extend(value.split())
        else:
            plain.append(arg)
    defaults = playwright_switches()
    merged = []
    for name, values in ours.items():
        if values:  # otherwise Playwright's own switch stands as it is
            base = defaults[name] if headless or name != "--blink-settings" else ()
            merged.append(f"{name}={','.join(dict.fromkeys([*base, *values]))}")
    return [*plain, *merged, f"--js-flags={' '.join(js_flags)}"]
