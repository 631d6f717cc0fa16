"""A chapter's facts may live in its facts module and sibling modules (course/facts/m10.py with m10_steps.py and
m10_quiz.py): the siblings declare on the chapter's `f`, so their claims are verified with the chapter's only
if importing the chapter's facts module imports them. No facts module grows past the project's 1,000 lines.
"""
from __future__ import annotations

import ast
import importlib
import re

import pytest

from conftest import REPO
from course import syllabus

FACTS = REPO / "course" / "facts"
SIBLING = re.compile(r"(m\d\d)_\w+\.py")
SIBLINGS = sorted(p for p in FACTS.glob("m*_*.py") if SIBLING.fullmatch(p.name))
MAX_LINES = 1000


def _tag(path) -> str:
    return SIBLING.fullmatch(path.name).group(1)


def test_no_facts_module_is_over_the_line_limit():
    long = {p.name: n for p in FACTS.glob("*.py") if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"facts modules over {MAX_LINES} lines (split them along their sections): {long}"


@pytest.mark.parametrize("path", SIBLINGS, ids=lambda p: p.stem)
def test_a_sibling_declares_on_its_chapters_facts_and_is_imported_with_them(path):
    tag = _tag(path)
    chapter = next(m for m in syllabus.load() if m.tag == tag)
    facts = importlib.import_module(chapter.facts_module).f
    sibling = importlib.import_module(f"course.facts.{path.stem}")
    assert sibling.f is facts, f"{path.name} must declare on {chapter.facts_module}'s f"
    declared = [v for v in vars(sibling).values()
                if callable(v) and getattr(v, "__module__", None) == sibling.__name__ and v in facts.claim_functions()]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    decorated = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)
                 and any("claims" in ast.unparse(d) or "absence" in ast.unparse(d) for d in n.decorator_list)]
    assert decorated and len(declared) == len(decorated), \
        f"{path.name}: claims functions {decorated} are not all registered on {chapter.facts_module}.f"
    main_source = (FACTS / f"{tag}.py").read_text(encoding="utf-8")
    assert re.search(rf"^from course\.facts import [\w, ]*\b{path.stem}\b", main_source, re.M), \
        f"course/facts/{tag}.py must import {path.stem} (else its claims are not verified with the chapter)"


@pytest.mark.parametrize("path", SIBLINGS, ids=lambda p: p.stem)
def test_a_siblings_claims_read_values_that_are_set_once(path):
    """As tests/test_chapter_facts.py checks for the chapter's own facts module: a claim runs after the whole
    module was imported, so a module-level name it reads must not be assigned twice in the module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assigned: dict[str, int] = {}
    for node in tree.body:
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, ast.For):
            targets = [node.target]
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    assigned[name.id] = assigned.get(name.id, 0) + (2 if isinstance(node, (ast.For, ast.AugAssign)) else 1)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any("claims" in ast.unparse(d) or "absence" in ast.unparse(d)
                                                     for d in node.decorator_list):
            local = {a.arg for a in node.args.args}
            local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            for name in ast.walk(node):
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load) and name.id not in local:
                    assert assigned.get(name.id, 0) <= 1, \
                        f"{path.stem}.{node.name} reads {name.id}, which the module assigns more than once"
