"""NSEQL: a small line-oriented language of browser events, one step per line.

    >>> from nseql import parse, dump
    >>> program = parse('navigate https://example.org/\\nclick "text=Next"\\n')
    >>> dump(program)
    'navigate https://example.org/\\nclick text=Next\\n'

``run(program, page)`` (in ``nseql.interpreter``) executes a program on a Playwright async Page. The language
is described in ``nseql/README.md``. This package does not depend on DeepBot.
"""

from nseql.dump import dump, dump_step
from nseql.errors import Failure, NseqlError, ParseError, ProgramError, StepError
from nseql.frames import ENTER_FRAME, locate
from nseql.interpreter import RunResult, forget_overlays, replaced, run
from nseql.model import (
    Back,
    Check,
    Click,
    Comment,
    Dismiss,
    ElementStep,
    Fill,
    Hover,
    Navigate,
    Press,
    Program,
    Select,
    Statement,
    Step,
    Submit,
    Uncheck,
    WaitLoad,
    WaitNavigation,
    WaitSelector,
    WaitUrl,
)
from nseql.navigation import wait_for_load_state
from nseql.parser import USAGE, parse

__all__ = [
    "ENTER_FRAME",
    "USAGE",
    "Back",
    "Check",
    "Click",
    "Comment",
    "Dismiss",
    "ElementStep",
    "Failure",
    "Fill",
    "Hover",
    "Navigate",
    "NseqlError",
    "ParseError",
    "Press",
    "Program",
    "ProgramError",
    "RunResult",
    "Select",
    "Statement",
    "Step",
    "StepError",
    "Submit",
    "Uncheck",
    "WaitLoad",
    "WaitNavigation",
    "WaitSelector",
    "WaitUrl",
    "dump",
    "dump_step",
    "forget_overlays",
    "locate",
    "parse",
    "replaced",
    "run",
    "wait_for_load_state",
]
