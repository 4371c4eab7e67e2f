"""Building NSEQL text for routes: the crawler writes programs, people replay them."""

from __future__ import annotations

from collections.abc import Sequence

import nseql


def navigate_step(url: str) -> str:
    return nseql.dump(nseql.Program.of(nseql.Navigate(url)))


def click_step(selector: str) -> str:
    return nseql.dump(nseql.Program.of(nseql.Click(selector)))


def select_step(selector: str, value: str) -> str:
    return nseql.dump(nseql.Program.of(nseql.Select(selector, option=value, by="value")))


def steps_text(*steps: nseql.Step) -> str:
    return nseql.dump(nseql.Program(tuple(steps)))


def append_steps(program: str, steps: str) -> str:
    """Concatenate two canonical programs (each ends with a newline)."""
    if program and not program.endswith("\n"):
        program += "\n"
    return program + steps


def grown_steps(clicks: Sequence[str]) -> str | None:
    """The clicks on "Load more" that grew a page, as NSEQL (None: none): its document's
    program repeats them, so a replay shows what the crawl stored."""
    return steps_text(*(nseql.Click(selector) for selector in clicks)) if clicks else None
