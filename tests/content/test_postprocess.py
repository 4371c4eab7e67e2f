"""The post-processing chain, the main-text processor and building the Document."""

from __future__ import annotations

from deepbot.content import (
    ACCEPT,
    Decision,
    Fetched,
    MainTextProcessor,
    PostProcessChain,
    ProcessContext,
    build_document,
    default_registry,
)
from deepbot.routes import Route, Via, route_key

URL = "https://books.example/search?q=java"

HTML = """<html><head><title>Results</title></head><body>
<nav><a href="/">Home</a><a href="/cart">Cart</a></nav>
<div id="results"><p>Thinking in Java is a book about programming. It is long.</p>
<p>Effective Java is another book.</p></div>
<footer>Copyright</footer></body></html>"""


def route() -> Route:
    return Route(
        key=route_key(Via.FORM, URL, parent="p", action="submit"), url=URL, via=Via.FORM, depth=2,
        seed="https://books.example/", steps="submit", program=f'navigate "{URL}"',
        domain="books", query={"title": "java"}, form_url="https://books.example/adv",
    )


def context(relevance: Decision = ACCEPT) -> ProcessContext:
    r = route()
    fetched = Fetched(
        url=URL, final_url=URL + "&page=1", status=200, content_type="text/html", html=HTML,
        title="Results", visible_text="Home Cart\nThinking in Java ...\nCopyright",
    )
    content = default_registry().handle(fetched)
    return ProcessContext(r, fetched, content, build_document(r, fetched, content), relevance)


def test_build_document_carries_route_and_content() -> None:
    ctx = context()
    d = ctx.document
    assert d.route_key == ctx.route.key and d.id == ctx.document.id
    assert (d.url, d.final_url, d.status) == (URL, URL + "&page=1", 200)
    assert (d.via, d.domain, d.query) == (Via.FORM, "books", {"title": "java"})
    assert d.form_url == "https://books.example/adv"
    assert d.depth == 2
    assert d.nseql == ctx.route.program
    assert d.html == HTML and d.title == "Results" and d.content_type == "text/html"
    assert d.meta["handler"] == "html"


async def test_main_text_processor_replaces_text_and_writes_summary() -> None:
    ctx = await PostProcessChain([MainTextProcessor()]).run(context())
    assert ctx.document.text == (
        "Thinking in Java is a book about programming. It is long.\nEffective Java is another book."
    )
    assert ctx.document.summary == (
        "Thinking in Java is a book about programming. It is long. Effective Java is another book."
    )


async def test_main_text_keeps_full_text_when_nothing_is_found() -> None:
    ctx = context()
    ctx = ctx.widened(document=ctx.document.model_copy(update={"html": "<nav>only nav</nav>",
                                                                "text": "Visible text."}))
    ctx = await MainTextProcessor().process(ctx)
    assert (ctx.document.text, ctx.document.summary) == ("Visible text.", "Visible text.")


class _Recorder:
    name = "recorder"

    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def process(self, ctx: ProcessContext) -> None:
        self.log.append(f"{self.name}:{ctx.relevance.reason}:{bool(ctx.document.summary)}")
        ctx.routes.append(ctx.route)


async def test_chain_runs_in_order_even_for_rejected_documents() -> None:
    log: list[str] = []
    chain = PostProcessChain([_Recorder(log)]).then(MainTextProcessor(), _Recorder(log))
    ctx = await chain.run(context(Decision(False, "query-mismatch")))
    # the first recorder ran before the summary existed, the second after
    assert log == ["recorder:query-mismatch:False", "recorder:query-mismatch:True"]
    assert len(ctx.routes) == 2
