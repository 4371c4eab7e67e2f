"""`deepbot search` and `deepbot export`, end to end through deepbot.cli.main."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from deepbot.cli import main
from deepbot.cli.search import SNIPPET_WIDTH, one_line
from deepbot.routes import Via
from deepbot.store import SqliteDocumentStore
from deepbot.store.base import Hit

from .conftest import make_doc


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "crawl.sqlite"
    with SqliteDocumentStore(path) as store:
        store.upsert(make_doc("/java", "Thinking in Java", "A book about Java [advanced] by Bruce Eckel.",
                              html="<p>A book about Java</p>"))
        store.upsert(make_doc("/results", "Results", "Results: one java book and more.", via=Via.FORM,
                              domain="books", query={"title": "java"}, form_url="https://shop.example/adv",
                              html="<p>Results</p>"))
        store.upsert(make_doc("/other", "Other", "Nothing relevant here."))
    return path


def test_search_prints_ranked_hits(store_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "java", "--store", str(store_path)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "1. Thinking in Java"
    assert lines[1] == "   https://shop.example/java"
    assert "[Java]" in lines[2]  # plain highlighting when not on a terminal
    assert lines[3].startswith("   via link · id ")
    assert "2. Results" in out
    assert "via form query (books): title='java' on https://shop.example/adv" in out
    assert "Other" not in out


def test_search_on_a_terminal_uses_rich_styles(
    store_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert main(["search", "java", "--store", str(store_path)]) == 0
    styled = capsys.readouterr().out
    out = re.sub(r"\x1b\[[0-9;]*m", "", styled)
    assert "1. Thinking in Java" in out
    assert "A book about Java [advanced]" in out  # page text is never read as rich markup
    assert "\x1b[1;33mJava\x1b[0m" in styled  # matches are styled, not bracketed


def test_search_json(store_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "java", "--store", str(store_path), "--json", "--limit", "1"]) == 0
    (hit,) = json.loads(capsys.readouterr().out)
    assert hit["title"] == "Thinking in Java"
    assert hit["via"] == "link"
    assert "[Java]" in hit["marked"]
    assert {"doc_id", "url", "snippet", "highlights", "score", "query"} <= set(hit)


def test_search_no_hits(store_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "cobol", "--store", str(store_path)]) == 0
    assert "No documents match 'cobol'" in capsys.readouterr().out


def test_search_missing_store_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.sqlite"
    assert main(["search", "java", "--store", str(missing)]) == 1
    assert f"deepbot: error: no document store at {missing}" in capsys.readouterr().err
    assert not missing.exists()


def test_search_bad_negation_is_an_error(store_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "NOT java", "--store", str(store_path)]) == 1
    assert "NOT needs a term" in capsys.readouterr().err


def test_export_jsonl_to_stdout(store_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--store", str(store_path)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["title"] for r in rows] == ["Thinking in Java", "Results", "Other"]
    assert "html" not in rows[0]
    assert rows[1]["query"] == {"title": "java"}


def test_export_jsonl_with_html_to_file(
    store_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "docs.jsonl"
    assert main(["export", "--store", str(store_path), "--html", "--output", str(out)]) == 0
    assert "exported 3 documents" in capsys.readouterr().err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows[0]["html"] == "<p>A book about Java</p>"


@pytest.mark.parametrize("name", ["crawl.warc.gz", "crawl.warc"])
def test_export_warc_to_file(store_path: Path, tmp_path: Path, name: str) -> None:
    out = tmp_path / name
    assert main(["export", "--store", str(store_path), "--format", "warc", "-o", str(out)]) == 0
    magic = b"\x1f\x8b" if name.endswith(".gz") else b"WARC/1.1"
    assert out.read_bytes().startswith(magic)
    with out.open("rb") as f:
        records = [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI")) for r in ArchiveIterator(f)]
    assert len(records) == 1 + 2 * 3
    assert ("response", "https://shop.example/results") in records


def test_export_warc_to_stdout(store_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["export", "--store", str(store_path), "--format", "warc"]) == 0
    assert capsysbinary.readouterr().out.startswith(b"WARC/1.1\r\nWARC-Type: warcinfo")


def test_export_missing_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--store", str(tmp_path / "nope.sqlite")]) == 1
    assert "no document store at" in capsys.readouterr().err


def test_a_snippet_is_one_line_whatever_lines_the_page_had(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "lines.sqlite"
    lines = "\n".join(f"   Row {n}:\tcatalogue entry\n\n" for n in range(40))
    with SqliteDocumentStore(path) as store:
        store.upsert(make_doc("/list", "A long list", f"{lines}\n  The Java\n\n   shelf.\n{lines}"))
    assert main(["search", "java", "--store", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "1. A long list" and out[3].startswith("   via link · id ")  # four lines a hit
    snippet = out[2].removeprefix("   ")
    assert "[Java] shelf. Row" in snippet  # line breaks and indentation: one space
    assert "  " not in snippet and "\t" not in snippet
    assert len(snippet) <= SNIPPET_WIDTH + 2  # the marks around the match


def test_a_long_snippet_is_cut_around_its_first_match() -> None:
    text = "word " * 100 + "Java\n\nagain " + "word " * 100
    start = text.index("Java")
    hit = Hit(doc_id="d", title="t", url="u", via=Via.LINK, snippet=text, highlights=((start, start + 4),),
              score=1.0)
    line = one_line(hit, width=60)
    assert len(line.snippet) == 62 and line.snippet[0] == line.snippet[-1] == "…"
    ((begin, end),) = line.highlights
    assert line.snippet[begin:end] == "Java" and 15 < begin < 30  # a third of the width before it
    assert line.marked().count("[Java] again") == 1
