"""RTDM: the restricted top-down tree edit distance between two pages' tag trees."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepbot.learn import rtdm
from deepbot.learn.rtdm import MAX_DEPTH, Classes, distance, similarity, tree_of


def _pair(x: str, y: str) -> tuple[rtdm.PageTree, rtdm.PageTree]:
    classes = Classes()
    return tree_of(x, classes), tree_of(y, classes)


def test_text_does_not_count_only_where_it_stands() -> None:
    a, b = _pair("<body><h1>Miles Davis</h1><p>trumpet</p></body>",
                 "<body><h1>Ella</h1><p>voice, 1917</p></body>")
    assert distance(a, b) == 0 and similarity(a, b) == 1.0


def test_each_operation_costs_what_the_restricted_top_down_model_says() -> None:
    base = "<body><div><p>x</p><p>y</p></div></body>"
    longer = "<body><div><p>x</p><p>y</p><p>z</p></div></body>"
    assert distance(*_pair(base, longer)) == 2  # insert p and its text
    assert distance(*_pair(base, "<body><div><p>x</p><span>y</span></div></body>")) == 1  # relabel
    assert distance(*_pair(base, "<body><div><p>x</p></div></body>")) == 2  # delete a subtree of 2
    assert distance(*_pair(base, "<body><section><p>x</p><p>y</p></section></body>")) == 1


def test_scripts_styles_and_comments_are_not_structure() -> None:
    a, b = _pair("<body><p>x</p></body>",
                 "<body><script>var a=1</script><!-- c --><style>p{}</style><p>x</p></body>")
    assert distance(a, b) == 0


def _template(items: int, sale_every: int, table: bool = False) -> str:
    rows = []
    for i in range(items):
        sale = "<span>Sale</span>" if i % sale_every == 0 else ""
        if table:
            rows.append(f"<tr><td><a href='/p{i}'>{i}</a></td><td>{sale}<b>x</b></td><td><i>y</i></td></tr>")
        else:
            rows.append(f"<div><h3><a href='/p{i}'>Item {i}</a></h3><p>d</p>{sale}"
                        "<ul><li>a</li><li>b</li></ul><form><input name=q><button>Buy</button></form></div>")
    nav = "<nav><ul>" + "".join(f"<li><a href='/c{i}'>{i}</a></li>" for i in range(12)) + "</ul></nav>"
    main = "<table>" + "".join(rows) + "</table>" if table else "".join(rows)
    return f"<body><header>{nav}</header><main>{main}</main><footer><p>f</p></footer></body>"


def test_pages_of_one_template_are_alike_and_of_another_are_not() -> None:
    same = similarity(*_pair(_template(190, 3), _template(170, 4)))
    other = similarity(*_pair(_template(190, 3), _template(330, 3, table=True)))
    assert same > 0.9 and other < 0.1


@pytest.mark.timeout(60)
def test_two_pages_of_3000_nodes_compare_in_under_50_ms() -> None:
    a, b = _pair(_template(190, 3), _template(170, 4))
    assert len(a) >= 3000 and len(b) >= 2600
    distance(a, b)  # warm
    best = min(_timed(a, b) for _ in range(5))
    assert best < 0.050, f"{best * 1000:.1f} ms"


def _timed(a: rtdm.PageTree, b: rtdm.PageTree) -> float:
    began = time.perf_counter()
    distance(a, b)
    return time.perf_counter() - began


def test_a_hostile_page_is_bounded_in_nodes_and_depth() -> None:
    deep = "<div>" * 5000 + "x" + "</div>" * 5000
    tree = tree_of(f"<body>{deep}</body>", Classes())
    assert len(tree) <= MAX_DEPTH + 2
    wide = tree_of("<body>" + "<p>x</p>" * 50_000 + "</body>", Classes(), max_nodes=1000)
    assert len(wide) == 1000
    assert distance(tree, tree) == 0


labels = st.sampled_from(["div", "p", "span", "a", "li"])


@st.composite
def html_trees(draw: st.DrawFn, depth: int = 3) -> str:
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(["", "t"]))
    tag = draw(labels)
    kids = draw(st.lists(html_trees(depth=depth - 1), max_size=4))
    return f"<{tag}>{''.join(kids)}</{tag}>"


@settings(max_examples=150, deadline=None)
@given(x=st.lists(html_trees(), min_size=0, max_size=30), y=st.lists(html_trees(), min_size=0, max_size=30))
def test_distance_is_bounded_and_symmetric_and_numpy_agrees_with_the_loop(x: list[str], y: list[str]) -> None:
    a, b = _pair("<body>" + "".join(x) + "</body>", "<body>" + "".join(y) + "</body>")
    d = distance(a, b)
    assert 0 <= d <= len(a) + len(b) - 2  # the two roots are body: never deleted
    assert d == distance(b, a) and distance(a, a) == 0
    assert 0.0 <= similarity(a, b) <= 1.0
    saved = rtdm._VECTOR_CELLS
    try:
        rtdm._VECTOR_CELLS = 1  # every children list through the numpy path
        assert distance(a, b) == d
    finally:
        rtdm._VECTOR_CELLS = saved
