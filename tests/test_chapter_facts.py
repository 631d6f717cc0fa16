"""The chapters' numbers: every {eval} in the prose resolves, and each chapter's facts module imports, which
runs its asserts on the directional sentences ("Level 4 is faster than Level 3") against book/data.

These run in seconds, before any site build: a re-recording that contradicts a sentence fails here first.
"""
from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest
from IPython.core.inputtransformer2 import TransformerManager

REPO = Path(__file__).resolve().parent.parent
CHAPTERS = sorted(p for p in (REPO / "book").glob("m*.md"))
EVAL = re.compile(r"\{eval\}`([^`]+)`")
WITH_PARTICLE = re.compile(r'f\.p\("(\w+)", "(으로|로|과|와|을|를|은|는|이|가)"\)')
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.S | re.M)
FIRST_CELL_MAX_LINES = 12


def _code_cells(text: str) -> list[str]:
    """Source of each code cell, without its option lines (':tags:' or a '---' YAML block)."""
    cells = []
    for body in CODE_CELL.findall(text):
        lines = body.splitlines()
        if lines and lines[0] == "---":
            lines = lines[lines.index("---", 1) + 1:]
        source = "\n".join(line for line in lines if not line.startswith(":"))
        # IPython syntax (%load_ext, a %%exercise cell holding CUDA) as the Python IPython runs.
        cells.append(TransformerManager().transform_cell(source))
    return cells


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_every_eval_in_the_prose_resolves(chapter):
    text = chapter.read_text(encoding="utf-8")
    assert "{glue" not in text, "glue roles do not render in JupyterLab; use {eval}`f.NAME`"
    expressions = EVAL.findall(text)
    facts = importlib.import_module(f"course.facts.{chapter.stem.split('_')[0]}").f
    assigned, set_in_chapter = set(), set()
    for source in _code_cells(text):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                assigned.add(node.id)
            # A chapter that analyses SASS in its own cells sets those facts there, with the module's g().
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "g" and node.args \
                    and isinstance(node.args[0], ast.Constant):
                set_in_chapter.add(node.args[0].value)
    for expr in expressions:
        with_particle = WITH_PARTICLE.fullmatch(expr)     # f.p("name", "과"): the fact and its particle
        if with_particle:
            expr = "f." + with_particle.group(1)
        if expr.startswith("f."):
            assert expr[2:] in facts or expr[2:] in set_in_chapter, \
                f"{chapter.name}: {expr} is not a fact of {facts!r} nor set by the chapter's cells"
        else:
            assert expr in assigned, f"{chapter.name}: {{eval}}`{expr}` names nothing a code cell assigns"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_the_chapter_opens_on_a_short_cell(chapter):
    first = _code_cells(chapter.read_text(encoding="utf-8"))[0]
    lines = [line for line in first.splitlines() if line.strip()]
    assert len(lines) <= FIRST_CELL_MAX_LINES, f"{chapter.name}: first code cell has {len(lines)} lines"


def test_every_facts_value_is_display_text():
    from course.facts import Text

    for chapter in CHAPTERS:
        facts = importlib.import_module(f"course.facts.{chapter.stem.split('_')[0]}").f
        for key in facts.keys():
            value = facts[key]
            assert isinstance(value, Text) and repr(value) == str(value), (chapter.name, key)
            assert value.strip() == value and value, f"{chapter.name}: fact {key} is empty or padded: {value!r}"


def test_facts_refuse_unformatted_floats_and_repeated_names():
    from course.facts import Facts

    f = Facts("test")
    f.a = "1.0"
    f.n = 3
    with pytest.raises(TypeError):
        f.x = 0.1 + 0.2
    with pytest.raises(KeyError):
        f.a = "again"
    with pytest.raises(AttributeError, match="값\\(fact\\)"):
        _ = f.missing


def test_m10_bank_claims_hold_on_the_records():
    """Module 10's quiz (course/banks/m10.yaml, q08) states these directions in words; the records must agree."""
    from course.facts import m10

    l4, l6, cb = m10.rep_p[4], m10.rep_p[6], m10.cbp
    assert 90 < m10.rep_b[4]["pct_cublas"] < 95 and m10.rep_b[6]["pct_cublas"] > 99        # "90%를 조금 넘는", "같은 속도"
    assert m10.ffma_share(l6) > m10.ffma_share(l4)                                            # a
    assert l6["dram_bytes"] < l4["dram_bytes"] and l4["dram_pct"] < 10                        # b: true fact, wrong reason
    assert cb["issue_active_pct"] - l4["issue_active_pct"] > m10.ffma_share(cb) - m10.ffma_share(l4)   # c
    assert m10.ffma_share(l6) - m10.ffma_share(l4) > l6["issue_active_pct"] - l4["issue_active_pct"]
    assert abs(l6["fma_pipe_pct"] - cb["fma_pipe_pct"]) < 2
    assert cb["ffma_instructions"] == 4096 ** 3 + 4096 ** 2 and "ffma" in cb["function"]     # d
    assert min(l6["registers"], cb["registers"]) > 200                                         # e
    assert l6["theoretical_occupancy_pct"] == cb["theoretical_occupancy_pct"] == 12.5 < l4["theoretical_occupancy_pct"]

