"""A fresh browser context and page per NSEQL browser test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio
from playwright.async_api import Browser, Page


@pytest_asyncio.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    context = await browser.new_context()
    try:
        yield await context.new_page()
    finally:
        await context.close()
