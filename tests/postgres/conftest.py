"""Fixtures of the PostgreSQL tests: a new database per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from postgres.database import Databases, admin_url


@pytest.fixture
def databases() -> Iterator[Databases]:
    made = Databases(admin_url())
    yield made
    made.drop_all()


@pytest.fixture
def postgres_url(databases: Databases) -> str:
    """A new, empty database's URL."""
    return databases.create()
