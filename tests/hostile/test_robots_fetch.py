"""robots.txt is fetched over http(s) only: a redirect elsewhere leads nowhere, in bounded time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deepbot.crawl.robots import RobotsCache, RobotsReason
from tests.hostile.conftest import Hostile, redirect


@pytest.mark.timeout(30)
@pytest.mark.parametrize("target", ["file:///etc/passwd", "FIFO", "ftp://127.0.0.1/robots.txt",
                                    "data:text/plain,User-agent: *%0ADisallow: /"])
async def test_a_redirect_off_http_is_no_robots_txt(hostile: Hostile, tmp_path: Path, target: str) -> None:
    if target == "FIFO":
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        target = fifo.as_uri()  # reading it would block forever
    hostile.routes["/robots.txt"] = redirect(target)
    decision = await RobotsCache("DeepBot").allowed(hostile.url("/page"))
    # Nothing was read from the target: robots.txt is unavailable, which allows the crawl.
    assert decision.allowed and decision.reason is RobotsReason.UNAVAILABLE
