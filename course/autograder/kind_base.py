"""What an exercise kind is: the interface every kind implements, one module each.

An exercise.yaml names its kind (`kind:`, default "sgemm"); course.autograder.kinds maps the name to the
kind's object, and everything that differs from kind to kind is asked of that object, never decided by
comparing names. A kind says what the kernel computes and takes (its parameter list), which cases it is
checked on (planned on the CPU, so tests see them without a GPU), what the learner is told in its own
terms, and, in the worker subprocess, how the learner's kernel is launched on a case and what the right
result is.

Imports nothing from the package: the kinds' modules sit below the schema, which validates against them
(and writes a signature out with course.autograder.signatures, from the kind's `signature` and `read_only`).
"""
from __future__ import annotations


class ExerciseKind:
    """One kind of exercise. A subclass sets the attributes and implements the methods below.

    `spec` is always an ExerciseSpec (course.autograder.spec); a case is a frozen dataclass with as_dict()
    (what the worker receives) or that dict; the worker's result for a case is that dict with its outcome.
    """

    # ------------------------------------------------------------------ what the kernel is
    name: str = ""
    signature: tuple = ()           # ((name, "pointer" | "int" | "float"), ...) the PTX check compares against
    read_only: tuple = ()           # pointer parameters the kernel only reads: written const, compared after a run
    reference_text_ko: str = ""     # what checks.speed.reference must name (the schema error says it)

    def reference_ok(self, name) -> bool:
        """Whether checks.speed.reference names a kernel this kind can be timed against."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the cases (CPU)
    def correctness_cases(self, spec, seed: int = 0) -> list:
        """The fixed cases (the same in every run), then the cases drawn from `seed`."""
        raise NotImplementedError

    def hazard_cases(self, spec, seed: int = 0) -> list:
        """Small cases for compute-sanitizer."""
        raise NotImplementedError

    def differential_cases(self, spec, seed: int = 0) -> list:
        """The repeated-run test's cases, where compute-sanitizer is missing."""
        raise NotImplementedError

    def speed_case(self, spec, seed: int = 0):
        """The timed case of a run, drawn from `seed`."""
        raise NotImplementedError

    # ------------------------------------------------------------------ what the learner reads
    reference_name_ko: str = ""     # what the result is compared with, e.g. "cuBLAS"
    tight_rows_hint_ko: str = ""    # a case wrong only with padded rows: which strides to use
    hazard_sizes_ko: str = ""       # the sanitizer's cases on the card ("작은 크기")
    operands_ko: str = ""           # what the size limit counts, on the card
    tool_advice_ko: dict = {}       # compute-sanitizer tool -> advice replacing the general one

    def case_label(self, case: dict) -> str:
        """A case's size in a few characters ("M×N×K"), for progress stages and lists of cases."""
        raise NotImplementedError

    def shape_text(self, case: dict, spec) -> str:
        """A case as the learner reads it in a message: size, alpha and beta, strides, what C was filled with."""
        raise NotImplementedError

    def speed_size_text(self, result: dict, spec) -> str:
        """The timed shape as the speed check's message names it (`result`: the worker's speed result)."""
        raise NotImplementedError

    def edge_hint_ko(self, spec) -> str:
        """The hint when every whole-tile case is right and only cases with partial tiles fail."""
        raise NotImplementedError

    def card_kernel_ko(self, spec) -> str:
        """The card's "kernel" row: the signature and what the kernel computes."""
        raise NotImplementedError

    def correctness_text_ko(self, spec) -> str:
        """What the correctness check covers, for the card and `exercise show`."""
        raise NotImplementedError

    def speed_shape_ko(self, band: str) -> str:
        """The timed shape on the card; `band` says which sizes a dimension is drawn from."""
        raise NotImplementedError

    def speed_target_ko(self, spec) -> str:
        """The kernel the learner's is timed against, on the card."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the worker subprocess (GPU)
    def compile(self, job: dict):
        """The learner's kernel compiled for `job` (a course.autograder.worker_base.LearnerKernel subclass that
        implements launch_case, stand_ins and warm_cases)."""
        raise NotImplementedError

    def worker_modes(self) -> dict:
        """job["mode"] -> function(job, kernel) -> the result the worker reports (correctness, sanitize,
        differential, speed)."""
        raise NotImplementedError
