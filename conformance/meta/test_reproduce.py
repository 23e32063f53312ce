"""Every failure's report starts with a program that contains the failing call and reproduces it.

Against real jax with one thing broken (meta/broken/), one failing test per area — a catalogue entry
(errors), a table entry (promotion), a fixed case with a fixture that registers classes (pytrees), a
recorded case (random), a test that notes no call at all (nn) — must report a program that names
the call and, run alone in a fresh process, shows the wrong behaviour; the same program with real
jax imported instead shows the right one. Then, in-process: every entry of the errors catalogue
gives a program that raises what JAX raises, and the pieces programs are made of (lambdas as text,
values as literals, free names imported) work on their own.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections import OrderedDict, namedtuple
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conformance import reproduce
from conformance.impl import load
from conformance.meta.test_meta import REPO_ROOT, run_suite

BROKEN = "conformance.meta.broken."
# The suite's runs here take hypothesis's `quick` profile: a failure's first example, unshrunk, prints
# a program as any example does, and shrinking took 36 of the 42 s of the slowest run.
UNSHRUNK = "quick"


@dataclass(frozen=True)
class Failure:
    module: str  # in meta/broken/
    file: str  # the test file that fails
    area: str
    keyword: str  # -k: keeps the run short
    test: str  # a word of the failing test's id
    call: str  # what the program must contain
    shows: str  # what running it against the broken module prints or raises (a line holds it)


FAILURES = [
    Failure("numpy_reshape_error", "test_errors", "errors", "reshape-wrong-size", "reshape-wrong-size",
            "print(repr(jnp.reshape(jnp.ones(6), (4,))))  # JAX raises TypeError", "ValueError: "),
    Failure("promote_types", "test_promotion", "promotion", "with_x64 and bf-f2", "bf-f2",
            "print(repr(jnp.promote_types(x, y)))  # the table: float32", "dtype('float16')"),
    Failure("numpy_weak", "test_promotion", "promotion", "family_rule and reshape", "reshape",
            "W = jnp.full((2, 3), 2.0)", "dtype=float32)"),
    Failure("tree_order", "test_pytrees", "pytrees", "sorted_key_order", "sorted_key_order",
            'tu.tree_flatten({"b": 1, "c": 2, "a": 3})', "AssertionError"),
    Failure("random_split", "test_random", "random", "same_key and split", "split(k, 2)",
            "fn = lambda r, n=2: r.split(_key(r), n)", "dtype=uint32), array("),
    Failure("nn_softmax", "test_nn", "nn", "softmax_rows", "softmax_rows_sum_to_one_and_match_numpy[0]",
            "got = nn.softmax(ROWS, axis=axis)", "AssertionError"),
]  # fmt: skip


def run_program(text: str) -> tuple[int, str]:
    """Run a program in a fresh process from the repository root: exit status, stdout and stderr."""
    ran = subprocess.run([sys.executable, "-c", text], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    return ran.returncode, ran.stdout + ran.stderr


@pytest.mark.parametrize("failure", FAILURES, ids=[f"{f.area}-{f.module}" for f in FAILURES])
def test_a_failures_program_contains_the_call_and_reproduces_it(tmp_path: Path, failure: Failure) -> None:
    where = f"conformance/{failure.file}.py"
    run = run_suite(BROKEN + failure.module, failure.area, tmp_path, failure.keyword, where, profile=UNSHRUNK)
    failed = {t["id"]: t["reason"] for t in run.results["tests"] if t["outcome"] == "failed"}
    found = [reason for test_id, reason in failed.items() if failure.test in test_id]
    assert found, f"no failed test with {failure.test!r}: {list(failed)}\n{run.output[-2000:]}"
    program = found[0].split("\n\n", 1)[0]
    assert program in run.output  # the terminal report starts with the same program
    assert failure.call in program, program
    importing = f"import {BROKEN}{failure.module} as jax"
    assert importing in program, program

    status, shown = run_program(program)
    assert failure.shows in shown, f"{program}\n--- it printed:\n{shown[-3000:]}"
    right_status, right = run_program(program.replace(importing, "import jax"))
    assert (status, _last_lines(shown)) != (right_status, _last_lines(right)), (shown, right)


def _last_lines(output: str) -> str:
    """What a run printed last (a traceback's final lines: the exception), without file paths."""
    return "\n".join(line for line in output.strip().splitlines()[-3:] if not line.lstrip().startswith("File "))


# (broken module, test file, area, -k): runs whose every failure's program must run as printed. Each
# is a kind of program: noted calls that use the suite's helpers, from the test's module or from the
# module that noted them (vmap's `loop`, from check_vmap), a hypothesis test whose failing explicit
# example runs before passing ones (tree_map), a test's own code (nn), a catalogue entry (errors).
PRINTED = [
    ("vmap_in_axes", "test_vmap_axes", "vmap", "position and (add- or dot_general)"),
    ("vmap_in_axes", "test_control_flow", "jaxpr", "control_flow_vmap_matches and cond_with_a_constant_branch"),
    ("tree_map_is_leaf", "test_pytrees", "pytrees", "tree_map_with_is_leaf or tree_map_passes_is_leaf"),
    ("nn_softmax", "test_nn", "nn", "softmax_rows"),
    ("numpy_add", "test_numpy_elementwise", "numpy", "test_binary_function_matches_numpy and add"),
    ("numpy_reshape_error", "test_errors", "errors", "reshape"),
    ("jit_weak", "test_jit", "jit", "weak_types_through_jit"),
]  # fmt: skip
# What a program fails with when it is incomplete rather than when it shows the failure.
INCOMPLETE = ("NameError", "ImportError", "ModuleNotFoundError", "SyntaxError", "IndentationError")


@pytest.mark.parametrize("module, file, area, keyword", PRINTED, ids=[f"{p[2]}-{p[0]}-{p[1]}" for p in PRINTED])
def test_every_printed_program_runs_as_printed_from_any_folder(tmp_path: Path, module: str, file: str,
                                                                area: str, keyword: str) -> None:  # fmt: skip
    """Each failure's program (up to 2 a run: a run's failures are programs of one kind), as the
    terminal printed it, saved as a file and run with `python file.py` from an unrelated folder
    without PYTHONPATH, runs to the failing call and shows the failure: it ends otherwise than the
    same program on real jax."""
    run = run_suite(BROKEN + module, area, tmp_path, keyword, f"conformance/{file}.py", profile=UNSHRUNK)
    failed = [t for t in run.results["tests"] if t["outcome"] == "failed"]
    assert failed, run.output[-3000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    importing = f"import {BROKEN}{module} as jax"
    for test in failed[:2]:
        program = test["reason"].split("\n\n", 1)[0]
        assert program in run.output and importing in program, (test["id"], program)
        status, shown = run_file(program, elsewhere)
        right_status, right = run_file(program.replace(importing, "import jax"), elsewhere)
        assert not any(f"{error}:" in shown for error in INCOMPLETE), f"{test['id']}\n{program}\n---\n{shown[-2000:]}"
        assert (status, shown) != (right_status, right), f"{test['id']}\n{program}\n{shown}"


def run_file(program: str, folder: Path) -> tuple[int, str]:
    """`python repro.py` in `folder`, without the suite's PYTHONPATH: exit status, stdout and stderr."""
    (folder / "repro.py").write_text(program)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    ran = subprocess.run([sys.executable, "repro.py"], cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    return ran.returncode, ran.stdout + ran.stderr


def test_every_misuse_in_the_catalogue_gives_a_program_that_raises_what_jax_raises() -> None:
    """The catalogue's calls are read from its source (reproduce.lambda_body), never written twice:
    each entry's program, run against real jax, raises the entry's exception class; each accepted
    call's program prints True."""
    from conformance import test_errors as catalogue

    reproduce.use(load("jax"))
    namespaces = reproduce.namespace_of(catalogue)
    wrong = []
    for entry in [*catalogue.MISUSES, *catalogue.ACCEPTED]:
        program = reproduce.program(reproduce.lambda_body(entry.call), {}, None, "", namespaces)
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(program, entry.id, "exec"), {})  # noqa: S102 (the suite's own programs)
            outcome: Any = printed.getvalue().strip()
        except Exception as err:
            outcome = type(err)
        want = getattr(entry, "raises", "True")
        raised_right = isinstance(outcome, type) and isinstance(want, type) and issubclass(outcome, want)
        if not (outcome == want or raised_right):
            wrong.append((entry.id, outcome, program))
    assert not wrong, wrong[:3]


def test_a_program_sets_the_random_flag_where_a_test_changed_it() -> None:
    """On a JAX whose jax_threefry_partitionable defaults to False (0.4.38), the random tests turn it
    on, and their programs say so; where the default is already True (0.10.2), programs stay short."""
    from conformance.impl import restored_flags

    impl, name = load("jax"), "jax_threefry_partitionable"
    line = f"jax.config.update({name!r}, True)"
    with restored_flags(impl) as flags:
        reproduce.use(impl)
        with restored_flags(impl) as inner:
            inner(name, True)
            assert line not in reproduce._flag_lines()  # JAX 0.10.2's own value
        flags(name, False)  # an older release's default, when it was loaded
        reproduce.use(impl)
        assert line not in reproduce._flag_lines()
        with restored_flags(impl) as inner:
            inner(name, True)  # what the fixture random_flags does
            assert line in reproduce._flag_lines()
    reproduce.use(impl)


# --- the pieces ------------------------------------------------------------------------------------

Pair = namedtuple("Pair", ["left", "right"])


@dataclass
class Entry:
    name: str
    fn: Any


def _key(seed: int) -> int:
    return seed


ENTRIES = [Entry(f"n={n}", lambda r, n=n: r(_key(1701), n)) for n in (2, 3)]
TWO = (lambda a: a + 1, lambda a: a * 2)  # two lambdas with the same arguments on one line


def test_lambdas_are_shown_as_their_text_with_defaults_as_literals() -> None:
    assert reproduce.lambda_body(TWO[0]) == "a + 1" and reproduce.lambda_body(TWO[1]) == "a * 2"
    assert reproduce.literal(ENTRIES[1].fn) == "lambda r, n=3: r(_key(1701), n)"
    assert reproduce.literal(ENTRIES[0]) == "Entry(name='n=2', fn=lambda r, n=2: r(_key(1701), n))"


def test_values_become_literals_that_give_them_back() -> None:
    found: reproduce.Namespaces = []
    values = [Pair(1, np.float32(2.5)), OrderedDict([("b", 1), ("a", 2)]), TypeError, np.maximum, Entry("e", len)]
    texts = [reproduce.literal(v, found) for v in values]
    assert texts == ["Pair(left=1, right=np.float32(2.5))", "OrderedDict([('b', 1), ('a', 2)])", "TypeError",
                     "np.maximum", "Entry(name='e', fn=len)"]  # fmt: skip
    program = "\n".join(f"v{i} = {t}" for i, t in enumerate(texts))
    lines = reproduce.imports(program, found)
    assert all(line.startswith(("from ", "import ")) for line in lines) and "Pair" in lines[0]
    namespace: dict[str, Any] = {"np": np}
    exec("\n".join(lines) + "\n" + program, namespace)  # noqa: S102 (literals made here)
    assert [namespace[f"v{i}"] for i in range(len(values))] == values


def test_an_implementations_arrays_are_made_as_the_implementation_makes_them() -> None:
    jnp = load("jax").numpy
    weak, strong = jnp.full((2, 3), 2.0), jnp.asarray(np.array([1, 2], np.int8))
    assert reproduce.literal(weak) == "jnp.full((2, 3), 2.0)"
    assert reproduce.literal(jnp.asarray(3)) == "jnp.asarray(3)"
    assert reproduce.literal(strong) == "jnp.asarray(np.array([1, 2], dtype='int8'))"
    assert reproduce.literal(reproduce.Source("jnp.asarray(2.0)")) == "jnp.asarray(2.0)"


def test_free_names_are_read_in_order_and_by_scope() -> None:
    body = "x = tree_util\ntree_util = 1\nf = lambda jnp, y: jnp.add(y, z)\nprint(x, f, [i for i in w])"
    assert reproduce.free_names(body) == ["tree_util", "z", "print", "w"]


def test_published_programs_name_the_repositorys_folders_relative_to_its_root() -> None:
    """Programs insert absolute folders (they run from any folder); the committed copies must not
    carry the folders of the machine that ran them."""
    from conformance import matrix

    root = matrix.REPO_ROOT
    program = f"import sys\nsys.path.insert(0, '{root}/stages/05_jit')\nsys.path.insert(0, '{root}')\nimport didax as jax"
    data = {"tests": [{"id": "t.py::test_add", "area": "numpy", "outcome": "failed", "functions": ["jnp.add"],
                       "reason": program + "\n\nAssertionError"}]}  # fmt: skip
    reason = matrix.published(data)["tests"][0]["reason"]
    assert str(root) not in reason
    assert "sys.path.insert(0, 'stages/05_jit')\nsys.path.insert(0, '.')" in reason
