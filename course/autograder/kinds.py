"""The registry of exercise kinds: the name an exercise.yaml gives (`kind:`, default "sgemm") -> the kind's object.

Each kind is one module implementing course.autograder.kind_base.ExerciseKind:

  sgemm          C = alpha * A @ B + beta * C, every exercise of modules 4-9 (course.autograder.kind_sgemm)
  splitk_reduce  the split-K reduction of module 12 (course.autograder.kind_splitk_reduce)

The schema (course.autograder.spec), the checks in the parent process (course.autograder.gpu), the card and
the worker subprocess (course.autograder.worker) all look the kind up here. A new kind is a new module and
one entry in KINDS.
"""
from __future__ import annotations

from course.autograder import kind_sgemm, kind_splitk_reduce
from course.autograder.kind_base import ExerciseKind

KINDS: dict[str, ExerciseKind] = {kind.name: kind for kind in (kind_sgemm.KIND, kind_splitk_reduce.KIND)}
KIND_NAMES = tuple(KINDS)


def get(name: str) -> ExerciseKind:
    """The kind called `name` (KeyError for a name no kind has; the schema refuses those first)."""
    return KINDS[name]


def of(spec) -> ExerciseKind:
    """The kind of an ExerciseSpec."""
    return get(getattr(spec, "kind", "sgemm"))
