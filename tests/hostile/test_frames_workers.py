"""What a page runs elsewhere is bounded as the page is: an iframe of another
origin or another site, in the page's renderer or out of process (Chromium's site isolation),
a dedicated worker and a shared one; each streams 400 MB, and the route fails "response too large" long
before it is all there. Before, the out-of-process frame's and the workers' bytes came on
CDP targets of their own, which nothing watched: the 400 MB came whole."""

from __future__ import annotations

import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from deepbot.browser.bounded import TooLarge
from deepbot.browser.pool import BrowserPool, BrowserSettings
from deepbot.crawl.visit import VisitOptions, visit
from deepbot.routes import SessionState
from tests.hostile.conftest import Answer, Hostile, html, served
from tests.hostile.test_bounded import _MB, Sent, _route, streamed

pytestmark = [pytest.mark.browser, pytest.mark.timeout(60)]

# The headless shell DeepBot prefers runs every frame in the page's renderer; full Chromium
# (headed, DEEPBOT_CHROMIUM, or where no shell is installed) isolates sites: a frame of
# another site runs in a process of its own. Asked to, the shell does the same.
_ISOLATED = BrowserSettings(extra_args=("--site-per-process",))
_WORKER = "fetch('/big').then((r) => r.arrayBuffer())"  # a worker's script, or a frame's


def _slow_script(seconds: float) -> Answer:
    """A script answered late: the page's load event waits for it, and the route with it."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(seconds)
        handler.send_response(200)
        handler.send_header("Content-Type", "text/javascript")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return answer


@pytest.fixture
def other() -> Iterator[Hostile]:
    server = Hostile()
    yield server
    server.close()


@pytest.mark.parametrize("kind", ["frame-other-port", "frame-other-site", "worker", "shared-worker"])
async def test_a_frame_or_a_worker_that_streams_400_mb_fails_the_route(
        hostile: Hostile, other: Hostile, kind: str) -> None:
    sent = Sent()
    for server in (hostile, other):
        server.routes["/big"] = streamed("text/plain", 400 * _MB, sent)
    other.routes["/frame"] = html(f"<h1>a frame</h1><script>{_WORKER}</script>")
    hostile.routes["/worker.js"] = served(_WORKER.encode(), "text/javascript")
    hostile.routes["/shared.js"] = served(f"onconnect = () => {_WORKER}".encode(), "text/javascript")
    hostile.routes["/slow.js"] = _slow_script(3)
    shown = {
        # Another service on this host: the same site, in the page's own renderer.
        "frame-other-port": f"<iframe src='{other.url('/frame')}'></iframe>",
        # Another site (localhost is not 127.0.0.1): out of process, a CDP target of its own.
        "frame-other-site": f"<iframe src='http://localhost:{other.port}/frame'></iframe>",
        "worker": "<script>new Worker('/worker.js')</script>",
        # A shared worker belongs to the browser context, not the page: a target of the browser's.
        "shared-worker": "<script>new SharedWorker('/shared.js').port.start()</script>",
    }[kind]
    hostile.routes["/page"] = html(f"<h1>a page</h1>{shown}<p>words</p><script src='/slow.js'></script>")
    options = VisitOptions(max_body_bytes=2 * _MB, max_scrolls=0)
    async with BrowserPool(1, _ISOLATED) as pool, pool.slot() as slot:
        with pytest.raises(TooLarge, match="response too large"):
            await visit(_route(hostile.url("/page")), SessionState(), slot, options)
    # Given up as it came (the browser reads loopback at hundreds of MB/s: a few dozen MB pass).
    assert sent.bytes < 150 * _MB, sent.bytes
