"""Throwaway PostgreSQL databases for the tests, on the server DEEPBOT_TEST_POSTGRES names.

scripts/test.sh starts a cluster on loopback and sets the variable (scripts/postgres.sh).
Without it, tests that need PostgreSQL are skipped, saying why; in CI they fail instead, so a
cluster that did not start cannot pass unnoticed. Each test gets a database of its own
(CREATE DATABASE copies the empty template1: some milliseconds), dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from urllib.parse import urlsplit, urlunsplit

import pytest

ADMIN_URL = os.environ.get("DEEPBOT_TEST_POSTGRES", "")


def admin_url() -> str:
    """The server's URL, or skip (fail in CI) when there is none."""
    if ADMIN_URL:
        return ADMIN_URL
    if os.environ.get("CI"):
        pytest.fail("CI needs a PostgreSQL server: DEEPBOT_TEST_POSTGRES is unset (scripts/postgres.sh)")
    pytest.skip("DEEPBOT_TEST_POSTGRES is unset: no PostgreSQL server to test against "
                "(`eval \"$(bash scripts/postgres.sh)\"` starts one)")


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


class Databases:
    """Creates databases on the test server and drops them all at the end."""

    def __init__(self, admin: str) -> None:
        self.admin = admin
        self.made: list[str] = []

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.admin, autocommit=True) as conn:
            conn.execute(sql.encode())

    def create(self) -> str:
        name = f"deepbot_test_{uuid.uuid4().hex[:16]}"
        self._admin(f"CREATE DATABASE {name}")
        self.made.append(name)
        return with_database(self.admin, name)

    def drop_all(self) -> None:
        for name in self.made:
            self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        self.made.clear()
