"""GPU tests of the exercise checker (run on a GPU machine; skipped without one).

A kernel that never ends and one that writes to an illegal address each get their verdict within
the time limit, and the next check in the same process (and through the notebook magic) still
works. The recorded evidence for the course's own exercises comes from tools/record_exercises.py.
"""
from __future__ import annotations

import json
import time

import pytest

from course.autograder import Limits, check_source, spec as specs

pytestmark = pytest.mark.gpu

SIGNATURE = ('extern "C" __global__ void my_sgemm(const float* A, const float* B, float* C, int M, int N, int K, '
             "int lda, int ldb, int ldc, float alpha, float beta)")
SOLUTION = SIGNATURE + """
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[(size_t)row * lda + k] * B[(size_t)k * ldb + col];
    float* c = C + (size_t)row * ldc + col;
    float out = alpha * acc;
    if (beta != 0.0f) out += beta * *c;
    *c = out;
}
"""
# A loop that never ends, on a global value that never changes (A[0] is a finite random number).
# (A spin on a volatile local variable is no good: NVRTC compiled `volatile int spin = 1;
# while (spin) {}` into a kernel that returned at once on the H100, 2026-11-24.)
HANG = SIGNATURE + """
{
    const volatile float* a = A;
    while (a[0] == a[0]) { }
    C[0] = B[0];
}
"""
# Far outside any allocation: an illegal address, the context is lost.
FAULT = SIGNATURE + """
{
    C[((size_t)1 << 40) + threadIdx.x] = alpha;
}
"""
# No bounds check on the store: writes past the matrix on every edge shape.
NO_GUARD = SIGNATURE + """
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    if (row < M && col < N)
        for (int k = 0; k < K; ++k)
            acc += A[(size_t)row * lda + k] * B[(size_t)k * ldb + col];
    C[(size_t)row * ldc + col] = alpha * acc;
}
"""
# Right on the first launch for each C, then nothing: a table of the C pointers it has written (the launch's last
# block to finish adds C once every block has looked it up). The speed check's timed launches each get a C that
# was poisoned before them, so every one of them must come out wrong.
SKIPS_SEEN = """
__device__ unsigned long long seen_c[64];
__device__ unsigned int seen_count;
__device__ unsigned int blocks_done;
""" + SIGNATURE + """
{
    __shared__ int skip;
    const bool leader = threadIdx.x == 0 && threadIdx.y == 0;
    if (leader) {
        skip = 0;
        const unsigned int n = *(volatile unsigned int*)&seen_count;
        for (unsigned int i = 0; i < n && i < 64; ++i)
            if (((volatile unsigned long long*)seen_c)[i] == (unsigned long long)C) skip = 1;
    }
    __syncthreads();
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (!skip && row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[(size_t)row * lda + k] * B[(size_t)k * ldb + col];
        float* c = C + (size_t)row * ldc + col;
        float out = alpha * acc;
        if (beta != 0.0f) out += beta * *c;
        *c = out;
    }
    if (leader && atomicAdd(&blocks_done, 1u) == gridDim.x * gridDim.y - 1) {
        blocks_done = 0;
        const unsigned int n = seen_count;
        bool known = false;
        for (unsigned int i = 0; i < n && i < 64; ++i)
            known = known || seen_c[i] == (unsigned long long)C;
        if (!known && n < 64) {
            seen_c[n] = (unsigned long long)C;
            seen_count = n + 1;
        }
        __threadfence();
    }
}
"""

YAML = """
id: m04-e9
module: 4
title_ko: "시험용 실습"
goal_ko: "시험용입니다."
entry: my_sgemm
launch: {block: [16, 16], tile: [16, 16]}
shapes: {multiple_of: {M: 1, N: 1, K: 1}, aligned16: false}
checks:
  sass: {forbid: [LDL, STL], require: [], max_registers: 64}
  correctness: {}
  hazards: {memcheck: true, racecheck: true, synccheck: true}
  speed: {reference: sgemm_naive, size: 512, min_ratio: 0.5}
hints_ko: ["첫 힌트", "둘째 힌트"]
wrong_attempts:
  - {file: wrong_hang.cu, diagnosis: timeout, what_ko: "끝나지 않는 루프"}
  - {file: wrong_fault.cu, diagnosis: fault, what_ko: "잘못된 주소"}
"""
LIMIT = 20.0


@pytest.fixture()
def exercise_root(tmp_path, monkeypatch):
    folder = tmp_path / "m04-e9"
    folder.mkdir()
    (folder / "exercise.yaml").write_text(YAML, encoding="utf-8")
    for name, text in (("starter.cu", SOLUTION), ("solution.cu", SOLUTION), ("wrong_hang.cu", HANG),
                       ("wrong_fault.cu", FAULT)):
        (folder / name).write_text(text, encoding="utf-8")
    monkeypatch.setenv(specs.EXERCISES_ENV, str(tmp_path))
    return tmp_path


def _timed(spec, source, name, limits):
    started = time.monotonic()
    verdict = check_source(spec, source, name, use_gpu=True, limits=limits)
    return verdict, time.monotonic() - started


def test_hang_and_fault_get_verdicts_then_the_next_check_works(exercise_root):
    spec = specs.load("m04-e9")
    limits = Limits(correctness=LIMIT, hazards=120.0, speed=60.0)

    hang, seconds = _timed(spec, HANG, "hang.cu", limits)
    assert hang.result("correctness").diagnosis == "timeout", json.dumps(hang.to_dict(), ensure_ascii=False)[:6000]
    assert hang.diagnosis == "timeout"
    # the kernel's clock starts once the worker is ready (start-up on a cold machine does not count)
    assert seconds < LIMIT + 120, f"the hang took {seconds:.0f} s to judge"
    judged = hang.result("correctness")
    assert "제한 시간" in judged.message_ko and not judged.details.get("startup") and "정확성" in judged.details["stage"]
    assert hang.result("hazards").status == "skip" and hang.result("speed").status == "skip"

    fault, seconds = _timed(spec, FAULT, "fault.cu", limits)
    assert fault.result("correctness").diagnosis == "fault", fault.text()
    assert fault.diagnosis == "fault"
    assert seconds < LIMIT + limits.hazards, f"the fault took {seconds:.0f} s to judge"
    # memcheck explains the fault with the learner's own line (line 3 of FAULT)
    memcheck = fault.result("hazards").details["tools"]["memcheck"]
    assert any(ln["line"] == 3 for ln in memcheck["lines"]), memcheck

    good, _ = _timed(spec, SOLUTION, "solution.cu", limits)
    assert good.passed, good.text()
    assert good.result("speed").details["ratio"] > 0.5

    import cupy   # this process's own CUDA context was never touched by the learner's kernels

    assert float((cupy.arange(4, dtype=cupy.float32) * 2).sum()) == 12.0


def test_out_of_bounds_store_is_named_and_located(exercise_root):
    spec = specs.load("m04-e9")
    verdict = check_source(spec, NO_GUARD, "no_guard.cu", use_gpu=True, limits=Limits(LIMIT, 120.0, 60.0))
    assert verdict.diagnosis == "out_of_bounds", verdict.text()
    assert verdict.result("correctness").diagnosis == "out_of_bounds"
    memcheck = verdict.result("hazards").details["tools"]["memcheck"]
    assert memcheck["errors"] and any(ln["line"] == 9 for ln in memcheck["lines"]), memcheck


def test_notebook_session_survives_a_hang(exercise_root, tmp_path, monkeypatch):
    """The notebook path (what %%exercise runs): a hang, then a passing check, both stored as attempts."""
    from course.autograder.lab import TIME_LIMIT_ENV, LabSession
    from course.quiz.progress import ProgressStore

    store = ProgressStore(tmp_path / "progress")
    monkeypatch.setenv(TIME_LIMIT_ENV, str(LIMIT))
    session = LabSession(store)
    hang = session.check("m04-e9", HANG)
    assert hang.diagnosis == "timeout", json.dumps(hang.to_dict(), ensure_ascii=False)[:6000]
    good = session.check("m04-e9", SOLUTION)
    assert good.passed, good.text()
    attempts = store.exercise_attempts("m04-e9")
    assert [a["diagnosis"] for a in attempts] == ["timeout", None]
    assert attempts[-1]["passed"] is True and attempts[-1]["checks"]["speed"] == "pass"


def test_the_speed_check_times_over_copies_and_catches_a_kernel_that_skips_a_pointer_it_has_seen(exercise_root):
    from course.autograder import gpu

    spec = specs.load("m04-e9")
    good = gpu.speed_check(spec, SOLUTION, "solution.cu", Limits(speed=90.0), seed=5)
    details = good.details
    assert good.status == "pass", good.message_ko
    assert details["copies"] > 1 and 1 <= details["calls"] <= details["copies"], details
    assert details["wrong_launches"] == 0 and details["launches_checked"] >= details["reps"] * details["calls"]

    cheat = gpu.speed_check(spec, SKIPS_SEEN, "skips_seen.cu", Limits(speed=90.0), seed=5)
    assert cheat.diagnosis == "wrong_values", cheat.message_ko
    assert cheat.details["rel_error"] is not None            # every copy's first launch was right
    assert cheat.details["wrong_launches"] == cheat.details["launches_checked"] > 0
