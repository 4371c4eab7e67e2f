"""The demo site ``deepbot demo`` crawls: a bookshop and a music shop behind search forms.

Both shops are built from one catalogue (``catalog``) and one kit of page variants
(``shopkit``): search forms of many shapes, pagination, detail pages. Their domain
definitions ship beside them (``domains/books.yaml``, ``domains/music.yaml``).
The test fixtures of a checkout (``fixtures/``) serve these shops too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepbot.demo import bookshop, musicshop
from deepbot.demo.server import App, Request, Response, SiteServer

DOMAINS = Path(__file__).parent / "domains"
SHOPS = {"books": "Bookshop", "music": "Music shop"}


def mount(app: App, options: dict[str, Any]) -> None:
    """The two shops, and a front page that links to them."""
    bookshop.mount(app, options)
    musicshop.mount(app, options)

    @app.route(r"/")
    def index(request: Request) -> Response:
        links = "".join(f'<li><a href="/{path}/">{name}</a></li>' for path, name in SHOPS.items())
        return Response("<!doctype html><html><head><title>DeepBot demo</title></head><body>"
                        f"<h1>DeepBot demo</h1><ul>{links}</ul></body></html>")


def demo_server(host: str = "127.0.0.1", port: int = 0) -> SiteServer:
    """The demo site, not yet started (``with demo_server(port=8765) as site: ...``)."""
    return SiteServer(mount, host, port)


def domain_file(shop: str) -> Path:
    """The domain definition of a shop: ``books`` or ``music``."""
    return DOMAINS / f"{shop}.yaml"
