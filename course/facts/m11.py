"""Facts of module 11 (m11_beyond_cublas.md), as the chapter imports them.

The facts live in course.facts.m11_core (the records, `f`, and most facts and claims) and in course.facts.m11_bar,
which import m11_core and declare their own facts and claims on the same `f`. This module loads them all, so
that every name book/m11_beyond_cublas.md evaluates is set and every claim is checked when the chapter's facts are verified;
nothing below it imports this module.
"""
from course.facts.m11_core import *  # noqa: F401,F403  (the names the chapter and the tests read)
from course.facts import m11_core, m11_bar  # noqa: F401  (both declare on one f)
