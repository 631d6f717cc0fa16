"""No stale absence: a sentence that says something was not measured, not recorded or has no data
is a claim about the records, and goes stale silently when a record is added.

Every such sentence in a chapter's prose (code cells are not prose) and in its quiz bank (every string of
course/quiz/banks/mNN.yaml: prompts, choices, explanations, rubrics, model answers) must contain the quote of an
``@f.absence("...")`` claim of that module's facts (course/facts/__init__.py), and that claim must hold on the
records; every declared quote must still be in the text. The modules come from course/syllabus.py, so a new
module is checked as soon as it is listed (the throwaway module 99 below shows it).
"""
from __future__ import annotations

import bisect
import importlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from course import syllabus

# The phrases of absence: not measured / not timed / not recorded / not profiled / no data, no samples, no
# measured ground; and "the record cannot tell", which says the record lacks what would tell.
ABSENCE = re.compile(
    r"측정(?:하|되)지\s*않"
    r"|측정\s*근거(?:가|는|도)?\s*없"
    r"|기록[^.\n]{0,20}?으로는[^.\n]{0,30}?(?:잴|알|가릴|말할|볼|답할)\s*수\s*(?:는\s*)?없"
    r"|재지\s*않(?:았|은)"
    r"|기록(?:하|되)지\s*않"
    r"|기록(?:에는?|이|은|으로는)\s*없"
    r"|(?:데이터|샘플|측정값|잰\s*값)(?:가|이|은|는|도)?\s*없"
    r"|프로파일(?:하|되)지\s*않"
)
# What follows the phrase when the sentence does not claim an absence: a condition ("기록이 없으면 ... 보여
# 줍니다") or a noun the phrase only describes ("데이터가 없는 GPU").
NOT_A_CLAIM = re.compile(
    r"\S*?(?:으면|다면|을\s*때|는\s*경우|을\s*경우)"
    r"|는\s+(?:GPU|환경|기기|장치|머신|컴퓨터|곳)"
)
# Where one sentence ends and the next begins: . ? ! before a space, a blank line, the start of a list item,
# a table row or a heading, a table cell's bar, and the end of a directive's title line (prose() marks it).
END_OF_TITLE = "\u00b6"
BOUNDARY = re.compile(r"(?<=[.?!])[\"'”’)*]*\s+|\n[ \t]*\n|\n(?=[ \t]*(?:[-*+]\s|\d+\.\s|#|\|))|\||" + END_OF_TITLE)
CODE_FENCE = re.compile(r"^[ \t]*```")
DIRECTIVE = re.compile(r"^[ \t]*:{3,}(?:\{[\w-]+\})?[ \t]*(.*)$")


@dataclass(frozen=True)
class Hit:
    """One sentence that says something is absent."""

    path: str
    line: int
    sentence: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.sentence}"


def normalise(text: str) -> str:
    """Whitespace collapsed and bold/italic markers dropped: a quote matches however the source wraps it."""
    return re.sub(r"\s+", " ", text.replace("**", "").replace("__", "")).strip()


def prose(markdown: str) -> str:
    """The chapter with its front matter and code blocks blanked (lines kept, so line numbers stay right)."""
    lines = markdown.split("\n")
    out, in_code = [], False
    in_front = bool(lines) and lines[0].strip() == "---"
    for number, line in enumerate(lines):
        if in_front:
            out.append("")
            in_front = not (number > 0 and line.strip() == "---")
            continue
        if CODE_FENCE.match(line):
            in_code = not in_code
            out.append("")
            continue
        if in_code:
            out.append("")
        elif DIRECTIVE.match(line):         # ":::{dropdown} title": the title is a sentence of its own
            out.append(DIRECTIVE.match(line).group(1) + END_OF_TITLE)
        else:
            out.append(line)
    return "\n".join(out)


def absence_sentences(text: str, path: str, first_line: int = 1) -> list[Hit]:
    """Every sentence of `text` that claims an absence, with the line where its absence phrase stands."""
    cuts = [0]
    for b in BOUNDARY.finditer(text):
        cuts += [b.start(), b.end()]
    cuts.append(len(text))
    hits, seen = [], set()
    for match in ABSENCE.finditer(text):
        if NOT_A_CLAIM.match(text, match.end()):
            continue
        i = bisect.bisect_right(cuts, match.start())
        start, end = cuts[i - 1], cuts[i] if i < len(cuts) else len(text)
        if i % 2 == 0:                      # inside a boundary: cannot happen for Hangul, but stay safe
            start, end = match.start(), match.end()
        if start in seen:
            continue
        seen.add(start)
        sentence = normalise(text[start:end])
        hits.append(Hit(path, first_line + text.count("\n", 0, match.start()), sentence))
    return hits


def _scalars(node):
    """(line, text) of every string in a YAML document, in order."""
    if isinstance(node, yaml.ScalarNode):
        if isinstance(node.value, str) and node.tag.endswith(":str"):
            block = node.style in ("|", ">")            # the text starts on the line after the indicator
            yield node.start_mark.line + 1 + block, node.value
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _scalars(item)
    elif isinstance(node, yaml.MappingNode):
        for _, value in node.value:
            yield from _scalars(value)


def chapter_hits(module, root: Path = REPO) -> list[Hit]:
    path = root / module.chapter_path
    return absence_sentences(prose(path.read_text(encoding="utf-8")), str(module.chapter_path))


def bank_path(module, root: Path = REPO) -> Path:
    return root / "course" / "quiz" / "banks" / f"{module.bank}.yaml"


def bank_hits(module, root: Path = REPO) -> list[Hit]:
    path = bank_path(module, root)
    if not path.is_file():
        return []
    where = str(path.relative_to(root))
    hits = []
    for line, value in _scalars(yaml.compose(path.read_text(encoding="utf-8"))):
        hits += absence_sentences(value, where, line)
    return hits


def facts_of(module):
    return importlib.import_module(module.facts_module).f


def problems(module, root: Path = REPO) -> list[str]:
    """What is wrong with the module's absence sentences: one line per sentence, naming file, line, sentence."""
    facts = facts_of(module)
    quotes = {normalise(q): q for q in facts.absence_quotes()}
    out = []
    for hit in chapter_hits(module, root) + bank_hits(module, root):
        covering = [q for norm, q in quotes.items() if norm in hit.sentence]
        if not covering:
            out.append(f"{hit}\n    → {module.facts_module}에 이 문장의 인용구로 @f.absence(\"...\")를 선언하고, "
                       "기록에 정말 없는지 확인하세요 (기록에 있으면 문장을 기록에 맞게 고치세요)")
            continue
        for quote in covering:
            report = facts.verify_absence(quote)
            if not report.ok or report.checked == 0:
                why = "; ".join(report.failures) or "확인(check)이 하나도 없습니다"
                out.append(f"{hit}\n    → @f.absence({quote!r})의 확인이 실패했습니다 (기록에 이미 있으면 문장이 "
                           f"낡은 것입니다): {why}")
    return out


def module_text(module, root: Path = REPO) -> str:
    """The chapter's prose and every string of its bank, normalised (what a quote is looked up in)."""
    parts = [prose((root / module.chapter_path).read_text(encoding="utf-8"))]
    path = bank_path(module, root)
    if path.is_file():
        parts += [value for _, value in _scalars(yaml.compose(path.read_text(encoding="utf-8")))]
    return "\n".join(normalise(part) for part in parts)


def stale_quotes(module, root: Path = REPO) -> list[str]:
    """Declared absence quotes that the chapter's prose and bank no longer contain."""
    text = module_text(module, root)
    return [q for q in facts_of(module).absence_quotes() if normalise(q) not in text]


MODULES = list(syllabus.load())


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.tag)
def test_every_absence_sentence_is_declared_and_holds(module):
    found = problems(module)
    assert not found, (f"{len(found)}개의 '없음' 문장이 기록 확인을 거치지 않았습니다 (tests/test_absence.py):\n"
                       + "\n".join(found))


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.tag)
def test_every_declared_absence_quote_is_in_the_text(module):
    stale = stale_quotes(module)
    assert not stale, (f"{module.facts_module}: @f.absence 인용구가 본문이나 퀴즈에 없습니다 "
                       f"(문장이 바뀌었으면 인용구도 고치세요): {stale}")


# ---------------------------------------------------------------------------- the scanner itself

@pytest.mark.parametrize("text", [
    "이전 판 루프의 시간은 기록되지 않았습니다.",
    "이 변형은 이 강좌에서 측정하지 않았으므로 추론으로만 답합니다.",
    "이 책의 기록에는 그 샘플이 없습니다.",
    "스스로 재지 않았습니다.",
    "세로 블록이 왜 느린지는 프로파일하지 않았으므로 알 수 없습니다.",
    "원 자료의 \"1–5%\"는 측정되지 않은 주장입니다.",
    "그 구성의 프로파일은 기록에 없어서, 직접 비교할 수 없습니다.",
    "블록 스위즐은 측정 데이터가 없다.",
    "원 자료의 주장(측정 근거 없음)입니다.",
    "이 기록(커널 전체의 평균)으로는 둘을 가릴 수 없습니다.",
])
def test_the_scanner_finds_absence_sentences(text):
    hits = absence_sentences(f"앞 문장입니다. {text} 뒤 문장입니다.", "x.md")
    assert [h.sentence for h in hits] == [normalise(text)]


@pytest.mark.parametrize("text", [
    "기록이 없으면 이 셀은 안내만 보여 줍니다.",
    "데이터가 없는 GPU에서도 책은 기록된 값을 보여 줍니다.",
    "시뮬레이터는 시간을 재지 않고 순서만 따라갑니다.",
    "GPU가 없어도 SASS는 볼 수 있습니다.",
    "기록된 값이 측정과 같습니다.",
    "두 번째 배리어는 측정되는 효과가 없었습니다.",
    "측정과 직접 비교할 수는 없습니다.",
])
def test_the_scanner_skips_sentences_that_claim_no_absence(text):
    assert absence_sentences(text, "x.md") == []


def test_the_scanner_reads_prose_only_and_reports_lines():
    chapter = ("---\njupytext: {}\n---\n\n# 제목\n\n첫 문장입니다. 둘째 줄의 시간은\n기록되지 않았습니다. 다음.\n\n"
               "```{code-cell} ipython3\nnote(\"기록이 없습니다\")\n```\n\n:::{dropdown} 질문\n샘플이 없습니다.\n:::\n"
               ":::{dropdown} 이 변형은 재지 않았습니다\n답입니다.\n:::\n")
    hits = absence_sentences(prose(chapter), "m.md")
    assert [(h.line, h.sentence) for h in hits] == [(8, "둘째 줄의 시간은 기록되지 않았습니다."), (15, "샘플이 없습니다."),
                                                    (17, "이 변형은 재지 않았습니다")]


# ---------------------------------------------------------------------------- a module the syllabus adds

THROWAWAY_FACTS = '''\
"""Facts of the throwaway module 99 (tests/test_absence.py)."""
from course.facts import Facts

f = Facts("m99")
RECORD = {RECORD}


@f.absence("블록 스위즐의 시간은 기록되지 않았습니다")
def swizzle_not_timed(check):
    check("swizzle" not in RECORD, "기록에 스위즐의 시간이 없다")
'''

THROWAWAY_CHAPTER = '''\
---
jupytext: {{}}
---

# 모듈 99

앞 문장입니다. 블록 스위즐의 시간은
기록되지 않았습니다. {extra}
'''

THROWAWAY_BANK = '''\
module: 99
questions:
- id: m99-q01
  prompt: 무엇을 쟀습니까?
  explanation: |
    첫 줄입니다.
    {explanation}
'''


@pytest.fixture
def throwaway(tmp_path, monkeypatch):
    """Write module 99 (syllabus entry, chapter, bank, facts) under tmp_path; return a function that writes
    its files and returns the module as the syllabus lists it."""
    import course.facts

    (tmp_path / "book").mkdir()
    (tmp_path / "course" / "quiz" / "banks").mkdir(parents=True)
    facts_dir = tmp_path / "facts"
    facts_dir.mkdir()
    listed = tmp_path / "syllabus.yaml"
    listed.write_text("modules:\n- {number: 99, page: m99_throwaway, title: 버리는 모듈, level: null}\n",
                      encoding="utf-8")
    monkeypatch.setenv(syllabus.SYLLABUS_ENV, str(listed))
    monkeypatch.setattr(course.facts, "__path__", [*course.facts.__path__, str(facts_dir)])

    def write(record="{}", extra="", explanation="설명입니다."):
        (tmp_path / "book" / "m99_throwaway.md").write_text(THROWAWAY_CHAPTER.format(extra=extra), encoding="utf-8")
        (tmp_path / "course" / "quiz" / "banks" / "m99.yaml").write_text(THROWAWAY_BANK.format(explanation=explanation),
                                                                encoding="utf-8")
        (facts_dir / "m99.py").write_text(THROWAWAY_FACTS.replace("{RECORD}", record), encoding="utf-8")
        sys.modules.pop("course.facts.m99", None)
        importlib.invalidate_caches()
        return syllabus.load().module(99)

    yield write
    sys.modules.pop("course.facts.m99", None)


def test_a_module_the_syllabus_adds_is_checked(throwaway, tmp_path):
    module = throwaway()
    assert [m.number for m in syllabus.load()] == [99]
    assert problems(module, tmp_path) == [] and stale_quotes(module, tmp_path) == []

    # A new absence sentence in the bank, with no claim behind it: named with its file and line.
    module = throwaway(explanation="이 변형의 샘플이 없습니다.")
    found = problems(module, tmp_path)
    assert len(found) == 1 and found[0].startswith("course/quiz/banks/m99.yaml:7: 이 변형의 샘플이 없습니다.")

    # The record gains the timing: the declared sentence is now stale and fails, naming the chapter's line.
    module = throwaway(record='{"swizzle": 1.0}')
    found = problems(module, tmp_path)
    assert len(found) == 1 and found[0].startswith("book/m99_throwaway.md:8: 블록 스위즐의 시간은 기록되지 않았습니다.")
    assert "확인이 실패" in found[0]


def test_a_declared_quote_the_text_no_longer_says_is_reported(throwaway, tmp_path):
    module = throwaway()
    chapter = tmp_path / "book" / "m99_throwaway.md"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("기록되지 않았습니다", "기록에 있습니다"),
                       encoding="utf-8")
    assert stale_quotes(module, tmp_path) == ["블록 스위즐의 시간은 기록되지 않았습니다"]
