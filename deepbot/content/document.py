"""A Document from the route that was run, what was fetched and what the handler kept."""

from __future__ import annotations

from deepbot.content.handlers import Content, Fetched
from deepbot.routes import Document, DocumentMeta, Route


def build_document(route: Route, fetched: Fetched, content: Content) -> Document:
    return Document(
        route_key=route.key,
        url=route.url,
        final_url=fetched.final_url or fetched.url or route.url,
        title=content.title,
        status=fetched.status,
        content_type=content.content_type,
        text=content.text,
        html=content.html,
        nseql=route.program,
        via=route.via,
        depth=route.depth,
        seed=route.seed,
        domain=route.domain,
        query=route.query,
        form_url=route.form_url,
        size=content.size,
        meta=DocumentMeta(handler=content.handler, notes=content.meta),
    )
