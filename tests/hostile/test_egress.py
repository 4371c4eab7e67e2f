"""--block-private: a page cannot make the browser reach loopback, private or metadata
addresses; the seed's own origin stays reachable."""

from __future__ import annotations

import pytest

from deepbot.browser import launch_chromium
from deepbot.browser.egress import BLOCKED_HEADER, EgressProxy, refusal
from tests.hostile.conftest import Hostile


@pytest.mark.parametrize(("address", "kind"), [
    ("127.0.0.1", "loopback"), ("127.8.9.1", "loopback"), ("::1", "loopback"),
    ("10.1.2.3", "private"), ("172.16.0.9", "private"), ("192.168.1.1", "private"), ("fd00::5", "private"),
    ("169.254.169.254", "link-local"), ("fe80::1%eth0", "link-local"), ("100.64.3.4", "CGNAT"),
    ("224.0.0.1", "multicast"), ("ff02::1", "multicast"), ("0.0.0.0", "unspecified"),
    ("::ffff:127.0.0.1", "loopback"), ("::ffff:169.254.169.254", "link-local"), ("240.0.0.1", "private"),
])
def test_every_non_public_address_is_refused_with_its_kind(address: str, kind: str) -> None:
    why = refusal(address)
    assert why is not None and kind in why


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert refusal(address) is None


@pytest.mark.browser
@pytest.mark.timeout(90)
async def test_a_page_cannot_reach_another_local_service_through_the_browser() -> None:
    from playwright.async_api import async_playwright

    seed, internal = Hostile(), Hostile()
    hits: list[str] = []

    def secret(handler: object) -> None:
        hits.append(handler.path)  # type: ignore[attr-defined]
        body = b"the internal secret"
        handler.send_response(200)  # type: ignore[attr-defined]
        handler.send_header("Content-Length", str(len(body)))  # type: ignore[attr-defined]
        handler.end_headers()  # type: ignore[attr-defined]
        handler.wfile.write(body)  # type: ignore[attr-defined]

    for path in ("/secret", "/img.png", "/fetched", "/frame", "/redirected"):
        internal.routes[path] = secret
    other = internal.url("")
    page_html = (f'<html><body><h1>seed</h1><img src="{other}/img.png"><iframe src="{other}/frame"></iframe>'
                 f'<script>fetch("{other}/fetched").catch(() => 0)</script>'
                 f'<a href="{other}/secret">go</a></body></html>').encode()

    def seed_page(handler: object) -> None:
        handler.send_response(200)  # type: ignore[attr-defined]
        handler.send_header("Content-Type", "text/html")  # type: ignore[attr-defined]
        handler.send_header("Content-Length", str(len(page_html)))  # type: ignore[attr-defined]
        handler.end_headers()  # type: ignore[attr-defined]
        handler.wfile.write(page_html)  # type: ignore[attr-defined]

    def to_internal(handler: object) -> None:
        handler.send_response(302)  # type: ignore[attr-defined]
        handler.send_header("Location", f"{other}/redirected")  # type: ignore[attr-defined]
        handler.send_header("Content-Length", "0")  # type: ignore[attr-defined]
        handler.end_headers()  # type: ignore[attr-defined]

    seed.routes["/"] = seed_page
    seed.routes["/hop"] = to_internal
    try:
        allowed = (("127.0.0.1", seed.port),)
        async with EgressProxy(allowed_origins=allowed) as proxy, async_playwright() as pw:
            browser = await launch_chromium(pw, extra_args=proxy.chromium_args())
            try:
                page = await browser.new_page()
                response = await page.goto(seed.url("/"), wait_until="load")
                assert response is not None and response.status == 200
                assert await page.inner_text("h1") == "seed"  # the seed's own origin is reachable
                await page.wait_for_timeout(500)
                hop = await page.goto(seed.url("/hop"))  # a redirect into the internal service
                assert hop is not None and hop.status == 403
                assert hop.headers.get(BLOCKED_HEADER.lower()) == "blocked"
                direct = await page.goto(f"http://localhost:{internal.port}/secret")  # by another name too
                assert direct is not None and direct.status == 403
            finally:
                await browser.close()
        assert hits == []  # not one request reached the internal service
        assert proxy.blocked_count >= 4 and all("loopback" in b.reason for b in proxy.blocked)
    finally:
        seed.close()
        internal.close()
