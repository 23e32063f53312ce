#!/usr/bin/env python3
"""Exercises: a working copy of a stage with chosen function bodies removed.

    python3 site/exercises.py list 01_eval
    python3 site/exercises.py make 01_eval --set lattice [--into build/exercises/01_eval]
    python3 site/exercises.py make 01_eval --remove didax/lax/elementwise.py:_div,didax/core.py:bind
    python3 site/exercises.py check build/exercises/01_eval

`make` copies stages/<stage> (package, examples, tests) into a folder and replaces the body of each
chosen function by `raise NotImplementedError("exercise: ...")`, keeping its signature and its
docstring. The copy's own tests then fail until the learner has written the bodies again; `check`
runs them. Standard library only, so it runs before anything is installed.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = ROOT / "stages"
DEFAULT_INTO = ROOT / "build" / "exercises"


@dataclass(frozen=True)
class ExerciseSet:
    name: str
    summary: str
    functions: tuple[str, ...]  # "path/in/stage.py:function" or "path:Class.method"


# The chapters' exercises, by stage. Every set makes some of the stage's own tests fail
# (site/tests/test_exercises.py checks it), and the stage's code is the model answer.
EXERCISES: dict[str, list[ExerciseSet]] = {
    "01_eval": [
        ExerciseSet(
            "bind",
            "route a primitive to the interpreter at the top of the trace stack",
            ("didax/core.py:bind", "didax/core.py:find_top_trace", "didax/core.py:full_raise"),
        ),
        ExerciseSet(
            "lattice",
            "promotion as the least upper bound on JAX's type lattice",
            ("didax/dtypes.py:_upper_bounds", "didax/dtypes.py:_join"),
        ),
        ExerciseSet(
            "shape-rules",
            "abstract evaluation: the shape and dtype rules of lax primitives",
            ("didax/lax/standard.py:broadcasting_shape", "didax/lax/reductions.py:_reduced_shape",
             "didax/lax/elementwise.py:_integer_pow_dtype"),
        ),
        ExerciseSet(
            "numpy-front-end",
            "NumPy-style promotion and broadcasting in front of lax",
            ("didax/numpy/util.py:promote_dtypes", "didax/numpy/util.py:promote_shapes"),
        ),
        ExerciseSet(
            "pytrees",
            "flatten a nested container to leaves and a structure, and build it back",
            ("didax/tree_util.py:tree_flatten", "didax/tree_util.py:tree_unflatten"),
        ),
    ],
}

_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".pytest_cache", "*.egg-info")


class ExerciseError(Exception):
    """A request that cannot be carried out; the message says why."""


# ----------------------------------------------------------------------------------------------
# Removing a function body


def find_function(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The function `name` or method `Class.name` defined at the top of a module."""
    scope: list[ast.stmt] = tree.body
    node: ast.stmt | None = None
    for part in qualname.split("."):
        node = next((n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            raise ExerciseError(f"no function or class named {part!r} (looking for {qualname!r})")
        scope = node.body
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ExerciseError(f"{qualname!r} is a class, not a function")
    return node


def remove_bodies(source: str, qualnames: list[str], where: str) -> str:
    """`source` with the body of each named function replaced by a NotImplementedError.

    The docstring stays (it says what to write); everything after it goes. Works on the text,
    so the rest of the file keeps its comments and layout."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    spans = []
    for qualname in qualnames:
        fn = find_function(tree, qualname)
        body = fn.body
        has_doc = (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                   and isinstance(body[0].value.value, str))
        if body[0].lineno == fn.lineno:
            raise ExerciseError(f"{where}:{qualname}: its body is on the line of the def; cannot remove it")
        indent = " " * body[0].col_offset
        message = f"exercise: write the body of {qualname} ({where})"
        stub = f"{indent}raise NotImplementedError({message!r})\n"
        end = fn.end_lineno or fn.lineno
        if has_doc:  # keep the docstring, drop everything after it (comments included)
            first_removed = (body[0].end_lineno or body[0].lineno) + 1
        else:
            first = body[0]
            first_removed = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))])
        if first_removed > end:  # only a docstring: add the raise after it
            spans.append((end, end, stub))
        else:
            spans.append((first_removed - 1, end, stub))
    for start, end, stub in sorted(spans, reverse=True):
        lines[start:end] = [stub]
    out = "".join(lines)
    ast.parse(out)  # the result must still be Python
    return out


# ----------------------------------------------------------------------------------------------
# Commands


def stage_dir(stage: str) -> Path:
    path = STAGES / stage
    if not (path / "didax").is_dir():
        known = sorted(p.name for p in STAGES.iterdir() if (p / "didax").is_dir())
        raise ExerciseError(f"no stage {stage!r}; the stages are {', '.join(known)}")
    return path


def parse_removals(text: str) -> dict[str, list[str]]:
    """`a.py:f,a.py:g,b.py:C.m` -> {"a.py": ["f", "g"], "b.py": ["C.m"]}."""
    out: dict[str, list[str]] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        path, sep, name = item.rpartition(":")
        if not sep or not path or not name:
            raise ExerciseError(f"--remove takes FILE:FUNCTION items, got {item!r}")
        out.setdefault(path, []).append(name)
    return out


def exercise_set(stage: str, name: str) -> ExerciseSet:
    for ex in EXERCISES.get(stage, []):
        if ex.name == name:
            return ex
    names = ", ".join(ex.name for ex in EXERCISES.get(stage, [])) or "none"
    raise ExerciseError(f"no exercise set {name!r} for {stage}; its sets are: {names}")


def make(stage: str, removals: dict[str, list[str]], into: Path, force: bool = False) -> Path:
    """Copy the stage into `into` and remove the chosen bodies; returns the copy's folder."""
    source = stage_dir(stage)
    if into.exists():
        if not force and any(into.iterdir()):
            raise ExerciseError(f"{into} exists and is not empty; pass --force to replace it")
        shutil.rmtree(into)
    # Check every request before writing anything.
    edited = {}
    for rel, names in removals.items():
        path = source / rel
        if not path.is_file():
            raise ExerciseError(f"{stage} has no file {rel}")
        edited[rel] = remove_bodies(path.read_text(encoding="utf-8"), names, rel)
    into.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, into, ignore=_IGNORE)
    for rel, text in edited.items():
        (into / rel).write_text(text, encoding="utf-8")
    return into


def check(copy: Path, extra: list[str]) -> int:
    """Run the copy's own tests, with only the copy importable as didax."""
    python = ROOT / ".venv" / "bin" / "python"
    python = python if python.exists() else Path(sys.executable)
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [str(python), "-m", "pytest", str(copy / "tests"), "-q", "-p", "no:cacheprovider", *extra]
    return subprocess.run(cmd, cwd=copy, env=env).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser("list", help="list a stage's exercise sets")
    p_list.add_argument("stage")
    p_make = sub.add_parser("make", help="make a working copy of a stage with bodies removed")
    p_make.add_argument("stage")
    p_make.add_argument("--set", dest="sets", action="append", default=[], help="a named exercise set")
    p_make.add_argument("--remove", default="", help="FILE:FUNCTION,... (paths relative to the stage)")
    p_make.add_argument("--into", type=Path, help="the folder to make (default build/exercises/STAGE)")
    p_make.add_argument("--force", action="store_true", help="replace the folder if it exists")
    p_check = sub.add_parser("check", help="run a working copy's tests")
    p_check.add_argument("copy", type=Path)
    p_check.add_argument("pytest_args", nargs=argparse.REMAINDER, help="more pytest arguments")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            stage_dir(args.stage)
            for ex in EXERCISES.get(args.stage, []):
                print(f"{ex.name:20s} {ex.summary}")
                for fn in ex.functions:
                    print(f"{'':20s}   {fn}")
            return 0
        if args.command == "make":
            removals = parse_removals(args.remove)
            for name in args.sets:
                for rel, names in parse_removals(",".join(exercise_set(args.stage, name).functions)).items():
                    removals.setdefault(rel, []).extend(n for n in names if n not in removals.get(rel, []))
            if not removals:
                print("exercises: nothing to remove; the copy is the stage as it is", file=sys.stderr)
            into = args.into or DEFAULT_INTO / args.stage
            copy = make(args.stage, removals, into.resolve(), args.force)
            removed = ", ".join(f"{rel}:{n}" for rel, names in removals.items() for n in names) or "nothing"
            print(f"exercises: made {copy} with these bodies removed: {removed}")
            print(f"exercises: now run  python3 site/exercises.py check {os.path.relpath(copy)}")
            return 0
        return check(args.copy.resolve(), args.pytest_args)
    except ExerciseError as err:
        print(f"exercises: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
