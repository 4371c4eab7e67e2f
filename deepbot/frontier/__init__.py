"""The Route Manager (frontier): one protocol, an embedded SQLite implementation.

Use ``SqliteRouteStore(path)`` for one machine; every backend passes the same
conformance suite (``tests/frontier/``).
"""

from deepbot.frontier.base import Lease, RouteRecord, RouteState, RouteStore
from deepbot.frontier.sqlite import SqliteRouteStore

__all__ = ["Lease", "RouteRecord", "RouteState", "RouteStore", "SqliteRouteStore"]
