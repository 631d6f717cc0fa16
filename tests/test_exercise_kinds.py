"""Exercise kinds as an interface: every kind module implements course.autograder.kind_base.ExerciseKind and is
in the registry (course.autograder.kinds), and nothing outside the kind modules decides by a kind's name."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

from course.autograder import kinds
from course.autograder.kind_base import ExerciseKind

PACKAGE = Path(__file__).resolve().parent.parent / "course" / "autograder"
KIND_MODULES = sorted(p.stem for p in PACKAGE.glob("kind_*.py") if p.stem != "kind_base")
WORKER_MODES = {"correctness", "sanitize", "differential", "speed"}


def test_every_kind_module_is_in_the_registry_under_its_own_name():
    assert KIND_MODULES, "no kind modules found"
    registered = []
    for name in KIND_MODULES:
        kind = importlib.import_module(f"course.autograder.{name}").KIND
        assert isinstance(kind, ExerciseKind), name
        assert kinds.get(kind.name) is kind, f"{name}.KIND is not registered in course.autograder.kinds.KINDS"
        registered.append(kind.name)
    assert sorted(registered) == sorted(kinds.KIND_NAMES)


def test_every_kind_implements_the_whole_interface():
    methods = [n for n, v in vars(ExerciseKind).items() if callable(v) and not n.startswith("_")]
    texts = [n for n, v in vars(ExerciseKind).items() if isinstance(v, str) and not n.startswith("_")]
    for kind in kinds.KINDS.values():
        missing = [n for n in methods if getattr(type(kind), n) is getattr(ExerciseKind, n)]
        assert not missing, (kind.name, missing)
        assert all(getattr(kind, n) for n in texts), (kind.name, [n for n in texts if not getattr(kind, n)])
        assert kind.signature and set(kind.read_only) <= {n for n, t in kind.signature if t == "pointer"}, kind.name
        assert set(kind.worker_modes()) == WORKER_MODES, kind.name
        assert set(kind.tool_advice_ko) <= {"memcheck", "racecheck", "synccheck"}, kind.name


def test_no_module_outside_the_kinds_compares_a_kind_name():
    names = "|".join(map(re.escape, kinds.KIND_NAMES))
    comparison = re.compile(rf"""(==|!=|\bis\b|\bin\b)\s*\(?\s*["']({names})["']|["']({names})["']\s*(==|!=)""")
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        if path.stem in KIND_MODULES or path.stem in ("kinds", "kind_base"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if comparison.search(line):
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert not found, "decide through the kind's object (course.autograder.kinds), not its name:\n" + "\n".join(found)
