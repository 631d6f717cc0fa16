"""Which shapes each GPU check runs, decided on the CPU (so a test can see them without a GPU).

A run has a seed: the fixed edge cases are the same in every run, the rest is drawn from the seed,
so a kernel cannot be fitted to a list it has seen, and an instructor replays a verdict exactly with
`python -m course exercise check ID FILE --seed N` (the seed is written into every verdict).

Every shape honours the exercise's constraints (shapes.multiple_of; leading dimensions in multiples
of 4 when aligned16). Every stage (correctness, sanitizer, speed) runs with padded rows whose
leading dimensions differ pairwise (lda, ldb, ldc), so a kernel that indexes one matrix with
another's stride fails. The correctness list holds, among the fixed cases, a whole-tile case with
alpha != 0 and beta != 0 (a product bug cannot hide behind "edges only"), and beta = 0 cases whose C
the worker poisons with NaN and then with +-Inf.
"""
from __future__ import annotations

import random
import secrets
from dataclasses import asdict, dataclass

from course.autograder.spec import ExerciseSpec

DRAWN_CASES = 6
HAZARD_K = 72            # several k tiles of 8, 16 or 32, plus a tail when K rounds up differently
K_TILE = 32              # every course kernel's k tile (BK 8, 16 or 32) divides it
SEED_LIMIT = 2 ** 32     # seeds are 0 .. 2**32 - 1 (the CLI refuses anything else)
# (alpha, beta) pairs the drawn cases pick from: beta = 0 twice as often (the poisoned-C case).
DRAWN_ALPHA_BETA = [(1.0, 0.0), (0.75, 0.0), (-1.25, 0.0), (1.0, 1.0), (-0.5, 1.5), (2.0, -0.75), (0.0, 1.25)]


@dataclass(frozen=True)
class Case:
    M: int
    N: int
    K: int
    alpha: float
    beta: float
    pad_a: int = 0        # extra floats at the end of every row: lda = K (rounded) + pad_a, ...
    pad_b: int = 0
    pad_c: int = 0
    edge: bool = False    # M or N cuts a block tile, or K a k tile of 32
    drawn: bool = False   # drawn from the run's seed (False: a fixed case, the same in every run)
    data_seed: int = 0    # seeds the random values of A, B and C

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def padded(self) -> bool:
        return bool(self.pad_a or self.pad_b or self.pad_c)


def new_seed() -> int:
    """A fresh run seed (recorded in the verdict)."""
    return secrets.randbelow(SEED_LIMIT)


def _up(value: int, multiple: int) -> int:
    return max(multiple, -(-value // multiple) * multiple)


def _shape(spec: ExerciseSpec, M: int, N: int, K: int) -> tuple:
    m = spec.multiple_of
    return (_up(M, m["M"]), _up(N, m["N"]), _up(K, m["K"]))


def _is_edge(spec: ExerciseSpec, M: int, N: int, K: int) -> bool:
    """M or N cuts a block tile, or K leaves a partial k tile."""
    rows, cols = spec.tile
    return bool(M % rows or N % cols or K % K_TILE)


def leading_dims(spec: ExerciseSpec, case: Case) -> tuple[int, int, int]:
    """(lda, ldb, ldc) of a case, as the worker allocates them."""
    return (_ld(spec, case.K, case.pad_a), _ld(spec, case.N, case.pad_b), _ld(spec, case.N, case.pad_c))


def _ld(spec: ExerciseSpec, cols: int, pad: int) -> int:
    if spec.aligned16:
        cols = -(-cols // 4) * 4
    return cols + pad


def _pads(spec: ExerciseSpec, rng: random.Random, K: int, N: int) -> tuple[int, int, int]:
    """Row paddings with lda, ldb and ldc pairwise different (ldb != ldc always; lda too where it can)."""
    step = 4 if spec.aligned16 else 1
    choices = [step * i for i in range(1, 6)]
    for _ in range(64):
        pads = tuple(rng.choice(choices) for _ in range(3))
        lds = (_ld(spec, K, pads[0]), _ld(spec, N, pads[1]), _ld(spec, N, pads[2]))
        if len(set(lds)) == 3:
            return pads
    pad_b, pad_c = rng.sample(choices, 2)          # lda may equal one of them when K and N are close
    return (choices[0], pad_b, pad_c)


def _fixed(spec: ExerciseSpec) -> list[tuple]:
    """(M, N, K, alpha, beta, padded) of the cases every run has."""
    rows, cols = spec.tile
    return [
        (1, 1, 1, 1.0, 0.0, True),
        (7, 5, 3, 0.5, 0.0, True),
        (33, 65, 17, 1.0, 1.0, True),
        (rows + 1, cols + 3, 19, -1.5, 0.25, True),
        (2 * rows, 2 * cols, 2 * K_TILE, 1.25, -0.5, True),     # whole tiles, alpha != 0, beta != 0
        (rows, cols, K_TILE, 1.0, 0.0, False),                  # whole tiles, tight rows (ld = width)
        (129, 257, 63, 0.0, 2.0, True),
        (rows * 2 + rows // 2 + 1, cols * 3 - 5, 2 * HAZARD_K + 7, 0.5, 0.0, True),
    ]


def _drawn(spec: ExerciseSpec, rng: random.Random) -> list[tuple]:
    """Shapes from the seed; the first is whole tiles (its alpha and beta drawn like the rest)."""
    rows, cols = spec.tile
    out = [(rows * rng.randint(1, 3), cols * rng.randint(1, 3), K_TILE * rng.randint(1, 4))]
    out += [(rng.randint(1, 3 * rows + 17), rng.randint(1, 3 * cols + 17), rng.randint(1, 160))
            for _ in range(DRAWN_CASES - 1)]
    return out


def _fixed_pads(spec: ExerciseSpec, rng: random.Random, index: int, K: int, N: int) -> tuple[int, int, int]:
    """The fixed cases' paddings: the same in every run, ldb above ldc in every other case and below
    it in the rest (a kernel that swaps them then both writes past a row and leaves elements unwritten)."""
    pad_a, pad_b, pad_c = _pads(spec, rng, K, N)
    if (index % 2 == 0) != (pad_b > pad_c):
        pad_b, pad_c = pad_c, pad_b
    return pad_a, pad_b, pad_c


def correctness_cases(spec: ExerciseSpec, seed: int = 0) -> list[Case]:
    """The fixed cases (the same in every run, paddings included), then the cases drawn from `seed`
    (same seed, same list)."""
    rng = random.Random(f"{int(seed)}:{spec.id}")
    fixed_rng = random.Random(f"fixed:{spec.id}")
    planned = [(M, N, K, a, b, padded, False) for M, N, K, a, b, padded in _fixed(spec)]
    for M, N, K in _drawn(spec, rng):
        alpha, beta = rng.choice(DRAWN_ALPHA_BETA)
        planned.append((M, N, K, alpha, beta, True, True))
    cases, seen = [], set()
    for index, (M, N, K, alpha, beta, padded, drawn) in enumerate(planned):
        M, N, K = _shape(spec, M, N, K)
        if (M, N, K, alpha, beta) in seen:
            continue
        seen.add((M, N, K, alpha, beta))
        if not padded:
            pads = (0, 0, 0)
        else:
            pads = _pads(spec, rng, K, N) if drawn else _fixed_pads(spec, fixed_rng, index, K, N)
        source = rng if drawn else fixed_rng
        cases.append(Case(M, N, K, alpha, beta, *pads, edge=_is_edge(spec, M, N, K), drawn=drawn,
                          data_seed=source.randrange(SEED_LIMIT)))
    return cases


def hazard_cases(spec: ExerciseSpec, seed: int = 0) -> list[Case]:
    """Small shapes for compute-sanitizer: 2 x 2 blocks with partial edges, several k tiles, padded rows."""
    rows, cols = spec.tile
    rng = random.Random(f"{int(seed)}:{spec.id}:hazards")
    first = _shape(spec, rows + 3, cols + 5, HAZARD_K)
    second = _shape(spec, rows - 1 if rows > 1 else 1, 2 * cols - 1 if cols > 1 else 2, HAZARD_K // 2 + 5)
    return [Case(*first, 1.0, 0.0, *_pads(spec, rng, first[2], first[1]), edge=_is_edge(spec, *first)),
            Case(*second, 0.5, 0.5, *_pads(spec, rng, second[2], second[1]), edge=_is_edge(spec, *second))]


def differential_cases(spec: ExerciseSpec, seed: int = 0) -> list[Case]:
    """Shapes with many blocks for the repeated-run test that stands in for racecheck."""
    rows, cols = spec.tile
    rng = random.Random(f"{int(seed)}:{spec.id}:differential")
    # Enough blocks for several per SM (warps of different blocks interleave), and many k tiles.
    shape = _shape(spec, max(1024, 6 * rows) + 3, max(1024, 6 * cols) + 5, 4 * HAZARD_K)
    return [Case(*shape, 1.0, 0.0, *_pads(spec, rng, shape[2], shape[1]), edge=True, data_seed=4242)]


# The speed case's row paddings: multiples of 4 (the reference kernels' float4 paths stay direct,
# no staging copy), pairwise different leading dimensions.
SPEED_PADS = (12, 8, 4)


def speed_case(spec: ExerciseSpec) -> Case:
    M, N, K = _shape(spec, spec.speed_size, spec.speed_size, spec.speed_size)
    return Case(M, N, K, 1.0, 0.0, *SPEED_PADS, edge=_is_edge(spec, M, N, K), data_seed=11)


def speed_shape(spec: ExerciseSpec) -> tuple:
    case = speed_case(spec)
    return (case.M, case.N, case.K)
