"""Main text, visible text, title and summary out of HTML."""

from __future__ import annotations

from deepbot.content.extract import html_title, main_text, page_text, summarize

ARTICLE = """<!DOCTYPE html>
<html><head><title>Deep web  crawling</title><style>p { color: red }</style></head>
<body>
  <header><a href="/">Home</a> <a href="/about">About</a><h2>Example Site</h2></header>
  <nav><ul><li><a href="/a">Books</a></li><li><a href="/b">Music</a></li></ul></nav>
  <div class="has-sidebar" id="content">
    <h1>Deep web crawling</h1>
    <div class="article-body">
      <p>Deep web crawlers fill in query forms to reach pages that no link points to.</p>
      <p>They must pair every form field with its label before they can fill it in.</p>
      <p>DeepBot does this with visual distances, like a person reading the form.</p>
      <p>Results pages are stored with the navigation sequence that reaches them.</p>
    </div>
    <ul class="share"><li><a href="/t">Tweet</a></li><li><a href="/f">Share</a></li></ul>
  </div>
  <aside><h3>Related</h3><p>Other articles you may like, with plenty of words in them here.</p></aside>
  <div class="sidebar"><p>Advertisement text that goes on and on about unrelated products.</p></div>
  <form action="/search"><label>Search <input name="q"></label><button>Go</button></form>
  <footer><p>Copyright 2024 Example Site. All rights reserved.</p></footer>
  <script>var tracking = "do not index me";</script>
  <div style="display: none">Hidden promo text</div>
</body></html>"""


def test_title() -> None:
    assert html_title(ARTICLE) == "Deep web crawling"
    assert html_title("<p>no title</p>") == ""


def test_page_text_keeps_visible_blocks_and_drops_scripts_and_hidden() -> None:
    text = page_text(ARTICLE)
    assert "Home About" in text  # inline links on one line
    assert "Books\nMusic" in text  # one line per block
    assert "Copyright 2024" in text
    assert "tracking" not in text and "color: red" not in text
    assert "Hidden promo" not in text
    assert "Deep web  crawling" not in text  # the <title> is not body text


def test_main_text_drops_boilerplate_and_keeps_the_article() -> None:
    text = main_text(ARTICLE)
    assert text.splitlines() == [
        "Deep web crawlers fill in query forms to reach pages that no link points to.",
        "They must pair every form field with its label before they can fill it in.",
        "DeepBot does this with visual distances, like a person reading the form.",
        "Results pages are stored with the navigation sequence that reaches them.",
    ]


def test_main_element_wins_even_when_not_dominant() -> None:
    html = """<body><div><p>""" + "Unmarked sidebar words. " * 30 + """</p></div>
      <main><p>The real content is here.</p><p>And a second paragraph of it.</p></main></body>"""
    assert main_text(html) == "The real content is here.\nAnd a second paragraph of it."


def test_two_equal_columns_are_both_kept() -> None:
    left = "<div><p>" + "Left column sentence. " * 10 + "</p><p>More left.</p></div>"
    right = "<div><p>" + "Right column sentence. " * 10 + "</p><p>More right.</p></div>"
    text = main_text(f"<body>{left}{right}</body>")
    assert "Left column" in text and "Right column" in text


def test_results_list_of_links_is_main_text() -> None:
    rows = "".join(
        f'<li><a href="/b/{i}">Thinking in Java, volume {i}</a> by Bruce Eckel, ${i}9.99</li>'
        for i in range(10)
    )
    html = f"""<body><div class="menu"><a href="/">Home</a> | <a href="/x">Cart</a></div>
      <div id="results"><h2>10 results</h2><ol>{rows}</ol></div></body>"""
    text = main_text(html)
    assert "Home" not in text
    assert text.count("Thinking in Java") == 10
    assert "Thinking in Java, volume 3 by Bruce Eckel, $39.99" in text.splitlines()


def test_page_wrapped_in_a_form_is_not_dropped() -> None:
    # ASP.NET wraps the whole page in one <form>: that form is the page, not boilerplate.
    html = """<body><form id="aspnetForm"><div><p>Search results for java.</p>
      <p>Result one is a book about Java.</p></div></form></body>"""
    assert "Result one" in main_text(html)


def test_a_small_form_keeps_the_results_it_holds_and_drops_its_controls() -> None:
    # An ASP.NET results page: its one form holds the search box, the last page of
    # results (two rows) and the pager; the site's header and footer outweigh it.
    chrome = "<p>" + "Chapter and Verse, two floors of books in the old town. " * 6 + "</p>"
    html = f"""<body><header>{chrome}</header><p>Showing 11-12 of 12 items (page 3 of 3).</p>
      <form id="aspnetForm"><div class="aspNetHidden"><input type="hidden" name="__VIEWSTATE" value="x"></div>
      <div class="search"><label for="q">Quick search</label> <input id="q" name="q">
        <button>Go</button></div>
      <table id="gvResults"><tr><td><a href="/item/11">Processing XML with Java</a></td><td>2002</td></tr>
      <tr><td><a href="/item/12">Thinking in Java</a></td><td>2006</td></tr></table>
      <div class="pager"><a href="javascript:__doPostBack('gv','Page$2')">2</a></div></form>
      <footer>{chrome}</footer></body>"""
    text = main_text(html)
    assert "Thinking in Java" in text and "Processing XML with Java" in text
    assert "Quick search" not in text and "Chapter and Verse" not in text
    # a form that is only controls and their labels is dropped whole, as before
    assert "Quick search" not in main_text(f"<body><main>{chrome}<form><p><label>Quick search "
                                           "<input name=q></label></p></form></main></body>")


def test_table_cells_share_a_line() -> None:
    html = "<table><tr><td>Title</td><td>Author</td></tr><tr><td>Java</td><td>Eckel</td></tr></table>"
    assert page_text(html) == "Title Author\nJava Eckel"


def test_malformed_html_does_not_break_extraction() -> None:
    html = "<body><div><p>One<p>Two<li>Three</div></span><p>Four & more &amp; &lt;tags&gt;"
    assert page_text(html) == "One\nTwo\nThree\nFour & more & <tags>"
    assert main_text("") == "" and page_text("") == ""


def test_unbounded_nesting_is_flattened_not_a_recursion_error() -> None:
    html = "<body>" + "<div><font>" * 5000 + "<script>hidden()</script>Deep text." + "</font></div>" * 10
    assert page_text(html) == "Deep text."
    assert main_text(html) == "Deep text."


def test_shadow_roots_serialized_as_declarative_templates_are_shown_text() -> None:
    """How the crawler stores a page built from web components (open shadow roots as
    ``<template shadowrootmode>``): their text is the page's; their styles are not, nor is
    an ordinary template's content."""
    html = ('<body><site-nav><template shadowrootmode="open"><style>nav { x: y }</style>'
            '<nav><a href="/b">Books</a></nav></template><a href="/s">Slotted</a></site-nav>'
            '<main><book-card><template shadowrootmode="open"><style>p { x: y }</style>'
            "<article><p>Shadow paragraph.</p><note-x><template shadowrootmode=\"open\">"
            "<p>Nested shadow sentence.</p></template></note-x></article></template></book-card>"
            "<template><p>Never shown.</p></template></main></body>")
    assert page_text(html) == "Books\nSlotted\nShadow paragraph.\nNested shadow sentence."
    assert main_text(html) == "Shadow paragraph.\nNested shadow sentence."


def test_empty_main_content_falls_back_to_empty() -> None:
    assert main_text("<body><nav><a href='/'>Home</a></nav></body>") == ""


def test_summary_takes_whole_sentences_within_budget() -> None:
    text = "First sentence here. Second one is a bit longer! Third? " + "Word " * 100
    assert summarize(text, max_chars=50) == "First sentence here. Second one is a bit longer!"
    assert len(summarize(text)) <= 300


def test_summary_skips_headings_and_repeated_title() -> None:
    text = "Deep web crawling\nIntroduction\nCrawlers fill forms. They store results."
    assert summarize(text, title="Deep web crawling") == "Crawlers fill forms. They store results."


def test_summary_cuts_a_long_first_sentence_at_a_word() -> None:
    text = "word " * 200
    summary = summarize(text, max_chars=40)
    assert summary.endswith("…")
    assert len(summary) <= 40
    assert summary == "word " * 7 + "word…"


def test_summary_of_headings_only_uses_them() -> None:
    assert summarize("Books\nMusic") == "Books Music"
    assert summarize("") == ""
