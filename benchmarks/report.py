"""Turn measurements into the results file (JSON) and its Markdown table.

The JSON holds everything: the metadata (when, where, what), per case each implementation's timing
(or null where it has no equivalent) and the ratios, and the tables ready to show, which the course
site renders as they are (site/sitegen.py). The Markdown file beside it is the same tables for people
reading the repository.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cases import IMPLS, Case
from .timing import Timing

LABELS = {"numpy": "NumPy", "didax": "didax", "jax": "JAX"}
RATIOS = (("didax", "jax"), ("didax", "numpy"))
LEGEND = ("Microseconds per call, the best of {repeats} repeats (the JSON also has the median); ratios "
          "compare the best times, below 1 means didax is faster. — where NumPy has no equivalent.")


def results_json(title: str, meta: dict[str, Any], measured: list[tuple[Case, dict[str, Timing | None]]],
                 suite_tables: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """The whole results file, from the cases and their timings per implementation; `suite_tables`
    adds a suite's own tables, made from the cases' JSON entries."""
    cases = [_case_json(case, timings) for case, timings in measured]
    tables = [_main_table(cases)]
    growth = [c for c in cases if c["ops"] > 1]
    if growth:
        tables.append(_growth_table(growth))
    if suite_tables:
        tables += suite_tables(cases)
    return {
        "title": title,
        "measured": measured_line(meta),
        "legend": LEGEND.format(repeats=meta["timing"]["repeats"]),
        "meta": meta,
        "cases": cases,
        "tables": tables,
    }


def _backend(machine: dict[str, Any]) -> str:
    """'cpu', or 'gpu (NVIDIA H200)': the backend JAX ran on, and the GPU's name when on one."""
    device = machine.get("jax_device")  # (older results lack it)
    return machine["jax_backend"] if machine["jax_backend"] == "cpu" or not device else f"{machine['jax_backend']} ({device})"


def measured_line(meta: dict[str, Any]) -> str:
    """'Measured on <date> on <machine> ...', from the metadata."""
    m = meta["machine"]
    commit = meta["git_commit"] or "unknown"
    if meta["git_dirty"]:
        commit += " with uncommitted changes"
    line = (f"Measured on {meta['date_utc']} on {m['description']}: stage `{meta['stage']}` at commit "
            f"{commit}, JAX {m['jax']} on {_backend(m)}, NumPy {m['numpy']}, Python {m['python']}.")
    load = meta.get("load_average")
    if load and load.get("before") and load.get("after"):
        line += (f" Load average (1 min) {load['before'][0]:.2f} before the run and {load['after'][0]:.2f} "
                 f"after, on {m['cpu_count']} CPUs.")
    if meta["timing"].get("clock") == "process_time":
        line += " Times are the process's CPU time (time.process_time), not wall-clock time."
    cpu_cases = [name for name, clock in meta["timing"].get("case_clocks", {}).items() if clock == "process_time"]
    if cpu_cases:
        line += (f" The cases {', '.join(f'`{name}`' for name in cpu_cases)} are timed in the process's CPU "
                 f"time (time.process_time), the others in wall-clock time (time.perf_counter).")
    if meta["timing"]["quick"]:
        line += " A quick run: the figures are rough."
    return line


def markdown(data: dict[str, Any]) -> str:
    """The results file as a Markdown page."""
    out = [f"# {data['title']}", "", data["measured"], "", data["legend"], ""]
    for table in data["tables"]:
        out += table_markdown(table) + [""]
    return "\n".join(out)


def table_markdown(table: dict[str, Any]) -> list[str]:
    """One table of the results file ({"title", "columns", "rows"}) as Markdown lines."""
    out = [f"**{table['title']}**", ""] if table.get("title") else []
    out.append("| " + " | ".join(table["columns"]) + " |")
    out.append("|---|" + "---:|" * (len(table["columns"]) - 1))
    out += ["| " + " | ".join(row) + " |" for row in table["rows"]]
    return out


def _case_json(case: Case, timings: dict[str, Timing | None]) -> dict[str, Any]:
    entry: dict[str, Any] = {"case": case.name, "what": case.what, "ops": case.ops, **case.extra}
    if case.clock:
        entry["clock"] = case.clock.__name__
    for impl in IMPLS:
        timing = timings.get(impl)
        entry[impl] = timing.as_json() if timing else None
    for a, b in RATIOS:
        if entry[a] and entry[b]:
            entry[f"{a}/{b}"] = round(entry[a]["min_us"] / entry[b]["min_us"], 3)
        else:
            entry[f"{a}/{b}"] = None
    return entry


def _main_table(cases: list[dict[str, Any]]) -> dict[str, Any]:
    columns = ["case"] + [f"{LABELS[i]} µs" for i in IMPLS] + [f"{LABELS[a]}/{LABELS[b]}" for a, b in RATIOS]
    rows = []
    for c in cases:
        cells = [f"`{c['case']}`"]
        cells += [_us(c[impl]["min_us"]) if c[impl] else "—" for impl in IMPLS]
        cells += [_ratio(c[f"{a}/{b}"]) for a, b in RATIOS]
        rows.append(cells)
    return {"title": None, "columns": columns, "rows": rows}


def _growth_table(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Microseconds per operation in the chains: flat rows mean cost grows linearly with length."""
    columns = ["case", "operations"] + [f"{LABELS[i]} µs/op" for i in IMPLS]
    rows = [[f"`{c['case']}`", f"{c['ops']:,}"] + [_us(c[i]["min_us"] / c["ops"]) if c[i] else "—" for i in IMPLS]
            for c in cases]
    return {"title": "Growth: cost per operation as the chain gets longer", "columns": columns, "rows": rows}


def _us(value: float) -> str:
    """Three significant figures, without an exponent: 0.512, 5.12, 51.2, 512, 5,120."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"
