"""NSEQL's exceptions, one tree so callers catch what they mean.

    NseqlError
    ├── ProgramError   a step was built with invalid arguments (empty selector, bad regex…)
    ├── ParseError     program text is malformed; names line and column, shows a caret
    └── StepError      a step failed in the browser; names the step, its line and why

Playwright's errors become StepError in ``nseql.interpreter`` (and ``nseql.translate``) and nowhere else.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nseql.model import Step


class NseqlError(Exception):
    """Root of every error the nseql package raises on purpose."""


class ProgramError(NseqlError, ValueError):
    """A step or comment was constructed with an argument the language cannot hold."""


class ParseError(NseqlError):
    """Malformed NSEQL text.

    ``str(error)`` shows the position, the message, the source line and a caret under
    the column; ``line`` and ``column`` are 1-based.
    """

    def __init__(self, message: str, *, line: int, column: int, source_line: str) -> None:
        self.message = message
        self.line = line
        self.column = column
        self.source_line = source_line
        super().__init__(self._render())

    def _render(self) -> str:
        # Control characters and tabs would shift the caret; show each as one cell.
        shown = "".join(ch if ch.isprintable() else " " for ch in self.source_line)
        caret = " " * (self.column - 1) + "^"
        return f"line {self.line}, column {self.column}: {self.message}\n  {shown}\n  {caret}"


class Failure(StrEnum):
    """Why a step failed, as a stable code callers can branch on."""

    NOT_FOUND = "not-found"  # no element matched the selector (or no such option)
    AMBIGUOUS = "ambiguous"  # the selector matched several elements
    NOT_ACTIONABLE = "not-actionable"  # matched, but hidden, disabled, covered or of the wrong kind
    INVALID_SELECTOR = "invalid-selector"  # Playwright could not parse the selector
    NO_FORM = "no-form"  # `submit` found no form to submit
    NO_HISTORY = "no-history"  # `back` had no previous page
    NAVIGATION = "navigation"  # a navigation failed (network error, redirect loop)
    DOWNLOAD = "download"  # the URL answers with a file the browser downloads rather than shows
    TIMEOUT = "timeout"  # a navigation, load or wait did not finish in time
    CLOSED = "closed"  # the page, context or browser was closed
    OTHER = "other"  # anything else the browser reported


class StepError(NseqlError):
    """A step failed while running; ``steps_run`` steps before it succeeded."""

    def __init__(self, step: Step, text: str, kind: Failure, reason: str, *, steps_run: int) -> None:
        # ``text`` is the step as NSEQL (nseql.dump_step): the raiser writes it, so this
        # module imports nothing of the package and the model can import it freely.
        self.step = step
        self.kind = kind
        self.reason = reason
        self.steps_run = steps_run
        super().__init__(f"line {step.line}: {text}: {reason}")

    @property
    def line(self) -> int:
        return self.step.line
