"""Building NSEQL text for routes: the crawler writes programs, people replay them."""

from __future__ import annotations

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
