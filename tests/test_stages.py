"""scripts/stages.py: lessons are recorded and checked, and a fix carries forward.

Most tests build a throwaway git repository with a tiny stage in tmp_path, so they do not depend
on the real repository's stages; the last one runs the check on the real repository (it is how
the README's test command checks that the stages are in step).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "scripts" / "stages.py"

_spec = importlib.util.spec_from_file_location("stages_tool", TOOL)
stages_tool = importlib.util.module_from_spec(_spec)
sys.modules["stages_tool"] = stages_tool
_spec.loader.exec_module(stages_tool)

CORE = "def add(x, y):\n    return x + y\n\n\ndef mul(x, y):\n    return x * y\n"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"}


def stages(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the tool on `root` as the README's contributors do, with no git user config."""
    env = {**os.environ, **GIT_ENV}
    return subprocess.run([sys.executable, str(TOOL), "--root", str(root), *args],
                          capture_output=True, text=True, env=env, timeout=60)


def git(root: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                         env={**os.environ, **GIT_ENV}, check=True)
    return out.stdout


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with one committed stage 01_a: didax/, examples/, tests/ (and some litter)."""
    stage = tmp_path / "stages" / "01_a"
    write(stage / "didax" / "__init__.py", "from .core import add, mul\n")
    write(stage / "didax" / "core.py", CORE)
    write(stage / "examples" / "ex.py", "import didax\nprint(didax.add(1, 2))\n")
    write(stage / "tests" / "test_core.py", "import didax\n\n\ndef test_add():\n    assert didax.add(1, 2) == 3\n")
    write(stage / "didax" / "__pycache__" / "core.cpython-311.pyc", "litter")
    write(tmp_path / ".gitignore", "__pycache__/\n*.pyc\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "stage 01")
    return tmp_path


def with_lesson(repo: Path, name: str = "02_b") -> Path:
    """Start stage `name` from the one before it and record a small intended lesson in it."""
    assert stages(repo, "new", name).returncode == 0
    stage = repo / "stages" / name
    write(stage / "didax" / "jvp.py", f"# the idea of {name}\ndef jvp(f, x, t):\n    return f(x), t\n")
    edit(stage / "didax" / "__init__.py", "from .core import add, mul\n",
         "from .core import add, mul\nfrom .jvp import jvp\n")
    out = stages(repo, "lesson", name)
    assert out.returncode == 0, out.stderr
    return stage


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


# ----------------------------------------------------------------------------------------------


def test_new_copies_the_stage_before_without_litter_and_records_an_empty_lesson(repo: Path):
    out = stages(repo, "new", "02_b")
    assert out.returncode == 0, out.stderr
    assert "02_b: 0 files changed, +0 -0 lines" in out.stdout
    new = repo / "stages" / "02_b"
    assert (new / "didax" / "core.py").read_text() == CORE
    assert (new / "tests" / "test_core.py").exists() and (new / "examples" / "ex.py").exists()
    assert not (new / "didax" / "__pycache__").exists()
    assert (new / "LESSON.diff").read_text() == ""
    assert stages(repo, "new", "02_c").returncode == 2  # the number is taken


def test_the_lesson_is_the_unified_diff_from_the_stage_before_and_check_passes(repo: Path):
    stage = with_lesson(repo)
    lesson = (stage / "LESSON.diff").read_text()
    assert lesson.startswith("diff --git a/didax/__init__.py b/didax/__init__.py\n--- a/didax/__init__.py\n")
    assert "--- /dev/null\n+++ b/didax/jvp.py\n@@ -0,0 +1,3 @@\n+# the idea of 02_b\n" in lesson
    assert "litter" not in lesson and "__pycache__" not in lesson
    out = stages(repo, "check")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "02_b: 2 files changed, +4 -0 lines" in out.stdout
    assert "didax/jvp.py (new) +3 -0" in out.stdout  # each file of the lesson is visible


def test_lesson_diff_is_a_patch_from_the_stage_before_to_the_stage(repo: Path, tmp_path_factory):
    stage = with_lesson(repo)
    write(stage / "examples" / "no_newline.py", "print('no newline at the end')")
    (stage / "examples" / "odd_lines.py").write_bytes(b"a = 1\r\n\x0c\nb = '\xc3\xa9'\rc = 2\n")
    (stage / "tests" / "test_core.py").unlink()
    stages(repo, "lesson", "02_b")
    copy = tmp_path_factory.mktemp("outside_the_repo") / "copy"
    subprocess.run(["cp", "-r", str(repo / "stages" / "01_a"), str(copy)], check=True)
    subprocess.run(["git", "apply", str(stage / "LESSON.diff")], cwd=copy, check=True)
    assert stages_tool.stage_diff(copy, stage) == ""
    assert stages(repo, "check").returncode == 0  # the recorded file reads back byte for byte


def test_the_diff_is_deterministic_and_relative_to_the_stage_folder(repo: Path):
    stage = with_lesson(repo)
    first = stages_tool.stage_diff(repo / "stages" / "01_a", stage)
    assert first == stages_tool.stage_diff(repo / "stages" / "01_a", stage)
    assert str(repo) not in first and "stages/" not in first
    assert [s.path for s in stages_tool.parse_diff(first)] == ["didax/__init__.py", "didax/jvp.py"]


def test_a_fix_in_stage_01_not_carried_forward_fails_the_check_naming_file_and_hunk(repo: Path):
    with_lesson(repo)
    edit(repo / "stages" / "01_a" / "didax" / "core.py", "return x * y", "return y * x  # the fix")
    out = stages(repo, "check")
    assert out.returncode == 1
    assert "OUT OF STEP" in out.stdout
    assert "02_b: the live diff against 01_a is not its LESSON.diff" in out.stdout
    assert "didax/core.py:" in out.stdout
    assert "live, not recorded" in out.stdout
    assert "-    return y * x  # the fix" in out.stdout  # the hunk: 02_b still lacks the fix


def test_carry_from_the_worktree_applies_the_fix_to_every_later_stage_and_check_passes(repo: Path):
    with_lesson(repo)
    with_lesson(repo, "03_c")
    commit_all(repo, "stages 02 and 03")
    lessons = {s: (repo / "stages" / s / "LESSON.diff").read_text() for s in ("02_b", "03_c")}
    edit(repo / "stages" / "01_a" / "didax" / "core.py", "return x * y", "return y * x  # the fix")
    write(repo / "stages" / "01_a" / "tests" / "test_mul.py", "def test_mul():\n    pass\n")  # untracked
    out = stages(repo, "carry", "01_a", "--worktree")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "02_b: applied cleanly" in out.stdout and "03_c: applied cleanly" in out.stdout
    for stage in ("02_b", "03_c"):
        assert "return y * x  # the fix" in (repo / "stages" / stage / "didax" / "core.py").read_text()
        assert (repo / "stages" / stage / "tests" / "test_mul.py").exists()
        assert (repo / "stages" / stage / "LESSON.diff").read_text() == lessons[stage]
        assert f"{stage}: LESSON.diff unchanged" in out.stdout
    assert stages(repo, "check").returncode == 0
    again = stages(repo, "carry", "01_a")  # carrying twice changes nothing
    assert again.returncode == 0 and "already there: didax/core.py" in again.stdout


def test_carry_a_commit_and_say_when_a_lesson_only_moved(repo: Path):
    stage = with_lesson(repo)
    edit(stage / "didax" / "core.py", "return x * y", "return x * y  # 02 explains mul")
    stages(repo, "lesson", "02_b")
    commit_all(repo, "stage 02")
    edit(repo / "stages" / "01_a" / "didax" / "core.py", "def add(x, y):\n", "def add(x, y):\n    # the fix\n")
    commit_all(repo, "a fix in 01 only")
    out = stages(repo, "carry", "01_a", "--commit", "HEAD")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "02_b: applied cleanly" in out.stdout
    assert (stage / "didax" / "core.py").read_text().startswith("def add(x, y):\n    # the fix\n")
    assert "02_b: LESSON.diff same changes, line numbers moved" in out.stdout
    assert stages(repo, "check").returncode == 0


def test_a_conflicting_change_is_reported_and_not_dropped(repo: Path):
    stage = with_lesson(repo)
    edit(stage / "didax" / "core.py", "return x * y", "return x * y * 1  # 02's own change")
    stages(repo, "lesson", "02_b")
    with_lesson(repo, "03_c")
    commit_all(repo, "stages 02 and 03")
    recorded = (stage / "LESSON.diff").read_text()
    edit(repo / "stages" / "01_a" / "didax" / "core.py", "return x * y", "return y * x  # the fix")
    out = stages(repo, "carry", "01_a", "--worktree")
    assert out.returncode == 1
    assert "02_b: CONFLICT" in out.stdout and "didax/core.py: 1 conflict(s)" in out.stdout
    assert "conflicts in 02_b, 03_c" in out.stdout
    text = (stage / "didax" / "core.py").read_text()
    assert "<<<<<<< 02_b (this stage)" in text and "return y * x  # the fix" in text
    assert "02's own change" in text  # both sides are kept for the person resolving it
    assert (stage / "LESSON.diff").read_text() == recorded  # not refreshed over a conflict
    assert "LESSON.diff not refreshed" in out.stdout
    assert stages(repo, "check").returncode == 1  # and the check keeps failing until resolved


def test_a_change_to_a_file_a_later_stage_lacks_is_reported(repo: Path):
    stage = with_lesson(repo)
    (stage / "examples" / "ex.py").unlink()
    stages(repo, "lesson", "02_b")
    commit_all(repo, "stage 02 drops the example")
    edit(repo / "stages" / "01_a" / "examples" / "ex.py", "add(1, 2)", "add(2, 3)")
    out = stages(repo, "carry", "01_a")
    assert out.returncode == 1
    assert "examples/ex.py: not in this stage" in out.stdout


def test_carry_refuses_when_later_lessons_are_already_out_of_step(repo: Path):
    with_lesson(repo)
    stage3 = with_lesson(repo, "03_c")
    commit_all(repo, "stages 02 and 03")
    write(stage3 / "didax" / "stray.py", "oops = 1\n")  # 03's lesson grows, unrecorded
    edit(repo / "stages" / "01_a" / "didax" / "core.py", "return x * y", "return y * x")
    out = stages(repo, "carry", "01_a")
    assert out.returncode == 2 and "out of step already" in out.stderr
    assert "return x * y" in (repo / "stages" / "02_b" / "didax" / "core.py").read_text()


def test_check_with_one_stage_has_nothing_to_compare(repo: Path):
    out = stages(repo, "check")
    assert out.returncode == 0 and "nothing to check" in out.stdout


def test_the_first_stage_has_no_lesson(repo: Path):
    out = stages(repo, "lesson", "01_a")
    assert out.returncode == 2 and "first stage" in out.stderr
    with_lesson(repo)
    write(repo / "stages" / "01_a" / "LESSON.diff", "")
    out = stages(repo, "check")
    assert out.returncode == 1 and "01_a is the first stage and must have no LESSON.diff" in out.stdout


def test_a_later_stage_without_its_lesson_fails_the_check(repo: Path):
    with_lesson(repo)
    (repo / "stages" / "02_b" / "LESSON.diff").unlink()
    out = stages(repo, "check")
    assert out.returncode == 1 and "02_b has no LESSON.diff" in out.stdout


def test_the_stages_of_this_repository_are_in_step():
    out = subprocess.run([sys.executable, str(TOOL), "check"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
