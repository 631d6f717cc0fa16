"""The speed check's measurement, in the worker: the learner's kernel and the reference timed in alternation with
kernels/timing.py's protocol, with every timed launch's output checked.

    count = room(set_bytes, M * N)                 # operand copies per kernel (NoRoom: not even one fits)
    measured = measure(job, learner, reference, outs, out_refs)

`learner[i]` and `reference[i]` launch the two kernels on operand copy i (A, B and an output C of their own; the
same values in every copy), writing `outs[i]` and `out_refs[i]` (the views of C each of them writes). What is
timed is the GPU's time per launch (kernels.timing.alternate): a hold kernel keeps the GPU busy while the host
enqueues a CUDA event, `calls` back-to-back launches and a second event, so the host's launch cost falls outside
the events; the launches rotate over the copies, which together exceed twice the L2 (kernels.timing.copies_for),
so no launch finds its operands where the previous one left them; the two kernels alternate by round; the median
of rounds decides.

The checker's guarantee: every timed learner launch writes a C that was reset before its event pair (NaN; or,
when the run's drawn beta is not 0 and the kernels read C, C's starting values put back) and is compared with the
reference's values after it, both outside the events (alternate's `before` and `after`
hooks, called around each event pair with the copies it uses). Calls per event pair never exceed the number of
copies, so no copy is launched twice between one poisoning and its check: a kernel that skips work on some
launches (once it has seen a pointer, a shape, or a number of launches) leaves NaN (or the starting C) where it
skipped and is told so, whichever launch it skips. alpha and beta are drawn per run too (cases.SPEED_ALPHA_BETA),
so the timed path computes all of C = alpha A B + beta C. Before any timing, the first launch on every copy is checked the same way
(rel_error is the worst of them). The reference's outputs are poisoned the same way, so that both kernels start
from the same state of memory.

A ratio (reference time / learner time) within job["band"] of job["min_ratio"] (relative, e.g. 0.03 for
±3%) is not decided on one measurement: a second, longer one (job["remeasure_reps"] rounds) decides, and
both are reported.
"""
from __future__ import annotations

import numpy as np

from course.autograder.compare import TOLERANCE, error as _error, mismatch as _mismatch

BAND = 0.03                  # a ratio this close to the bar (relative) is measured again
REMEASURE_FACTOR = 3         # the second measurement takes this many times the rounds of the first
LEARNER, REFERENCE = "learner", "reference"
# Bytes per element of C that the check needs beside the copies: the truth (4) and compare's temporaries (a mask,
# two float64 copies and their difference: 1 + 3 x 8), rounded up.
CHECK_BYTES_PER_ELEMENT = 32


class NoRoom(Exception):
    """Not even one copy of the operands (the learner's and the reference's) fits in the free device memory."""

    def __init__(self, message_ko: str, need: int, free: int):
        super().__init__(message_ko)
        self.message_ko, self.need, self.free = message_ko, need, free


def room(set_bytes: int, out_elements: int, free: int | None = None, l2: int | None = None) -> int:
    """How many operand copies each kernel gets: kernels.timing.copies_for, within half the free memory each (the
    learner's copies and the reference's share it) after the check's own needs. `set_bytes`: one copy of A, B and
    C as allocated (row padding included). Raises NoRoom (a Korean message) when one copy for each does not fit."""
    from kernels import timing as protocol
    from kernels.device import free_memory_bytes
    from kernels.launch import memory_text

    free = free_memory_bytes() if free is None else int(free)
    check = CHECK_BYTES_PER_ELEMENT * int(out_elements)
    need = 2 * int(set_bytes) + check
    if need > free:
        raise NoRoom(f"속도 검사에 쓸 피연산자(operand) 복사본 한 벌(내 커널과 기준 커널의 A, B, C 한 벌씩과 검사용 "
                     f"공간)에 {memory_text(need, free)}. GPU 메모리를 쓰는 다른 프로그램(다른 노트북 커널 등)을 "
                     "끝낸 뒤 다시 검사하세요.", need, free)
    l2 = protocol.l2_bytes() if l2 is None else int(l2)
    return protocol.copies_for(set_bytes, l2, (free - check) // 2)


def replicate(buffers: tuple, count: int) -> list[tuple]:
    """`count` sets of the same buffers: the originals, then copies (the same values, other memory)."""
    return [tuple(buffers)] + [tuple(b.copy() for b in buffers) for _ in range(count - 1)]


def _poison(view, start=None) -> None:
    """C before a launch: NaN (beta = 0: a launch that skips a value leaves NaN), or, when the launch reads C
    (beta != 0), C's starting values put back (a skipped value stays the start, not alpha A B + beta C)."""
    import cupy

    if start is None:
        view.fill(cupy.nan)
    else:
        view[...] = start


class _Checker:
    """Compares the learner's output on a copy with the reference's values (NaN == NaN, the same infinities, the
    rest within compare.TOLERANCE), counting the launches checked and the wrong ones."""

    def __init__(self, outs, truth):
        self.outs, self.truth = outs, truth
        self.launches, self.wrong, self.first_wrong, self.worst = 0, 0, None, 0.0

    def __call__(self, copy: int) -> None:
        self.launches += 1
        out = self.outs[copy]
        err, _ = _error(out, self.truth)
        bad = bool(_mismatch(out, self.truth).any()) or not err <= TOLERANCE
        if bad:
            self.wrong += 1
            if self.first_wrong is None:
                self.first_wrong = self.launches
        if np.isfinite(err):
            self.worst = max(self.worst, err)


def _sync() -> None:
    import cupy

    cupy.cuda.get_current_stream().synchronize()


def timed(learner, reference, outs, out_refs, check, warmup: int, rounds: int, calls: int, start=None) -> dict:
    """kernels.timing.alternate over both kernels' copies: `calls` launches per event pair (at most one per copy),
    every copy a pair uses poisoned before it and, for the learner, checked after it (outside the events)."""
    from kernels import timing as protocol

    if not 1 <= calls <= len(learner) or len(learner) != len(reference):
        raise ValueError(f"calls per event pair ({calls}) must be between 1 and the copies ({len(learner)})")
    targets = {LEARNER: outs, REFERENCE: out_refs}

    def before(name: str, used: list) -> None:
        for i in used:
            _poison(targets[name][i], start)

    def after(name: str, used: list) -> None:
        if name == LEARNER:
            for i in used:
                check(i)

    return protocol.alternate({LEARNER: learner, REFERENCE: reference}, rounds=rounds, warmup=warmup, calls=calls,
                              before=before, after=after)


def _summary(times: dict) -> dict:
    learner, reference = times[LEARNER], times[REFERENCE]
    return {"learner_ms": learner.median_ms, "reference_ms": reference.median_ms, "learner_min_ms": learner.min_ms,
            "reference_min_ms": reference.min_ms, "reps": learner.reps,
            "ratio": reference.median_ms / learner.median_ms, "calls": learner.calls, "copies": learner.copies}


def near_bar(ratio: float, min_ratio: float | None, band: float = BAND) -> bool:
    """Whether a ratio is too close to the bar to be decided on one measurement."""
    return bool(min_ratio) and abs(ratio / min_ratio - 1.0) <= band


def calls_per_pair(learner, reference, copies: int) -> int:
    """Back-to-back launches per event pair: kernels.timing.calls_for the faster kernel's first rough time, never
    more than the copies (each copy at most once between its poisoning and its check)."""
    from kernels import timing as protocol

    fastest = min(protocol.estimate_ms(learner), protocol.estimate_ms(reference))
    return max(1, min(copies, protocol.calls_for(fastest)))


def _first_launches(learner, reference, outs, out_refs, start=None) -> tuple:
    """The first launch on every copy, poisoned and checked: (truth, worst relative error or NaN)."""
    for i in range(len(learner)):
        _poison(outs[i], start)
        _poison(out_refs[i], start)
        learner[i]()
        reference[i]()
    _sync()
    truth = out_refs[0].copy()
    worst = 0.0
    for out in outs:
        err, _ = _error(out, truth)
        if bool(_mismatch(out, truth).any()) or not np.isfinite(err):
            return truth, float("nan")
        worst = max(worst, err)
    return truth, worst


def measure(job: dict, learner, reference, outs, out_refs, start=None) -> dict:
    """The checked first launches (rel_error), the timings, and the count of timed launches that were wrong.
    start: C's starting values when the kernels read C (beta != 0); None: C is poisoned with NaN."""
    learner, reference, outs, out_refs = list(learner), list(reference), list(outs), list(out_refs)
    if not learner or not len(learner) == len(reference) == len(outs) == len(out_refs):
        raise ValueError("one learner launch, one reference launch and one output of each per copy")
    truth, err = _first_launches(learner, reference, outs, out_refs, start)
    check = _Checker(outs, truth)
    warmup, reps = job.get("warmup", 2), job.get("reps", 10)
    copies = len(learner)
    calls = min(int(job["calls"]), copies) if job.get("calls") else calls_per_pair(learner, reference, copies)
    result = _summary(timed(learner, reference, outs, out_refs, check, warmup, reps, calls, start=start))
    result["remeasured"] = False
    band = job.get("band", BAND)
    if near_bar(result["ratio"], job.get("min_ratio"), band):
        first = {f"first_{key}": value for key, value in result.items() if key != "remeasured"}
        again = timed(learner, reference, outs, out_refs, check, warmup,
                      job.get("remeasure_reps", REMEASURE_FACTOR * reps), calls, start=start)
        result = {**_summary(again), **first, "remeasured": True}
    return {**result, "band": band, "rel_error": err if np.isfinite(err) else None,
            "launches_checked": check.launches, "wrong_launches": check.wrong, "first_wrong_launch": check.first_wrong,
            "worst_launch_error": check.worst}
