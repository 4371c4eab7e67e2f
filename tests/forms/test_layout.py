"""Texts ↔ fields on hand-built layouts (no browser): the paper's Fig. 4a and its rules."""

from __future__ import annotations

from deepbot.forms.layout import layout_form
from deepbot.forms.models import Box, Evidence, ExtractedForm, FieldOption, FormField, Markup, PageText


def b(x: float, y: float, w: float, h: float = 20) -> Box:
    return Box(x=x, y=y, width=w, height=h)


def text(i: int, s: str, box: Box) -> PageText:
    return PageText(id=i, text=s, box=box, form=0)


def field(name: str, box: Box, **kw: object) -> FormField:
    return FormField(name=name, tag="input", type="text", kind="unbounded", selector=name, box=box, **kw)  # type: ignore[arg-type]


def radio(name: str, boxes: list[Box]) -> FormField:
    options = tuple(FieldOption(value=f"v{i}", selector=f"{name}{i}", box=x) for i, x in enumerate(boxes))
    return FormField(
        name=name,
        tag="input",
        type="radio",
        kind="bounded",
        selector=f"{name}0",
        box=boxes[0].union(*boxes[1:]),
        options=options,
    )


def form(*fields: FormField) -> ExtractedForm:
    return ExtractedForm(index=0, selector="f", action="", method="get", box=fields[0].box, fields=fields)


def texts_of(layout: object, name: str) -> list[str]:
    return [link.text for link in layout.of(name).texts]  # type: ignore[attr-defined]


def test_figure_4a() -> None:
    texts = [
        text(0, "Refine your search:", b(0, 20, 150, 18)),
        text(1, "Book Title:", b(0, 50, 90)),
        text(2, "(example: 'Thinking in Java')", b(306, 52, 180, 16)),
        text(3, "Author:", b(0, 80, 90)),
        text(4, "Format:", b(0, 110, 90)),
        text(5, "Hardcover", b(118, 112, 70, 16)),
        text(6, "Paperback", b(218, 112, 70, 16)),
        text(7, "e-Books & Docs", b(318, 112, 100, 16)),
    ]
    f = form(
        field("title", b(100, 50, 200)),
        field("author", b(100, 80, 200)),
        radio("fmt", [b(100, 114, 13, 13), b(200, 114, 13, 13), b(300, 114, 13, 13)]),
    )
    layout = layout_form(f, texts)
    assert texts_of(layout, "title") == ["Book Title:", "(example: 'Thinking in Java')"]
    assert texts_of(layout, "author") == ["Author:"]
    assert texts_of(layout, "fmt") == ["Format:"]
    options = [[link.text for link in o] for o in layout.of("fmt").option_texts]
    assert options == [["Hardcover"], ["Paperback"], ["e-Books & Docs"]]
    used = [link.text_id for fl in layout.fields for link in fl.texts]
    assert 0 not in used  # the heading above a left-labelled field is no label


def test_each_field_keeps_a_text_even_if_another_is_closer() -> None:
    # f1's list holds t1 and t2, f2's only t1: t1 goes to f2 (the paper's example)
    texts = [text(0, "t1", b(0, 30, 40)), text(1, "t2", b(310, 0, 40))]
    layout = layout_form(form(field("f1", b(100, 0, 200)), field("f2", b(100, 60, 200))), texts)
    assert texts_of(layout, "f1") == ["t2"]
    assert texts_of(layout, "f2") == ["t1"]


def test_a_text_belongs_to_one_field() -> None:
    texts = [text(i, f"label {i}", b(0, 30 * i, 90)) for i in range(4)]
    texts.append(text(9, "shared hint", b(310, 45, 80)))
    fields = [field(f"f{i}", b(100, 30 * i, 200)) for i in range(4)]
    layout = layout_form(form(*fields), texts)
    ids = [link.text_id for fl in layout.fields for link in fl.texts]
    assert len(ids) == len(set(ids))
    assert all(texts_of(layout, f"f{i}")[0] == f"label {i}" for i in range(4))


def test_markup_binds_a_text_however_far() -> None:
    texts = [text(0, "Near", b(0, 0, 90)), text(1, "Far label", b(600, 300, 90))]
    f = field("q", b(100, 0, 200), markup=Markup(label_ids=(1,)))
    layout = layout_form(form(f), texts)
    links = layout.of("q").texts
    assert (links[0].text, links[0].evidence) == ("Far label", Evidence.LABEL)


def test_a_placeholder_field_takes_no_far_text() -> None:
    texts = [text(0, "Search our catalogue", b(100, 0, 200))]
    layout = layout_form(form(field("q", b(100, 40, 200), markup=Markup(placeholder="Title"))), texts)
    assert texts_of(layout, "q") == []
    layout = layout_form(form(field("q", b(100, 40, 200))), texts)
    assert texts_of(layout, "q") == ["Search our catalogue"]  # the visual method alone still works


def test_a_radio_group_explained_by_its_values_needs_no_label() -> None:
    texts = [
        text(0, "Author", b(0, 0, 90)),
        text(1, "Hardcover", b(118, 42, 70, 16)),
        text(2, "Paperback", b(218, 42, 70, 16)),
    ]
    f = form(field("author", b(100, 0, 200)), radio("fmt", [b(100, 44, 13, 13), b(200, 44, 13, 13)]))
    layout = layout_form(f, texts)
    assert texts_of(layout, "author") == ["Author"]
    assert texts_of(layout, "fmt") == []
    assert [[link.text for link in o] for o in layout.of("fmt").option_texts] == [
        ["Hardcover"],
        ["Paperback"],
    ]
