"""The pictures are drawn from the stage's code at build time: the lattice from dtypes.py's
tables, the dispatch from a recorded run through bind, the pytree from a real tree_flatten, the
(primal, tangent) pairs from a recorded jvp, the batch axes from a recorded vmap, the jaxpr from a
real make_jaxpr, jit's pipeline and cache from real calls of a jitted function."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from site_common import ROOT, SITE  # puts site/ on sys.path first

import figures  # noqa: E402


def stage_eval(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "stages" / "01_eval")}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout


def test_the_lattice_figures_hold_every_node_and_edge_of_the_tables():
    for name, table in [("lattice", "_standard_lattice(True)"), ("lattice-strict", "_strict_lattice()")]:
        edges = int(stage_eval(f"from didax import dtypes; print(sum(map(len, dtypes.{table}.values())))"))
        data = figures.probe_data(name, "01_eval")
        assert len(data["edges"]) == edges > 0
        svg = figures.render_svg(name, "01_eval")
        assert svg.count('class="edge"') == edges
        for node in ["bool", "i*", "f*", "c*", "bfloat16", "uint64", "complex128"]:
            assert f">{node}</text>" in svg, (name, node)


def test_the_trace_stack_figure_is_a_recorded_dispatch():
    data = figures.probe_data("trace-stack", "01_eval")
    assert [s["level"] for s in data["stack"]] == [0, 1]
    seen = [(e["prim"], e["level"], e["depth"]) for e in data["events"]]
    # sin of the tracer goes to level 1, whose process_primitive binds it again at level 0.
    assert seen[:2] == [("sin", 1, 0), ("sin", 0, 1)]
    assert ("cos", 0, 0) in seen  # a constant goes straight to evaluation
    svg = figures.render_svg("trace-stack", "01_eval")
    assert "level 1: LoggingTrace" in svg and "level 0: EvalTrace" in svg


def test_the_pytree_figure_shows_the_real_treedef_and_leaves():
    data = figures.probe_data("pytree", "01_eval")
    assert data["treedef"] == "PyTreeDef({'b': *, 'meta': None, 'w': [*, *]})"
    assert data["leaves"] == ["0.5", "1.0", "2.0"]
    svg = figures.render_svg("pytree", "01_eval")
    assert "PyTreeDef" in svg and "tree_unflatten" in svg


def chapter_figures() -> dict[str, str]:
    """{figure: the stage of the chapter that shows it}, read from the chapters' markers."""
    found = {}
    for chapter in sorted((SITE / "docs" / "stages").glob("*.md")):
        text = chapter.read_text()
        stage = re.match(r"---\nstage: (\w+)\n", text).group(1)
        for name in re.findall(r"^<!-- didax:figure ([\w-]+) -->$", text, re.M):
            found.setdefault(name, stage)
    return found


def test_ids_are_unique_per_figure_and_the_svg_scales():
    svgs = [figures.render_svg(name, stage) for name, stage in chapter_figures().items()]
    ids = [i for svg in svgs for i in re.findall(r'\bid="([^"]+)"', svg)]
    assert len(ids) == len(set(ids))
    assert all(svg.startswith("<svg") and 'style="max-width:' in svg for svg in svgs)


def test_every_probe_has_a_drawing_and_a_chapter_uses_each():
    assert set(figures.PROBES) == set(figures.DRAWINGS)
    assert set(chapter_figures()) == set(figures.DRAWINGS)
    assert chapter_figures()["jvp-pairs"] == "02_jvp" and chapter_figures()["trace-stack"] == "01_eval"
    assert chapter_figures()["vmap-axes"] == "03_vmap"
    assert chapter_figures()["jaxpr-graph"] == "04_jaxpr"
    assert chapter_figures()["jit-pipeline"] == "05_jit"


def test_the_jvp_pairs_figure_is_a_recorded_jvp():
    data = figures.probe_data("jvp-pairs", "02_jvp")
    assert data["program"] == figures.JVP_PROGRAM == "jnp.sin(x) * x + 2.0"
    events = data["events"]
    assert [(e["prim"], e["level"]) for e in events] == [("sin", 1), ("mul", 1), ("add", 1)]
    # Where each input came from: x, the result of an earlier operation, or a constant.
    assert [[i["from"] for i in e["inputs"]] for e in events] == [["x"], ["op0", "x"], ["op1", None]]
    assert events[2]["inputs"][1] == {"from": None, "primal": "2.0", "tangent": "Zero"}
    assert events[0]["out"] == {"primal": "0.1411", "tangent": "-0.99"}  # (sin 3, cos 3)
    assert events[0]["rule"] == ["sin(3.0) = 0.1411", "cos(3.0) = -0.99", "mul(1.0, -0.99) = -0.99"]
    assert events[2]["rule"] == ["add(0.4234, 2.0) = 2.423"]  # the Zero tangent adds nothing
    # d/dx (sin(x) * x + 2) = cos(x) * x + sin(x), at 3
    assert float(data["result"]["tangent"]) == pytest.approx(3 * math.cos(3.0) + math.sin(3.0), abs=1e-3)
    svg = figures.render_svg("jvp-pairs", "02_jvp")
    assert "process_primitive at level 1" in svg and "(2.0, Zero)" in svg and "jvp returns" in svg
    # x into sin and mul, sin into mul, mul and the constant into add, add into the result
    assert svg.count('class="edge"') == 6



def test_the_vmap_axes_figure_is_a_recorded_vmap():
    data = figures.probe_data("vmap-axes", "03_vmap")
    assert data["program"] == figures.VMAP_PROGRAM == "jnp.tanh(w @ x + 1.0).sum(0)"
    events = data["events"]
    # w @ x is one dot_general, as JAX's matmul makes it: no reshape around the vector
    assert [e["prim"] for e in events] == ["dot_general", "add", "tanh", "reduce_sum"]
    assert all(e["level"] == 1 for e in events)
    # Where each operand came from, with its batched shape and batch_dim.
    assert [[i["from"] for i in e["inputs"]] for e in events] == [["w", "x"], ["op0", None], ["op1"], ["op2"]]
    assert events[0]["inputs"] == [{"from": "w", "shape": [2, 3], "batch_dim": None},
                                   {"from": "x", "shape": [3, 4], "batch_dim": 1}]
    # The batch axis is a free dimension of dot_general's right operand, left at 1 until the sum.
    assert [(e["out"]["shape"], e["out"]["batch_dim"]) for e in events] == [
        ([2, 4], 1), ([2, 4], 1), ([2, 4], 1), ([4], 0)]
    assert events[0]["rule"] == ["dot_general(float32[2,3], float32[3,4]) -> float32[2,4]"]  # no transpose
    assert events[1]["rule"] == ["add(float32[2,4], float32[]) -> float32[2,4]"]  # the scalar is added as it is
    assert data["result"] == {"shape": [4]}
    svg = figures.render_svg("vmap-axes", "03_vmap")
    assert "[3,&lt;4&gt;] batch_dim 1" in svg and "not_mapped" in svg and "vmap returns shape (4,)" in svg
    # w, x and the constant in; four operations chained; the last into the result
    assert svg.count('class="edge"') == 7


def printed_equations(printed: str) -> list[tuple[str, str]]:
    """(what an equation binds, its primitive) for every equation of a printed jaxpr, nested ones
    included, read from the printer's text alone."""
    return re.findall(r"((?:\b[a-z_]+:[a-z0-9]+\[[\d,]*\] ?)+) = ([\w-]+)", printed)


def test_the_jaxpr_graph_figure_is_the_staged_jaxpr():
    data = figures.probe_data("jaxpr-graph", "04_jaxpr")
    assert data["program"] == figures.JAXPR_PROGRAM
    jaxprs = data["jaxprs"]
    # The walk and the printer agree: the top binders, and every equation (nested ones too) with
    # the names the printout gives its variables.
    first = data["printed"].splitlines()[0]
    top = jaxprs[0]
    assert first.startswith(f"{{ lambda {' '.join(top['constvars'])}; {' '.join(top['invars'])}.")
    walked = [(" ".join(e["outputs"]), e["primitive"]) for j in jaxprs for e in j["eqns"]]
    assert sorted(walked) == sorted((binds.strip(), prim) for binds, prim in printed_equations(data["printed"]))
    # The chapter's f closes over one array (a constvar) and writes its scalars as literals.
    assert top["constvars"] == ["a:f32[3]"] and data["consts"] == ["[1. 2. 3.]"]
    literals = [x["literal"] for j in jaxprs for e in j["eqns"] for x in e["inputs"] if "literal" in x]
    assert sorted(literals) == ["0.0:f32[]", "1.0:f32[]", "2.0:f32[]"]
    # The cond holds its two branches, each a jaxpr of its own; the true branch closes over y, which
    # the cond is passed as an operand (its first after the index), and so is every branch.
    [cond] = [e for e in top["eqns"] if e["subs"]]
    assert cond["primitive"] == "cond" and [s["param"] for s in cond["subs"]] == ["branches[0]", "branches[1]"]
    assert cond["inputs"][1]["var"] == top["invars"][1].split(":")[0]
    assert all(len(jaxprs[s["jaxpr"]]["invars"]) == len(cond["inputs"]) - 1 for s in cond["subs"])
    # Every variable is bound once, before it is read.
    for j in jaxprs:
        bound = {v.split(":")[0] for v in j["constvars"] + j["invars"]}
        for e in j["eqns"]:
            assert all(x["var"] in bound for x in e["inputs"] if "var" in x), e
            assert not bound & {v.split(":")[0] for v in e["outputs"]}
            bound |= {v.split(":")[0] for v in e["outputs"]}
    svg = figures.render_svg("jaxpr-graph", "04_jaxpr")
    # An arrow per operand read, per output, and one from each control-flow equation to each of its jaxprs.
    reads = sum(len(e["inputs"]) + len(e["subs"]) for j in jaxprs for e in j["eqns"])
    assert svg.count('class="edge"') == reads + sum(len(j["outvars"]) for j in jaxprs)
    assert svg.count('class="cluster"') == len(jaxprs) - 1
    assert "constvar = [1. 2. 3.]" in svg and "reduce_sum" in svg and "branches[1] of cond" in svg


def test_the_jit_pipeline_figure_is_a_recorded_run_of_jit():
    data = figures.probe_data("jit-pipeline", "05_jit")
    assert data["program"] == figures.JIT_PROGRAM and [c["arg"] for c in data["calls"]] == figures.JIT_CALLS
    # New values of the same types hit the cache; a new shape is traced and compiled again.
    assert [(c["signature"], c["traced"], c["compiled"]) for c in data["calls"]] == [
        ("float32[3]", 1, 1), ("float32[3]", 0, 0), ("float32[5]", 1, 1)]
    assert all(c["result"] == "Array" for c in data["calls"])
    assert data["jaxpr"] == "{ lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = mul b 2.0:f32[] in (c,) }"
    assert "stablehlo.sine %arg0 : tensor<3xf32>" in data["stablehlo"]
    assert data["root"].startswith("ROOT ") and "metadata" not in data["root"]
    svg = figures.render_svg("jit-pipeline", "05_jit")
    # The five steps and the two ways out of the cache: a miss down the pipeline, a hit straight to the executable.
    assert svg.count('class="node"') == 6 and svg.count('class="edge"') == 6
    for text in ["miss: trace", "hit: run at once", "stablehlo.multiply", "hit: run only", "float32[5]"]:
        assert text in svg, text


def test_unknown_figures_and_a_missing_dot_are_clear_errors(monkeypatch: pytest.MonkeyPatch):
    with pytest.raises(figures.FigureError, match="no figure named 'nope'"):
        figures.figure_html("nope", "01_eval")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(figures.FigureError, match="Graphviz's `dot` is not installed"):
        figures.render_svg("lattice", "01_eval")


def test_the_built_chapters_have_their_pictures(built_site: Path):
    for name, stage in chapter_figures().items():
        chapter = (built_site / "stages" / stage / "index.html").read_text()
        narrow = figures.DRAWINGS[name].narrow is not None
        classes = "didax-figure didax-has-narrow" if narrow else "didax-figure"
        figure = re.search(rf'<figure class="{classes}" id="figure-{name}">(<svg.*?)</figure>', chapter, re.S)
        assert figure, (name, stage)
        assert figure[1].count('<svg class="didax-') == 1 + narrow
        # The caption links to the figure's SVG file on its own, the drawing the wide screen shows.
        link = re.search(r'<a href="\.\./\.\./(assets/figures/[\w-]+\.svg)">open it full size</a></figcaption>', figure[1])
        assert link, name
        alone = (built_site / link[1]).read_text()
        wide = figure[1].split('class="didax-narrow"')[0]  # (a figure may have no edges: the mesh's boxes)
        assert alone.startswith("<?xml") and alone.count('class="node"') == wide.count('class="node"') > 0
        assert alone.count('class="edge"') == wide.count('class="edge"')


def test_the_lattice_has_a_narrow_drawing_of_the_same_graph_for_a_phone():
    wide, narrow = figures.draw_svgs("lattice", "01_eval")
    assert narrow is not None
    size = {svg: tuple(float(v) for v in re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups())
            for svg in (wide, narrow)}
    assert size[wide][0] > 3 * size[narrow][0]  # a long row, and a narrow column
    assert sorted(re.findall(r"<title>(.*?)</title>", wide)) == sorted(re.findall(r"<title>(.*?)</title>", narrow))
    # On a phone the drawing is shown no narrower than where its smallest text is 9.5 px tall.
    inline = figures.inline_svg(narrow, "x-", "didax-narrow")
    natural, phone = (int(v) for v in re.search(r"--didax-natural: (\d+)px; --didax-phone: (\d+)px", inline).groups())
    assert natural == round(size[narrow][0] * 4 / 3) and phone <= natural
    assert phone * 11 / size[narrow][0] >= 9.5 - 0.1  # the lattice's text is 11 (pt, the drawing's unit)

