"""`deepbot replay FILE.nseql` end to end: a real Chromium launched by the command."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from deepbot.cli import main
from fixtures.server import FixtureServer


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "steps.nseql"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.browser
def test_replay_prints_the_final_page_and_writes_files(
    site: FixtureServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = write(tmp_path, f"# JS-only link\nnavigate {site.url('/lab/js/')}\nclick '#js-d'  # a button\n")
    shot, html = tmp_path / "final.png", tmp_path / "final.html"
    code = main(["replay", program, "--screenshot", str(shot), "--html", str(html), "--timeout", "10"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert f"url: {site.url('/lab/js/target-d')}" in out.out.splitlines()
    assert "title: Target D" in out.out.splitlines()
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert "<h1>Target D</h1>" in html.read_text(encoding="utf-8")


@pytest.mark.browser
def test_failing_step_exits_1_naming_the_line(
    site: FixtureServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # From standard input, to cover FILE = "-".
    monkeypatch.setattr("sys.stdin", io.StringIO(f"navigate {site.url('/lab/form/')}\n\ncheck '#nope'\n"))
    code = main(["replay", "-", "--timeout", "4"])  # a newly launched browser's first page, under load
    out = capsys.readouterr()
    assert code == 1
    assert "line 3: check \"#nope\": no element matches '#nope'" in out.err
    assert f"url: {site.url('/lab/form/')}" in out.out  # where it stopped


def test_syntax_error_exits_1_with_a_caret(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["replay", write(tmp_path, 'navigate http://x.test/\nfill "#q" "open\n')])
    err = capsys.readouterr().err
    assert code == 1
    assert "line 2, column 11: unterminated string" in err
    assert err.rstrip().endswith("^")


def test_unreadable_file_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "missing.nseql")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_timeout_must_be_positive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["replay", write(tmp_path, "back\n"), "--timeout", "0"])
    assert caught.value.code == 2
    assert "positive number of seconds" in capsys.readouterr().err
