from __future__ import annotations

import pytest
from playwright.async_api import Browser

from deepbot.browser import find_chromium
from deepbot.cli import main
from deepbot.errors import BrowserNotFoundError
from fixtures.server import FixtureServer


def test_find_chromium_respects_env(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("DEEPBOT_CHROMIUM", str(tmp_path / "missing"))
    with pytest.raises(BrowserNotFoundError, match="install-chromium"):
        find_chromium()


def test_cli_without_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "deepbot" in capsys.readouterr().out


@pytest.mark.browser
async def test_chromium_renders_fixture_home(browser: Browser, site: FixtureServer) -> None:
    page = await browser.new_page()
    await page.goto(site.url("/"))
    assert await page.title() == "DeepBot fixture web"
    await page.close()
