"""Opening the route store by what --store names: a path is a SQLite file, a postgresql:// URL
a database (``deepbot.store.open`` opens the document store at the same place)."""

from __future__ import annotations

from typing import Any

from deepbot.frontier.postgres import PostgresRouteStore
from deepbot.frontier.sqlite import SqliteRouteStore
from deepbot.store.open import StoreTarget, target_url

__all__ = ["open_route_store"]


def open_route_store(target: StoreTarget, **options: Any) -> SqliteRouteStore | PostgresRouteStore:
    """The route store at ``target``; ``options`` as the implementations take them
    (max_attempts, recover, clock, process)."""
    url = target_url(target)
    if url is not None:
        return PostgresRouteStore(url, **options)
    return SqliteRouteStore(target, **options)
