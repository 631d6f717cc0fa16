"""kernels/timing.py without a GPU: how many copies and calls it chooses, the order in which subjects and copies
take their turns, and a round measured again when the hold ran out before the batch was queued.

The GPU parts are replaced by fakes: `hold` and `_sync` record their calls, and CUDA events come from a class whose
`done` and elapsed times the test scripts.
"""
from __future__ import annotations

import cupy
import pytest

from kernels import timing

MiB = 1 << 20


def test_copies_exceed_twice_the_l2():
    l2 = 50 * MiB
    per_set = 12 * MiB                                   # e.g. 1024^3: A, B and C together
    n = timing.copies_for(per_set, l2)
    assert n * per_set > timing.L2_MULTIPLE * l2 and (n - 1) * per_set <= timing.L2_MULTIPLE * l2


def test_one_copy_when_one_set_already_exceeds_the_l2_twice():
    assert timing.copies_for(3 * 64 * MiB, 50 * MiB) == 1


def test_copies_are_capped_by_count_and_by_free_memory():
    assert timing.copies_for(4 * 3, 50 * MiB) == timing.MAX_COPIES                   # a tiny product
    free = 40 * MiB                                      # only a quarter of it, 10 MiB, for copies
    assert timing.copies_for(4 * MiB, 50 * MiB, free_bytes=free) == 2
    assert timing.copies_for(20 * MiB, 50 * MiB, free_bytes=free) == 1               # never fewer than one


@pytest.mark.parametrize("ms, calls", [(0.01, timing.MAX_CALLS), (0.5, 4), (1.0, 2), (0.7, 3), (5.0, 1),
                                       (0.0, timing.MAX_CALLS), (float("nan"), timing.MAX_CALLS)])
def test_calls_fill_the_target_time(ms, calls):
    assert timing.calls_for(ms) == calls


def test_turn_order_rotates_and_reverses_by_round():
    assert [timing.order_of("ab", r) for r in range(4)] == [list("ab"), list("ba"), list("ba"), list("ab")]
    orders = [tuple(timing.order_of("abc", r)) for r in range(6)]
    assert len(set(orders)) == 6                         # three subjects: every order once in six rounds
    for name in "abc":                                   # each goes first, and last, equally often
        assert sum(o[0] == name for o in orders) == 2 and sum(o[-1] == name for o in orders) == 2


class FakeGPU:
    """Scripted stand-ins: elapsed times popped from a list (or a constant), and `done` of the start event
    (whether the GPU had already passed it when the host finished queueing) popped from another."""

    def __init__(self, elapsed=1.0, late=()):
        self.elapsed, self.late, self.log = elapsed, list(late), []
        gpu = self

        class Event:
            def record(self):
                gpu.log.append(("record", id(self)))

            @property
            def done(self):
                return gpu.late.pop(0) if gpu.late else False

            def synchronize(self):
                pass

        self.Event = Event

    def get_elapsed_time(self, start, end):
        return self.elapsed.pop(0) if isinstance(self.elapsed, list) else self.elapsed


@pytest.fixture()
def fake(monkeypatch):
    def install(**kw):
        gpu = FakeGPU(**kw)
        monkeypatch.setattr(cupy.cuda, "Event", gpu.Event)
        monkeypatch.setattr(cupy.cuda, "get_elapsed_time", gpu.get_elapsed_time)
        monkeypatch.setattr(timing, "hold", lambda ms: gpu.log.append(("hold", ms)))
        monkeypatch.setattr(timing, "_sync", lambda: gpu.log.append(("sync",)))
        return gpu

    return install


def subject(name: str, copies: int, log: list):
    return [lambda i=i: log.append((name, i)) for i in range(copies)]


def test_calls_rotate_over_the_copies_and_subjects_alternate(fake):
    gpu = fake(elapsed=4.0)
    subjects = {"a": subject("a", 3, gpu.log), "b": subject("b", 2, gpu.log)}
    times = timing.alternate(subjects, rounds=3, warmup=0, calls=2)
    calls = [e for e in gpu.log if e[0] in ("a", "b")]
    # rounds: a then b, b then a, b then a; each subject's calls go on from the copy where its last batch stopped
    assert calls == [("a", 0), ("a", 1), ("b", 0), ("b", 1),
                     ("b", 0), ("b", 1), ("a", 2), ("a", 0),
                     ("b", 0), ("b", 1), ("a", 1), ("a", 2)]
    assert times["a"].median_ms == pytest.approx(2.0)          # 4 ms per event pair / 2 calls
    assert (times["a"].calls, times["a"].copies, times["a"].reps) == (2, 3, 3)
    assert (times["b"].calls, times["b"].copies) == (2, 2)
    holds = [e for e in gpu.log if e[0] == "hold"]
    assert len(holds) == 6 and all(ms == timing.HOLD_MS for _, ms in holds)


def test_every_batch_is_queued_behind_a_hold(fake):
    gpu = fake(elapsed=1.0)
    timing.alternate({"a": subject("a", 1, gpu.log)}, rounds=2, warmup=0, calls=2)
    kinds = [e[0] for e in gpu.log]
    assert kinds == ["sync", "hold", "record", "a", "a", "record", "hold", "record", "a", "a", "record"]


def test_a_round_whose_hold_ran_out_is_measured_again_with_a_longer_hold(fake):
    gpu = fake(elapsed=[3.0, 3.0], late=[True, False, False])
    batch = timing._Batch(1)
    fns = subject("a", 2, gpu.log)
    assert batch.time("a", fns) == 3.0                   # the exposed pair is never read: its batch ran again
    assert batch.exposed == 1 and batch.hold_ms == 2 * timing.HOLD_MS
    assert [e for e in gpu.log if e[0] == "hold"] == [("hold", timing.HOLD_MS), ("hold", 2 * timing.HOLD_MS)]
    assert batch.time("a", fns) == 3.0                   # the longer hold is kept for later pairs
    assert [e[1] for e in gpu.log if e[0] == "hold"][-1] == 2 * timing.HOLD_MS
    assert [e for e in gpu.log if e[0] == "a"] == [("a", 0), ("a", 1), ("a", 0)]   # rotation goes on


def test_the_hold_stops_growing_at_its_limit(fake):
    gpu = fake(elapsed=[1.0] * 20, late=[True] * 20)
    batch = timing._Batch(1, hold_ms=timing.MAX_HOLD_MS / 2)
    assert batch.time("a", subject("a", 1, gpu.log)) == 1.0
    assert batch.hold_ms == timing.MAX_HOLD_MS and batch.exposed == 1


def test_no_hold_means_no_hold_kernel_and_no_second_measurement(fake):
    gpu = fake(elapsed=[5.0, 7.0], late=[True, True])
    times = timing.alternate({"a": subject("a", 2, gpu.log)}, rounds=2, warmup=0, calls=1, hold_ms=None)
    assert not [e for e in gpu.log if e[0] == "hold"]
    assert times["a"].median_ms == pytest.approx(6.0) and times["a"].reps == 2


def test_each_subject_gets_calls_for_its_own_time(fake):
    # estimates: a 0.1 ms (20 calls fill 2 ms), b 10 ms (one call); then every batch takes 8 ms
    gpu = fake(elapsed=[0.1, 10.0] + [8.0] * 4)
    times = timing.alternate({"a": subject("a", 1, gpu.log), "b": subject("b", 1, gpu.log)}, rounds=2, warmup=1)
    assert times["a"].calls == 20 and times["b"].calls == 1
    assert times["a"].median_ms == pytest.approx(0.4) and times["b"].median_ms == pytest.approx(8.0)


def test_before_and_after_see_the_copies_each_batch_used(fake):
    gpu = fake(elapsed=1.0)
    seen = []
    timing.alternate({"a": subject("a", 3, gpu.log)}, rounds=2, warmup=0, calls=2,
                     before=lambda name, used: seen.append(("before", name, used)),
                     after=lambda name, used: seen.append(("after", name, used)))
    assert seen == [("before", "a", [0, 1]), ("after", "a", [0, 1]), ("before", "a", [0, 2]), ("after", "a", [0, 2])]
