"""A small pretty printer: documents made of text, breaks, nesting and groups, laid out to a
width. Stage 04 introduced it to print jaxprs the way JAX does.

A document says where a line may break (``brk``); a ``group`` is laid out on one line if all of
it fits in the room left on the current line, and otherwise every break directly inside it
becomes a newline indented by the enclosing ``nest``. Groups inside a broken group decide for
themselves. This is Christian Lindig's "strictly pretty" algorithm, the one JAX's printer uses.
"""

from __future__ import annotations

from typing import NamedTuple


class Text(NamedTuple):
    text: str


class Break(NamedTuple):
    text: str  # what the break prints when its group fits on one line


class Nest(NamedTuple):
    indent: int
    doc: Doc


class Group(NamedTuple):
    doc: Doc


class Concat(NamedTuple):
    docs: tuple[Doc, ...]


Doc = Text | Break | Nest | Group | Concat


def text(s: str) -> Doc:
    return Text(s)


def brk(s: str = " ") -> Doc:
    return Break(s)


def nest(indent: int, doc: Doc) -> Doc:
    return Nest(indent, doc)


def group(doc: Doc) -> Doc:
    return Group(doc)


def concat(*docs: Doc) -> Doc:
    return Concat(tuple(docs))


def join(sep: Doc, docs: list[Doc]) -> Doc:
    """``docs`` with ``sep`` between each two."""
    out: list[Doc] = []
    for i, d in enumerate(docs):
        if i:
            out.append(sep)
        out.append(d)
    return Concat(tuple(out))


def flat_width(doc: Doc, limit: int) -> int:
    """The width of ``doc`` laid out on one line, counting no further than ``limit``."""
    width, todo = 0, [doc]
    while todo and width <= limit:
        d = todo.pop()
        if type(d) is Text or type(d) is Break:
            width += len(d.text)
        elif type(d) is Concat:
            todo.extend(reversed(d.docs))
        else:  # Nest, Group
            todo.append(d.doc)
    return width


def format(doc: Doc, width: int = 80) -> str:  # noqa: A001 (the name JAX's printer uses)
    """Lay ``doc`` out in lines of at most ``width`` characters where it can."""
    out: list[str] = []
    column = 0
    # A stack of (indent, flat, doc): ``flat`` says whether the enclosing group fits on one line.
    # Outside every group a break is a newline (JAX's ``let f = {...} in`` before a jaxpr).
    todo: list[tuple[int, bool, Doc]] = [(0, False, doc)]
    while todo:
        indent, flat, d = todo.pop()
        if type(d) is Text:
            out.append(d.text)
            column += len(d.text)
        elif type(d) is Break:
            if flat:
                out.append(d.text)
                column += len(d.text)
            else:
                out.append("\n" + " " * indent)
                column = indent
        elif type(d) is Concat:
            todo.extend((indent, flat, x) for x in reversed(d.docs))
        elif type(d) is Nest:
            todo.append((indent + d.indent, flat, d.doc))
        else:  # a Group: one line if it all fits in what is left of this one
            fits = flat or flat_width(d.doc, width - column) <= width - column
            todo.append((indent, fits, d.doc))
    return "".join(out)
