"""The speed check without a GPU: course.autograder.timing on NumPy (the stand-in `cupy` of
tests/test_exercise_worker.py, with CUDA events that read a GPU clock the fake kernels advance) and the verdict
gpu.speed_check makes of the worker's result.

The times are kernels/timing.py's (GPU time per launch, launches rotating over operand copies, the two kernels
alternating by round). Every timed launch's C is poisoned before its event pair and checked after it, and no
event pair launches a copy twice, so a kernel that skips work on a pointer it has seen before, or on any one
launch, is caught; a ratio within ±3% of the bar is measured again, longer, and the second measurement decides.
"""
from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from course.autograder import cases, gpu, kinds, spec as specs, timing
from test_exercise_worker import numpy_cupy  # noqa: F401  (the autouse fixture)

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
COPIES = 4


@pytest.fixture()
def clock(monkeypatch):
    """A GPU clock (ms) that the fake kernels advance; CUDA events read it; the hold does nothing and the host is
    never late (the start event is never already done)."""
    from kernels import timing as protocol

    gpu_clock = types.SimpleNamespace(now=0.0)

    class Event:
        done = False
        t = 0.0

        def record(self):
            self.t = gpu_clock.now

        def synchronize(self):
            pass

    shim = sys.modules["cupy"]
    monkeypatch.setattr(shim.cuda, "Event", Event, raising=False)
    monkeypatch.setattr(shim.cuda, "get_elapsed_time", lambda start, end: end.t - start.t, raising=False)
    monkeypatch.setattr(protocol, "hold", lambda ms: None)
    return gpu_clock


def operand_sets(count: int = COPIES, n: int = 24) -> list:
    """`count` copies of (A, B, C): the same A and B values in every copy, each its own memory."""
    rng = np.random.default_rng(1)
    A, B = (rng.uniform(-1, 1, (n, n)).astype(np.float32) for _ in range(2))
    return [(A.copy(), B.copy(), np.zeros((n, n), np.float32)) for _ in range(count)]


class Gemm:
    """A fake kernel that costs `ms` of GPU time per launch; `skip(C, launch)` says when it leaves C alone."""

    def __init__(self, clock, ms: float, skip=None):
        self.clock, self.ms, self.skip, self.launches = clock, ms, skip, 0

    def __call__(self, A, B, C) -> None:
        self.launches += 1
        self.clock.now += self.ms
        if self.skip is None or not self.skip(C, self.launches):
            C[...] = A @ B

    def per_copy(self, sets) -> list:
        return [lambda A=A, B=B, C=C: self(A, B, C) for A, B, C in sets]


def run(clock, learner: Gemm, reference: Gemm, copies: int = COPIES, **job) -> dict:
    mine, theirs = operand_sets(copies), operand_sets(copies)
    job = {"reps": 10, "warmup": 2, **job}
    return timing.measure(job, learner.per_copy(mine), reference.per_copy(theirs), [s[2] for s in mine],
                          [s[2] for s in theirs])


def seen_pointers():
    """skip(): True for a C whose address an earlier launch already wrote."""
    seen = set()

    def skip(C, launch) -> bool:
        address = C.__array_interface__["data"][0]
        hit = address in seen
        seen.add(address)
        return hit

    return skip


def test_a_kernel_that_skips_a_pointer_it_has_seen_before_is_caught_on_every_timed_launch(clock):
    measured = run(clock, Gemm(clock, 0.1, skip=seen_pointers()), Gemm(clock, 1.0), min_ratio=0.8)
    assert measured["rel_error"] is not None and measured["rel_error"] < 1e-6   # each copy's first launch was right
    assert measured["copies"] == COPIES and measured["calls"] == COPIES         # 2 ms / 0.1 ms, capped by the copies
    assert measured["launches_checked"] == 10 * COPIES
    assert measured["wrong_launches"] == measured["launches_checked"] and measured["first_wrong_launch"] == 1
    assert measured["ratio"] == pytest.approx(10.0)


def test_a_kernel_that_skips_one_timed_launch_is_caught_whichever_it_is(clock):
    # before the timed launches: a checked first one per copy, one rough estimate, 2 warm-ups per copy
    untimed = 3 * COPIES + 1
    for timed_launch in (1, 7, 20):                   # 1 ms a launch: 2 calls per event pair, 10 rounds
        skipped = untimed + timed_launch
        learner = Gemm(clock, 1.0, skip=lambda C, launch, skipped=skipped: launch == skipped)
        measured = run(clock, learner, Gemm(clock, 1.0))
        assert measured["launches_checked"] == 20 and measured["calls"] == 2
        assert measured["wrong_launches"] == 1 and measured["first_wrong_launch"] == timed_launch
        assert measured["rel_error"] is not None
    skips_a_first_launch = Gemm(clock, 1.0, skip=lambda C, launch: launch == 2)
    assert run(clock, skips_a_first_launch, Gemm(clock, 1.0))["rel_error"] is None


def test_a_correct_kernel_has_every_timed_launch_checked_and_none_wrong(clock):
    measured = run(clock, Gemm(clock, 1.0), Gemm(clock, 0.5), min_ratio=0.8)
    assert measured["wrong_launches"] == 0 and measured["rel_error"] < 1e-6
    assert measured["calls"] == COPIES and measured["launches_checked"] == 10 * COPIES
    assert measured["ratio"] == pytest.approx(0.5) and measured["learner_ms"] == pytest.approx(1.0)
    assert not measured["remeasured"]


def test_calls_per_event_pair_never_exceed_the_copies(clock):
    """More calls than copies would launch a copy twice between its poisoning and its check: a kernel that skips a
    pointer it has seen would then pass on the second launch of the pair."""
    assert run(clock, Gemm(clock, 0.01), Gemm(clock, 0.01), copies=3)["calls"] == 3
    assert run(clock, Gemm(clock, 0.01), Gemm(clock, 0.01), copies=3, calls=8)["calls"] == 3
    assert run(clock, Gemm(clock, 5.0), Gemm(clock, 5.0), copies=3)["calls"] == 1
    sets = operand_sets(2)
    fns = Gemm(clock, 1.0).per_copy(sets)
    with pytest.raises(ValueError):
        timing.timed(fns, fns, [s[2] for s in sets], [s[2] for s in sets], lambda i: None, 0, 1, calls=3)


def test_a_ratio_within_three_percent_of_the_bar_is_decided_by_a_longer_second_measurement(clock, monkeypatch):
    learner = Gemm(clock, 1.0 / 0.799)
    measurements = []
    original = timing.timed

    def timed(*args, **kwargs):
        if measurements:
            learner.ms = 1.0 / 0.83                    # measured longer, the kernel is a little faster
        measurements.append(args[-2])
        return original(*args, **kwargs)

    monkeypatch.setattr(timing, "timed", timed)
    measured = run(clock, learner, Gemm(clock, 1.0), min_ratio=0.8, remeasure_reps=30)
    assert measurements == [10, 30]
    assert measured["remeasured"] and measured["reps"] == 30 and measured["first_reps"] == 10
    assert measured["first_ratio"] == pytest.approx(0.799) and measured["ratio"] == pytest.approx(0.83)
    assert measured["launches_checked"] == 40 * measured["calls"] and measured["wrong_launches"] == 0


def test_copies_are_what_the_protocol_asks_within_half_the_free_memory_each():
    from kernels import timing as protocol

    mib, l2 = 2 ** 20, 60 * 2 ** 20
    set_bytes = 3 * 2048 * 2048 * 4                       # A, B and C of a 2048 product: 48 MiB
    assert timing.room(set_bytes, 2048 * 2048, free=100 * 2 ** 30, l2=l2) == protocol.copies_for(set_bytes, l2) == 3
    assert timing.room(1 * mib, 1000, free=100 * 2 ** 30, l2=l2) == protocol.MAX_COPIES
    # little memory: fewer copies, never more than a share of half the free memory for each kernel
    free = 600 * mib
    count = timing.room(set_bytes, 2048 * 2048, free=free, l2=l2)
    assert count == 1 and 2 * count * set_bytes <= free


def test_no_room_for_one_copy_is_a_clear_korean_message():
    set_bytes = 3 * 2048 * 2048 * 4
    with pytest.raises(timing.NoRoom) as caught:
        timing.room(set_bytes, 2048 * 2048, free=set_bytes, l2=60 * 2 ** 20)
    text = caught.value.message_ko
    assert "GPU 여유 메모리(free)" in text and "복사본" in text and "Traceback" not in text
    assert caught.value.need > caught.value.free == set_bytes


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


def test_the_verdict_says_how_the_gpu_time_was_taken(monkeypatch):
    monkeypatch.setattr(gpu, "run_worker", lambda job, limit: _result(calls=2, copies=3, remeasured=False))
    result = gpu.speed_check(specs.load("m06-e2"), "source", "a.cu", gpu.Limits(), seed=9)
    assert "GPU 시간" in result.message_ko and "2번 연달아" in result.message_ko and "복사본 3벌" in result.message_ko
    assert result.details["calls"] == 2 and result.details["copies"] == 3


def test_no_room_for_one_copy_skips_the_speed_check_with_the_workers_message(monkeypatch):
    text = "속도 검사에 쓸 피연산자(operand) 복사본 한 벌에 ... GPU 여유 메모리(free)는 ..."
    shortage = {"event": "result", "M": 1920, "N": 2176, "K": 1792, "lda": 1804, "ldb": 2184, "ldc": 2180,
                "no_room": text, "need_bytes": 200, "free_bytes": 100}
    monkeypatch.setattr(gpu, "run_worker", lambda job, limit: gpu.WorkerRun(False, 0, [{"event": "ready"}, shortage]))
    result = gpu.speed_check(specs.load("m06-e2"), "source", "a.cu", gpu.Limits(), seed=9)
    assert result.status == "skip" and result.diagnosis is None and result.message_ko == text
    assert result.details["no_room"] and result.details["need_bytes"] == 200


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


@pytest.mark.parametrize("exercise_id", [s.id for s in specs.load_all()])
def test_the_timed_alpha_and_beta_are_drawn_per_run_and_never_one_and_zero(exercise_id):
    """A kernel cannot keep a path for the timed size that drops alpha or beta: they are drawn with the size."""
    s = specs.load(exercise_id)
    drawn = {(c.alpha, c.beta) for c in (kinds.of(s).speed_case(s, seed) for seed in range(40))}
    assert len(drawn) >= 3 and drawn <= set(cases.SPEED_ALPHA_BETA)
    assert all(alpha != 1.0 and beta != 0.0 for alpha, beta in drawn)


def test_a_kernel_that_drops_beta_at_the_timed_size_is_told_its_values_are_wrong(clock, monkeypatch):
    """kind_sgemm.speed on NumPy: C starts from its drawn values (beta != 0); a learner that writes alpha A B only
    (the beta = 0 path it might keep for big sizes) differs from the reference on its first launch."""
    from course.autograder import kind_sgemm
    from kernels import launch

    class Prepared:
        plan = types.SimpleNamespace(staged_operands=())

        def __init__(self, name, A, B, C, alpha=1.0, beta=0.0):
            self.A, self.B, self.C, self.alpha, self.beta = A, B, C, alpha, beta

        def __call__(self):
            clock.now += 1.0
            self.C[...] = self.alpha * (self.A @ self.B) + self.beta * self.C

    class DropsBeta:
        spec, registers = {"aligned16": False}, 40

        def launch(self, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
            clock.now += 0.5
            C[...] = alpha * (A @ B)

    monkeypatch.setattr(launch, "prepare", Prepared)
    monkeypatch.setattr(kind_sgemm, "emit", lambda *args, **kwargs: None)
    monkeypatch.setattr(timing, "room", lambda set_bytes, elements: 2)
    job = {"case": {"M": 40, "N": 36, "K": 20, "pad_a": 4, "pad_b": 8, "pad_c": 12, "alpha": 1.5, "beta": 0.5},
           "reference": "sgemm_naive", "reps": 5}
    measured = kind_sgemm.speed(job, DropsBeta())
    assert measured["rel_error"] is None or measured["rel_error"] > 1e-5
    assert measured["wrong_launches"] == measured["launches_checked"] > 0


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


def test_the_worker_gives_each_kernel_its_own_copies_of_the_padded_operands(clock, monkeypatch):
    """kind_sgemm.speed on NumPy: the reference (kernels.launch.prepare, faked) and the learner each get `room()` copies
    of A, B and C with lda, ldb and ldc as the case pads them, none shared between the two."""
    from course.autograder import kind_sgemm
    from kernels import launch

    seen = {"learner": set(), "reference": set()}

    def address(view) -> int:
        return view.__array_interface__["data"][0]

    class Prepared:
        plan = types.SimpleNamespace(staged_operands=())

        def __init__(self, name, A, B, C, alpha=1.0, beta=0.0):
            self.A, self.B, self.C, self.alpha, self.beta = A, B, C, alpha, beta

        def __call__(self):
            clock.now += 1.0
            seen["reference"].add(address(self.C))
            self.C[...] = self.alpha * (self.A @ self.B) + self.beta * self.C

    class Learner:
        spec, registers = {"aligned16": False}, 40

        def launch(self, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta):
            assert (A.strides[0], B.strides[0], C.strides[0]) == (4 * lda, 4 * ldb, 4 * ldc)
            clock.now += 0.5
            seen["learner"].add(address(C))
            C[...] = alpha * (A @ B) + beta * C       # reads C: the check puts C's start back before every pair

    monkeypatch.setattr(launch, "prepare", Prepared)
    monkeypatch.setattr(kind_sgemm, "emit", lambda *args, **kwargs: None)
    monkeypatch.setattr(timing, "room", lambda set_bytes, elements: 3)
    job = {"case": {"M": 40, "N": 36, "K": 20, "pad_a": 4, "pad_b": 8, "pad_c": 12, "alpha": 1.5, "beta": 0.5},
           "reference": "sgemm_naive",
           "reps": 5}
    measured = kind_sgemm.speed(job, Learner())
    assert (measured["lda"], measured["ldb"], measured["ldc"]) == (24, 44, 48)
    assert measured["copies"] == measured["calls"] == 3 and measured["ratio"] == pytest.approx(2.0)
    assert measured["wrong_launches"] == 0 and measured["launches_checked"] == 15
    assert len(seen["learner"]) == len(seen["reference"]) == 3 and not seen["learner"] & seen["reference"]

    def no_room(set_bytes, elements):
        raise timing.NoRoom("메모리가 모자랍니다", 2, 1)

    monkeypatch.setattr(timing, "room", no_room)
    assert kind_sgemm.speed(job, Learner())["no_room"] == "메모리가 모자랍니다"


def test_the_reduce_worker_times_over_copies_of_the_workspace_too(clock, monkeypatch):
    from course.autograder import kind_splitk_reduce
    from kernels import loader

    def course(grid, block, args):
        P, C, M, N, ldp, ldc, S, alpha, beta = args
        clock.now += 1.0
        C[:, :N] = alpha * sum(P[s * M:(s + 1) * M, :N] for s in range(S)) + beta * C[:, :N]

    class Learner:
        registers = 20

        def launch_reduce(self, P, C, M, N, ldp, ldc, S, alpha, beta):
            clock.now += 2.0
            C[:, :N] = alpha * sum(P[s * M:(s + 1) * M, :N] for s in range(S)) + beta * C[:, :N]

    monkeypatch.setattr(loader, "get_variant", lambda *args, **kwargs: course)
    monkeypatch.setattr(kind_splitk_reduce, "emit", lambda *args, **kwargs: None)
    monkeypatch.setattr(timing, "room", lambda set_bytes, elements: 2)
    job = {"case": {"M": 8, "N": 12, "S": 3, "pad_p": 4, "pad_c": 0, "alpha": -0.75, "beta": 1.25},
           "reference": "shape_aware_reduce", "reps": 5}
    measured = kind_splitk_reduce.speed(job, Learner())
    assert measured["copies"] == measured["calls"] == 2 and measured["ratio"] == pytest.approx(0.5)
    assert measured["wrong_launches"] == 0 and measured["launches_checked"] == 10 and measured["rel_error"] == 0.0
