"""Fixtures of the conformance suite: each test runs once per backend."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from deepbot.frontier import RouteStore

from .backends import BACKENDS, Backend, SqliteBackend


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    made: Backend
    if request.param == "sqlite":
        made = SqliteBackend(tmp_path)
    else:  # pragma: no cover - a backend listed but not wired here
        raise ValueError(request.param)
    yield made
    made.close_all()


@pytest.fixture
def store(backend: Backend) -> RouteStore:
    return backend.open()
