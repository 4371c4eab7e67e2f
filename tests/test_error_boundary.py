"""Playwright's errors are caught in deepbot.browser and nowhere above it (deepbot.errors);
what the layer gives the code above it instead.

Above that layer, code runs its browser calls inside ``deepbot.browser.failures.translated``
and catches DeepBot's errors. NSEQL is a package of its own with its own boundary (its
StepError) and is not held to this one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from playwright.async_api import Error as PlaywrightError

from deepbot.browser.failures import brief, close_quietly, translated
from deepbot.errors import BrowserCrashedError, FormError, PageTimeoutError

ROOT = Path(__file__).resolve().parents[1]
BROWSER_LAYER = ROOT / "deepbot" / "browser"

# Modules that still catch Playwright's errors themselves, until their browser calls move
# behind deepbot/browser (crawl/visit.py's go behind deepbot/browser/page.py). Empty it;
# never add to it.
NOT_YET_BEHIND_THE_BROWSER_LAYER: frozenset[str] = frozenset()


def _root(expr: ast.expr) -> str | None:
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def playwright_catches(source: str) -> list[int]:
    """Lines of ``source`` that catch a Playwright error: an ``except`` or a
    ``suppress(...)`` naming one, however it was imported."""
    tree = ast.parse(source)
    classes: set[str] = set()  # local names of Playwright's error classes
    modules: set[str] = set()  # local names of playwright's modules
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "playwright":
            for alias in node.names:
                (classes if alias.name.endswith("Error") else modules).add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "playwright":
                    modules.add(alias.asname or "playwright")

    def names_one(expr: ast.expr) -> bool:
        return any(
            (isinstance(sub, ast.Name) and sub.id in classes)
            or (isinstance(sub, ast.Attribute) and sub.attr.endswith("Error") and _root(sub.value) in modules)
            for sub in ast.walk(expr)
        )

    def catches(node: ast.AST) -> bool:
        if isinstance(node, ast.ExceptHandler):
            return node.type is not None and names_one(node.type)
        if isinstance(node, ast.Call):
            callee = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            return callee == "suppress" and any(names_one(arg) for arg in node.args)
        return False

    return sorted(node.lineno for node in ast.walk(tree) if catches(node))  # type: ignore[attr-defined]


def _above_the_browser_layer() -> list[Path]:
    return sorted(p for p in (ROOT / "deepbot").rglob("*.py") if BROWSER_LAYER not in p.parents)


def test_no_module_above_the_browser_layer_catches_a_playwright_error() -> None:
    found = {
        str(path.relative_to(ROOT)): lines
        for path in _above_the_browser_layer()
        if (lines := playwright_catches(path.read_text("utf-8")))
    }
    allowed = NOT_YET_BEHIND_THE_BROWSER_LAYER
    assert {name: lines for name, lines in found.items() if name not in allowed} == {}
    # A module that no longer catches leaves the list, so it cannot start again unseen.
    assert set(found) >= NOT_YET_BEHIND_THE_BROWSER_LAYER


def test_the_browser_layer_is_where_they_are_caught() -> None:
    assert playwright_catches((BROWSER_LAYER / "failures.py").read_text("utf-8"))


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        ("from playwright.async_api import Error as PE\ntry:\n    pass\nexcept PE:\n    pass\n", [4]),
        ("from playwright.async_api import TimeoutError\ntry:\n    pass\nexcept (OSError, TimeoutError):\n"
         "    pass\n", [4]),
        ("import playwright.async_api\ntry:\n    pass\nexcept playwright.async_api.Error as e:\n"
         "    pass\n", [4]),
        ("from playwright import async_api as pw\nimport contextlib\n"
         "with contextlib.suppress(pw.Error):\n    pass\n", [3]),
        ("from contextlib import suppress\nfrom playwright.async_api import Error\n"
         "with suppress(Error):\n    pass\n", [3]),
        # Python's own TimeoutError, and a DeepBot error: not Playwright's.
        ("try:\n    pass\nexcept TimeoutError:\n    pass\n", []),
        ("from deepbot.errors import BrowserError\ntry:\n    pass\nexcept BrowserError:\n    pass\n", []),
    ],
)
def test_every_way_of_naming_a_playwright_error_is_seen(source: str, lines: list[int]) -> None:
    assert playwright_catches(source) == lines


_LOGS = "\nBrowser logs:\n\n<launching> /usr/bin/chromium --headless"


@pytest.mark.parametrize(
    ("message", "other", "kind"),
    [
        ("Page.goto: Timeout 10ms exceeded.", None, PageTimeoutError),
        ("Page.evaluate: Target crashed" + _LOGS, None, BrowserCrashedError),
        ("Page.evaluate: Timeout 10ms exceeded.", FormError, FormError),  # the form's failure
        ("Page.evaluate: Target crashed" + _LOGS, FormError, BrowserCrashedError),  # the browser's
    ],
)
def test_a_block_of_browser_calls_raises_deepbots_errors(
    message: str, other: type[FormError] | None, kind: type[Exception]
) -> None:
    with pytest.raises(kind) as caught, translated("could not read x", other=other):
        raise PlaywrightError(message)
    assert type(caught.value) is kind and str(caught.value) == "could not read x: " + brief(message)
    assert isinstance(caught.value.__cause__, PlaywrightError)


class _DeadContext:
    closed = 0

    async def close(self) -> None:
        self.closed += 1
        raise PlaywrightError("BrowserContext.close: Target page, context or browser has been closed")


async def test_closing_what_died_already_raises_nothing() -> None:
    dead = _DeadContext()
    await close_quietly(dead)
    assert dead.closed == 1
