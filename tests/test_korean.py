"""Particles after numbers and glued values (korean_text, shared by course/ and sims/), and the scans that keep the text right:
the sources (chapters, quiz banks, simulators' strings) with no build, and the built site page by page."""
from __future__ import annotations

import html
import importlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from course.facts import Facts, Text
from korean_text import (CONSONANT, RIEUL, VOWEL, final_sound, particle, particle_problems, with_particle,
                           wrong_form)

REPO = Path(__file__).resolve().parent.parent


# ----------------------------------------------------------------------------- the helper

@pytest.mark.parametrize("text, sound", [
    ("0", CONSONANT), ("1", RIEUL), ("2", VOWEL), ("3", CONSONANT), ("4", VOWEL), ("5", VOWEL),
    ("6", CONSONANT), ("7", RIEUL), ("8", RIEUL), ("9", VOWEL),
    ("10", CONSONANT), ("100", CONSONANT), ("4,096", CONSONANT), ("2.00", CONSONANT), ("8.3", CONSONANT),
    ("0.25", VOWEL), ("75%", VOWEL), ("4096³", CONSONANT), ("4096²", CONSONANT), ("3.2×", VOWEL),
    ("사과", VOWEL), ("타일", RIEUL), ("레지스터", VOWEL), ("공유 메모리", VOWEL), ("섹터", VOWEL), ("점", CONSONANT),
    ("2.31 ms", VOWEL), ("16 B", VOWEL), ("48 KiB", VOWEL), ("3.35 TB/s", VOWEL), ("51.3 TFLOP/s", VOWEL),
    ("2 FLOP", CONSONANT), ("1.5x", VOWEL),
    ("SM", CONSONANT), ("HBM", CONSONANT), ("GPU", VOWEL), ("DRAM", CONSONANT), ("LDS", VOWEL), ("URL", RIEUL),
    ("GROUP", CONSONANT), ("BAR", VOWEL), ("k", VOWEL), ("n", CONSONANT), ("M", CONSONANT), ("K", VOWEL),
    ("1/4", RIEUL), ("3/4", CONSONANT), ("8/10", RIEUL),     # 사분의 일, 사분의 삼, 십분의 팔
    ("꺾임점(ridge point)", CONSONANT), ("`LDS`", VOWEL), ('"Level 3"', CONSONANT), ("(a)", VOWEL),
    ("Level 0–5", VOWEL), ("128×128", RIEUL), ("H100", CONSONANT), ("FP32", VOWEL), ("G6", CONSONANT),
])
def test_final_sound_follows_the_korean_reading(text, sound):
    assert final_sound(text) == sound


@pytest.mark.parametrize("value, form, expected", [
    ("Level 3", "와", "과"), ("Level 4", "과", "와"), ("2.00", "와", "과"), ("8.3", "와", "과"),
    ("4", "은", "는"), ("3", "는", "은"), ("6", "를", "을"), ("5", "을", "를"), ("9", "이", "가"), ("1", "가", "이"),
    ("1", "으로", "로"), ("7", "으로", "로"), ("8", "으로", "로"), ("3", "로", "으로"), ("6", "로", "으로"),
    ("10", "로", "으로"), ("2", "으로", "로"), ("75%", "으로", "로"), ("4096²", "로", "으로"),
    ("타일", "으로", "로"), ("블록", "로", "으로"), ("워프", "으로", "로"),
    (4096, "를", "을"), (32, "을", "를"),
])
def test_particle_picks_the_form(value, form, expected):
    assert particle(value, form) == expected
    assert with_particle(value, form) == f"{value}{expected}"
    assert wrong_form(value, form) == (form != expected)


def test_unknown_text_raises_unless_lenient():
    with pytest.raises(ValueError, match="no Korean reading"):
        particle("warp", "를")            # an English word: no guess
    with pytest.raises(ValueError, match="empty"):
        particle("", "를")
    with pytest.raises(ValueError, match="unknown particle"):
        particle("3", "의")
    with pytest.raises(TypeError):
        particle(None, "를")
    assert with_particle("warp", "를", strict=False) == "warp을(를)"
    assert with_particle("warp", "로", strict=False) == "warp(으)로"
    assert with_particle("모듈 6 숙달 체크포인트", "을", strict=False) == "모듈 6 숙달 체크포인트를"


def test_facts_write_a_value_with_its_particle():
    f = Facts("test")
    f.gain = "31.3"
    f.count = 4
    assert f.p("gain", "와") == "31.3과" and isinstance(f.p("gain", "와"), Text)
    assert repr(f.p("count", "을")) == "4를"             # shown without quotes by {eval}
    with pytest.raises(AttributeError, match="값\\(fact\\)"):
        f.p("missing", "과")
    with pytest.raises(KeyError, match="method"):
        f.p = "3"                                         # would hide the helper


# ----------------------------------------------------------------------------- the scanner

@pytest.mark.parametrize("text, found", [
    ("Level 3와 Level 4", ["3과"]), ("측정값 2.00와 같다", ["2.00과"]), ("8.3와", ["8.3과"]), ("1,024은", ["1,024는"]),
    ("Level 3는 빠르다", ["3은"]), ("4096²로", ["4096²으로"]), ("50%을", ["50%를"]), ("2.68 ms을", ["2.68 ms를"]),
    ("3로는", ["3으로는"]), ("7으로", ["7로"]), ("G6는", ["6은"]), ("3/4를", ["3/4을"]),
    ("값 {eval}`f.gain`과 같다", ['{eval}`f.p("gain", "과")`']),
    ("{eval}`f.bk`로는", ['{eval}`f.p("bk", "로")`는']),
    # right as written: the particle follows 개, a copula, a counter, a fraction, a unit or a helper
    ("4개를", []), ("Level 4는", []), ("2이고", []), ("4가지", []), ("1/4이 된다", []), ("3/4을", []),
    ("4 KiB를", []), ("{eval}`f.ms` ms를", []), ("{eval}`f.pct`%를", []), ("{eval}`f.n`개를", []),
    ('{eval}`f.p("gain", "과")` 같다', []), ("kt%2로", []), ("L2는", []), ("float4를", []),
])
def test_particle_problems(text, found):
    assert [should for _, _, should in particle_problems(text)] == found


# ----------------------------------------------------------------------------- the sources

SOURCES = sorted(p for p in [*REPO.glob("book/**/*.md"), *REPO.glob("course/quiz/banks/*.yaml"), *REPO.glob("sims/*.py"),
                             *REPO.glob("course/*.py"), *REPO.glob("course/site/*.py"), *REPO.glob("course/facts/*.py"),
                             *(p for package in ("quiz", "notebook", "instructor", "page")
                               for p in REPO.glob(f"course/{package}/*.py")),
                             *REPO.glob("course/autograder/*.py"), *REPO.glob("course/site/static/*.js")]
                 if not any(part.startswith(".") or part == "_build" for part in p.relative_to(REPO).parts)
                 and p.name != "korean.py")


def _where(text: str, offset: int) -> str:
    return f"{text.count(chr(10), 0, offset) + 1}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_particle_mismatch_in_the_sources(path):
    """After a digit, %, ³ or a unit the particle follows the reading; a glued value gets f.p(...)."""
    text = path.read_text(encoding="utf-8")
    problems = [f"{path.relative_to(REPO)}:{_where(text, off)}: {was!r} -> {should!r}"
                for off, was, should in particle_problems(text)]
    assert not problems, "\n".join(problems)


PLACEHOLDER_PARTICLE = re.compile(r"\{[^{}\n]+\}(?:으로|로|과|와|을|를|은|는|이|가)(?![가-힣])")


@pytest.mark.parametrize("path", sorted(REPO.glob("sims/*.py")), ids=lambda p: p.name)
def test_simulator_messages_choose_particles_after_values(path):
    """A simulator's message with a value before a two-form particle uses korean_text.with_particle."""
    text = path.read_text(encoding="utf-8")
    hits = [f"{path.name}:{_where(text, m.start())}: {m.group(0)}" for m in PLACEHOLDER_PARTICLE.finditer(text)]
    assert not hits, "\n".join(hits)


CHAPTERS = sorted((REPO / "book").glob("m*.md"))
EVAL = re.compile(r"\{eval\}`([^`]+)`")
WITH_PARTICLE = re.compile(r'f\.p\("(\w+)", "(\w+)"\)')


def test_every_eval_is_allowed_by_myst_nb():
    """myst-nb evaluates only expressions that match nb_eval_name_regex (_config.yml): f.NAME and f.p(...)."""
    config = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf-8"))
    allowed = re.compile(config["sphinx"]["config"]["nb_eval_name_regex"])
    bad = [f"{c.name}: {e}" for c in CHAPTERS for e in EVAL.findall(c.read_text(encoding="utf-8"))
           if not allowed.match(e)]
    assert not bad, bad


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_every_fact_with_a_particle_reads(chapter):
    """Each f.p("name", form) in a chapter names a fact whose value has a reading (no ValueError at build)."""
    facts = importlib.import_module(f"course.facts.{chapter.stem.split('_')[0]}").f
    for expr in EVAL.findall(chapter.read_text(encoding="utf-8")):
        m = WITH_PARTICLE.fullmatch(expr)
        if m is None:
            assert not expr.startswith("f.p("), f"{chapter.name}: write f.p(\"name\", \"과\"): {expr}"
            continue
        name, form = m.groups()
        if name in facts:                 # facts set by the chapter's own cells are checked by the site build
            assert facts.p(name, form) == facts[name] + particle(facts[name], form)


# ----------------------------------------------------------------------------- the quiz script

def test_quiz_js_chooses_the_same_particles():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed; quiz_rules.js's particles not checked")
    cases = [[t, f] for t in ("7", "10", "11", "6", "9", "모듈 6 숙달 체크포인트", "타일", "블록", "75%", "Level 3")
             for f in ("과", "을", "은", "이", "으로")]
    script = ("const q = require(process.argv[1]); const cases = JSON.parse(process.argv[2]);"
              "console.log(JSON.stringify(cases.map(([t, f]) => q.withParticle(t, f))));")
    out = subprocess.run([node, "-e", script, str(REPO / "course" / "site" / "static" / "quiz_rules.js"), json.dumps(cases)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [with_particle(t, f) for t, f in cases]


# ----------------------------------------------------------------------------- the built site

def _page_text(page: Path) -> str:
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", page.read_text(encoding="utf-8"), flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def test_no_particle_mismatch_on_the_built_site(site_dir):
    problems = []
    for page in sorted(site_dir.rglob("*.html")):
        text = _page_text(page)
        problems += [f"{page.relative_to(site_dir)}: …{text[max(0, off - 30):off + len(was)]!r} ({was!r} -> {should!r})"
                     for off, was, should in particle_problems(text)]
    assert not problems, "\n".join(problems)
