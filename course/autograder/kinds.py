"""Kinds of exercise: what the kernel computes, its parameter list, the cases it is checked on.

Every exercise.yaml names its kind (`kind:`, default "sgemm") and writes out the parameter list the
checker launches with (`signature:`); the kind checks that the two agree, so the data and the launcher
cannot drift apart. A kind supplies, all decided on the CPU (tests see them without a GPU):

  signature            ((name, "pointer" | "int" | "float"), ...) the PTX check compares against
  correctness_cases    the fixed cases and those drawn from the run's seed
  hazard_cases         small cases for compute-sanitizer
  differential_cases   the stand-in for racecheck where compute-sanitizer is missing
  speed_case           the timed case, beside the kind's reference kernel
  shape_text           a case as the learner reads it in a message
  reference_ok         whether checks.speed.reference names a kernel this kind can time against

The GPU side of each kind lives in the worker (course.autograder.worker for "sgemm",
course.autograder.reduce_worker for "splitk_reduce").

Kinds
-----
sgemm          C = alpha * A @ B + beta * C, (A, B, C, M, N, K, lda, ldb, ldc, alpha, beta): every exercise
               of modules 4-9 (course.autograder.cases plans its cases).
splitk_reduce  the split-K reduction of module 12: C = alpha * (P_0 + ... + P_{S-1}) + beta * C from a
               workspace of S partial M x N slabs (slab s at P + s * M * ldp, ldp a multiple of 4 >= N),
               (P, C, M, N, ldp, ldc, S, alpha, beta) as kernels/sgemm_shape_aware.cu's shape_aware_reduce.
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from typing import Callable

from course.autograder.cases import (DRAWN_CASES, SPECIALS, alpha_beta_choices,  # the SGEMM cases' draw, shared
                                     speed_sizes)

SGEMM_SIGNATURE = (("A", "pointer"), ("B", "pointer"), ("C", "pointer"), ("M", "int"), ("N", "int"), ("K", "int"),
                   ("lda", "int"), ("ldb", "int"), ("ldc", "int"), ("alpha", "float"), ("beta", "float"))
REDUCE_SIGNATURE = (("P", "pointer"), ("C", "pointer"), ("M", "int"), ("N", "int"), ("ldp", "int"), ("ldc", "int"),
                    ("S", "int"), ("alpha", "float"), ("beta", "float"))
C_TYPES = {"pointer": "float*", "int": "int", "float": "float"}
# The pointers a kernel only reads (written `const float*` in the signature text).
READ_ONLY = {"A", "B", "P"}


def signature_text(signature: tuple, entry: str) -> str:
    """extern "C" __global__ void entry(const float* A, ...) as a learner writes it."""
    params = ", ".join(("const " if kind == "pointer" and name in READ_ONLY else "") + f"{C_TYPES[kind]} {name}"
                       for name, kind in signature)
    return f'extern "C" __global__ void {entry}({params})'


def parse_signature(value) -> tuple | None:
    """exercise.yaml's signature: a list of "type name" strings ("const float* P", "int M", "float alpha")."""
    if not isinstance(value, list) or not value:
        return None
    out = []
    for item in value:
        if not isinstance(item, str):
            return None
        words = item.replace("*", " * ").split()
        if not words:
            return None
        name = words[-1]
        kind = "pointer" if "*" in words else {"int": "int", "float": "float"}.get(words[-2] if len(words) > 1 else "")
        if kind is None or not name.isidentifier():
            return None
        out.append((name, kind))
    return tuple(out)


# ----------------------------------------------------------------------------- splitk_reduce cases

SLICES = (2, 3, 4, 5, 8, 13, 16, 24)   # S values the drawn cases pick from (past 8 and past 16 too)
MANY_SLICES = 19                  # the fixed case with many slabs (an odd number past 16)
REDUCE_SPEED_SLICES = 8           # the timed case: 8 slabs of about speed.size x speed.size (drawn per run)


@dataclass(frozen=True)
class ReduceCase:
    M: int
    N: int
    S: int
    alpha: float
    beta: float
    pad_p: int = 0        # ldp = N rounded up to 4, plus pad_p (a multiple of 4: the workspace's rows stay aligned)
    pad_c: int = 0        # ldc = N + pad_c (any value)
    edge: bool = False    # M or N cuts a block tile
    drawn: bool = False
    data_seed: int = 0
    specials: int = 0     # NaN, +Inf and -Inf values put into the slabs (the expected C is IEEE arithmetic's)

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def ldp(self) -> int:
        return -(-self.N // 4) * 4 + self.pad_p

    @property
    def ldc(self) -> int:
        return self.N + self.pad_c


def reduce_strides(case: dict) -> tuple[int, int]:
    """(ldp, ldc) of a case given as the worker's dict."""
    return (-(-case["N"] // 4) * 4 + case["pad_p"], case["N"] + case["pad_c"])


def _reduce_pads(rng: random.Random, N: int) -> tuple[int, int]:
    """pad_p (multiple of 4) and pad_c with ldp != ldc, so a kernel that swaps the strides fails."""
    for _ in range(64):
        pad_p, pad_c = 4 * rng.randint(0, 4), rng.randint(1, 9)
        if -(-N // 4) * 4 + pad_p != N + pad_c:
            return pad_p, pad_c
    return 4, 1 if N % 4 else 2   # N + 1 or N + 2 can never equal a multiple of 4 >= N plus 4


def _reduce_edge(spec, M: int, N: int) -> bool:
    rows, cols = spec.tile
    return bool(M % rows or N % cols)


def reduce_correctness_cases(spec, seed: int = 0) -> list[ReduceCase]:
    """Fixed cases (one element; edges; whole tiles with alpha and beta != 0; one slab; tight rows; every class of
    (alpha, beta) of course.autograder.cases.alpha_beta_class; 19 slabs; NaN and +-Inf in the slabs) and cases
    drawn from `seed` (shape, S, alpha, beta, strides; the second drawn case holds NaN and +-Inf)."""
    rows, cols = spec.tile
    fixed = [(1, 1, 2, 1.0, 0.0, True, 0), (7, 5, 3, 0.5, 0.0, True, 0), (rows + 1, cols + 3, 4, -1.5, 0.25, True, 0),
             (2 * rows, 2 * cols, 4, 1.25, -0.5, True, 0),   # whole tiles, alpha and beta both != 0 and != 1
             (rows, cols, 1, 2.0, 0.5, True, 0),             # one slab: still alpha * P + beta * C
             (2 * rows, 4 * cols, 3, 1.0, 0.0, False, 0),    # whole tiles, tight rows (ldp = ldc = N)
             (33, 65, 5, 0.0, 2.0, True, 0),                 # alpha = 0: C = beta * C
             (3 * rows + 5, 2 * cols - 3, 8, 0.5, 0.0, True, 0),
             (rows + 3, cols + 1, 4, 0.0, 0.0, True, 0),     # alpha = beta = 0: C = 0, C never read
             (2 * rows + 1, cols + 5, 6, 1.0, -0.37, True, 0),   # alpha = 1 with beta neither 0 nor 1
             (rows + 7, 2 * cols + 3, 3, 1.1, 1.0, True, 0),     # beta = 1 with alpha neither 0 nor 1
             (2 * rows + 5, cols + 2, 2, 1.0, 1.0, True, 0),     # alpha = beta = 1: C += the sum
             (3 * rows + 1, 2 * cols + 5, MANY_SLICES, -0.37, 1.1, True, 0),   # many slabs
             (2 * rows + 3, cols + 9, 7, -0.75, 0.0, True, SPECIALS),          # NaN and +-Inf in the slabs
             (rows + 9, 2 * cols + 1, 4, 1.1, -0.37, True, SPECIALS)]
    rng, fixed_rng = random.Random(f"{int(seed)}:{spec.id}"), random.Random(f"fixed:{spec.id}")
    out = []
    for M, N, S, alpha, beta, padded, specials in fixed:
        pads = _reduce_pads(fixed_rng, N) if padded else (0, 0)
        if not padded and N % 4:
            raise ValueError("a tight-rows case needs N a multiple of 4 (ldp = N)")
        out.append(ReduceCase(M, N, S, alpha, beta, *pads, edge=_reduce_edge(spec, M, N),
                              data_seed=fixed_rng.randrange(2 ** 32), specials=specials))
    for i in range(DRAWN_CASES):
        if i == 0:
            M, N = rows * rng.randint(1, 3), cols * rng.randint(1, 3)
        else:
            M, N = rng.randint(1, 3 * rows + 17), rng.randint(1, 3 * cols + 17)
        specials = SPECIALS if i == 1 else 0
        alpha, beta = rng.choice(alpha_beta_choices(specials))
        out.append(ReduceCase(M, N, rng.choice(SLICES), alpha, beta, *_reduce_pads(rng, N),
                              edge=_reduce_edge(spec, M, N), drawn=True, data_seed=rng.randrange(2 ** 32),
                              specials=specials))
    return out


def reduce_hazard_cases(spec, seed: int = 0) -> list[ReduceCase]:
    rows, cols = spec.tile
    rng = random.Random(f"{int(seed)}:{spec.id}:hazards")
    first, second = (rows + 3, cols + 5), (max(rows - 1, 1), 2 * cols - 1)
    return [ReduceCase(*first, 3, 1.0, 0.0, *_reduce_pads(rng, first[1]), edge=True),
            ReduceCase(*second, 4, 0.5, 0.5, *_reduce_pads(rng, second[1]), edge=True)]


def reduce_differential_cases(spec, seed: int = 0) -> list[ReduceCase]:
    rng = random.Random(f"{int(seed)}:{spec.id}:differential")
    return [ReduceCase(1027, 1029, 4, 1.0, 0.0, *_reduce_pads(rng, 1029), edge=True, data_seed=4242)]


def reduce_speed_case(spec, seed: int = 0) -> ReduceCase:
    """The timed case of a run: M and N drawn from `seed` within the band of cases.speed_sizes, 8 slabs."""
    rng = random.Random(f"{int(seed)}:{spec.id}:speed")
    M, N = (rng.choice(speed_sizes(spec.speed_size)) for _ in range(2))
    return ReduceCase(M, N, REDUCE_SPEED_SLICES, 1.0, 0.0, 8, 4, edge=_reduce_edge(spec, M, N),
                      data_seed=rng.randrange(2 ** 32))


def reduce_shape_text(case: dict, spec=None) -> str:
    ldp, ldc = reduce_strides(case)
    poison = {"nan": ", C를 NaN으로 채움", "inf": ", C를 ±Inf로 채움"}.get(case.get("poison", ""), "")
    specials = ", P에 NaN·±Inf 있음" if case.get("specials") else ""
    return (f"M={case['M']}, N={case['N']}, 조각 S={case['S']} (alpha={case['alpha']:g}, beta={case['beta']:g}, "
            f"ldp={ldp}, ldc={ldc}{specials}{poison})")


def _reduce_reference_ok(name) -> bool:
    return name in REDUCE_REFERENCES


# The course's reductions a splitk_reduce exercise may be timed against: (file, entry, threads per block).
REDUCE_REFERENCES = {"shape_aware_reduce": ("sgemm_shape_aware.cu", "shape_aware_reduce", 256)}


# ----------------------------------------------------------------------------- the table of kinds

@dataclass(frozen=True)
class Kind:
    name: str
    signature: tuple
    correctness_cases: Callable
    hazard_cases: Callable
    differential_cases: Callable
    speed_case: Callable
    shape_text: Callable
    reference_ok: Callable
    reference_text_ko: str        # what checks.speed.reference must name, for the schema error


def _sgemm() -> Kind:
    from course.autograder import cases

    def shape_text(case: dict, spec) -> str:
        from course.autograder.gpu import _shape_text

        return _shape_text(case, spec)

    def reference_ok(name) -> bool:
        from kernels import registry

        return name in registry.KERNELS

    return Kind("sgemm", SGEMM_SIGNATURE, cases.correctness_cases, cases.hazard_cases, cases.differential_cases,
                cases.speed_case, shape_text, reference_ok, "kernels 레지스트리의 커널 이름")


def _splitk_reduce() -> Kind:
    return Kind("splitk_reduce", REDUCE_SIGNATURE, reduce_correctness_cases, reduce_hazard_cases,
                reduce_differential_cases, reduce_speed_case, reduce_shape_text, _reduce_reference_ok,
                "강좌의 리덕션 커널 이름 (" + ", ".join(REDUCE_REFERENCES) + ")")


KIND_NAMES = ("sgemm", "splitk_reduce")
_BUILDERS = {"sgemm": _sgemm, "splitk_reduce": _splitk_reduce}
_CACHE: dict = {}


def get(name: str) -> Kind:
    if name not in _BUILDERS:
        raise KeyError(name)
    if name not in _CACHE:
        _CACHE[name] = _BUILDERS[name]()
    return _CACHE[name]


def of(spec) -> Kind:
    return get(getattr(spec, "kind", "sgemm"))
