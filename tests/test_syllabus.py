"""The syllabus (course/syllabus.py) is the one place that declares the modules: the repository agrees with it,
it refuses contradictions, and a new module needs one entry there plus its own files (shown with a throwaway
module 13 in a temporary copy of the repository)."""
from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO
from course import syllabus, toc
from course.syllabus import CheckpointRule, Module, Syllabus, SyllabusError

COURSE = syllabus.load()


def test_every_module_has_its_files():
    for m in COURSE:
        assert (REPO / m.chapter_path).is_file(), m.chapter_path
        assert (REPO / "course" / "quiz" / "banks" / f"{m.bank}.yaml").is_file(), m.bank
        importlib.import_module(m.facts_module)
        for sim in m.simulators:
            importlib.import_module(f"sims.{sim}")


def test_exercises_on_disk_are_the_declared_ones():
    on_disk = sorted(p.name for p in (REPO / "course" / "exercises").iterdir()
                     if p.is_dir() and re.fullmatch(r"m\d{2}-e\d+", p.name))
    declared = sorted(e for m in COURSE for e in m.exercises)
    assert on_disk == declared


def test_levels_and_kernels_agree_with_the_registry():
    from kernels import registry

    levels = [m.level for m in COURSE if m.level is not None]
    assert levels == sorted(levels) and len(set(levels)) == len(levels)
    assert set(levels) == set(registry.LEVEL_REPRESENTATIVE)
    for m in COURSE:
        if m.level is not None:
            assert registry.KERNELS[m.representative_kernel()].level == m.level
    assert {spec.chapter for spec in registry.KERNELS.values()} <= set(COURSE.numbers)


def test_the_toc_lists_the_syllabus_chapters():
    path = REPO / "_toc.yml"
    assert path.read_text(encoding="utf-8") == toc.expected_text(path), "run `python -m course toc`"


def test_gates_point_back_to_checkpoints():
    for gated, required in COURSE.gates().items():
        assert required < gated and required in COURSE.checkpoints()


@pytest.mark.parametrize("modules,fragment", [
    ((Module(4, "a", "A", 0), Module(4, "b", "B", 1)), "겹칩니다"),
    ((Module(5, "a", "A", 0), Module(4, "b", "B", 1)), "번호 순서"),
    ((Module(4, "a", "A", 0), Module(5, "a", "B", 1)), "다른 모듈도"),
    ((Module(4, "a", "A", 0), Module(5, "b", "B", 1, gate=4)), "체크포인트가 없습니다"),
    ((Module(4, "a", "A", 0, gate=5), Module(5, "b", "B", 1, checkpoint=CheckpointRule(1, 2, "t"))), "앞 모듈"),
    ((Module(4, "a", "A", 0, checkpoint=CheckpointRule(3, 2, "t")),), "통과 기준"),
    ((Module(4, "a", "A", 0, exercises=("m05-e1",)),), "m04-e"),
    ((Module(4, "a", "A", 0, checkpoint=CheckpointRule(2, 3, "t"), questions=4),), "문항 수"),
])
def test_contradictions_are_refused(modules, fragment):
    with pytest.raises(SyllabusError, match=fragment):
        Syllabus(modules)


def test_a_bank_holds_the_checkpoints_count_or_the_modules_own():
    assert Module(4, "a", "A", 0).bank_questions == syllabus.DEFAULT_BANK_QUESTIONS
    assert Module(4, "a", "A", 0, checkpoint=CheckpointRule(2, 3, "t")).bank_questions == 3
    assert Module(4, "a", "A", 0, questions=5).bank_questions == 5


def test_unknown_module_gets_a_korean_error():
    with pytest.raises(SyllabusError, match="모듈 99"):
        COURSE.module(99)


# --------------------------------------------------------------------------- a throwaway module 13 (after the real module 12)

THROWAWAY_ENTRY = '''    Module(13, "m13_throwaway", "버리는 모듈", None, gate=9, simulators=("throwaway",), bonus=True),
'''

THROWAWAY_CHAPTER = '''\
---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {display_name: Python 3, language: python, name: python3}
---

# 모듈 13 — 버리는 모듈

```{code-cell} ipython3
from course.facts.m13 import f
```

이 장의 값은 {eval}`f.answer`입니다.
'''

THROWAWAY_FACTS = '''\
"""Facts of the throwaway module 13 (a test's)."""
from course.facts import Facts

f = Facts("m13")
f.set("answer", 42)


@f.claims
def text(check):
    check(int(f.answer) == 42, "본문: 값은 42")
'''

THROWAWAY_SIM = '''\
"""A throwaway simulator (a test's): a pure model."""


def model(x: int) -> int:
    return 2 * x
'''


def _copy_repository(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, capture_output=True,
                           text=True, check=True).stdout.splitlines()
    for name in files:
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def test_a_new_module_is_one_syllabus_entry_plus_its_own_files(tmp_path):
    repo = tmp_path / "repo"
    _copy_repository(repo)
    # The one edit outside the module's own files: its entry in the syllabus.
    text = (repo / "course" / "syllabus.py").read_text(encoding="utf-8")
    anchor = "           bonus=True),\n)\n"
    assert text.count(anchor) == 1
    (repo / "course" / "syllabus.py").write_text(text.replace(anchor, "           bonus=True),\n" + THROWAWAY_ENTRY + ")\n"),
                                                 encoding="utf-8")
    # Its own files: chapter, facts, bank, simulator.
    (repo / "book" / "m13_throwaway.md").write_text(THROWAWAY_CHAPTER, encoding="utf-8")
    (repo / "course" / "facts" / "m13.py").write_text(THROWAWAY_FACTS, encoding="utf-8")
    (repo / "sims" / "throwaway.py").write_text(THROWAWAY_SIM, encoding="utf-8")
    bank = (repo / "course" / "quiz" / "banks" / "m11.yaml").read_text(encoding="utf-8")
    (repo / "course" / "quiz" / "banks" / "m13.yaml").write_text(
        bank.replace("module: 11", "module: 13").replace("m11-q", "m13-q"), encoding="utf-8")

    probe = textwrap.dedent('''
        import json
        from types import SimpleNamespace
        from course import syllabus, gating
        from course.quiz.bank import available_modules, load_bank
        from course.facts import verify
        from course.settings import load_settings
        from course.site import extension
        s = load_settings()
        report = verify(13)
        app = SimpleNamespace(config=SimpleNamespace(course_settings={"gating_policy": "strict"}))
        site = json.loads(extension._settings_script(app).split("=", 1)[1].rstrip(";"))
        print(json.dumps({
            "numbers": list(syllabus.load().numbers),
            "page": s.page(13), "gate": s.required_module(13),
            "banks": available_modules(), "questions": len(load_bank(13).questions),
            "claims": [report.checked, report.failures],
            "locked": gating.decide(13, s, None).locked,
            "site_pages": site["pages"].get("13"), "site_gate": site["gates"].get("13"),
        }))
    ''')
    env = {**os.environ, "PYTHONPATH": str(repo), "SGEMM_COURSE_CONFIG": str(repo / "_config.yml")}
    env.pop("SGEMM_COURSE_SYLLABUS", None)

    def run(*args):
        return subprocess.run([sys.executable, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=300)

    done = run("-c", probe)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["numbers"][-1] == 13 and seen["page"] == "m13_throwaway" and seen["gate"] == 9
    assert 13 in seen["banks"] and seen["questions"] == 8
    assert seen["claims"] == [1, []] and seen["locked"] is True
    assert seen["site_pages"] == "m13_throwaway" and seen["site_gate"] == "9"

    done = run("-m", "course", "toc")
    assert done.returncode == 0, done.stderr
    assert "- file: book/m13_throwaway" in (repo / "_toc.yml").read_text(encoding="utf-8")
    done = run("-m", "course", "validate", "--module", "13")
    assert done.returncode in (0, 1), done.stdout + done.stderr        # valid (1 only flags key balance)
    done = run("-m", "course", "export-form", "--module", "13", "--out", str(tmp_path / "forms"))
    assert done.returncode == 0 and (tmp_path / "forms" / "m13_form.json").is_file(), done.stderr
    # The chapter checks that read the syllabus see the new chapter too.
    done = run("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_chapter_facts.py", "-k",
               "m13 and (resolves or short_cell or claims_hold)")
    assert done.returncode == 0 and "3 passed" in done.stdout, done.stdout[-3000:]
