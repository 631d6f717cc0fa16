"""Facts of module 10 (m10_profiling.md), as the chapter imports them.

The facts live in course.facts.m10_core (the records, `f`, and most facts and claims) and in course.facts.m10_quiz, course.facts.m10_steps, course.facts.m10_timing,
which import m10_core and declare their own facts and claims on the same `f`. This module loads them all, so
that every name book/m10_profiling.md evaluates is set and every claim is checked when the chapter's facts are verified;
nothing below it imports this module.
"""
from course.facts.m10_core import *  # noqa: F401,F403  (the names the chapter and the tests read)
from course.facts import m10_core, m10_quiz, m10_steps, m10_timing  # noqa: F401  (all declare on one f)
