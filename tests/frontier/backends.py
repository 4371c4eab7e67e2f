"""Route store backends for the conformance suite, and a route factory.

A backend knows how to open a store on its storage (again, to test persistence)
and how to make a fresh, empty one: a SQLite file, or a PostgreSQL database
(skipped, saying why, where DEEPBOT_TEST_POSTGRES names no server).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, Protocol

from postgres.database import Databases

from deepbot.frontier import RouteStore, SqliteRouteStore
from deepbot.frontier.postgres import PostgresRouteStore
from deepbot.routes import Route, Via, route_key

BACKENDS = ["sqlite", "postgres"]


class Backend(Protocol):
    def open(self, **options: Any) -> RouteStore: ...
    def fresh(self, **options: Any) -> RouteStore: ...
    def close_all(self) -> None: ...


class SqliteBackend:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / "frontier.sqlite"
        self._opened: list[SqliteRouteStore] = []
        self._fresh = itertools.count()

    def open(self, **options: Any) -> RouteStore:
        """Another store on the same storage (another connection)."""
        store = SqliteRouteStore(self.path, **options)
        self._opened.append(store)
        return store

    def fresh(self, **options: Any) -> RouteStore:
        """A store on new, empty storage."""
        store = SqliteRouteStore(self.directory / f"fresh-{next(self._fresh)}.sqlite", **options)
        self._opened.append(store)
        return store

    def close_all(self) -> None:
        for store in self._opened:
            store.close()


class PostgresBackend:
    def __init__(self, databases: Databases) -> None:
        self.databases = databases
        self.url = databases.create()
        self._opened: list[PostgresRouteStore] = []

    def open(self, **options: Any) -> RouteStore:
        """Another store on the same database (another connection pool)."""
        store = PostgresRouteStore(self.url, **options)
        self._opened.append(store)
        return store

    def fresh(self, **options: Any) -> RouteStore:
        """A store on a new, empty database."""
        store = PostgresRouteStore(self.databases.create(), **options)
        self._opened.append(store)
        return store

    def close_all(self) -> None:
        for store in self._opened:
            store.close()


def link(n: int | str, priority: float = 0.0) -> Route:
    """A plain link route to /page/<n>."""
    url = f"http://site.test/page/{n}"
    return Route(
        key=route_key(Via.LINK, url),
        url=url,
        via=Via.LINK,
        depth=1,
        steps=f'navigate "{url}"\n',
        program=f'navigate "http://site.test/"\nnavigate "{url}"\n',
        priority=priority,
    )
