"""`deepbot export` on the store of a real crawl (HTML, script-reached pages, a PDF, plain
text, JSON): warcio reads the WARC back with every record intact, and the JSONL holds
every document with its navigation sequence."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from warcio.archiveiterator import ArchiveIterator

import deepbot
from deepbot.cli import main
from deepbot.routes import Document, Via
from fixtures.server import FixtureServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SLICE = (r"/lab/$", r"/lab/js/", r"/lab/(doc\.pdf|text\.txt|data\.json)$")


@dataclass
class Crawl:
    store: Path
    documents: list[Document]


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawl]:
    store = tmp_path_factory.mktemp("export") / "lab.sqlite"
    with FixtureServer() as site:
        documents = list(deepbot.crawl([site.url("/lab/")], store=store, include=SLICE, depth=2, workers=2,
                                       settle_timeout=2.0))
    yield Crawl(store, documents)


@dataclass
class Record:
    type: str
    uri: str
    headers: Any  # warcio StatusAndHeaders of the WARC record
    http_status: str | None
    payload: bytes


def read_warc(path: Path) -> list[Record]:
    records = []
    with path.open("rb") as stream:
        # check_digests="raise": a block or payload digest that does not match fails the read.
        for record in ArchiveIterator(stream, check_digests="raise"):
            records.append(Record(record.rec_type, record.rec_headers.get_header("WARC-Target-URI"),
                                  record.rec_headers,
                                  record.http_headers.get_statuscode() if record.http_headers else None,
                                  record.content_stream().read()))
    return records


def test_the_crawl_covers_every_kind_of_record(crawl: Crawl) -> None:
    types = {d.content_type.split(";")[0] for d in crawl.documents}
    assert {"text/html", "application/pdf", "text/plain", "application/json"} <= types
    assert any(d.via is Via.SCRIPT for d in crawl.documents)


@pytest.mark.parametrize("name", ["crawl.warc.gz", "crawl.warc"])
def test_warc_export_reads_back_intact(crawl: Crawl, tmp_path: Path, name: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / name
    assert main(["export", "--store", str(crawl.store), "--format", "warc", "--output", str(path)]) == 0
    assert f"exported {len(crawl.documents)} documents" in capsys.readouterr().err
    records = read_warc(path)
    assert records[0].type == "warcinfo"
    metadata = {json.loads(r.payload)["id"]: r for r in records if r.type == "metadata"}
    by_record_id = {r.headers.get_header("WARC-Record-ID"): r for r in records}
    assert set(metadata) == {d.id for d in crawl.documents}  # one per document, no other

    pages = 0
    for doc in crawl.documents:
        meta = metadata[doc.id]
        fields = json.loads(meta.payload)
        assert meta.uri == doc.final_url
        assert fields["nseql"] == doc.nseql
        assert (fields["via"], fields["route_key"]) == (doc.via.value, doc.route_key)
        page = by_record_id[meta.headers.get_header("WARC-Concurrent-To")]
        pages += 1
        assert page.uri == doc.final_url
        if doc.content_type.startswith("application/pdf"):
            # The PDF's bytes are not stored: its extracted text is, as a conversion record.
            assert page.type == "conversion" and page.payload == doc.text.encode()
        else:
            assert page.type == "response" and page.http_status == str(doc.status)
            assert page.payload == (doc.html or doc.text).encode()  # byte for byte
    assert len(records) == 1 + len(crawl.documents) + pages


def test_warc_passes_warcio_check(crawl: Crawl, tmp_path: Path) -> None:
    from warcio.checker import Checker

    path = tmp_path / "crawl.warc.gz"
    assert main(["export", "--store", str(crawl.store), "--format", "warc", "-o", str(path)]) == 0
    checker = Checker(argparse.Namespace(inputs=[str(path)], verbose=False))
    checker.process_all()
    assert checker.exit_value == 0


def test_jsonl_export_holds_every_document_with_its_program(crawl: Crawl, tmp_path: Path) -> None:
    path = tmp_path / "crawl.jsonl"
    assert main(["export", "--store", str(crawl.store), "--output", str(path), "--html"]) == 0
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [row["id"] for row in rows] == [d.id for d in crawl.documents]  # in the order stored
    for row, doc in zip(rows, crawl.documents, strict=True):
        assert row["nseql"] == doc.nseql and row["nseql"].startswith("navigate ")
        assert Document.model_validate({k: v for k, v in row.items() if k != "id"}) == doc
