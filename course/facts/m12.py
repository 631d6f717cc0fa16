"""Facts of module 12 (m12_shape_aware.md), as the chapter imports them.

The facts live in course.facts.m12_core (the records, `f`, and most facts and claims) and in course.facts.m12_heldout,
which import m12_core and declare their own facts and claims on the same `f`. This module loads them all, so
that every name book/m12_shape_aware.md evaluates is set and every claim is checked when the chapter's facts are verified;
nothing below it imports this module.
"""
from course.facts.m12_core import *  # noqa: F401,F403  (the names the chapter and the tests read)
from course.facts import m12_core, m12_heldout  # noqa: F401  (both declare on one f)
