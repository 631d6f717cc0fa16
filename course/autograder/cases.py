"""Which shapes each GPU check runs, decided on the CPU (so a test can see them without a GPU).

Every shape honours the exercise's constraints (shapes.multiple_of; leading dimensions in
multiples of 4 when aligned16). The correctness list mixes fixed edge shapes (1, primes, one more
than a tile, exact multiples) with seeded random ones, alpha/beta pairs from kernels.check
(beta = 0 first: C is NaN-poisoned there), and rows padded beyond their width (lda > K ...).
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass

from course.autograder.spec import ExerciseSpec
from kernels.check import ALPHA_BETA_CASES

RANDOM_CASES = 6
HAZARD_K = 72            # several k tiles of 8, 16 or 32, plus a tail when K rounds up differently


@dataclass(frozen=True)
class Case:
    M: int
    N: int
    K: int
    alpha: float
    beta: float
    pad: int = 0          # extra floats at the end of every row (lda = K + pad, ...)
    edge: bool = False    # M or N cuts a block tile, or K a k tile of 32

    def as_dict(self) -> dict:
        return asdict(self)

    def label(self) -> str:
        ld = f", 행 여백(ld padding) {self.pad}" if self.pad else ""
        return f"{self.M}×{self.N}×{self.K}, alpha={self.alpha:g}, beta={self.beta:g}{ld}"


def _up(value: int, multiple: int) -> int:
    return max(multiple, -(-value // multiple) * multiple)


def _shape(spec: ExerciseSpec, M: int, N: int, K: int) -> tuple:
    m = spec.multiple_of
    return (_up(M, m["M"]), _up(N, m["N"]), _up(K, m["K"]))


K_TILE = 32              # every course kernel's k tile (BK 8, 16 or 32) divides it


def _is_edge(spec: ExerciseSpec, M: int, N: int, K: int) -> bool:
    """M or N cuts a block tile, or K leaves a partial k tile."""
    rows, cols = spec.tile
    return bool(M % rows or N % cols or K % K_TILE)


def pad_for(spec: ExerciseSpec) -> int:
    return 4 if spec.aligned16 else 3


def correctness_cases(spec: ExerciseSpec, seed: int = 0) -> list[Case]:
    rows, cols = spec.tile
    fixed = [(1, 1, 1), (7, 5, 3), (33, 65, 17), (rows + 1, cols + 3, 19), (2 * rows, 2 * cols, 64),
             (129, 257, 63), (rows * 2 + rows // 2 + 1, cols * 3 - 5, 2 * HAZARD_K + 7)]
    rng = random.Random(seed * 7919 + sum(map(ord, spec.id)))
    fuzz = [(rng.randint(1, 3 * rows + 17), rng.randint(1, 3 * cols + 17), rng.randint(1, 160))
            for _ in range(RANDOM_CASES)]
    shapes, seen = [], set()
    for M, N, K in fixed + fuzz:
        shape = _shape(spec, M, N, K)
        if shape not in seen:
            seen.add(shape)
            shapes.append(shape)
    cases = []
    for i, (M, N, K) in enumerate(shapes):
        alpha, beta = ALPHA_BETA_CASES[i % len(ALPHA_BETA_CASES)]
        pad = pad_for(spec) if i % 3 == 2 else 0
        cases.append(Case(M, N, K, alpha, beta, pad, _is_edge(spec, M, N, K)))
    return cases


def hazard_cases(spec: ExerciseSpec) -> list[Case]:
    """Small shapes for compute-sanitizer: 2 x 2 blocks with partial edges, several k tiles."""
    rows, cols = spec.tile
    first = _shape(spec, rows + 3, cols + 5, HAZARD_K)
    second = _shape(spec, rows - 1 if rows > 1 else 1, 2 * cols - 1 if cols > 1 else 2, HAZARD_K // 2 + 5)
    return [Case(*first, 1.0, 0.0, 0, _is_edge(spec, *first)),
            Case(*second, 0.5, 0.5, pad_for(spec), _is_edge(spec, *second))]


def differential_cases(spec: ExerciseSpec) -> list[Case]:
    """Shapes with many blocks for the repeated-run test that stands in for racecheck."""
    rows, cols = spec.tile
    # Enough blocks for several per SM (warps of different blocks interleave), and many k tiles.
    shape = _shape(spec, max(1024, 6 * rows) + 3, max(1024, 6 * cols) + 5, 4 * HAZARD_K)
    return [Case(*shape, 1.0, 0.0, 0, True)]


def speed_shape(spec: ExerciseSpec) -> tuple:
    return _shape(spec, spec.speed_size, spec.speed_size, spec.speed_size)
