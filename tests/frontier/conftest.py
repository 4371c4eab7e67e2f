"""Fixtures of the conformance suite: each test runs once per backend."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres.database import Databases, admin_url

from deepbot.frontier import RouteStore

from .backends import BACKENDS, Backend, PostgresBackend, SqliteBackend


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    made: Backend
    databases: Databases | None = None
    if request.param == "sqlite":
        made = SqliteBackend(tmp_path)
    elif request.param == "postgres":
        databases = Databases(admin_url())
        made = PostgresBackend(databases)
    else:  # pragma: no cover - a backend listed but not wired here
        raise ValueError(request.param)
    yield made
    made.close_all()
    if databases is not None:
        databases.drop_all()


@pytest.fixture
def store(backend: Backend) -> RouteStore:
    return backend.open()
