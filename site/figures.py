"""The course's pictures, drawn with Graphviz when the site is built, from the stage's own code.

A picture is two functions under one name. The *probe* runs inside the stage (a fresh interpreter
with only `stages/<stage>` importable) and returns plain data read from the code as it is: the
lattice tables of `dtypes.py`, the events of a real call through `bind`, a real `tree_flatten`.
The *drawing* turns that data into a Graphviz graph in the build's own process. So a picture
cannot drift from the code: change the lattice, and the next build draws the new one.

A page asks for one with `<!-- didax:figure NAME -->`; the page's stage (front matter `stage:`) is
the code it is drawn from. A later chapter adds its picture the same way:

    @probe("jvp-tangents")
    def _probe_jvp() -> dict: ...          # runs in the stage: import didax, compute, return JSON

    @drawing("jvp-tangents", "What jvp carries")
    def _draw_jvp(data: dict) -> graphviz.Digraph: ...

Run as a script, `python site/figures.py probe NAME` prints a probe's data as JSON (the build runs
it with PYTHONPATH=stages/<stage>).
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

PROBES: dict[str, Callable[[], Any]] = {}


@dataclass(frozen=True)
class Drawing:
    name: str
    title: str  # the figure's caption and its accessible name
    draw: Callable[[Any], Any]  # probe data -> graphviz.Digraph
    narrow: Callable[[Any], Any] | None = None  # the same data drawn for a phone, where the page shows it


DRAWINGS: dict[str, Drawing] = {}


class FigureError(Exception):
    """A picture cannot be drawn; the build stops and says why."""


def probe(name: str) -> Callable[[Callable[[], Any]], Callable[[], Any]]:
    def register(fn: Callable[[], Any]) -> Callable[[], Any]:
        PROBES[name] = fn
        return fn
    return register


def drawing(name: str, title: str, narrow: Callable[[Any], Any] | None = None
            ) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """Register the drawing of figure `name`; `narrow`, a second drawing of the same data that a
    phone shows instead (a long left-to-right graph drawn top to bottom, say)."""
    def register(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        DRAWINGS[name] = Drawing(name, title, fn, narrow)
        return fn
    return register


# ----------------------------------------------------------------------------------------------
# Building a figure


def probe_data(name: str, stage: str, root: Path = ROOT) -> Any:
    """Run the probe `name` inside stage `stage` and return its data."""
    if name not in PROBES:
        raise FigureError(f"no figure named {name!r}; the figures are {', '.join(sorted(PROBES))}")
    stage_dir = root / "stages" / stage
    if not (stage_dir / "didax").is_dir():
        raise FigureError(f"no stage {stage!r} under {root / 'stages'}")
    env = {**os.environ, "PYTHONPATH": str(stage_dir), "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run([sys.executable, str(Path(__file__).resolve()), "probe", name], cwd=stage_dir,
                            env=env, capture_output=True, text=True, timeout=120)
    if result.returncode:
        raise FigureError(f"the probe of figure {name!r} failed in stage {stage}:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout)


def _pipe(graph: Any) -> str:
    try:
        import graphviz
    except ImportError:
        raise FigureError("the Python package graphviz is not installed: pip install -r requirements/lock.txt") from None
    try:
        return graph.pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound:
        raise FigureError("Graphviz's `dot` is not installed: run site/install_graphviz.sh (as root), "
                          "or apt-get install graphviz") from None


def draw_svgs(name: str, stage: str, root: Path = ROOT) -> tuple[str, str | None]:
    """The figure as Graphviz writes it (a whole SVG file), and its narrow drawing if it has one."""
    if name not in DRAWINGS:
        raise FigureError(f"no figure named {name!r}; the figures are {', '.join(sorted(DRAWINGS))}")
    data = probe_data(name, stage, root)
    narrow = DRAWINGS[name].narrow
    return _pipe(DRAWINGS[name].draw(data)), _pipe(narrow(data)) if narrow else None


# The smallest text of a figure on a phone, in CSS pixels: a figure too wide to show whole at that
# size keeps this size there and scrolls sideways inside its card (see extra.css).
PHONE_TEXT_PX = 9.5


def inline_svg(svg: str, prefix: str, css_class: str = "didax-wide") -> str:
    """An SVG file as an element to put inline in a page: no XML prolog or comments, its ids
    prefixed (several figures on one page stay distinct), and its drawn size turned into the
    largest it is shown at (`--didax-natural`) and, on a phone, the smallest (`--didax-phone`),
    at which its smallest text is PHONE_TEXT_PX tall."""
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<!--.*?-->\s*", "", svg, flags=re.S)
    svg = re.sub(r'\bid="', f'id="{prefix}', svg)
    size = re.search(r'<svg width="([\d.]+)pt" height="[\d.]+pt"', svg)
    if size:
        natural = float(size.group(1)) * 4 / 3  # pt to CSS px: the size of the drawing, drawn 1:1
        # Text sizes are in the drawing's units (pt), so a text of f is f * 4/3 px at the natural width.
        smallest = min((float(f) for f in re.findall(r'font-size="([\d.]+)"', svg)), default=12.0) * 4 / 3
        phone = min(natural, math.ceil(natural * PHONE_TEXT_PX / smallest))
        svg = svg.replace(size.group(0), f'<svg class="{css_class}" style="max-width: {natural:.0f}px; '
                          f'--didax-natural: {natural:.0f}px; --didax-phone: {phone:.0f}px"', 1)
    return svg


def render_svg(name: str, stage: str, root: Path = ROOT) -> str:
    """The figure as an SVG element to put inline in a page."""
    return inline_svg(draw_svgs(name, stage, root)[0], f"didax-{name}-")


def figure_html(name: str, stage: str, root: Path = ROOT, full_size: str | None = None,
                svgs: tuple[str, str | None] | None = None) -> str:
    """The figure with its caption; `full_size`, the address of the figure's SVG file on its own
    (the caption links to it: a phone's browser zooms into it freely); `svgs`, the figure as
    draw_svgs made it, when the caller has it already."""
    if name not in DRAWINGS:
        raise FigureError(f"no figure named {name!r}; the figures are {', '.join(sorted(DRAWINGS))}")
    wide, narrow = svgs or draw_svgs(name, stage, root)
    pictures = inline_svg(wide, f"didax-{name}-")
    if narrow:
        pictures += inline_svg(narrow, f"didax-{name}-narrow-", "didax-narrow")
    # The caption is HTML: escape it, and set `code` in backticks as code.
    title = re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(DRAWINGS[name].title))
    link = f' · <a href="{html.escape(full_size)}">open it full size</a>' if full_size else ""
    classes = "didax-figure didax-has-narrow" if narrow else "didax-figure"
    return (f'<figure class="{classes}" id="figure-{name}">{pictures}'
            f"<figcaption>{title} (drawn from <code>stages/{stage}</code> when this page was built){link}"
            "</figcaption></figure>")


# ----------------------------------------------------------------------------------------------
# Style shared by the pictures: black on white (the page puts them on a white card in both palettes)

FONT = "DejaVu Sans"
MONO = "DejaVu Sans Mono"
INK, MUTED, ACCENT, WEAK, FILL = "#1f2937", "#6b7280", "#3f51b5", "#b45309", "#eef0fa"


def _digraph(name: str, **graph_attr: str) -> Any:
    import graphviz

    g = graphviz.Digraph(name)
    g.attr(fontname=FONT, fontsize="11", bgcolor="white", color=INK, **graph_attr)
    g.attr("node", fontname=FONT, fontsize="11", color=INK, fontcolor=INK, penwidth="1.2")
    g.attr("edge", fontname=FONT, fontsize="9", color=MUTED, fontcolor=MUTED, arrowsize="0.7")
    return g


# ----------------------------------------------------------------------------------------------
# The promotion lattice, standard and strict, from dtypes.py's tables


def _lattice_probe(table: str, *args: Any) -> dict[str, Any]:
    from didax import dtypes

    lattice = getattr(dtypes, table)(*args)
    name = dtypes._node_name
    return {
        "nodes": [name(n) for n in lattice],
        "weak": sorted(dtypes.WEAK_NODES),
        "edges": [[name(a), name(b)] for a, succ in lattice.items() for b in succ],
    }


@probe("lattice")
def _probe_lattice() -> dict[str, Any]:
    # With 64-bit types on: the lattice JAX's documentation draws (x64 off only reroutes uint32).
    return _lattice_probe("_standard_lattice", True)


@probe("lattice-strict")
def _probe_lattice_strict() -> dict[str, Any]:
    return _lattice_probe("_strict_lattice")


def _draw_lattice(data: dict[str, Any], name: str, rankdir: str = "LR") -> Any:
    g = _digraph(name, rankdir=rankdir, nodesep="0.18", ranksep="0.45")
    g.attr("node", shape="box", style="rounded,filled", fillcolor=FILL, height="0.3", margin="0.08,0.03")
    weak = set(data["weak"])
    linked = {n for edge in data["edges"] for n in edge}
    for node in data["nodes"]:
        if node in weak:
            g.node(node, node, style="rounded,dashed,filled", fillcolor="#fff7ed", color=WEAK, fontcolor=WEAK,
                   tooltip=f"{node}: the weak type of a Python scalar")
        elif node in linked:
            g.node(node, node)
    isolated = [n for n in data["nodes"] if n not in linked]
    if isolated:  # strict mode: the strong types have no edges at all; show them as one group
        with g.subgraph(name="cluster_isolated") as c:
            c.attr(label="no promotion at all", fontcolor=MUTED, color=MUTED, style="dashed")
            for node in isolated:
                c.node(node, node)
    for a, b in data["edges"]:
        g.edge(a, b)
    return g


def _draw_lattice_narrow(data: dict[str, Any]) -> Any:
    """The lattice top to bottom: drawn left to right it is a long chain, whose text a phone
    would show 6 px tall."""
    return _draw_lattice(data, "lattice", rankdir="TB")


@drawing("lattice", "JAX's type promotion lattice, as `_standard_lattice` in dtypes.py declares it: "
         "an arrow means promoting loses no information, and two types promote to their least upper bound",
         narrow=_draw_lattice_narrow)
def _draw_lattice_standard(data: dict[str, Any]) -> Any:
    return _draw_lattice(data, "lattice")


@drawing("lattice-strict", "The strict lattice (`_strict_lattice`): only weak scalars (dashed) move, "
         "and only into their own kind")
def _draw_lattice_strict(data: dict[str, Any]) -> Any:
    return _draw_lattice(data, "lattice_strict")


# ----------------------------------------------------------------------------------------------
# The trace stack and bind's dispatch, recorded from a real call


TRACE_PROGRAM = "y = jnp.sin(x) * 2.0 + jnp.cos(1.0)"


@probe("trace-stack")
def _probe_trace_stack() -> dict[str, Any]:
    """Push a logging interpreter over evaluation, run TRACE_PROGRAM on one of its tracers, and
    record every primitive that reaches `bind_with_trace`: which level got it, and at what depth."""
    import didax.numpy as jnp
    from didax import core

    class LoggingTracer(core.Tracer):
        def __init__(self, trace: Any, val: Any) -> None:
            self._trace, self.val = trace, val

        @property
        def aval(self) -> Any:
            return core.get_aval(self.val)

    class LoggingTrace(core.Trace):
        def pure(self, val: Any) -> Any:
            return LoggingTracer(self, val)

        lift = pure

        def process_primitive(self, primitive: Any, tracers: Any, params: Any) -> Any:
            return LoggingTracer(self, primitive.bind(*[t.val for t in tracers], **params))

    events: list[dict[str, Any]] = []
    depth = [0]
    original = core.Primitive.bind_with_trace

    def describe(x: Any) -> str:
        if isinstance(x, core.Tracer):
            return f"tracer@{x._trace.main.level}"
        aval = core.get_aval(x)
        return repr(x) if isinstance(x, (int, float)) else aval.str_short()

    def recording(self: Any, trace: Any, args: Any, params: Any) -> Any:
        events.append({"prim": self.name, "level": trace.main.level, "depth": depth[0],
                       "trace": trace.main.trace_type.__name__, "args": [describe(a) for a in args]})
        depth[0] += 1
        try:
            return original(self, trace, args, params)
        finally:
            depth[0] -= 1

    with core.new_main(LoggingTrace) as main:
        stack = [{"level": m.level, "trace": m.trace_type.__name__} for m in core.trace_state.trace_stack]
        x = LoggingTrace(main).pure(jnp.arange(3.0))
        core.Primitive.bind_with_trace = recording  # type: ignore[method-assign]
        try:
            exec(TRACE_PROGRAM, {"jnp": jnp, "x": x})
        finally:
            core.Primitive.bind_with_trace = original  # type: ignore[method-assign]
    return {"program": TRACE_PROGRAM, "stack": stack, "events": events}


@drawing("trace-stack", f"The dispatch of `{TRACE_PROGRAM}`, with `x` a tracer of a logging interpreter at "
         "level 1 (a recorded run): bind sends each primitive to the highest level among its inputs; "
         "the level-1 interpreter's process_primitive binds it again on plain arrays, which lands at "
         "level 0, where EvalTrace runs the primitive's NumPy implementation")
def _draw_trace_stack(data: dict[str, Any]) -> Any:
    g = _digraph("trace_stack", rankdir="LR", nodesep="0.15", ranksep="0.45", newrank="true")
    g.attr("node", shape="box", style="rounded,filled", fillcolor="white", height="0.28",
           margin="0.08,0.03", fontname=MONO, fontsize="10")
    levels = sorted({s["level"] for s in data["stack"]}, reverse=True)
    names = {s["level"]: s["trace"] for s in data["stack"]}
    rows: dict[str, list[str]] = {}
    with g.subgraph(name="cluster_program") as c:
        c.attr(label="the program's calls", fontname=FONT, fontcolor=INK, color=MUTED, style="rounded")
        step = 0
        for i, e in enumerate(data["events"]):
            if e["depth"] == 0:
                step += 1
                c.node(f"p{i}", f"{step}. {e['prim']}({', '.join(e['args'])})", fillcolor="#f9fafb")
                rows.setdefault("program", []).append(f"p{i}")
    for level in levels:
        with g.subgraph(name=f"cluster_level{level}") as c:
            colour = ACCENT if level else INK
            c.attr(label=f"level {level}: {names.get(level, '?')}", fontname=FONT, fontcolor=colour,
                   color=colour, style="rounded,filled", fillcolor=FILL if level else "#f3f4f6")
            for i, e in enumerate(data["events"]):
                if e["level"] == level:
                    label = f"process_primitive({e['prim']})" if level else f"{e['prim']}({', '.join(e['args'])})"
                    c.node(f"e{i}", label)
                    rows.setdefault(f"level{level}", []).append(f"e{i}")
    for row in rows.values():  # one column per row of the stack, calls in order
        with g.subgraph() as same:
            same.attr(rank="same")
            for node in row:
                same.node(node)
    g.node("numpy", "NumPy", shape="box", style="filled", fillcolor="#fef3c7", fontname=FONT)
    caller: dict[int, str] = {}  # depth -> the node whose bind is running at that depth
    for i, e in enumerate(data["events"]):
        source = f"p{i}" if e["depth"] == 0 else caller.get(e["depth"] - 1)
        if source:
            g.edge(source, f"e{i}", label="bind", color=ACCENT if e["level"] else MUTED)
        caller[e["depth"]] = f"e{i}"
        if e["trace"] == "EvalTrace":
            g.edge(f"e{i}", "numpy", style="dashed")
    return g


# ----------------------------------------------------------------------------------------------
# Pytrees: a real tree_flatten and tree_unflatten


PYTREE = {"w": [1.0, 2.0], "b": 0.5, "meta": None}


@probe("pytree")
def _probe_pytree() -> dict[str, Any]:
    from didax import tree_util

    leaves, treedef = tree_util.tree_flatten(PYTREE)
    counter = iter(range(len(leaves)))

    def walk(td: Any, key: str) -> dict[str, Any]:
        if td.node_type is None:
            i = next(counter)
            return {"kind": "leaf", "key": key, "index": i, "value": repr(leaves[i])}
        keys = [repr(k) for k in td.aux_data] if td.node_type is dict else [
            f"[{i}]" for i in range(len(td.child_defs))]
        return {"kind": td.node_type.__name__, "key": key,
                "children": [walk(child, k) for child, k in zip(td.child_defs, keys)]}

    rebuilt = tree_util.tree_unflatten(treedef, [10 * v for v in leaves])
    return {"tree": repr(PYTREE), "structure": walk(treedef, ""), "leaves": [repr(v) for v in leaves],
            "treedef": repr(treedef), "rebuilt": repr(rebuilt)}


@drawing("pytree", "tree_flatten walks the containers (dict keys sorted, None an empty node) and "
         "returns the leaves in order and the structure; tree_unflatten puts new leaves into the same "
         "slots (a real run)")
def _draw_pytree(data: dict[str, Any]) -> Any:
    g = _digraph("pytree", rankdir="TB", nodesep="0.25", ranksep="0.35")
    g.attr("node", fontname=MONO, fontsize="10", height="0.28")
    with g.subgraph(name="cluster_tree") as c:
        c.attr(label=f"tree = {data['tree']}", fontname=MONO, color=MUTED, style="rounded", fontcolor=INK)

        def add(node: dict[str, Any], ident: str) -> None:
            if node["kind"] == "leaf":
                c.node(ident, node["value"], shape="box", style="rounded,filled", fillcolor="#fef3c7")
            elif node["kind"] == "NoneType":
                c.node(ident, "None", shape="box", style="rounded,dashed", color=MUTED, fontcolor=MUTED)
            else:
                c.node(ident, node["kind"], shape="ellipse", style="filled", fillcolor=FILL, color=ACCENT)
            for j, child in enumerate(node.get("children", [])):
                add(child, f"{ident}_{j}")
                c.edge(ident, f"{ident}_{j}", label=child["key"], arrowhead="none")

        add(data["structure"], "t")
    slots = "|".join(f"<s{i}> {v}" for i, v in enumerate(data["leaves"]))
    g.node("leaves", "leaves|" + slots, shape="record", fontname=MONO, style="filled",
           fillcolor="#fef3c7")
    g.node("treedef", data["treedef"], shape="box", style="rounded,filled", fillcolor=FILL, color=ACCENT)
    g.node("rebuilt", f"tree_unflatten(treedef, [10 * v for v in leaves])\n{data['rebuilt']}",
           shape="box", style="rounded", fontname=MONO)

    def leaf_edges(node: dict[str, Any], ident: str) -> None:
        if node["kind"] == "leaf":
            g.edge(ident, f"leaves:s{node['index']}", style="dashed", color="#b45309",
                   label=f"leaf {node['index']}", fontcolor="#b45309")
        for j, child in enumerate(node.get("children", [])):
            leaf_edges(child, f"{ident}_{j}")

    leaf_edges(data["structure"], "t")
    g.edge("t", "treedef", label="tree_flatten: the structure", color=ACCENT, fontcolor=ACCENT)
    g.edge("leaves", "rebuilt", label="new leaves")
    g.edge("treedef", "rebuilt", label="same slots")
    return g


# ----------------------------------------------------------------------------------------------
# Forward mode: the (primal, tangent) pairs of a real jvp, operation by operation


JVP_PROGRAM = "jnp.sin(x) * x + 2.0"
JVP_POINT = (3.0, 1.0)  # the primal and the tangent of x


@probe("jvp-pairs")
def _probe_jvp_pairs() -> dict[str, Any]:
    """Run jvp of JVP_PROGRAM with JVPTrace.process_primitive wrapped: for each primitive the JVP
    interpreter gets, the (primal, tangent) pairs in and out, where each input came from, and the
    primitives its rule applied one level down."""
    import numpy as np

    import didax
    import didax.numpy as jnp
    from didax import ad, core

    def short(v: Any) -> str:
        if type(v) is ad.Zero:
            return "Zero"
        number = float(np.asarray(v))
        return f"{number:.1f}" if number.is_integer() else f"{number:.4g}"

    events: list[dict[str, Any]] = []
    made_by: dict[int, str] = {}  # id(tracer) -> the node that made it
    alive: list[Any] = []  # every tracer seen stays alive, so that no id is reused
    running: list[dict[str, Any]] = []  # the events whose rule is running, innermost last
    process, bind_with_trace = ad.JVPTrace.process_primitive, core.Primitive.bind_with_trace

    def recording_process(self: Any, primitive: Any, tracers: Any, params: Any) -> Any:
        event = {"prim": primitive.name, "level": self.main.level, "rule": [],
                 "inputs": [{"from": made_by.get(id(t)), "primal": short(t.primal), "tangent": short(t.tangent)}
                            for t in tracers]}
        alive.extend(tracers)
        events.append(event)
        running.append(event)
        try:
            out = process(self, primitive, tracers, params)
        finally:
            running.pop()
        made_by[id(out)] = f"op{len(events) - 1}"
        alive.append(out)
        event["out"] = {"primal": short(out.primal), "tangent": short(out.tangent)}
        return out

    def recording_bind(self: Any, trace: Any, args: Any, params: Any) -> Any:
        out = bind_with_trace(self, trace, args, params)
        if running and trace.main.level < running[-1]["level"]:
            running[-1]["rule"].append(f"{self.name}({', '.join(short(a) for a in args)}) = {short(out)}")
        return out

    def program(x: Any) -> Any:
        made_by[id(x)] = "x"
        alive.append(x)
        return eval(JVP_PROGRAM, {"jnp": jnp, "x": x})

    ad.JVPTrace.process_primitive = recording_process  # type: ignore[method-assign]
    core.Primitive.bind_with_trace = recording_bind  # type: ignore[method-assign]
    try:
        primal, tangent = didax.jvp(program, (JVP_POINT[0],), (JVP_POINT[1],))
    finally:
        ad.JVPTrace.process_primitive = process  # type: ignore[method-assign]
        core.Primitive.bind_with_trace = bind_with_trace  # type: ignore[method-assign]
    return {"program": JVP_PROGRAM, "input": {"primal": short(JVP_POINT[0]), "tangent": short(JVP_POINT[1])},
            "events": events, "result": {"primal": short(primal), "tangent": short(tangent)}}


def _pair_label(pair: dict[str, str]) -> str:
    return f"({pair['primal']}, {pair['tangent']})"


@drawing("jvp-pairs", f"`jvp(lambda x: {JVP_PROGRAM}, ({JVP_POINT[0]},), ({JVP_POINT[1]},))`, recorded: "
         "every value travels as a (primal, tangent) pair; each box is one call of the JVP interpreter's "
         "process_primitive at level 1, with the primitives its rule applied at level 0 on plain arrays. "
         "The constant 2.0 enters as a pair whose tangent is a symbolic Zero, so the add rule has only "
         "one tangent term and adds nothing")
def _draw_jvp_pairs(data: dict[str, Any]) -> Any:
    g = _digraph("jvp_pairs", rankdir="TB", nodesep="0.5", ranksep="0.3")
    g.attr("node", shape="box", style="rounded,filled", fillcolor="white", fontname=MONO, fontsize="10",
           margin="0.1,0.05")
    g.attr("edge", fontname=MONO, fontsize="10", fontcolor=INK, color=ACCENT, penwidth="1.3")
    pair = data["input"]
    g.node("x", f"x\nprimal {pair['primal']}\ntangent {pair['tangent']}", fillcolor="#fef3c7")
    for i, e in enumerate(data["events"]):
        rows = [f'<tr><td><font color="{ACCENT}"><b>{html.escape(e["prim"])}</b></font></td></tr>',
                f'<tr><td><font color="{MUTED}" point-size="9">process_primitive at level {e["level"]};</font></td></tr>',
                f'<tr><td><font color="{MUTED}" point-size="9">its rule applies, at level {e["level"] - 1}:</font></td></tr>']
        rows += [f'<tr><td align="left">{html.escape(op)}</td></tr>' for op in e["rule"]]
        g.node(f"op{i}", f'<<table border="0" cellspacing="0" cellpadding="1">{"".join(rows)}</table>>',
               fillcolor=FILL, color=ACCENT)
        for j, inp in enumerate(e["inputs"]):
            source = inp["from"]
            if source is None:  # a constant, boxed by JVPTrace.pure with a symbolic zero tangent
                source = f"const{i}_{j}"
                g.node(source, f"constant\n{inp['primal']}", style="rounded,dashed,filled", fillcolor="#fff7ed",
                       color=WEAK, fontcolor=WEAK)
            zero = inp["tangent"] == "Zero"
            g.edge(source, f"op{i}", label=_pair_label(inp), color=WEAK if zero else ACCENT,
                   fontcolor=WEAK if zero else INK, style="dashed" if zero else "solid")
    last = f"op{len(data['events']) - 1}" if data["events"] else "x"
    result = data["result"]
    g.node("out", f"jvp returns\nprimal {result['primal']}\ntangent {result['tangent']}", fillcolor="#fef3c7")
    g.edge(last, "out", label=_pair_label(result))
    return g



# ----------------------------------------------------------------------------------------------
# Batching: where the batch axis goes through a real vmap, operation by operation


VMAP_PROGRAM = "jnp.tanh(w @ x + 1.0).sum(0)"
VMAP_SHAPES = {"w": (2, 3), "x": (3, 4)}  # w is shared; x holds four examples of shape (3,), along axis 1
VMAP_IN_AXES = (None, 1)


@probe("vmap-axes")
def _probe_vmap_axes() -> dict[str, Any]:
    """Run vmap of VMAP_PROGRAM with BatchTrace.process_primitive wrapped: for each primitive the
    batching interpreter gets, each operand's batched shape and batch_dim and where it came from,
    the result's, and the primitives its rule applied one level down."""
    import numpy as np

    import didax
    import didax.numpy as jnp
    from didax import batching, core

    def value(v: Any, bdim: Any) -> dict[str, Any]:
        return {"shape": list(core.get_aval(v).shape), "batch_dim": bdim}

    events: list[dict[str, Any]] = []
    made_by: dict[int, str] = {}  # id(tracer or value) -> the node that made it
    alive: list[Any] = []  # every object seen stays alive, so that no id is reused
    running: list[dict[str, Any]] = []
    process, bind_with_trace = batching.BatchTrace.process_primitive, core.Primitive.bind_with_trace

    def recording_process(self: Any, primitive: Any, tracers: Any, params: Any) -> Any:
        event = {"prim": primitive.name, "level": self.main.level, "rule": [],
                 "inputs": [{"from": made_by.get(id(t), made_by.get(id(t.val))), **value(t.val, t.batch_dim)}
                            for t in tracers]}
        alive.extend(tracers)
        events.append(event)
        running.append(event)
        try:
            out = process(self, primitive, tracers, params)
        finally:
            running.pop()
        made_by[id(out)] = f"op{len(events) - 1}"
        alive.append(out)
        event["out"] = value(out.val, out.batch_dim)
        return out

    def recording_bind(self: Any, trace: Any, args: Any, params: Any) -> Any:
        out = bind_with_trace(self, trace, args, params)
        if running and trace.main.level < running[-1]["level"]:
            shapes = ", ".join(core.get_aval(a).str_short() for a in args)
            running[-1]["rule"].append(f"{self.name}({shapes}) -> {core.get_aval(out).str_short()}")
        return out

    w = jnp.asarray(np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(VMAP_SHAPES["w"]))
    x = jnp.asarray(np.linspace(0.0, 1.0, 12, dtype=np.float32).reshape(VMAP_SHAPES["x"]))
    made_by[id(w)] = "w"
    alive.append(w)

    def program(w: Any, x: Any) -> Any:
        made_by[id(x)] = "x"
        alive.append(x)
        return eval(VMAP_PROGRAM, {"jnp": jnp, "w": w, "x": x})

    batching.BatchTrace.process_primitive = recording_process  # type: ignore[method-assign]
    core.Primitive.bind_with_trace = recording_bind  # type: ignore[method-assign]
    try:
        out = didax.vmap(program, in_axes=VMAP_IN_AXES)(w, x)
    finally:
        batching.BatchTrace.process_primitive = process  # type: ignore[method-assign]
        core.Primitive.bind_with_trace = bind_with_trace  # type: ignore[method-assign]
    return {"program": VMAP_PROGRAM, "in_axes": list(VMAP_IN_AXES),
            "inputs": {"w": value(w, None), "x": value(x, VMAP_IN_AXES[1])},
            "events": events, "result": {"shape": list(core.get_aval(out).shape)}}


def _batched_label(v: dict[str, Any]) -> str:
    """A batched value's shape with its batch axis marked: [3,<4>] is four examples of shape (3,)."""
    dims = [f"<{n}>" if i == v["batch_dim"] else str(n) for i, n in enumerate(v["shape"])]
    where = "not_mapped" if v["batch_dim"] is None else f"batch_dim {v['batch_dim']}"
    return f"[{','.join(dims)}] {where}"


@drawing("vmap-axes", f"`vmap(lambda w, x: {VMAP_PROGRAM}, in_axes={VMAP_IN_AXES})` with w of shape "
         f"{VMAP_SHAPES['w']} and x of shape {VMAP_SHAPES['x']}, recorded: each arrow is a batched value, "
         "its batch axis in angle brackets; each box is one call of the batching interpreter's "
         "process_primitive, with the primitives its rule applied one level down on whole batches. "
         "Only the reshapes move the batch axis (a transpose before each); dot_general, add, tanh and "
         "reduce_sum take it where it is")
def _draw_vmap_axes(data: dict[str, Any]) -> Any:
    g = _digraph("vmap_axes", rankdir="TB", nodesep="0.5", ranksep="0.3")
    g.attr("node", shape="box", style="rounded,filled", fillcolor="white", fontname=MONO, fontsize="10",
           margin="0.1,0.05")
    g.attr("edge", fontname=MONO, fontsize="10", fontcolor=INK, color=ACCENT, penwidth="1.3")
    axes = dict(zip(["w", "x"], data["in_axes"]))
    for name, v in data["inputs"].items():
        g.node(name, f"{name}: shape {tuple(v['shape'])}\nin_axes {axes[name]}", fillcolor="#fef3c7")
    for i, e in enumerate(data["events"]):
        moved = any(op.startswith("transpose(") for op in e["rule"])
        rows = [f'<tr><td><font color="{ACCENT}"><b>{html.escape(e["prim"])}</b></font></td></tr>',
                f'<tr><td><font color="{MUTED}" point-size="9">process_primitive at level {e["level"]}; '
                f'{"the batch axis moves" if moved else "nothing moves"};</font></td></tr>',
                f'<tr><td><font color="{MUTED}" point-size="9">its rule applies, at level {e["level"] - 1}:'
                "</font></td></tr>"]
        rows += [f'<tr><td align="left">{html.escape(op)}</td></tr>' for op in e["rule"]]
        g.node(f"op{i}", f'<<table border="0" cellspacing="0" cellpadding="1">{"".join(rows)}</table>>',
               fillcolor=FILL, color=WEAK if moved else ACCENT)
        for j, inp in enumerate(e["inputs"]):
            source = inp["from"]
            if source is None:  # a constant of the program, boxed by BatchTrace.pure: not_mapped
                source = f"const{i}_{j}"
                g.node(source, "constant", style="rounded,dashed,filled", fillcolor="#fff7ed", color=WEAK,
                       fontcolor=WEAK)
            unmapped = inp["batch_dim"] is None
            g.edge(source, f"op{i}", label=_batched_label(inp), color=WEAK if unmapped else ACCENT,
                   fontcolor=WEAK if unmapped else INK, style="dashed" if unmapped else "solid")
    last = data["events"][-1] if data["events"] else None
    g.node("out", f"vmap returns shape {tuple(data['result']['shape'])}\n(out_axes 0)", fillcolor="#fef3c7")
    if last:
        g.edge(f"op{len(data['events']) - 1}", "out", label=_batched_label(last["out"]))
    return g


# ----------------------------------------------------------------------------------------------
# Jaxprs: a real make_jaxpr drawn as a graph, its nested jaxprs as clusters


# The function of the chapter's figure. `scale` is an array it closes over (a constvar), 2.0 and
# 1.0 are scalars (literals), and the cond's true branch closes over `y`, which the cond is passed
# as an operand.
JAXPR_PROGRAM = """\
scale = np.array([1.0, 2.0, 3.0], np.float32)


def f(x, y):
    z = jnp.sin(x) * scale + 2.0
    w = lax.cond(y > 0, lambda z: z * y, lambda z: -z, z)
    return jnp.sum(w), z - 1.0


args = (jnp.zeros(3), 1.0)
"""


@probe("jaxpr-graph")
def _probe_jaxpr_graph() -> dict[str, Any]:
    """Stage JAXPR_PROGRAM's `f` with make_jaxpr and return its jaxpr as plain data: each jaxpr
    (the top one, then the ones held in equations' parameters) with its binders, equations and
    outputs, every variable under the name the printer gives it."""
    import numpy as np

    import didax
    import didax.numpy as jnp
    from didax import lax
    from didax.jaxpr import ClosedJaxpr, Jaxpr, Literal, PrintContext, pp_jaxpr, pp_literal, short_aval

    scope: dict[str, Any] = {"np": np, "jnp": jnp, "lax": lax, "didax": didax}
    exec(JAXPR_PROGRAM, scope)
    closed = didax.make_jaxpr(scope["f"])(*scope["args"])
    names = PrintContext()
    pp_jaxpr(closed.jaxpr, names)  # names every variable as the printout does

    def binder(v: Any) -> str:
        return f"{names.name(v)}:{short_aval(v.aval)}"

    def atom(x: Any) -> dict[str, str]:
        if type(x) is Literal:  # as the printout writes it, 2.0:f32[]
            return {"literal": pp_literal(x)}
        return {"var": names.name(x), "type": short_aval(x.aval)}

    jaxprs: list[dict[str, Any]] = []

    def walk(jaxpr: Any) -> int:
        entry: dict[str, Any] = {"constvars": [binder(v) for v in jaxpr.constvars],
                                 "invars": [binder(v) for v in jaxpr.invars], "eqns": []}
        jaxprs.append(entry)
        index = len(jaxprs) - 1
        for eqn in jaxpr.eqns:
            params, subs = {}, []
            for key, value in sorted(eqn.params.items()):
                items = value if isinstance(value, tuple) else (value,)
                if items and all(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in items):
                    for i, sub in enumerate(items):
                        label = f"{key}[{i}]" if isinstance(value, tuple) else key
                        subs.append({"param": label, "jaxpr": walk(sub if isinstance(sub, Jaxpr) else sub.jaxpr)})
                else:
                    params[key] = str(value)
            entry["eqns"].append({"primitive": eqn.primitive.name, "params": params, "subs": subs,
                                  "inputs": [atom(x) for x in eqn.invars],
                                  "outputs": [binder(v) for v in eqn.outvars]})
        entry["outvars"] = [atom(x) for x in jaxpr.outvars]
        return index

    walk(closed.jaxpr)
    return {"program": JAXPR_PROGRAM, "printed": str(closed), "jaxprs": jaxprs,
            "consts": [np.array2string(np.asarray(c)) for c in closed.consts]}


def _eqn_label(eqn: dict[str, Any]) -> str:
    """An equation as an HTML-like Graphviz label: what it binds, its primitive, its parameters."""
    rows = [f'<tr><td><font color="{MUTED}" point-size="9">{html.escape(" ".join(eqn["outputs"]))} =</font></td></tr>',
            f'<tr><td><font color="{ACCENT}"><b>{html.escape(eqn["primitive"])}</b></font></td></tr>']
    for key, value in eqn["params"].items():
        text = f"{key}={value}"
        text = text if len(text) <= 44 else text[:41] + "..."
        rows.append(f'<tr><td><font point-size="9">{html.escape(text)}</font></td></tr>')
    return f'<<table border="0" cellspacing="0" cellpadding="1">{"".join(rows)}</table>>'


@drawing("jaxpr-graph", "The jaxpr of the chapter's `f(x, y)`, staged by `make_jaxpr` when this page was built and "
         "drawn from its data structure: the constvar (dashed) and the invars at the top, one box per equation "
         "(what it binds, its primitive, its parameters), an arrow from each variable to every equation that "
         "reads it, literals written into their equations, and the outputs at the bottom. A jaxpr held in an "
         "equation's parameters (a branch or a loop body) is drawn as a cluster of its own")
def _draw_jaxpr_graph(data: dict[str, Any]) -> Any:
    g = _digraph("jaxpr_graph", rankdir="TB", nodesep="0.35", ranksep="0.35", compound="true", newrank="true")
    g.attr("node", shape="box", style="rounded,filled", fillcolor="white", fontname=MONO, fontsize="10",
           margin="0.1,0.04", height="0.3")
    g.attr("edge", fontname=MONO, fontsize="9", fontcolor=INK, color=ACCENT)
    consts = iter(data["consts"])

    def draw(index: int, graph: Any) -> str:
        """Draw jaxpr `index` into `graph`; returns its first node (a cluster's arrows point at it)."""
        j, prefix = data["jaxprs"][index], f"j{index}_"
        made_by: dict[str, str] = {}  # variable name -> the node that binds it
        for v in j["constvars"]:
            node = prefix + v.split(":")[0]
            graph.node(node, f"{v}\nconstvar = {next(consts, '?')}", style="rounded,dashed,filled",
                       fillcolor="#fff7ed", color=WEAK, fontcolor=WEAK)
            made_by[v.split(":")[0]] = node
        for v in j["invars"]:
            node = prefix + v.split(":")[0]
            graph.node(node, f"{v}\ninvar", fillcolor="#fef3c7")
            made_by[v.split(":")[0]] = node
        with graph.subgraph() as binders:  # the jaxpr's binders side by side, at its top
            binders.attr(rank="same")
            order = list(made_by.values())
            for left, right in zip(order, order[1:]):  # in the printout's order, left to right
                binders.edge(left, right, style="invis")
        first = next(iter(made_by.values()), None)
        for k, eqn in enumerate(j["eqns"]):
            node = f"{prefix}e{k}"
            graph.node(node, _eqn_label(eqn), fillcolor=FILL, color=ACCENT)
            first = first or node
            for m, x in enumerate(eqn["inputs"]):
                if "literal" in x:
                    lit = f"{node}_lit{m}"
                    graph.node(lit, x["literal"], shape="plaintext", style="", fontcolor=WEAK)
                    graph.edge(lit, node, color=WEAK, style="dashed")
                else:
                    graph.edge(made_by[x["var"]], node, label=x["var"])
            for sub in eqn["subs"]:
                name = f"cluster_j{sub['jaxpr']}"
                with g.subgraph(name=name) as cluster:
                    cluster.attr(label=f"{sub['param']} of {eqn['primitive']}", fontname=MONO, fontcolor=INK,
                                 color=MUTED, style="rounded,dashed")
                    target = draw(sub["jaxpr"], cluster)
                graph.edge(node, target, lhead=name, style="dotted", color=MUTED, arrowhead="odiamond")
            for v in eqn["outputs"]:
                made_by[v.split(":")[0]] = node
        out = f"{prefix}out"
        listed = ", ".join(x.get("var") or x["literal"] for x in j["outvars"])
        graph.node(out, f"in ({listed}{',' if len(j['outvars']) == 1 else ''})", shape="box",
                   style="rounded", color=MUTED, fontcolor=INK)
        for m, x in enumerate(j["outvars"]):
            if "literal" in x:
                lit = f"{out}_lit{m}"
                graph.node(lit, x["literal"], shape="plaintext", style="", fontcolor=WEAK)
                graph.edge(lit, out, color=WEAK, style="dashed")
            else:
                graph.edge(made_by[x["var"]], out, label=x["var"])
        return first or out

    draw(0, g)
    return g


# ----------------------------------------------------------------------------------------------
# jit: the pipeline a call goes through, and the cache that skips it, from a real run


# The function of the chapter's pipeline figure, and the calls made to it: the second has new
# values of the first's types (a hit), the third a new shape (a miss).
JIT_PROGRAM = "jnp.sin(x) * 2.0"
JIT_CALLS = ["jnp.ones(3)", "jnp.arange(3.0)", "jnp.ones(5)"]


@probe("jit-pipeline")
def _probe_jit_pipeline() -> dict[str, Any]:
    """Call jit(f) on JIT_CALLS, counting what each call traced and compiled (xla.compile is
    wrapped to count), and return the first signature's jaxpr, StableHLO and compiled HLO."""
    import didax
    import didax.numpy as jnp
    from didax import xla
    from didax.core import get_aval
    from didax.tree_util import tree_flatten

    counts = {"traced": 0, "compiled": 0}
    compile_ = xla.compile

    def counting_compile(*args: Any, **kwargs: Any) -> Any:
        counts["compiled"] += 1
        return compile_(*args, **kwargs)

    xla.compile = counting_compile

    def f(x: Any) -> Any:
        counts["traced"] += 1
        return eval(JIT_PROGRAM, {"jnp": jnp, "x": x})

    jitted = didax.jit(f)
    calls = []
    for text in JIT_CALLS:
        arg = eval(text, {"jnp": jnp})
        before = dict(counts)
        out = jitted(arg)
        leaves, tree = tree_flatten(((arg,), {}))
        calls.append({"arg": text, "signature": ", ".join(get_aval(x).str_short() for x in leaves),
                      "tree": str(tree), "traced": counts["traced"] - before["traced"],
                      "compiled": counts["compiled"] - before["compiled"], "result": type(out).__name__})
    first = eval(JIT_CALLS[0], {"jnp": jnp})
    hlo = jitted.lower(first).compile().as_text()
    entry = hlo[hlo.index("ENTRY"):]
    root = next(line.strip() for line in entry.splitlines() if line.strip().startswith("ROOT"))
    return {"program": JIT_PROGRAM, "calls": calls, "jaxpr": str(jitted.trace(first).jaxpr),
            "stablehlo": jitted.lower(first).as_text(), "root": root.split(", metadata=")[0],
            "device": str(xla.default_device())}


def _code_label(title: str, text: str, note: str = "") -> str:
    """A box of code: a title, then the text's lines left-aligned in a monospaced font."""
    rows = [f'<tr><td align="left"><font face="{FONT}" color="{ACCENT}"><b>{html.escape(title)}</b></font></td></tr>']
    if note:
        rows.append(f'<tr><td align="left"><font face="{FONT}" color="{MUTED}" point-size="9">{html.escape(note)}'
                    "</font></td></tr>")
    rows += [f'<tr><td align="left">{html.escape(line) or " "}</td></tr>' for line in text.rstrip().splitlines()]
    return f'<<table border="0" cellspacing="0" cellpadding="1">{"".join(rows)}</table>>'


@drawing("jit-pipeline", f"What a call of `jit(f)` goes through, for `f(x) = {JIT_PROGRAM}`, recorded when this "
         "page was built: the first call with a new signature of types is traced to a jaxpr, lowered to "
         "StableHLO and compiled by XLA (the texts are the real ones, for float32[3]), and the executable is "
         "cached under the signature; a later call with the same signature goes from the cache straight to "
         "the executable. The table is what each call did")
def _draw_jit_pipeline(data: dict[str, Any]) -> Any:
    g = _digraph("jit_pipeline", rankdir="TB", nodesep="0.5", ranksep="0.35")
    g.attr("node", shape="box", style="rounded,filled", fillcolor="white", fontname=MONO, fontsize="10",
           margin="0.12,0.06")
    g.attr("edge", fontname=FONT, fontsize="9", fontcolor=INK, color=ACCENT, penwidth="1.3")
    g.node("fun", _code_label("the Python function", f"def f(x):\n    return {data['program']}"),
           fillcolor="#fef3c7")
    rows = "".join(
        f'<tr><td align="left">{html.escape(c["arg"])}</td><td align="left">{html.escape(c["signature"])}</td>'
        f'<td align="left"><font color="{WEAK if c["traced"] else ACCENT}">'
        f'{"miss: traced, compiled" if c["traced"] else "hit: run only"}</font></td>'
        f'<td>{c["traced"]}</td><td>{c["compiled"]}</td></tr>'
        for c in data["calls"])
    head = "".join(f'<td align="left"><font face="{FONT}" color="{MUTED}">{h}</font></td>'
                   for h in ["call with", "signature", "cache", "traced", "compiled"])
    g.node("cache", f'<<table border="0" cellspacing="0" cellpadding="2"><tr><td colspan="5" align="left">'
                    f'<font face="{FONT}" color="{ACCENT}"><b>the cache of jit(f), keyed by the signature</b></font>'
                    f'</td></tr><tr><td colspan="5" align="left"><font face="{FONT}" color="{MUTED}" point-size="9">'
                    "(argument tree, each leaf's shape, dtype and weak type, static arguments, x64 flag)"
                    f"</font></td></tr><tr>{head}</tr>{rows}</table>>", fillcolor=FILL, color=ACCENT)
    g.node("jaxpr", _code_label("jaxpr", data["jaxpr"], "traced once per signature (stage 04's staging)"))
    g.node("hlo", _code_label("StableHLO module", data["stablehlo"], "lowered by didax/lowering, as MLIR text"))
    g.node("exe", _code_label(f"executable for {data['device']}", data["root"],
                              "compiled by XLA (didax/xla.py); the root of its optimized HLO:"),
           fillcolor=FILL)
    g.node("out", "outputs: Arrays whose data stays on the device", fillcolor="#fef3c7")
    g.edge("fun", "cache", label=" call jit(f)(x)")
    g.edge("cache", "jaxpr", label=" miss: trace", color=WEAK, fontcolor=WEAK)
    g.edge("jaxpr", "hlo", label=" lower")
    g.edge("hlo", "exe", label=" compile, and store in the cache")
    g.edge("cache", "exe", label=" hit: run at once", style="bold", constraint="false")
    g.edge("exe", "out", label=" run")
    return g



# ----------------------------------------------------------------------------------------------
# vjp: what linearize computes at once, what it records, and the recording run backwards


LINEARIZE_PROGRAM = "jnp.sin(x) * x"  # the chapter's f, at x = 3.0


@probe("linearize-transpose")
def _probe_linearize_transpose() -> dict[str, Any]:
    """Linearize LINEARIZE_PROGRAM at 3.0 with the evaluation interpreter's process_primitive
    wrapped, to log each primitive computed at once; then the linear jaxpr linearize left, and the
    jaxpr of its transpose (make_jaxpr of the function vjp returns), as data."""
    import numpy as np

    import didax
    import didax.numpy as jnp
    from didax import core
    from didax.jaxpr import Literal, PrintContext, pp_jaxpr, pp_literal, short_aval

    f = lambda x: eval(LINEARIZE_PROGRAM, {"jnp": jnp, "x": x})  # noqa: E731
    computed: list[dict[str, str]] = []
    evaluate = core.EvalTrace.process_primitive

    def logged(self: Any, primitive: Any, tracers: list[Any], params: dict) -> Any:
        out = evaluate(self, primitive, tracers, params)
        computed.append({"primitive": primitive.name, "inputs": " ".join(_short(x) for x in tracers),
                         "output": _short(out)})
        return out

    def _short(x: Any) -> str:
        return np.array2string(np.asarray(x), precision=4)

    core.EvalTrace.process_primitive = logged
    try:
        _, f_lin = didax.linearize(f, 3.0)
    finally:
        core.EvalTrace.process_primitive = evaluate
    _, f_vjp = didax.vjp(f, 3.0)

    def as_data(closed: Any) -> dict[str, Any]:
        names = PrintContext()
        pp_jaxpr(closed.jaxpr, names)
        atom = lambda x: pp_literal(x) if type(x) is Literal else names.name(x)  # noqa: E731
        return {"constvars": [f"{names.name(v)}:{short_aval(v.aval)}" for v in closed.jaxpr.constvars],
                "consts": [_short(c) for c in closed.consts],
                "invars": [f"{names.name(v)}:{short_aval(v.aval)}" for v in closed.jaxpr.invars],
                "eqns": [{"primitive": e.primitive.name, "params": {}, "inputs": [atom(x) for x in e.invars],
                          "outputs": [f"{names.name(v)}:{short_aval(v.aval)}" for v in e.outvars]}
                         for e in closed.jaxpr.eqns],
                "outvars": [atom(x) for x in closed.jaxpr.outvars], "printed": str(closed)}

    return {"program": LINEARIZE_PROGRAM, "computed": computed,
            "linear": as_data(didax.make_jaxpr(f_lin)(1.0)),
            "transposed": as_data(didax.make_jaxpr(lambda ct: f_vjp(ct)[0])(1.0))}


def _draw_program(graph: Any, prefix: str, j: dict[str, Any], reversed_order: bool = False) -> None:
    """A jaxpr's binders and equations as boxes, an arrow from each variable to its readers."""
    made_by: dict[str, str] = {}
    for v, value in zip(j["constvars"], j["consts"]):
        node = prefix + v.split(":")[0]
        graph.node(node, f"{v}\nresidual = {value}", style="rounded,dashed,filled", fillcolor="#fff7ed",
                   color=WEAK, fontcolor=WEAK)
        made_by[v.split(":")[0]] = node
    for v in j["invars"]:
        node = prefix + v.split(":")[0]
        graph.node(node, f"{v}\n{'cotangent in' if reversed_order else 'tangent in'}", fillcolor="#fef3c7")
        made_by[v.split(":")[0]] = node
    for k, eqn in enumerate(j["eqns"]):
        node = f"{prefix}e{k}"
        graph.node(node, _eqn_label(eqn), fillcolor=FILL, color=ACCENT)
        for x in eqn["inputs"]:
            if x in made_by:
                graph.edge(made_by[x], node, label=x)
        for v in eqn["outputs"]:
            made_by[v.split(":")[0]] = node
    out = f"{prefix}out"
    graph.node(out, f"{'cotangent' if reversed_order else 'tangent'} out: {', '.join(j['outvars'])}", style="rounded",
               color=MUTED, fontcolor=INK)
    for x in j["outvars"]:
        if x in made_by:
            graph.edge(made_by[x], out, label=x)


def _draw_linearize(data: dict[str, Any], rankdir: str) -> Any:
    g = _digraph("linearize_transpose", rankdir=rankdir, nodesep="0.3", ranksep="0.35", compound="true")
    g.attr("node", shape="box", style="rounded,filled", fillcolor="white", fontname=MONO, fontsize="10",
           margin="0.1,0.04", height="0.3")
    g.attr("edge", fontname=MONO, fontsize="9", fontcolor=INK, color=ACCENT)
    titles = [("cluster_known", f"1. computed at once by linearize (f = {data['program']}, x = 3.0)"),
              ("cluster_linear", "2. recorded: the linear jaxpr, residuals as its constants"),
              ("cluster_transposed", "3. transposed: the same jaxpr run backwards (vjp)")]
    with g.subgraph(name=titles[0][0]) as c:
        c.attr(label=titles[0][1], fontname=MONO, fontcolor=INK, color=MUTED, style="rounded,dashed")
        previous = None
        for k, op in enumerate(data["computed"]):
            node = f"k{k}"
            c.node(node, f"{op['primitive']} {op['inputs']}\n= {op['output']}", fillcolor="#ecfdf5",
                   color="#047857")
            if previous:
                c.edge(previous, node, style="invis")
            previous = node
    for (name, title), key, backwards in ((titles[1], "linear", False), (titles[2], "transposed", True)):
        with g.subgraph(name=name) as c:
            c.attr(label=title, fontname=MONO, fontcolor=INK, color=MUTED, style="rounded,dashed")
            _draw_program(c, key[0], data[key], reversed_order=backwards)
    return g


@drawing("linearize-transpose", "Reverse mode on the chapter's f at 3.0, from a real run when this page was built: "
         "left, the primitives linearize computed at once (every one whose inputs were known: the primal "
         "computation and the parts of the tangent rules that need only primals); middle, the equations it "
         "recorded instead, the linear jaxpr, whose constants are residuals the left column computed; right, "
         "that jaxpr transposed, as vjp runs it: the cotangent flows from the output back to the input",
         narrow=lambda data: _draw_linearize(data, "TB"))
def _draw_linearize_transpose(data: dict[str, Any]) -> Any:
    return _draw_linearize(data, "LR")

# ----------------------------------------------------------------------------------------------
# Sharding: a mesh of devices, and where the blocks of one array go under several specs


SHARDING_MESH = ((2, 4), ("a", "b"))  # make_mesh's shape and axis names, on 8 CPU devices
SHARDING_SHAPE = (4, 8)  # the array spread over it
SHARDING_SPECS = [("a", "b"), ("a",), (None, "b"), ()]  # the P(...) of each panel
# One fill per block of the array, the same block the same colour in every panel.
BLOCK_FILLS = ["#dbeafe", "#fde68a", "#bbf7d0", "#fecaca", "#e9d5ff", "#fed7aa", "#a5f3fc", "#f5d0fe"]


def _slice_text(index: list[list[Any]]) -> str:
    """[[0, 2], [None, None]] as 0:2, : (each axis's slice, as numpy writes it)."""
    return ", ".join(":" if a is None and b is None else f"{a}:{b}" for a, b in index)


@probe("sharding-mesh")
def _probe_sharding_mesh() -> dict[str, Any]:
    """Put an array of SHARDING_SHAPE on a mesh of SHARDING_MESH under each spec of SHARDING_SPECS
    and read back, from the Array's own addressable_shards, which block each device holds."""
    import numpy as np

    import didax
    from didax.sharding import NamedSharding, PartitionSpec as P

    didax.config.update("jax_num_cpu_devices", 8)
    mesh = didax.make_mesh(*SHARDING_MESH)
    x = np.arange(math.prod(SHARDING_SHAPE), dtype=np.float32).reshape(SHARDING_SHAPE)
    position = {d.id: [int(i) for i in at] for at, d in np.ndenumerate(mesh.devices)}
    panels = []
    for spec in SHARDING_SPECS:
        sharding = NamedSharding(mesh, P(*spec))
        arr = didax.device_put(x, sharding)
        shards = [{"device": s.device.id, "at": position[s.device.id], "replica": int(s.replica_id),
                   "index": [[sl.start, sl.stop] for sl in s.index], "shape": list(s.data.shape)}
                  for s in arr.addressable_shards]
        panels.append({"spec": repr(P(*spec)), "shard_shape": list(sharding.shard_shape(SHARDING_SHAPE)),
                       "replicated": bool(sharding.is_fully_replicated), "shards": shards})
    return {"axis_names": list(mesh.axis_names), "axis_sizes": list(mesh.axis_sizes),
            "device_ids": [[d.id for d in row] for row in mesh.devices],
            "shape": list(SHARDING_SHAPE), "panels": panels}


def _mesh_panel(data: dict[str, Any], panel: dict[str, Any]) -> str:
    """One spec: the mesh's grid of devices, each cell the block of x that device holds, coloured
    by block (so cells of one colour hold copies of one block)."""
    (na, nb), (a, b) = data["axis_sizes"], data["axis_names"]
    blocks: dict[str, int] = {}
    cells: dict[tuple[int, int], str] = {}
    for s in panel["shards"]:
        where = _slice_text(s["index"])
        colour = BLOCK_FILLS[blocks.setdefault(where, len(blocks)) % len(BLOCK_FILLS)]
        cells[tuple(s["at"])] = (f'<td bgcolor="{colour}" border="1" cellpadding="4">device {s["device"]}<br/>'
                                 f'x[{html.escape(where)}]<br/><font color="{MUTED}">replica {s["replica"]}</font></td>')
    shape = "[" + ",".join(map(str, panel["shard_shape"])) + "]"
    head = (f'<tr><td colspan="{nb + 1}" align="left"><font face="{FONT}" color="{ACCENT}"><b>'
            f'NamedSharding(mesh, {html.escape(panel["spec"])})</b></font></td></tr>'
            f'<tr><td colspan="{nb + 1}" align="left"><font face="{FONT}" color="{MUTED}">'
            f'{len(blocks)} block{"s" if len(blocks) > 1 else ""} of shape {shape}, '
            f'{len(panel["shards"]) // len(blocks)} cop{"ies" if len(panel["shards"]) > len(blocks) else "y"} '
            "of each</font></td></tr>")
    top = "".join(f'<td><font face="{FONT}" color="{MUTED}">{b}={j}</font></td>' for j in range(nb))
    rows = [f"<tr><td></td>{top}</tr>"]
    for i in range(na):
        rows.append(f'<tr><td><font face="{FONT}" color="{MUTED}">{a}={i}</font></td>'
                    + "".join(cells[(i, j)] for j in range(nb)) + "</tr>")
    return f'<<table border="0" cellspacing="2" cellpadding="2">{head}{"".join(rows)}</table>>'


def _draw_sharding(data: dict[str, Any], per_row: int) -> Any:
    g = _digraph("sharding_mesh", rankdir="TB", nodesep="0.4", ranksep="0.3")
    g.attr("node", shape="box", style="rounded", color=MUTED, fontname=MONO, fontsize="10", margin="0.1,0.06")
    sizes = ", ".join(f"'{n}': {s}" for n, s in zip(data["axis_names"], data["axis_sizes"]))
    shape = "[" + ",".join(map(str, data["shape"])) + "]"
    g.node("mesh", f"mesh = make_mesh({tuple(data['axis_sizes'])}, {tuple(data['axis_names'])}): Mesh({sizes})\n"
                   f"x = arange({math.prod(data['shape'])}.0).reshape{tuple(data['shape'])}: f32{shape}, "
                   "put on the mesh under each spec", color=ACCENT, margin="0.25,0.08")
    names = [f"spec{k}" for k in range(len(data["panels"]))]
    for name, panel in zip(names, data["panels"]):
        g.node(name, _mesh_panel(data, panel))
    for start in range(0, len(names), per_row):
        row = names[start:start + per_row]
        with g.subgraph() as same:
            same.attr(rank="same")
            for name in row:
                same.node(name)
        if start == 0:
            for name in row:
                g.edge("mesh", name, style="invis")
        else:
            for above, name in zip(names[start - per_row:start], row):
                g.edge(above, name, style="invis")
    return g


@drawing("sharding-mesh", "A mesh of 8 CPU devices with axes 'a' (2) and 'b' (4), and where the blocks of one "
         "f32[4,8] array live under four specs, read from the Arrays' addressable_shards when this page was built: "
         "each cell is a device at its place in the mesh, with the block of x it holds; cells of one colour hold "
         "copies of one block (replica is the shard's replica_id). An array axis is cut along the mesh axis its spec names; a mesh axis the spec "
         "leaves out holds copies (P('a'): the 4 devices of a row hold the same rows of x)",
         narrow=lambda data: _draw_sharding(data, 1))
def _draw_sharding_mesh(data: dict[str, Any]) -> Any:
    return _draw_sharding(data, 2)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "probe":
        json.dump(PROBES[sys.argv[2]](), sys.stdout)
    else:
        sys.exit("usage: PYTHONPATH=stages/<stage> python site/figures.py probe NAME")
