"""The checker's judgement of a run, without a GPU: course.autograder.worker_base on NumPy.

The worker's correctness mode (guard bands, padded rows with lda, ldb and ldc apart, C poisoned with
NaN and then with +-Inf when beta = 0, NaN and +-Inf inside A and B, shared memory filled with the run's
two bit patterns before the launches, A and B compared after the run, the re-runs that tell causes apart)
is run here against kernels written in NumPy, one per kind of known mistake, through a stand-in `cupy`
module made of NumPy.
The same judgement then goes through gpu.judge_outcomes into the verdict's diagnosis and message.
The real kernels (course/exercises/*/wrong_*.cu) get the same verdicts on the GPU: tools/gpu/record_exercises.sh.
"""
from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from course.autograder import cases, gpu, kind_sgemm, spec as specs, worker_base

SPEC = specs.load("m06-e1")          # 16 x 16 tiles, any M, N, K
TILE = 16
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")   # NumPy on NaN and Inf, as IEEE wants


@pytest.fixture(autouse=True)
def numpy_cupy(monkeypatch):
    """A `cupy` made of NumPy: what the worker's judging code uses, on the CPU."""
    shim = types.ModuleType("cupy")
    for name in dir(np):
        if not name.startswith("_"):
            setattr(shim, name, getattr(np, name))

    class Rng:
        def __init__(self, seed):
            self.rng = np.random.default_rng(seed)

        def uniform(self, low, high, size, dtype):
            return self.rng.uniform(low, high, size).astype(dtype)

    shim.random = types.SimpleNamespace(default_rng=Rng)
    shim.cuda = types.SimpleNamespace(get_current_stream=lambda: types.SimpleNamespace(synchronize=lambda: None))
    monkeypatch.setitem(sys.modules, "cupy", shim)


class Junk:
    """Stands in for the shared-memory fill: a fake kernel asks what its unwritten shared memory holds
    (cells(): the words the worker's fill kernel writes, computed by worker_base.junk_words)."""
    bytes = 0

    def __init__(self, seeds=(3141592653, 2718281828)):
        self.seeds = {"a": seeds[0], "b": seeds[1], "zero": 0}
        self.which = "a"

    def fill(self, which: str = "a") -> None:
        self.which = which

    def cells(self, count: int) -> np.ndarray:
        return worker_base.junk_words(self.seeds[self.which], count).view(np.float32)

    def seen_fraction(self) -> float:
        return 1.0


def flat(view, length: int):
    """The buffer from a view's first element on, as the kernel's pointer sees it (our guard bands follow)."""
    return np.lib.stride_tricks.as_strided(view, shape=(length,), strides=(4,))


class FakeKernel(kind_sgemm.SgemmKernel):
    """A kernel in NumPy; `body` computes C (M x N, written through the views) from the arguments."""

    def __init__(self, body, junk: Junk):
        self.spec = SPEC.to_dict()
        self.body, self.junk = body, junk
        self.registers = 32

    def launch(self, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta, stream=None):
        self.body(self, A, B, C, M, N, K, lda, ldb, ldc, np.float32(alpha), np.float32(beta))


def product(A, B, k_end=None):
    k_end = A.shape[1] if k_end is None else k_end
    with np.errstate(invalid="ignore"):
        return (A[:, :k_end].astype(np.float64) @ B[:k_end].astype(np.float64)).astype(np.float32)


def store(C, alpha, acc, beta):
    with np.errstate(invalid="ignore"):
        out = alpha * acc
        if beta != 0.0:
            out = out + beta * C
    C[...] = out


def correct(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    store(C, alpha, product(A, B), beta)


def ldb_for_ldc(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    out = alpha * product(A, B)
    cells = flat(C, (M - 1) * max(ldb, ldc) + N)
    for r in range(M):
        row = cells[r * ldb:r * ldb + N]
        row[...] = out[r] + (beta * row if beta != 0.0 else 0.0)


def skips_nan(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    old = np.where(np.isnan(C), np.float32(0.0), C)
    with np.errstate(invalid="ignore"):
        C[...] = alpha * product(A, B) + beta * old


def reads_c_always(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    with np.errstate(invalid="ignore"):
        C[...] = alpha * product(A, B) + beta * C


def skips_store_when_beta_zero(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    if beta != 0.0:
        store(C, alpha, product(A, B), beta)


def unwritten_cells(k, M, N):
    """What each element's thread finds in a cell its block never wrote (one cell per element)."""
    return k.junk.cells(M * N).reshape(M, N)


def uninit_shared(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    """Bs rows past K never written: 0 * (what shared memory held) in blocks whose only tile is partial."""
    acc = product(A, B)
    if K < TILE:
        with np.errstate(invalid="ignore"):
            acc = acc + np.float32(0.0) * unwritten_cells(k, M, N)
    store(C, alpha, acc, beta)


def clears_only_nan(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    """The same, but a cell past K that holds NaN is cleared first: right when the fill is NaN alone."""
    acc = product(A, B)
    if K < TILE:
        cells = unwritten_cells(k, M, N)
        cells = np.where(np.isnan(cells), np.float32(0.0), cells)
        with np.errstate(invalid="ignore"):
            acc = acc + np.float32(0.0) * cells
    store(C, alpha, acc, beta)


def reads_a_little_garbage(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    """Lets the low bit of unwritten cells nudge the sum: within the tolerance, but other bits with another fill."""
    low_bits = (unwritten_cells(k, M, N).view(np.uint32) & 1).astype(np.float32)
    store(C, alpha, product(A, B) + np.float32(1e-6) * low_bits, beta)


def alpha_zero_shortcut(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    if alpha == 0.0:                                   # C = beta * C, even when beta is 0 too
        with np.errstate(invalid="ignore"):
            C[...] = beta * C
        return
    store(C, alpha, product(A, B), beta)


def beta_one_drops_alpha(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    if beta == 1.0:
        C[...] = product(A, B) + C
        return
    store(C, alpha, product(A, B), beta)


def alpha_one_drops_beta(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    if alpha == 1.0 and beta != 0.0:
        C[...] = product(A, B) + C
        return
    store(C, alpha, product(A, B), beta)


def chunked_sum(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    """Sums in chunks of 4096, the bound of every chunk after the first wrong: K past 4096 loses the rest."""
    store(C, alpha, product(A, B, min(K, 4096)), beta)


def nan_inputs_to_zero(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    a = np.where(np.isnan(A), np.float32(0.0), A)
    b = np.where(np.isnan(B), np.float32(0.0), B)
    with np.errstate(invalid="ignore"):
        store(C, alpha, product(a, b), beta)


def writes_a(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    store(C, alpha, product(A, B), beta)
    A[...] = A * alpha


def fitted_to_fixed_shapes(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    fixed = {(c.M, c.N, c.K) for c in cases.correctness_cases(SPEC, 0) if not c.drawn}
    store(C, alpha, product(A, B, K if (M, N, K) in fixed else K - 1), beta)


def k_off_by_one(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    keep = np.ones(K, dtype=bool)
    keep[TILE - 1::TILE] = False                      # the 16th product of every tile is lost
    store(C, alpha, (A[:, keep].astype(np.float64) @ B[keep].astype(np.float64)).astype(np.float32), beta)


def reads_past_a(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    beyond = flat(A, (M - 1) * lda + K + 1)[(M - 1) * lda + K]     # one float past A's last element
    with np.errstate(invalid="ignore"):
        store(C, alpha, product(A, B) + np.float32(0.0) * beyond, beta)


def writes_past_c(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
    store(C, alpha, product(A, B), beta)
    flat(C, M * ldc + 1)[M * ldc] = 1.0                               # the first float past C's last row


def judge(body, seed: int = 5):
    """The correctness verdict for a NumPy kernel: worker outcomes -> gpu.judge_outcomes."""
    junk = Junk()
    kernel = FakeKernel(body, junk)
    plan = cases.correctness_cases(SPEC, seed)
    outcomes = [worker_base.judge_case(kernel, junk, c.as_dict(), max(SPEC.tile)) for c in plan]
    return gpu.judge_outcomes(SPEC, outcomes, seed, "NumPy", 1.0)


def test_a_correct_kernel_passes_every_case():
    result = judge(correct)
    assert result.status == "pass", result.message_ko
    assert "시드 5" in result.message_ko and "±Inf" in result.message_ko
    assert all(c["outcome"] == "ok" for c in result.details["cases"])


@pytest.mark.parametrize("body,diagnosis,words", [
    (ldb_for_ldc, "out_of_bounds", ["ldc", "out of bounds"]),
    (skips_nan, "reads_c_with_beta_zero", ["±Inf", "0 × Inf"]),
    (reads_c_always, "reads_c_with_beta_zero", ["NaN", "beta = 0"]),
    (skips_store_when_beta_zero, "unwritten_output", ["쓰지 않았습니다"]),
    (uninit_shared, "uninitialized_shared", ["공유 메모리", "0으로 채우면 맞습니다", "(A와 B 모두)까지"]),
    (writes_a, "writes_inputs", ["입력 A", "const float*", "— 입력 A·B를 바꿈."]),
    (fitted_to_fixed_shapes, "wrong_values", ["wrong values"]),
    (k_off_by_one, "wrong_values", ["wrong values"]),
    (reads_past_a, "out_of_bounds", ["out of bounds read"]),
    (writes_past_c, "out_of_bounds", ["보호 구역", "out of bounds write", "(lda나 ldb 말고)"]),
    (clears_only_nan, "uninitialized_shared", ["무작위 비트 패턴", "0으로 채우면 맞습니다"]),
    (reads_a_little_garbage, "uninitialized_shared", ["패턴만 바꿔", "달라졌습니다"]),
    (alpha_zero_shortcut, "reads_c_with_beta_zero", ["beta = 0", "alpha=0"]),
    (beta_one_drops_alpha, "wrong_values", ["wrong values", "beta=1"]),
    (alpha_one_drops_beta, "wrong_values", ["wrong values", "alpha=1"]),
    (chunked_sum, "wrong_values", ["wrong values", f"×{cases.LONG_K} "]),
    (nan_inputs_to_zero, "wrong_values", ["wrong values", "NaN·±Inf"]),
])
def test_each_kind_of_wrong_kernel_gets_its_diagnosis_for_its_reason(body, diagnosis, words):
    result = judge(body)
    assert result.status == "fail" and result.diagnosis == diagnosis, result.message_ko
    for word in words:
        assert word in result.message_ko, (word, result.message_ko)
    assert "처음 틀린 경우:" in result.message_ko                       # the first failing case is named
    first = next(i for i, c in enumerate(result.details["cases"]) if c["outcome"] != "ok")
    assert f"처음 틀린 경우: {first + 1}번째" in result.message_ko


def test_nan_only_poison_would_miss_the_kernel_that_skips_nan():
    """The +-Inf run is what catches it: with NaN alone every case is right."""
    junk = Junk()
    kernel = FakeKernel(skips_nan, junk)
    for c in cases.correctness_cases(SPEC, 5):
        case = c.as_dict()
        if case["beta"] == 0.0:
            assert worker_base._judge_with(kernel, junk, case, "nan", TILE)["outcome"] == "ok"
            assert worker_base._judge_with(kernel, junk, case, "inf", TILE)["outcome"] == "reads_c"


def test_the_edge_hint_is_not_given_when_a_whole_tile_case_fails():
    result = judge(k_off_by_one)
    assert "가장자리" not in result.message_ko
    whole = [c for c in result.details["cases"] if not c["edge"]]
    assert any(c["outcome"] != "ok" and c["alpha"] != 0.0 for c in whole)


def test_the_edge_hint_is_given_only_when_every_whole_tile_case_passed():
    def wrong_at_edges(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
        edge = M % TILE or N % TILE or K % 32
        store(C, alpha, product(A, B, K - 1 if edge and K > 1 else K), beta)

    result = judge(wrong_at_edges)
    assert result.diagnosis == "wrong_values" and "가장자리 블록" in result.message_ko


def test_a_kernel_fitted_to_the_fixed_shapes_passes_them_and_fails_a_drawn_one():
    result = judge(fitted_to_fixed_shapes)
    outcomes = result.details["cases"]
    assert all(c["outcome"] == "ok" for c in outcomes if not c["drawn"])
    assert any(c["outcome"] != "ok" for c in outcomes if c["drawn"])


def test_swapped_strides_fail_in_both_directions():
    """Whether ldb is above or below ldc, every padded case with two rows or more catches the swap."""
    outcomes = judge(ldb_for_ldc).details["cases"]
    padded = [c for c in outcomes if c["M"] > 1 and c["pad_b"] != c["pad_c"]]
    assert any(c["pad_b"] > c["pad_c"] for c in padded) and any(c["pad_b"] < c["pad_c"] for c in padded)
    assert all(c["outcome"] != "ok" for c in padded)
    assert all(c["outcome"] == "ok" for c in outcomes if c["M"] == 1 or c["pad_b"] == c["pad_c"])


def test_a_kernel_that_ignores_the_leading_dimensions_is_told_so():
    def tight_only(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
        a = flat(A, M * K).reshape(M, K)                  # rows assumed K apart, not lda
        store(C, alpha, (a.astype(np.float64) @ B.astype(np.float64)).astype(np.float32), beta)

    result = judge(tight_only)
    assert result.diagnosis in ("wrong_values", "out_of_bounds")
    assert "선행 차원" in result.message_ko or "lda" in result.message_ko


class NanOnlyJunk(Junk):
    """The fill the checker used to have: NaN in every cell, the same in every run."""

    def cells(self, count: int) -> np.ndarray:
        return np.full(count, np.nan if self.which != "zero" else 0.0, dtype=np.float32)


def test_a_kernel_that_clears_nan_passes_a_nan_fill_and_fails_the_drawn_bit_patterns():
    """The hole the drawn fill closes: NaN alone is recognisable, the run's patterns (±Inf among them) are not."""
    kernel = FakeKernel(clears_only_nan, NanOnlyJunk())
    old = [worker_base.judge_case(kernel, kernel.junk, c.as_dict(), TILE) for c in cases.correctness_cases(SPEC, 5)]
    assert all(c["outcome"] == "ok" for c in old)
    assert judge(clears_only_nan).diagnosis == "uninitialized_shared"


def test_the_two_fills_of_a_run_differ_and_hold_nan_inf_and_arbitrary_bits():
    first, second = cases.shared_fill(SPEC, 5)
    assert first != second and cases.shared_fill(SPEC, 5) == (first, second) != cases.shared_fill(SPEC, 6)
    words = worker_base.junk_words(first, 4096)
    values = words.view(np.float32)
    assert 0.4 < np.isnan(values).mean() < 0.6 and 0.08 < np.isinf(values).mean() < 0.17
    assert 0.3 < np.isfinite(values).mean() and (np.abs(values[np.isfinite(values)]) < 1).any()
    assert (words != worker_base.junk_words(second, 4096)).mean() > 0.9
    assert not worker_base.junk_words(0, 16).any()                        # the "zero" fill


def test_nan_and_inf_in_the_inputs_must_land_where_ieee_puts_them():
    """A NaN row stays NaN, an infinity keeps its sign; a kernel that flips a sign or drops a NaN fails."""
    def flips_infinities(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
        correct(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta)
        C[np.isinf(C)] *= -1

    result = judge(correct)
    special = [c for c in result.details["cases"] if c.get("specials")]
    assert len(special) >= 3 and all(c["outcome"] == "ok" for c in special)
    for body in (flips_infinities, nan_inputs_to_zero):
        outcomes = judge(body).details["cases"]
        assert all(c["outcome"] == "wrong_values" for c in outcomes if c.get("specials"))
        assert all(c["outcome"] == "ok" for c in outcomes if not c.get("specials"))


def test_every_class_of_alpha_and_beta_catches_its_own_shortcut():
    """Each shortcut fails on its class only; the classes are all among the fixed cases."""
    for body, bad_class in ((alpha_zero_shortcut, "zero_zero"), (beta_one_drops_alpha, "alpha_one"),
                            (alpha_one_drops_beta, "one_beta")):
        outcomes = judge(body).details["cases"]
        failing = {cases.alpha_beta_class(c["alpha"], c["beta"]) for c in outcomes if c["outcome"] != "ok"}
        assert failing == {bad_class}, (body.__name__, failing)
        assert any(c["outcome"] != "ok" for c in outcomes if not c["drawn"])


def test_the_long_k_case_is_the_one_that_catches_a_sum_cut_at_4096():
    outcomes = judge(chunked_sum).details["cases"]
    assert [c["K"] for c in outcomes if c["outcome"] != "ok"] == [cases.LONG_K]


def test_a_race_is_still_a_race_with_two_fills():
    calls = {"n": 0}

    def racy(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
        calls["n"] += 1
        correct(k, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta)
        if calls["n"] % 3 == 0 and M * N > 4:
            C[0, 0] += np.float32(1e-3)                # every third launch, whatever the fill

    result = judge(racy)
    assert result.diagnosis == "race", result.message_ko


@pytest.mark.parametrize("exercise_id", ["m04-e1", "m07-e1", "m12-e1"])   # any shapes; aligned; the reduction
def test_the_warm_up_judges_a_right_and_a_wrong_stand_in_before_the_learners_clock(exercise_id):
    """worker_base.warm_up runs the whole judgement (re-runs, the second fill, the explanations) on CuPy-made
    kernels, on every case of the job, so CuPy's first-use compiles happen before "ready"; the right stand-in
    agrees with the reference on every case (NaN and infinities included), the wrong one does not."""
    from course.autograder import kind_splitk_reduce, kinds

    s = specs.load(exercise_id)
    spec = s.to_dict()
    kernel = types.SimpleNamespace(spec=spec, junk=Junk())
    owner = kind_splitk_reduce.ReduceKernel if spec["kind"] != "sgemm" else kind_sgemm.SgemmKernel
    kernel.stand_ins = lambda: owner.stand_ins(kernel)
    kernel.warm_cases = lambda: owner.warm_cases(kernel)
    plan = [c.as_dict() for c in kinds.of(s).correctness_cases(s, 3)]
    worker_base.warm_up(kernel, plan)
    right, wrong = kernel.stand_ins()
    for case in (*kernel.warm_cases(), *plan):
        assert worker_base.judge_case(right, kernel.junk, dict(case), max(spec["tile"]))["outcome"] == "ok", case
    for case in kernel.warm_cases():
        assert worker_base.judge_case(wrong, kernel.junk, dict(case), max(spec["tile"]))["outcome"] != "ok"
    assert any(c["specials"] for c in kernel.warm_cases()) and any(c["beta"] == 0.0 for c in kernel.warm_cases())


class ClobberedJunk(Junk):
    """What another process on the GPU can do between the fill and the launch: cells that change from launch to
    launch even with the same fill (zeros stay zeros here)."""

    def __init__(self):
        super().__init__()
        self.launches = 0

    def cells(self, count: int) -> np.ndarray:
        self.launches += 1
        if self.which == "zero":
            return np.zeros(count, dtype=np.float32)
        return worker_base.junk_words(self.seeds[self.which] + self.launches, count).view(np.float32)


def test_a_result_that_follows_unwritten_cells_is_not_called_a_race_when_zeros_make_it_right():
    """Identical re-runs may differ when something else overwrites shared memory between the fill and the launch;
    right and stable with zeros every time, it is still a read of unwritten shared memory, not a race."""
    kernel = FakeKernel(uninit_shared, ClobberedJunk())
    plan = cases.correctness_cases(SPEC, 5)
    outcomes = [worker_base.judge_case(kernel, kernel.junk, c.as_dict(), TILE) for c in plan]
    result = gpu.judge_outcomes(SPEC, outcomes, 5, "NumPy", 1.0)
    assert result.diagnosis == "uninitialized_shared", result.message_ko
    assert not any(c["outcome"] == "nondeterministic" for c in outcomes)
