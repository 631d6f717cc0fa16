"""The speed check without a GPU: course.autograder.timing on NumPy (the stand-in `cupy` of
tests/test_exercise_worker.py, with CUDA events whose times a test scripts) and the verdict gpu.speed_check
makes of the worker's result.

Every launch's output is poisoned before it and checked after it, so a kernel that returns at once on its
later launches is caught whichever launch it skips; a ratio within ±3% of the bar is measured again, longer,
and the second measurement decides.
"""
from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from course.autograder import cases, gpu, kinds, spec as specs, timing
from test_exercise_worker import numpy_cupy  # noqa: F401  (the autouse fixture)

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


@pytest.fixture()
def clock(monkeypatch):
    """CUDA events whose elapsed times come from a list the test fills (learner, reference, learner, ...)."""
    times: list[float] = []
    shim = sys.modules["cupy"]
    event = types.SimpleNamespace(record=lambda: None, synchronize=lambda: None)
    monkeypatch.setattr(shim.cuda, "Event", lambda: event, raising=False)
    monkeypatch.setattr(shim.cuda, "get_elapsed_time", lambda start, end: times.pop(0), raising=False)
    return times


def operands(n: int = 24):
    rng = np.random.default_rng(1)
    A, B = (rng.uniform(-1, 1, (n, n)).astype(np.float32) for _ in range(2))
    return A, B, np.zeros((n, n), np.float32), np.zeros((n, n), np.float32)


def kernels(A, B, out, out_ref, skip_after: int | None = None):
    calls = {"n": 0}

    def learner():
        calls["n"] += 1
        if skip_after is None or calls["n"] <= skip_after:
            out[...] = A @ B

    def reference():
        out_ref[...] = A @ B

    return learner, reference


def test_a_kernel_that_returns_at_once_after_its_first_launch_is_caught(clock):
    A, B, out, out_ref = operands()
    learner, reference = kernels(A, B, out, out_ref, skip_after=1)
    clock += [0.1, 1.0] * 10
    measured = timing.measure({"reps": 10, "warmup": 2, "min_ratio": 0.8}, learner, reference, out, out_ref)
    assert measured["rel_error"] is not None and measured["rel_error"] < 1e-6    # the first launch was right
    assert measured["launches_checked"] == 12 and measured["wrong_launches"] == 12
    assert measured["first_wrong_launch"] == 1 and measured["ratio"] == pytest.approx(10.0)


def test_a_kernel_that_skips_one_launch_in_ten_is_caught_too(clock):
    A, B, out, out_ref = operands()
    calls = {"n": 0}

    def learner():
        calls["n"] += 1
        if calls["n"] != 8:
            out[...] = A @ B

    _, reference = kernels(A, B, out, out_ref)
    clock += [1.0, 1.0] * 10
    measured = timing.measure({"reps": 10, "warmup": 2}, learner, reference, out, out_ref)
    assert measured["wrong_launches"] == 1 and measured["first_wrong_launch"] == 7


def test_a_correct_kernel_has_every_launch_checked_and_none_wrong(clock):
    A, B, out, out_ref = operands()
    learner, reference = kernels(A, B, out, out_ref)
    clock += [1.0, 0.5] * 10
    measured = timing.measure({"reps": 10, "warmup": 2, "min_ratio": 0.8}, learner, reference, out, out_ref)
    assert measured["wrong_launches"] == 0 and measured["launches_checked"] == 12
    assert measured["ratio"] == pytest.approx(0.5) and not measured["remeasured"]


def test_a_ratio_within_three_percent_of_the_bar_is_decided_by_a_longer_second_measurement(clock):
    A, B, out, out_ref = operands()
    learner, reference = kernels(A, B, out, out_ref)
    clock += [1.0 / 0.799, 1.0] * 10 + [1.0 / 0.83, 1.0] * 30      # 0.799 first, 0.83 when measured longer
    measured = timing.measure({"reps": 10, "warmup": 2, "min_ratio": 0.8, "remeasure_reps": 30}, learner, reference,
                              out, out_ref)
    assert measured["remeasured"] and measured["reps"] == 30 and measured["first_reps"] == 10
    assert measured["first_ratio"] == pytest.approx(0.799) and measured["ratio"] == pytest.approx(0.83)
    assert not clock                                                # both measurements used every timing


@pytest.mark.parametrize("ratio,near", [(0.799, True), (0.777, True), (0.823, True), (0.77, False), (0.9, False)])
def test_near_the_bar_means_within_three_percent(ratio, near):
    assert timing.near_bar(ratio, 0.8) is near


def _result(**fields) -> gpu.WorkerRun:
    base = {"event": "result", "M": 1920, "N": 2176, "K": 1792, "lda": 1804, "ldb": 2184, "ldc": 2180,
            "learner_ms": 1.0, "reference_ms": 0.83, "learner_min_ms": 0.9, "reference_min_ms": 0.8, "reps": 30,
            "ratio": 0.83, "rel_error": 1e-7, "remeasured": True, "first_ratio": 0.799, "first_reps": 10,
            "band": 0.03, "launches_checked": 42, "wrong_launches": 0, "first_wrong_launch": None}
    base.update(fields)
    return gpu.WorkerRun(False, 0, [{"event": "ready"}, base])


def test_the_verdict_follows_the_second_measurement_and_says_so(monkeypatch):
    s = specs.load("m06-e2")
    jobs = []
    monkeypatch.setattr(gpu, "run_worker", lambda job, limit: jobs.append(job) or _result())
    result = gpu.speed_check(s, "source", "a.cu", gpu.Limits(), seed=9)
    assert result.status == "pass" and "0.799" in result.message_ko and "다시 잰" in result.message_ko
    assert jobs[0]["min_ratio"] == s.min_ratio and jobs[0]["remeasure_reps"] == 30 and jobs[0]["band"] == 0.03
    assert (jobs[0]["case"]["M"], jobs[0]["case"]["N"], jobs[0]["case"]["K"]) == cases.speed_shape(s, 9)
    monkeypatch.setattr(gpu, "run_worker", lambda job, limit: _result(ratio=0.79))
    assert gpu.speed_check(s, "source", "a.cu", gpu.Limits(), seed=9).diagnosis == "too_slow"


def test_wrong_timed_launches_are_wrong_values_not_speed(monkeypatch):
    s = specs.load("m07-e1")
    monkeypatch.setattr(gpu, "run_worker", lambda job, limit: _result(ratio=14.0, remeasured=False, wrong_launches=12,
                                                                      first_wrong_launch=1))
    result = gpu.speed_check(s, "source", "a.cu", gpu.Limits(), seed=3)
    assert result.diagnosis == "wrong_values" and "12번" in result.message_ko and "NaN" in result.message_ko


@pytest.mark.parametrize("exercise_id", [s.id for s in specs.load_all()])
def test_the_timed_shape_is_drawn_per_run_near_the_size_and_never_the_size_itself(exercise_id):
    s = specs.load(exercise_id)
    speed_case = kinds.of(s).speed_case
    shapes = {tuple(getattr(speed_case(s, seed), d) for d in ("M", "N")) for seed in range(40)}
    assert len(shapes) >= 8
    for seed in range(40):
        c = speed_case(s, seed)
        for value in (c.M, c.N) + ((c.K,) if hasattr(c, "K") else ()):
            assert value != s.speed_size and 7 / 8 * s.speed_size <= value <= 9 / 8 * s.speed_size
            assert value % 128 == 0                    # whole 128 x 128 tiles: no edge blocks in the timing
    assert speed_case(s, 1) != speed_case(s, 2) and speed_case(s, 1) == speed_case(s, 1)


def test_a_sanitizer_that_crashes_on_its_own_is_run_once_more(monkeypatch):
    """A tool killed by a signal with nothing found (seen once on a busy H200) is not the kernel's fault."""
    runs = {"memcheck": 0, "racecheck": 0, "synccheck": 0}
    clean = "========= ERROR SUMMARY: 0 errors"

    def fake(job, limit, wrapper=(), startup_limit=None, sanitizer_log=False):
        tool = job["tool"]
        runs[tool] += 1
        if tool == "synccheck" and runs[tool] == 1:
            return gpu.WorkerRun(False, -11, [{"event": "ready"}])
        return gpu.WorkerRun(False, 0, [{"event": "ready"}, {"event": "result", "cases": 3}], sanitizer_text=clean)

    monkeypatch.setattr(gpu, "run_worker", fake)
    monkeypatch.setattr(gpu, "sanitizer_path", lambda: "/usr/local/cuda/bin/compute-sanitizer")
    result = gpu.hazards_check(specs.load("m06-e1"), "source", "a.cu", gpu.Limits(), seed=1)
    assert result.status == "pass", result.message_ko
    assert runs == {"memcheck": 1, "racecheck": 1, "synccheck": 2}
    assert result.details["tools"]["synccheck"]["retried"] and not result.details["tools"]["memcheck"]["retried"]
    assert gpu.tool_crashed(gpu.WorkerRun(False, -11, [])) and not gpu.tool_crashed(gpu.WorkerRun(False, 3, []))
    assert not gpu.tool_crashed(gpu.WorkerRun(False, -11, [{"event": "fault", "error": "x"}]))
