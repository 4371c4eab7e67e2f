"""Documents out to other tools: JSON Lines, and WARC for the web-archiving ecosystem.

WARC layout, per document (after one ``warcinfo`` record for the file):

- the page itself: a ``response`` record whose HTTP head is rebuilt from the stored
  status and content type, with the rendered DOM (HTML) or the stored text (plain
  text, JSON, XML) as payload, re-encoded as UTF-8 and declared so; for a PDF, whose
  bytes are not stored, a ``conversion`` record holding the extracted text; nothing
  for a metadata-only document;
- a ``metadata`` record (``application/json``) with the NSEQL program, how the page
  was reached (via, domain, form query) and the document id, concurrent to the first.

``WARC-Target-URI`` is the final URL; ``WARC-Date`` the fetch time.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from http import HTTPStatus
from typing import IO, Any

from deepbot.routes import Document
from deepbot.store.base import Change, DocumentStore, Visit

_TEXTUAL = ("text/", "application/json", "application/xml", "application/xhtml+xml")


def document_record(doc: Document, *, html: bool = False) -> dict[str, Any]:
    """The JSON object for one document: ``id`` first, then every Document field."""
    fields = doc.model_dump(mode="json", exclude=None if html else {"html"})
    return {"id": doc.id, **fields}


def write_jsonl(docs: Iterable[Document], out: IO[str], *, html: bool = False) -> int:
    """One JSON object per line; returns the number of documents written."""
    n = 0
    for doc in docs:
        out.write(json.dumps(document_record(doc, html=html), ensure_ascii=False) + "\n")
        n += 1
    return n


def _warc_date(doc: Document) -> str:
    return doc.fetched_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _is_textual(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media.startswith(_TEXTUAL) or media.endswith(("+json", "+xml"))


def _page(doc: Document) -> tuple[str, bytes, str] | None:
    """(record type, payload, media type) of the page's own record, if it has one."""
    if doc.html:
        return "response", doc.html.encode(), "text/html"
    if doc.text and _is_textual(doc.content_type):
        return "response", doc.text.encode(), doc.content_type.split(";", 1)[0].strip()
    if doc.text:
        return "conversion", doc.text.encode(), "text/plain"
    return None


def _metadata(doc: Document) -> bytes:
    """What a replayer needs beyond the page: the program and how the page was reached."""
    record = document_record(doc)
    for bulky in ("text", "final_url", "fetched_at"):  # in the page record or the WARC headers
        del record[bulky]
    return json.dumps(record, ensure_ascii=False).encode()


def _status_line(status: int | None) -> str:
    code = status or 200  # unknown status (a script-rendered page): it did render
    try:
        return f"{code} {HTTPStatus(code).phrase}"
    except ValueError:
        return f"{code} Unknown"


def write_warc(
    docs: Iterable[Document],
    out: IO[bytes],
    *,
    gzip: bool = True,
    filename: str = "",
    info: Mapping[str, str] | None = None,
) -> int:
    """Write a WARC 1.1 file (gzip per record unless ``gzip=False``); returns documents written."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    writer = WARCWriter(out, gzip=gzip, warc_version="1.1")
    fields = {"software": "DeepBot", "format": "WARC File Format 1.1", **(info or {})}
    writer.write_record(writer.create_warcinfo_record(filename, fields))
    n = 0
    for doc in docs:
        date = _warc_date(doc)
        page_id: str | None = None
        page = _page(doc)
        if page is not None:
            kind, payload, media = page
            content_type = f"{media}; charset=utf-8"
            headers = {"WARC-Date": date}
            if doc.meta.get("truncated") == "true":
                headers["WARC-Truncated"] = "length"
            http = None
            if kind == "response":
                http = StatusAndHeaders(
                    _status_line(doc.status),
                    [("Content-Type", content_type), ("Content-Length", str(len(payload)))],
                    protocol="HTTP/1.1",
                )
            record = writer.create_warc_record(
                doc.final_url, kind, payload=io.BytesIO(payload), length=len(payload),
                warc_content_type="" if http else content_type, http_headers=http,
                warc_headers_dict=headers,
            )  # fmt: skip
            writer.write_record(record)
            page_id = record.rec_headers.get_header("WARC-Record-ID")
        meta = _metadata(doc)
        meta_headers = {"WARC-Date": date}
        if page_id:
            meta_headers["WARC-Concurrent-To"] = page_id
        writer.write_record(
            writer.create_warc_record(
                doc.final_url, "metadata", payload=io.BytesIO(meta), length=len(meta),
                warc_content_type="application/json", warc_headers_dict=meta_headers,
            )
        )
        n += 1
    return n


def changes_since(store: DocumentStore, since: datetime) -> Iterator[tuple[Change, Document]]:
    """The documents added or changed at or after ``since`` (as they are now), each once,
    with its change then (NEW wins: a page added and edited since is new to the reader)."""
    found: dict[str, Change] = {}
    for visit in store.visits(since=since):
        if visit.change in (Change.NEW, Change.CHANGED) and found.get(visit.doc_id) is not Change.NEW:
            found[visit.doc_id] = visit.change
        elif visit.change is Change.GONE:
            found.pop(visit.doc_id, None)
    for doc_id, change in found.items():
        doc = store.get(doc_id)
        if doc is not None:
            yield change, doc


def gone_since(store: DocumentStore, since: datetime) -> list[Visit]:
    """The documents that went at or after ``since`` and have not come back: their last visit."""
    last: dict[str, Visit] = {}
    for visit in store.visits(since=since):
        last[visit.doc_id] = visit
    return [v for v in last.values() if v.change is Change.GONE and store.get(v.doc_id) is None]


def write_changes_jsonl(store: DocumentStore, since: datetime, out: IO[str], *, html: bool = False,
                        deleted: bool = False) -> int:
    """``write_jsonl`` of what changed since ``since``: each document with a ``change`` of
    ``new`` or ``changed``; with ``deleted``, then one ``{"id", "url", "change": "gone",
    "at"}`` line for each document gone since. Returns the lines written."""
    n = 0
    for change, doc in changes_since(store, since):
        record = {**document_record(doc, html=html), "change": change.value}
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        n += 1
    for visit in gone_since(store, since) if deleted else ():
        out.write(json.dumps({"id": visit.doc_id, "url": visit.url, "change": visit.change.value,
                              "at": visit.at.isoformat()}) + "\n")
        n += 1
    return n
