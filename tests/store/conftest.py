"""Document-store fixtures: every backend runs the same conformance tests."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from postgres.database import Databases, admin_url

from deepbot.routes import Document, Via, route_key
from deepbot.store import DocumentStore, SqliteDocumentStore
from deepbot.store.postgres import PostgresDocumentStore

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[DocumentStore]:
    """Each implementation of the DocumentStore protocol, empty (PostgreSQL: a new database)."""
    backend: DocumentStore
    databases: Databases | None = None
    if request.param == "postgres":
        databases = Databases(admin_url())
        backend = PostgresDocumentStore(databases.create())
    else:
        backend = SqliteDocumentStore(tmp_path / "store.sqlite")
    yield backend
    backend.close()
    if databases is not None:
        databases.drop_all()


def make_doc(
    path: str,
    title: str = "",
    text: str = "",
    *,
    via: Via = Via.LINK,
    html: str = "",
    **fields: object,
) -> Document:
    url = f"https://shop.example{path}"
    key = route_key(via, url, parent="parent", action=path)
    data: dict[str, object] = {
        "route_key": key, "url": url, "final_url": url, "title": title, "text": text, "html": html,
        "status": 200, "content_type": "text/html" if html else "text/plain",
        "nseql": f'navigate "https://shop.example/"\nclick css=a[href="{path}"]', "via": via,
        "fetched_at": datetime(2024, 5, 1, 12, 30, tzinfo=UTC), "size": len(html or text),
    }
    data.update(fields)
    return Document.model_validate(data)
