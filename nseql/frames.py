"""Selectors that reach into iframes: ``IFRAME-SELECTOR >> enter-frame >> SELECTOR``.

A page's own selectors stop at a frame's document; a consent manager that draws its
wall in an iframe from its own origin (Sourcepoint, TrustArc) has its buttons there.
The ``enter-frame`` part of a chain enters the document of the iframe the parts before
it match, as Playwright's frame locators do (its public API, not its selector
internals, so stored sequences do not depend on those).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nseql.errors import ProgramError

if TYPE_CHECKING:
    from playwright.async_api import Locator, Page

ENTER_FRAME = "enter-frame"


def chain_parts(selector: str) -> list[str]:
    """The parts of a Playwright selector chain, split at each ``>>`` outside quotes."""
    parts: list[str] = []
    start = 0
    quote = ""
    i = 0
    while i < len(selector):
        ch = selector[i]
        if quote:
            if ch == "\\":
                i += 1  # an escaped character, perhaps the quote itself
            elif ch == quote:
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif selector.startswith(">>", i):
            parts.append(selector[start:i].strip())
            start = i + 2
            i += 1
        i += 1
    parts.append(selector[start:].strip())
    return parts


def frame_path(selector: str) -> list[str]:
    """The selectors of the iframes to enter, in order, then the element's own selector.

    Raises ProgramError when an ``enter-frame`` has no iframe before it or nothing after.
    """
    path: list[str] = []
    current: list[str] = []
    for part in chain_parts(selector):
        if part == ENTER_FRAME:
            if not current:
                raise ProgramError(f"{ENTER_FRAME!r} needs the iframe's selector before it: {selector!r}")
            path.append(" >> ".join(current))
            current = []
        else:
            current.append(part)
    if not current:
        raise ProgramError(f"{ENTER_FRAME!r} needs a selector after it: {selector!r}")
    if not path:
        return [selector]  # untouched: no chain was rebuilt
    return [*path, " >> ".join(current)]


def locate(page: Page, selector: str) -> Locator:
    """The Locator of ``selector`` on ``page``, entering the iframes it names."""
    *frames, element = frame_path(selector)
    if not frames:
        return page.locator(element)
    scope = page.frame_locator(frames[0])
    for frame in frames[1:]:
        scope = scope.frame_locator(frame)
    return scope.locator(element)
