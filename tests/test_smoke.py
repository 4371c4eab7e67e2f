from __future__ import annotations

import pytest
from playwright.async_api import Browser

from deepbot.browser import find_chromium, launch
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


def test_a_path_that_cannot_be_written_is_an_error_not_a_traceback(
        tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from deepbot.store import SqliteDocumentStore

    SqliteDocumentStore(tmp_path / "s.sqlite").close()
    out = tmp_path / "missing" / "docs.jsonl"
    assert main(["export", "--store", str(tmp_path / "s.sqlite"), "--output", str(out)]) == 1
    assert capsys.readouterr().err == f"deepbot: error: {out}: No such file or directory\n"
    assert main(["export", "--store", str(tmp_path / "s.sqlite"), "--output", str(tmp_path)]) == 1
    assert capsys.readouterr().err == f"deepbot: error: {tmp_path}: Is a directory\n"


@pytest.mark.browser
async def test_chromium_renders_fixture_home(browser: Browser, site: FixtureServer) -> None:
    page = await browser.new_page()
    await page.goto(site.url("/"))
    assert await page.title() == "DeepBot fixture web"
    await page.close()


def test_headless_runs_prefer_the_headless_shell(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    shell, full = tmp_path / "chromium-headless-shell", tmp_path / "chromium"
    for exe in (shell, full):
        exe.write_text("")
    monkeypatch.delenv("DEEPBOT_CHROMIUM", raising=False)
    monkeypatch.setattr(launch, "SYSTEM_HEADLESS_SHELL", (str(shell),))
    monkeypatch.setattr(launch, "SYSTEM_CHROMIUM", (str(full),))
    assert find_chromium() == str(shell)
    assert find_chromium(headless=False) == str(full)  # a window a person sees: the shell has none
    shell.unlink()
    assert find_chromium() == str(full)  # no shell installed: full Chromium, headless
