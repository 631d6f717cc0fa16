"""Which shapes each GPU check runs, decided on the CPU (so a test can see them without a GPU).

A run has a seed: the fixed edge cases are the same in every run, the rest is drawn from the seed,
so a kernel cannot be fitted to a list it has seen, and an instructor replays a verdict exactly with
`python -m course exercise check ID FILE --seed N` (the seed is written into every verdict). The seed
also draws what a kernel could otherwise recognise: the two bit patterns shared memory is filled with
before the launches (shared_fill) and the timed shape (speed_case, within a band around checks.speed.size).

Every shape honours the exercise's constraints (shapes.multiple_of; leading dimensions in multiples
of 4 when aligned16). Every stage (correctness, sanitizer, speed) runs with padded rows whose
leading dimensions differ pairwise (lda, ldb, ldc), so a kernel that indexes one matrix with
another's stride fails. The correctness list holds, among the fixed cases, every class of (alpha, beta)
a kernel might treat specially (alpha_beta_class: 0 and 0, 0 and beta, alpha and 0, 1 and beta, alpha and
1, and neither 0 nor 1, with negative and inexact values), a whole-tile case with alpha != 0 and beta != 0
(a product bug cannot hide behind "edges only"), a case with a single k tile (K <= every kernel's BK: a
barrier that only the main loop has is missing there), a case with K past 4096 (small M and N), K that is no
multiple of a tile, NaN and +-Inf inside A and B (the expected C is what IEEE arithmetic gives), and beta = 0
cases whose C the worker poisons with NaN and then with +-Inf.

These are the cases of the "sgemm" kind (course.autograder.kind_sgemm), and the draws every kind shares (the
seed, the (alpha, beta) pairs, the speed band, the shared-memory fill). `spec` is an ExerciseSpec
(course.autograder.spec, which sits above this module: only its fields are read here).
"""
from __future__ import annotations

import random
import secrets
from dataclasses import asdict, dataclass

DRAWN_CASES = 6
HAZARD_K = 72            # several k tiles of 8, 16 or 32, plus a tail when K rounds up differently
K_TILE = 32              # every course kernel's k tile (BK 8, 16 or 32) divides it
SINGLE_K_TILE = 5        # K of the single-k-tile case: at most 8 (the smallest BK) once rounded to multiple_of
LONG_K = 4096 + 37       # K of the long case: past 4096, no multiple of any tile (small M and N keep it cheap)
SPECIALS = 6             # NaN, +Inf and -Inf values put into A and B in the cases that hold them
SEED_LIMIT = 2 ** 32     # seeds are 0 .. 2**32 - 1 (the CLI refuses anything else)
# (alpha, beta) pairs the drawn cases pick from: every class of alpha_beta_class, negative and inexact values
# among them, beta = 0 in a third of them (the poisoned-C case).
DRAWN_ALPHA_BETA = [(1.0, 0.0), (0.75, 0.0), (-1.25, 0.0), (-0.37, 0.0), (0.0, 0.0), (0.0, 1.25), (0.0, -0.37),
                    (1.0, -0.37), (1.0, 1.1), (1.1, 1.0), (-0.5, 1.0), (-0.5, 1.5), (2.0, -0.75), (1.1, -0.37),
                    (1.0, 1.0)]
# What a kernel might treat specially, by (alpha, beta): every class is among every run's fixed cases.
ALPHA_BETA_CLASSES = ("zero_zero", "zero_alpha", "zero_beta", "one_beta", "alpha_one", "one_one", "general")
# The timed shape: each of M, N, K drawn from the multiples of SPEED_STEPS[0] (or a finer step for a small
# size) within SPEED_BAND of checks.speed.size, the size itself left out.
SPEED_BAND = (7 / 8, 9 / 8)
SPEED_STEPS = (128, 32, 4)


def alpha_beta_choices(specials: int = 0) -> list[tuple[float, float]]:
    """DRAWN_ALPHA_BETA, or for a case with NaN and +-Inf in its inputs the pairs with alpha != 0 (BLAS leaves A·B
    out when alpha = 0, so what 0 × Inf should give there is not IEEE arithmetic's to say)."""
    return [p for p in DRAWN_ALPHA_BETA if p[0] != 0.0] if specials else DRAWN_ALPHA_BETA


def alpha_beta_class(alpha: float, beta: float) -> str:
    """zero_zero (C = 0), zero_alpha (C = beta C), zero_beta (C = alpha AB, C not read), one_beta (alpha = 1,
    beta not 0 or 1), alpha_one (beta = 1, alpha not 0 or 1), one_one, general (neither is 0 or 1)."""
    if alpha == 0.0:
        return "zero_zero" if beta == 0.0 else "zero_alpha"
    if beta == 0.0:
        return "zero_beta"
    if alpha == 1.0:
        return "one_one" if beta == 1.0 else "one_beta"
    return "alpha_one" if beta == 1.0 else "general"


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
    data_seed: int = 0    # seeds the random values of A, B and C (and where the specials go)
    specials: int = 0     # NaN, +Inf and -Inf values put into A and B (the expected C is IEEE arithmetic's)

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


def _shape(spec, M: int, N: int, K: int) -> tuple:
    m = spec.multiple_of
    return (_up(M, m["M"]), _up(N, m["N"]), _up(K, m["K"]))


def _is_edge(spec, M: int, N: int, K: int) -> bool:
    """M or N cuts a block tile, or K leaves a partial k tile."""
    rows, cols = spec.tile
    return bool(M % rows or N % cols or K % K_TILE)


def leading_dims(spec, case: Case) -> tuple[int, int, int]:
    """(lda, ldb, ldc) of a case, as the worker allocates them."""
    return (_ld(spec, case.K, case.pad_a), _ld(spec, case.N, case.pad_b), _ld(spec, case.N, case.pad_c))


def _ld(spec, cols: int, pad: int) -> int:
    return row_stride(spec.aligned16, cols, pad)


def row_stride(aligned16: bool, cols: int, pad: int) -> int:
    """A leading dimension: `cols` (rounded up to 4 when rows must start 16-byte aligned) plus `pad`. The worker
    (course.autograder.kind_sgemm) lays its operands out with it, the messages name the same values."""
    if aligned16:
        cols = -(-cols // 4) * 4
    return cols + pad


def _pads(spec, rng: random.Random, K: int, N: int) -> tuple[int, int, int]:
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


def _fixed(spec) -> list[tuple]:
    """(M, N, K, alpha, beta, padded, specials) of the cases every run has."""
    rows, cols = spec.tile
    return [
        (1, 1, 1, 1.0, 0.0, True, 0),
        (7, 5, 3, 0.5, 0.0, True, 0),
        (33, 65, 17, 1.0, 1.0, True, 0),
        (rows + 1, cols + 3, 19, -1.5, 0.25, True, 0),
        (2 * rows, 2 * cols, 2 * K_TILE, 1.25, -0.5, True, 0),     # whole tiles, alpha != 0, beta != 0
        (rows, cols, K_TILE, 1.0, 0.0, False, 0),                  # whole tiles, tight rows (ld = width)
        (129, 257, 63, 0.0, 2.0, True, 0),
        (rows * 2 + rows // 2 + 1, cols * 3 - 5, 2 * HAZARD_K + 7, 0.5, 0.0, True, 0),
        (rows + 3, cols + 1, 21, 0.0, 0.0, True, 0),               # alpha = beta = 0: C = 0, C never read
        (2 * rows + 1, cols + 5, 37, 1.0, -0.37, True, 0),         # alpha = 1 with beta neither 0 nor 1
        (rows + 7, 2 * cols + 3, 29, 1.1, 1.0, True, 0),           # beta = 1 with alpha neither 0 nor 1
        (3 * rows + 5, 2 * cols + 3, SINGLE_K_TILE, -0.37, 1.1, True, 0),   # one k tile: no main loop
        (rows + 5, cols + 3, LONG_K, 0.75, 0.5, True, 0),          # K past 4096
        (2 * rows + 3, cols + 9, 2 * K_TILE + 5, -0.75, 0.0, True, SPECIALS),   # NaN and +-Inf in A and B
        (rows + 9, 2 * cols + 1, 41, 1.1, -0.37, True, SPECIALS),
    ]


def _drawn(spec, rng: random.Random) -> list[tuple]:
    """Shapes from the seed; the first is whole tiles (its alpha and beta drawn like the rest)."""
    rows, cols = spec.tile
    out = [(rows * rng.randint(1, 3), cols * rng.randint(1, 3), K_TILE * rng.randint(1, 4))]
    out += [(rng.randint(1, 3 * rows + 17), rng.randint(1, 3 * cols + 17), rng.randint(1, 160))
            for _ in range(DRAWN_CASES - 1)]
    return out


def _fixed_pads(spec, rng: random.Random, index: int, K: int, N: int) -> tuple[int, int, int]:
    """The fixed cases' paddings: the same in every run, ldb above ldc in every other case and below
    it in the rest (a kernel that swaps them then both writes past a row and leaves elements unwritten)."""
    pad_a, pad_b, pad_c = _pads(spec, rng, K, N)
    if (index % 2 == 0) != (pad_b > pad_c):
        pad_b, pad_c = pad_c, pad_b
    return pad_a, pad_b, pad_c


def correctness_cases(spec, seed: int = 0) -> list[Case]:
    """The fixed cases (the same in every run, paddings included), then the cases drawn from `seed`
    (same seed, same list; the second drawn case holds NaN and +-Inf at places drawn with it)."""
    rng = random.Random(f"{int(seed)}:{spec.id}")
    fixed_rng = random.Random(f"fixed:{spec.id}")
    planned = [(M, N, K, a, b, padded, False, specials) for M, N, K, a, b, padded, specials in _fixed(spec)]
    for index, (M, N, K) in enumerate(_drawn(spec, rng)):
        specials = SPECIALS if index == 1 else 0
        alpha, beta = rng.choice(alpha_beta_choices(specials))
        planned.append((M, N, K, alpha, beta, True, True, specials))
    cases, seen = [], set()
    for index, (M, N, K, alpha, beta, padded, drawn, specials) in enumerate(planned):
        M, N, K = _shape(spec, M, N, K)
        if (M, N, K, alpha, beta, specials) in seen:
            continue
        seen.add((M, N, K, alpha, beta, specials))
        if not padded:
            pads = (0, 0, 0)
        else:
            pads = _pads(spec, rng, K, N) if drawn else _fixed_pads(spec, fixed_rng, index, K, N)
        source = rng if drawn else fixed_rng
        cases.append(Case(M, N, K, alpha, beta, *pads, edge=_is_edge(spec, M, N, K), drawn=drawn,
                          data_seed=source.randrange(SEED_LIMIT), specials=specials))
    return cases


def shared_fill(spec, seed: int = 0) -> tuple[int, int]:
    """The two seeds of the bit patterns shared memory is filled with before a launch (course.autograder.worker_base:
    NaNs, infinities and arbitrary bits). Drawn per run, so a kernel cannot recognise them; two of them, because a
    result that changes with what shared memory held before the launch reads memory the block never wrote."""
    rng = random.Random(f"{int(seed)}:{spec.id}:shared-fill")
    first = rng.randrange(1, SEED_LIMIT)
    second = rng.randrange(1, SEED_LIMIT - 1)
    return first, second + (second >= first)


def hazard_cases(spec, seed: int = 0) -> list[Case]:
    """Small shapes for compute-sanitizer: 2 x 2 blocks with partial edges, several k tiles, padded rows; and a
    single k tile (racecheck sees a barrier missing where the main loop never runs)."""
    rows, cols = spec.tile
    rng = random.Random(f"{int(seed)}:{spec.id}:hazards")
    first = _shape(spec, rows + 3, cols + 5, HAZARD_K)
    second = _shape(spec, rows - 1 if rows > 1 else 1, 2 * cols - 1 if cols > 1 else 2, HAZARD_K // 2 + 5)
    single = _shape(spec, rows + 3, cols + 5, SINGLE_K_TILE)
    return [Case(*first, 1.0, 0.0, *_pads(spec, rng, first[2], first[1]), edge=_is_edge(spec, *first)),
            Case(*second, 0.5, 0.5, *_pads(spec, rng, second[2], second[1]), edge=_is_edge(spec, *second)),
            Case(*single, 1.1, 0.0, *_pads(spec, rng, single[2], single[1]), edge=_is_edge(spec, *single))]


def differential_cases(spec, seed: int = 0) -> list[Case]:
    """Shapes with many blocks for the repeated-run test that stands in for racecheck (one with many k tiles,
    one with a single k tile)."""
    rows, cols = spec.tile
    rng = random.Random(f"{int(seed)}:{spec.id}:differential")
    # Enough blocks for several per SM (warps of different blocks interleave), and many k tiles.
    shape = _shape(spec, max(1024, 6 * rows) + 3, max(1024, 6 * cols) + 5, 4 * HAZARD_K)
    single = _shape(spec, max(1024, 6 * rows) + 3, max(1024, 6 * cols) + 5, SINGLE_K_TILE)
    return [Case(*shape, 1.0, 0.0, *_pads(spec, rng, shape[2], shape[1]), edge=True, data_seed=4242),
            Case(*single, 1.0, 0.0, *_pads(spec, rng, single[2], single[1]), edge=True, data_seed=4243)]


# The speed case's row paddings: multiples of 4 (the reference kernels' float4 paths stay direct,
# no staging copy), pairwise different leading dimensions.
SPEED_PADS = (12, 8, 4)
# alpha and beta of the timed case, drawn per run like its size: never 1 and 0, so a kernel cannot keep a fast
# path for the timed size that drops alpha or beta (the timed launches are checked); exact in float32.
SPEED_ALPHA_BETA = ((1.5, 0.5), (-0.75, 1.25), (0.625, -0.5), (2.0, 0.25), (-1.25, -0.75), (0.75, 2.0))


def speed_sizes(size: int, multiple: int = 1) -> list[int]:
    """The values each timed dimension is drawn from: multiples of the coarsest step of SPEED_STEPS that gives
    two or more within SPEED_BAND of `size` (and of `multiple`), `size` itself left out."""
    low, high = size * SPEED_BAND[0], size * SPEED_BAND[1]
    for step in SPEED_STEPS:
        step = step * multiple // _gcd(step, multiple)
        values = [v for v in range(-(-int(low) // step) * step, int(high) + 1, step) if v != size and v > 0]
        if len(values) >= 2:
            return values
    return [_up(size, multiple)]


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def speed_case(spec, seed: int = 0) -> Case:
    """The timed case of a run: M, N, K, alpha and beta drawn from `seed` (speed_sizes, SPEED_ALPHA_BETA), so no
    kernel can recognise it or keep a path for it that skips part of the BLAS semantics."""
    rng = random.Random(f"{int(seed)}:{spec.id}:speed")
    M, N, K = (rng.choice(speed_sizes(spec.speed_size, spec.multiple_of[d])) for d in "MNK")
    data_seed = rng.randrange(SEED_LIMIT)
    alpha, beta = rng.choice(SPEED_ALPHA_BETA)
    return Case(M, N, K, alpha, beta, *SPEED_PADS, edge=_is_edge(spec, M, N, K), data_seed=data_seed)


def speed_shape(spec, seed: int = 0) -> tuple:
    case = speed_case(spec, seed)
    return (case.M, case.N, case.K)


# ----------------------------------------------------------------------------- a case as the learner reads it

_CASE_KEYS = ("M", "N", "K", "alpha", "beta", "pad_a", "pad_b", "pad_c")


def shape_text(case: dict, spec) -> str:
    """An SGEMM case (the worker's dict) in a message: M×N×K, alpha and beta, the leading dimensions when the rows
    are padded, NaN and +-Inf in A and B, what C was poisoned with."""
    ld = ""
    if any(case.get(k) for k in ("pad_a", "pad_b", "pad_c")):
        lda, ldb, ldc = leading_dims(spec, Case(**{k: case[k] for k in _CASE_KEYS}))
        ld = f", lda={lda}, ldb={ldb}, ldc={ldc}"
    poison = {"nan": ", C를 NaN으로 채움", "inf": ", C를 ±Inf로 채움"}.get(case.get("poison", ""), "")
    specials = ", A·B에 NaN·±Inf 있음" if case.get("specials") else ""
    return f"{case['M']}×{case['N']}×{case['K']} (alpha={case['alpha']:g}, beta={case['beta']:g}{ld}{specials}{poison})"
