"""JSONL and WARC export; the WARC is read back with warcio, record by record."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from deepbot.routes import Document, Via
from deepbot.store import document_record, write_jsonl, write_warc

from .conftest import make_doc


def docs() -> list[Document]:
    return [
        make_doc("/a", "Page A", "Text A", html="<html><body><p>Caf\u00e9 \u2014 A</p></body></html>",
                 summary="Text A"),
        make_doc("/search", "Results", "Java", via=Via.FORM, html="<p>Java</p>", status=None,
                 domain="books", query={"title": "java"}, form_url="https://shop.example/adv"),
        make_doc("/notes.txt", "", "plain text \u00e9", content_type="text/plain", status=404,
                 meta={"truncated": "true"}),
        make_doc("/paper.pdf", "Paper", "pdf text", content_type="application/pdf"),
        make_doc("/logo.png", "", "", content_type="image/png", size=1234, meta={"sha256": "ab"}),
    ]


def test_jsonl_has_one_object_per_document_with_every_field() -> None:
    out = io.StringIO()
    assert write_jsonl(docs(), out) == 5
    lines = out.getvalue().splitlines()
    assert len(lines) == 5
    first = json.loads(lines[0])
    assert next(iter(first)) == "id"
    assert set(first) == {"id", *Document.model_fields} - {"html"}
    assert first["nseql"].startswith('navigate "https://shop.example/"')
    assert first["fetched_at"] == "2024-05-01T12:30:00Z"
    form = json.loads(lines[1])
    assert (form["via"], form["query"], form["form_url"]) == ("form", {"title": "java"}, "https://shop.example/adv")
    assert Document.model_validate({k: v for k, v in form.items() if k != "id"}) == docs()[1].model_copy(
        update={"html": ""}
    )


def test_jsonl_html_by_flag() -> None:
    assert "html" not in document_record(docs()[0])
    assert document_record(docs()[0], html=True)["html"].startswith("<html>")


@pytest.mark.parametrize("gzip", [True, False])
def test_warc_reads_back_intact(gzip: bool) -> None:
    buf = io.BytesIO()
    assert write_warc(docs(), buf, gzip=gzip) == 5
    buf.seek(0)
    records = []
    for record in ArchiveIterator(buf, check_digests=True):
        records.append(
            (
                record.rec_type,
                record.rec_headers.get_header("WARC-Target-URI"),
                record.http_headers.statusline if record.http_headers else None,
                record.http_headers.get_header("Content-Type") if record.http_headers else None,
                record.rec_headers.get_header("Content-Type"),
                record.rec_headers,
                record.content_stream().read(),
            )
        )
    assert [r[0] for r in records] == [
        "warcinfo",
        "response", "metadata",
        "response", "metadata",
        "response", "metadata",
        "conversion", "metadata",
        "metadata",  # metadata-only document: nothing to replay but its metadata
    ]
    d = docs()
    by_type = [r for r in records if r[0] != "warcinfo"]
    assert by_type[0][1:4] == (d[0].final_url, "200 OK", "text/html; charset=utf-8")
    assert by_type[0][6] == d[0].html.encode()  # payload bytes equal
    assert by_type[2][2] == "200 OK"  # unknown status: it rendered
    assert by_type[4][2:4] == ("404 Not Found", "text/plain; charset=utf-8")
    assert by_type[4][6] == "plain text \u00e9".encode()
    assert by_type[4][5].get_header("WARC-Truncated") == "length"
    assert by_type[6][4] == "text/plain; charset=utf-8" and by_type[6][6] == b"pdf text"
    # metadata: the program and how the page was reached, concurrent to the page record
    meta = json.loads(by_type[3][6])
    assert by_type[3][4] == "application/json"
    assert (meta["nseql"], meta["via"], meta["query"], meta["id"]) == (d[1].nseql, "form", {"title": "java"},
                                                                           d[1].id)
    assert by_type[3][5].get_header("WARC-Concurrent-To") == by_type[2][5].get_header("WARC-Record-ID")
    assert by_type[8][5].get_header("WARC-Concurrent-To") is None
    assert all(r[5].get_header("WARC-Date") == "2024-05-01T12:30:00.000000Z" for r in by_type)


def test_warc_file_is_accepted_by_warcio_checker(tmp_path: Path) -> None:
    from warcio.checker import Checker

    path = tmp_path / "crawl.warc.gz"
    with path.open("wb") as out:
        write_warc(docs(), out, filename=path.name)

    checker = Checker(argparse.Namespace(inputs=[str(path)], verbose=False))
    checker.process_all()
    assert checker.exit_value == 0
