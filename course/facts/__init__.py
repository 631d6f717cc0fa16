"""Each chapter's facts: the numbers and phrases its prose shows, read from book/data at import.

A chapter's first code cell imports its module (``from course.facts.m09 import f``) and the text
shows a value with the MyST inline role ``{eval}`f.cp_total```; a value followed by a particle that
has two forms (과/와, 을/를, 은/는, 이/가, 으로/로) is written ``{eval}`f.p("cp_total", "과")```, which
picks the form by how the value is read (korean_text), so a re-recorded value keeps its grammar.
The same source reads the same on the site (myst-nb evaluates the role while it executes the page)
and in JupyterLab (the jupyterlab-myst extension evaluates it when the Markdown cell runs).

A facts module only reads JSON (book/data, including the recorded SASS facts of
course.facts.recorded_sass) and formats numbers, so that the chapter's first cell is instant. Every value
goes through one helper, ``f.set(name, value, fmt)``.

The text's directional sentences ("Level 5 is slower than Level 4") are CLAIMS, declared next to the
values they are about and checked outside the learner's kernel:

    @f.claims
    def level_order(check):
        check(l5_ms > l4_ms, "본문: Level 5는 Level 4보다 느리다")

A sentence that says something was NOT measured, not recorded or has no data is a claim too, and goes
stale silently when a record is added. It is declared with the words it says it in:

    @f.absence("이전 판 루프의 시간은 기록되지 않았습니다")
    def old_loop_not_timed(check):
        check("level4_old_loop" not in variants, "variants.json에 이전 판 루프의 시간이 없다")

tests/test_absence.py finds every such sentence in the chapter's prose and its quiz bank and requires it to
contain a declared quote whose claims hold (and every quote to be in the text), so adding the record breaks
the build until the text follows.

A claims function is not run when the module is imported; ``verify(module)`` runs them all (the test
suite, tests/test_chapter_facts.py, and the site build, course/site/extension.py), so a re-recording that
contradicts a sentence stops the build instead of publishing a false sentence.
"""
from __future__ import annotations

import functools
import importlib
import numbers
from dataclasses import dataclass, field
from typing import Callable

from korean_text import with_particle


@functools.lru_cache(maxsize=None)
def _bank(module: int):
    from course.quiz.bank import load_bank

    return load_bank(module)


def quiz_text(module: int, qid: str) -> str:
    """What a learner reads of one quiz question, for the facts modules' checks on the numbers it quotes."""
    return _bank(module).question(qid).learner_text()


class Text(str):
    """A string whose repr is the text itself, so that an inline expression shows it without quotes."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str.__str__(self)

    def _repr_pretty_(self, printer, cycle) -> None:   # IPython's plain-text formatter
        printer.text(str.__str__(self))


def as_text(value) -> Text:
    """Display text of one fact. Floats must be formatted by the caller (no accidental 17 digits)."""
    if isinstance(value, str):
        return Text(value)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return Text(str(int(value)))
    raise TypeError(f"a fact must be text or an integer, not {type(value).__name__}: {value!r} "
                    "(format numbers explicitly, e.g. f'{x:.1f}')")


class Check:
    """What a claims function calls: check(condition, sentence). Failures are collected, not raised."""

    def __init__(self, where: str):
        self.where = where
        self.count = 0
        self.failures: list[str] = []

    def __call__(self, condition, sentence: str) -> bool:
        self.count += 1
        if not condition:
            self.failures.append(f"{self.where}: {sentence}")
        return bool(condition)


@dataclass
class ClaimReport:
    chapter: str
    checked: int = 0
    failures: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


class Facts:
    """Attribute namespace of one chapter's facts; every value is stored as display text."""

    def __init__(self, chapter: str):
        object.__setattr__(self, "_chapter", chapter)
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_claims", [])
        object.__setattr__(self, "_absences", {})

    def set(self, name: str, value, fmt: str = "") -> None:
        """One fact of the text: `value` formatted as it is printed (format(value, fmt))."""
        self[name] = format(value, fmt) if fmt else value

    def claims(self, function: Callable[[Check], None]) -> Callable[[Check], None]:
        """Declare a claims function (a decorator): run by verify(), never at import."""
        self._claims.append(function)
        return function

    def absence(self, quote: str) -> Callable:
        """Declare (a decorator) the claims behind a sentence of the text that contains `quote` and says
        something was not measured or recorded: they check that the records indeed lack it."""
        def declare(function: Callable[[Check], None]) -> Callable[[Check], None]:
            if quote in self._absences:
                raise KeyError(f"{self._chapter}: absence quote declared twice: {quote!r}")
            self._absences[quote] = function
            return self.claims(function)
        return declare

    def absence_quotes(self) -> list[str]:
        return list(self._absences)

    def verify_absence(self, quote: str) -> ClaimReport:
        """Run only the claims declared behind one absence quote (KeyError if none is declared)."""
        return self._run([self._absences[quote]])

    def verify(self) -> ClaimReport:
        """Run every claims function; an exception inside one counts as its failure."""
        return self._run(self._claims)

    def _run(self, functions) -> ClaimReport:
        report = ClaimReport(self._chapter)
        for function in functions:
            check = Check(f"{self._chapter}.{function.__name__}")
            try:
                function(check)
            except Exception as exc:   # a claim that cannot even be evaluated is a failed claim
                check.failures.append(f"{check.where}: {type(exc).__name__}: {exc}")
            report.checked += check.count
            report.failures += check.failures
        return report

    def __setattr__(self, key: str, value) -> None:
        self[key] = value

    def __setitem__(self, key: str, value) -> None:
        if not key.isidentifier():
            raise KeyError(f"fact names must be identifiers (used as f.NAME in the text): {key!r}")
        if key in self._values:
            raise KeyError(f"{self._chapter}: fact {key!r} is set twice")
        if hasattr(type(self), key):
            raise KeyError(f"{self._chapter}: {key!r} names a method of Facts (f.{key}), not a free fact name")
        self._values[key] = as_text(value)

    def __getattr__(self, key: str) -> Text:
        try:
            return self._values[key]
        except KeyError:
            raise AttributeError(f"{self._chapter} 장에 {key!r}라는 값(fact)이 없습니다") from None

    def __getitem__(self, key: str) -> Text:
        return self._values[key]

    def claim_functions(self) -> list:
        return list(self._claims)

    def p(self, key: str, form: str) -> Text:
        """The fact followed by the form of a particle its reading takes: f.p("ms_db", "와") -> "2.31과"."""
        return Text(with_particle(getattr(self, key), form))

    def __contains__(self, key: str) -> bool:
        return key in self._values

    def __dir__(self):
        return sorted(self._values)

    def keys(self) -> list[str]:
        return list(self._values)

    def __repr__(self) -> str:
        return f"<{self._chapter}: {len(self._values)} facts, {len(self._claims)} claims functions>"


def verify(module: int) -> ClaimReport:
    """Import a module's facts and check every claim its text makes."""
    from course import syllabus

    facts = importlib.import_module(syllabus.load().module(module).facts_module).f
    return facts.verify()

