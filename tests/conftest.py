"""Shared test fixtures: the fixture web on 127.0.0.1 and one real Chromium."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, async_playwright

from deepbot.browser import launch_chromium
from fixtures.server import FixtureServer


@pytest.fixture(scope="session")
def site() -> Iterator[FixtureServer]:
    """The fixture web, started once per test session on a random free port."""
    with FixtureServer() as server:
        yield server


@pytest_asyncio.fixture(scope="session")
async def browser() -> AsyncIterator[Browser]:
    """One headless Chromium shared by the browser tests of a worker."""
    async with async_playwright() as pw:
        chromium = await launch_chromium(pw)
        yield chromium
        await chromium.close()
