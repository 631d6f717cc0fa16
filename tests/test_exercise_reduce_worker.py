"""The checker's judgement of a split-K reduction (exercise kind "splitk_reduce"), without a GPU: the worker's
reduce path (course.autograder.kind_splitk_reduce) on NumPy, through the same stand-in `cupy` as
tests/test_exercise_worker.py, against NumPy versions of m12-e1's solution and known-wrong attempts.
The real .cu attempts get the same verdicts on the GPU (tools/gpu/record_exercises.sh -> book/data/exercises.json)."""
from __future__ import annotations

import numpy as np
import pytest

from course.autograder import gpu, kind_splitk_reduce, spec as specs, worker_base
from test_exercise_worker import Junk, flat, numpy_cupy  # noqa: F401  (numpy_cupy: the autouse fixture)

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")   # NumPy on NaN and Inf, as IEEE wants

SPEC = specs.load("m12-e1")


class FakeReduce(kind_splitk_reduce.ReduceKernel):
    """m12-e1's launch in NumPy: `body(P, C, M, N, ldp, ldc, S, alpha, beta)` writes C through the views."""

    def __init__(self, body, junk):                     # no compile: the body is the kernel
        self.spec, self.body, self.junk, self.registers = SPEC.to_dict(), body, junk, 16

    def launch_reduce(self, P, C, M, N, ldp, ldc, S, alpha, beta, stream=None):
        self.body(P, C, M, N, ldp, ldc, S, np.float32(alpha), np.float32(beta))


def slab(P, s, M, N, ldp, stride=None):
    """Slab s (M x N) of the workspace whose first element `P` points at, slabs `stride` floats apart."""
    stride = M * ldp if stride is None else stride
    cells = flat(P, s * stride + (M - 1) * ldp + N)
    return np.lib.stride_tricks.as_strided(cells[s * stride:], shape=(M, N), strides=(4 * ldp, 4))


def finish(C, alpha, total, beta):
    with np.errstate(invalid="ignore"):
        C[...] = alpha * total + (beta * C if beta != 0.0 else 0.0)


def total_of(P, M, N, ldp, slabs):
    with np.errstate(invalid="ignore"):
        return sum(slab(P, s, M, N, ldp).astype(np.float64) for s in slabs)


def solution(P, C, M, N, ldp, ldc, S, alpha, beta):
    finish(C, alpha, total_of(P, M, N, ldp, range(S)), beta)


def at_most_eight_slabs(P, C, M, N, ldp, ldc, S, alpha, beta):
    """Each half adds at most four slabs: slabs 8 and up are dropped."""
    finish(C, alpha, total_of(P, M, N, ldp, range(min(S, 8))), beta)


def nan_slabs_skipped(P, C, M, N, ldp, ldc, S, alpha, beta):
    """A NaN in a slab is taken for an unwritten partial sum and skipped: NaN must reach C."""
    with np.errstate(invalid="ignore"):
        total = sum(np.nan_to_num(slab(P, s, M, N, ldp).astype(np.float64), nan=0.0, posinf=np.inf, neginf=-np.inf)
                    for s in range(S))
    finish(C, alpha, total, beta)


def alpha_per_slice(P, C, M, N, ldp, ldc, S, alpha, beta):
    finish(C, alpha, sum(alpha * slab(P, s, M, N, ldp).astype(np.float64) for s in range(S)), beta)


def beta_per_slice(P, C, M, N, ldp, ldc, S, alpha, beta):
    out = C.astype(np.float64) if beta != 0.0 else np.zeros((M, N))
    for s in range(S):
        out = alpha * slab(P, s, M, N, ldp) + beta * out
    C[...] = out


def reads_c_beta_zero(P, C, M, N, ldp, ldc, S, alpha, beta):
    with np.errstate(invalid="ignore"):
        C[...] = alpha * sum(slab(P, s, M, N, ldp).astype(np.float64) for s in range(S)) + beta * C


def slab_stride(P, C, M, N, ldp, ldc, S, alpha, beta):
    finish(C, alpha, sum(slab(P, s, M, N, ldp, M * N).astype(np.float64) for s in range(S)), beta)


def edge_off_by_one(P, C, M, N, ldp, ldc, S, alpha, beta):
    solution(P, C, M, N, ldp, ldc, S, alpha, beta)
    row_ends = flat(C, (M - 1) * ldc + N + 1)
    with np.errstate(invalid="ignore"):
        for r in range(M):                            # col == N: the padding after every row, past the last one
            row_ends[r * ldc + N] = alpha * sum(flat(P, s * M * ldp + r * ldp + N + 1)[s * M * ldp + r * ldp + N]
                                                for s in range(S))


def writes_workspace(P, C, M, N, ldp, ldc, S, alpha, beta):
    solution(P, C, M, N, ldp, ldc, S, alpha, beta)
    slab(P, 0, M, N, ldp)[...] = 0.0                  # "clears the workspace for the next GEMM"


def judge(body, seed: int = 5):
    junk = Junk()
    kernel = FakeReduce(body, junk)
    plan = kind_splitk_reduce.reduce_correctness_cases(SPEC, seed)
    outcomes = [worker_base.judge_case(kernel, junk, c.as_dict(), max(SPEC.tile)) for c in plan]
    return gpu.judge_outcomes(SPEC, outcomes, seed, "NumPy", 1.0)


def test_the_solution_passes_every_case():
    result = judge(solution)
    assert result.status == "pass", result.message_ko
    assert "float64로 더한 기준값" in result.message_ko and "ldp·ldc" in result.message_ko


@pytest.mark.parametrize("body,diagnosis,words", [
    (alpha_per_slice, "wrong_values", ["wrong values", "alpha="]),
    (beta_per_slice, "wrong_values", ["wrong values"]),
    (reads_c_beta_zero, "reads_c_with_beta_zero", ["beta = 0", "NaN"]),
    (slab_stride, "out_of_bounds", ["행 사이 여백", "out of bounds read"]),
    (edge_off_by_one, "out_of_bounds", ["out of bounds write", "(ldp 말고)"]),
    (writes_workspace, "writes_inputs", ["입력 P", "P는 읽기만", "— 입력 P를 바꿈."]),
    (at_most_eight_slabs, "wrong_values", ["wrong values", "S=19"]),
    (nan_slabs_skipped, "wrong_values", ["wrong values", "P에 NaN·±Inf 있음"]),
])
def test_each_known_mistake_gets_its_diagnosis(body, diagnosis, words):
    result = judge(body)
    assert result.status == "fail" and result.diagnosis == diagnosis, result.message_ko
    for word in words:
        assert word in result.message_ko, (word, result.message_ko)
    first = next(i for i, c in enumerate(result.details["cases"]) if c["outcome"] != "ok")
    assert f"처음 틀린 경우: {first + 1}번째 M=" in result.message_ko


def test_the_yaml_names_the_same_diagnoses():
    expected = {"wrong_alpha_per_slice.cu": "wrong_values", "wrong_beta_per_slice.cu": "wrong_values",
                "wrong_reads_c_beta_zero.cu": "reads_c_with_beta_zero", "wrong_slab_stride.cu": "out_of_bounds",
                "wrong_edge_off_by_one.cu": "out_of_bounds", "wrong_no_barrier.cu": "race",
                "wrong_at_most_eight_slabs.cu": "wrong_values"}
    assert {w.file: w.diagnosis for w in SPEC.wrong_attempts} == expected


def test_a_result_that_changes_between_identical_runs_is_judged_a_race():
    """What the GPU showed for wrong_no_barrier.cu under checker 2: the racy read happened to be right on the
    re-run with finite guard bands, so the cause looked like an out-of-bounds read. Identical re-runs first."""
    calls = {"n": 0}

    def racy(P, C, M, N, ldp, ldc, S, alpha, beta):
        calls["n"] += 1
        solution(P, C, M, N, ldp, ldc, S, alpha, beta)
        if calls["n"] % 2 == 1 and M * N > 1:      # the lower half read the odd slabs' sum before it was written
            C[0, 0] = np.float32(np.nan)

    result = judge(racy)
    assert result.status == "fail" and result.diagnosis == "race", result.message_ko
    assert "다시 실행했더니" in result.message_ko and "__syncthreads()" in result.message_ko
    first = next(c for c in result.details["cases"] if c["outcome"] != "ok")
    assert first["outcome"] == "nondeterministic" and first["differing_reruns"] >= 1
