"""Panels stage: open what a form keeps folded before it is read (``panels.js``).

"Advanced search ▾" (a toggle with ``aria-expanded``/``aria-controls``), a closed
``<details>``, an old "More options" link that runs a script: a person opens them to see
the fields. The analyzer does so before extraction, and each form's ``opened`` clicks
come first in its query routes, so its fields are shown when the crawl fills them. A
toggle counts only if clicking it showed a hidden field of the form; one that would
navigate (a link to another page, a submit button) is never clicked.
"""

from __future__ import annotations

import logging
from functools import cache
from importlib import resources
from typing import Any

from playwright.async_api import Page

from deepbot.browser.failures import translated
from deepbot.errors import BrowserCrashedError, BrowserError

__all__ = ["act_in_page", "open_panels"]

log = logging.getLogger("deepbot.forms")


@cache
def _script() -> str:
    return resources.files("deepbot.forms").joinpath("panels.js").read_text(encoding="utf-8")


async def open_panels(page: Page) -> dict[int, tuple[str, ...]]:
    """Open the page's folded form panels; per form (its index in ``document.forms``) the
    selectors of the toggles clicked, in order."""
    found = await act_in_page(page, _script(), "open the form panels")
    opened: dict[int, list[str]] = {}
    for toggle in found if isinstance(found, list) else ():
        opened.setdefault(int(toggle["form"]), []).append(str(toggle["selector"]))
    return {form: tuple(selectors) for form, selectors in opened.items()}


async def act_in_page(page: Page, script: str, doing: str) -> Any:
    """Run a script that clicks in the page as a person would; what it returns, or None when
    a click's script navigated after all or the page is going (then it is read as it is)."""
    try:
        with translated(f"could not {doing} of {page.url}", other=BrowserError):
            return await page.evaluate(script)
    except BrowserCrashedError:
        raise
    except BrowserError as exc:
        log.debug("%s", exc)
        return None
