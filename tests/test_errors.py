"""deepbot.errors: the tree its docstring draws is the tree its classes make."""

from __future__ import annotations

import inspect
import re

import deepbot.errors as errors
from deepbot.errors import DeepBotError

# A line of the drawing: indent and box-drawing characters, then the class name.
_NODE = re.compile(r"^(?P<lead>[ │├└─]*)(?P<name>[A-Z]\w+)\b")


def _drawn_tree() -> dict[str, str | None]:
    """Each class the docstring draws, with the class drawn as its parent (None: the root)."""
    parents: dict[str, str | None] = {}
    path: list[tuple[int, str]] = []  # (column of the name, name) from the root down
    for line in (errors.__doc__ or "").splitlines():
        match = _NODE.match(line)
        if match is None or not match.group("lead").startswith("    "):
            continue
        column = len(match.group("lead"))
        while path and path[-1][0] >= column:
            path.pop()
        parents[match.group("name")] = path[-1][1] if path else None
        path.append((column, match.group("name")))
    return parents


def _coded_tree() -> dict[str, str | None]:
    classes = inspect.getmembers(errors, lambda c: inspect.isclass(c) and issubclass(c, DeepBotError))
    return {
        name: None if cls is DeepBotError else cls.__bases__[0].__name__
        for name, cls in classes
        if cls.__module__ == errors.__name__
    }


def test_the_docstring_draws_every_error_class_under_its_base() -> None:
    drawn = _drawn_tree()
    assert drawn["DeepBotError"] is None and drawn["ReplayStepError"] == "ReplayError"
    assert drawn == _coded_tree()


def test_the_errors_raised_by_the_crawl_and_the_replay_belong_to_the_tree() -> None:
    from deepbot.crawl import engine
    from deepbot.replay import ReplayStepError

    assert issubclass(engine.Refused, errors.BrowserError) and engine.Refused is errors.Refused
    assert issubclass(engine.LoggedOut, DeepBotError) and engine.LoggedOut is errors.LoggedOut
    assert issubclass(ReplayStepError, errors.ReplayError)
    assert errors.Refused("http 429", 30.0).seconds == 30.0
