"""Each chapter's facts: the numbers and phrases its prose shows, read from book/data at import.

A chapter's first code cell imports its module (``from course.facts.m09 import f``) and the text
shows a value with the MyST inline role ``{eval}`f.cp_total```; a value followed by a particle that
has two forms (과/와, 을/를, 은/는, 이/가, 으로/로) is written ``{eval}`f.p("cp_total", "과")```, which
picks the form by how the value is read (course.korean), so a re-recorded value keeps its grammar.
The same source then reads the same
on the site (myst-nb evaluates the role while it executes the page) and in JupyterLab (the
jupyterlab-myst extension evaluates it when the Markdown cell runs).

The modules also hold the checks on directional sentences ("Level 5 is slower than Level 4"): they
are asserts that run while the module is imported, so a re-recording that contradicts the text stops
the site build and the test suite (tests/test_chapter_facts.py) instead of publishing a false sentence.
"""
from __future__ import annotations

import functools
import numbers

from course.korean import with_particle


@functools.lru_cache(maxsize=None)
def _bank(module: int):
    from course.bank import load_bank

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


class Facts:
    """Attribute namespace of one chapter's facts; every value is stored as display text."""

    def __init__(self, chapter: str):
        object.__setattr__(self, "_chapter", chapter)
        object.__setattr__(self, "_values", {})

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
        return f"<{self._chapter}: {len(self._values)} facts>"

