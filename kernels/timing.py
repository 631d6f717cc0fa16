"""How the course times a kernel: the GPU's time for the work, not the host's time to ask for it.

    from kernels import timing
    times = timing.alternate({"level7": [run_on_copy0, run_on_copy1, ...], "cublas": [...]})
    times["level7"].median_ms          # GPU milliseconds per call, median over rounds

Putting CUDA events around one call measures two things a learner does not want in a kernel's time:

- the host's cost of asking for the launch. cudaEventRecord goes into the stream first, then the host
  spends some microseconds preparing the launch (more through cupy.matmul than for a prepared kernel);
  the GPU idles in between and the event pair counts that idle time;
- a warm L2. Calling a kernel again on the same operands finds them in the L2 the last call filled,
  which a real program that moves on to other data does not.

The protocol here removes both:

1. A hold: before each event pair a one-thread kernel keeps the GPU busy (`HOLD_MS`) while the host
   enqueues the start event, `calls` back-to-back calls and the end event. When the GPU reaches the start
   event the whole batch is already queued, so nothing between the events waits for the host. If the
   start event has already passed by the time the host has enqueued the batch, the hold was too short:
   that round is measured again with a hold twice as long.
2. Rotation: the calls cycle over copies of the operands (`copies_for`) that together are larger than
   `L2_MULTIPLE` times the L2, so no call finds its operands where the previous one left them.
3. Alternation: the subjects take turns within each round and the turn order rotates by round, so every
   subject sees the same clocks, temperature and neighbours.
4. The median over rounds of (event time / calls).

`per_call` keeps the older protocol (events around every single call, the same operands each time): module
10 measures both side by side to show what the difference is.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

L2_MULTIPLE = 2          # operand copies together exceed this many times the L2
MAX_COPIES = 32          # at most this many copies of the operands
COPY_MEMORY_SHARE = 0.25 # and at most this share of the free device memory
CALLS_TARGET_MS = 2.0    # back-to-back calls per event pair: enough to fill this much GPU time...
MAX_CALLS = 32           # ...but no more than this many
HOLD_MS = 0.5            # the first hold; doubled whenever the host did not finish enqueueing in time
MAX_HOLD_MS = 64.0
ROUNDS = 7
WARMUP = 2

_HOLD_SOURCE = r"""
extern "C" __global__ void timing_hold(unsigned long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}
"""


@dataclass
class Timing:
    median_ms: float      # per call
    min_ms: float
    max_ms: float
    reps: int             # rounds (event pairs) the median is over
    calls: int = 1        # calls per event pair
    copies: int = 1       # operand copies the calls rotated over

    @classmethod
    def of(cls, samples: Sequence[float], calls: int = 1, copies: int = 1) -> "Timing":
        return cls(statistics.median(samples), min(samples), max(samples), len(samples), calls, copies)


def l2_bytes() -> int:
    import cupy

    rt = cupy.cuda.runtime
    return int(rt.deviceGetAttribute(rt.cudaDevAttrL2CacheSize, cupy.cuda.Device().id))


def copies_for(bytes_per_set: int, l2: int, free_bytes: int | None = None) -> int:
    """How many copies of one call's operands (A, B and C together: `bytes_per_set`) the calls rotate over:
    enough that together they exceed L2_MULTIPLE x the L2, within MAX_COPIES and COPY_MEMORY_SHARE of the free
    memory. One copy when a single set is already that large (the previous call's data is then mostly gone)."""
    bytes_per_set = max(1, int(bytes_per_set))
    wanted = max(1, math.ceil(L2_MULTIPLE * l2 / bytes_per_set))
    if free_bytes is not None:
        wanted = min(wanted, max(1, int(COPY_MEMORY_SHARE * free_bytes) // bytes_per_set))
    return min(MAX_COPIES, wanted)


def calls_for(estimate_ms: float) -> int:
    """Back-to-back calls per event pair for a call of about `estimate_ms`."""
    if not estimate_ms > 0:
        return MAX_CALLS
    return max(1, min(MAX_CALLS, math.ceil(CALLS_TARGET_MS / estimate_ms)))


_hold_kernel = None


def hold(ms: float) -> None:
    """Keep the GPU busy for `ms` milliseconds (one thread spinning on the global timer)."""
    global _hold_kernel
    import cupy
    import numpy as np

    if _hold_kernel is None:
        _hold_kernel = cupy.RawKernel(_HOLD_SOURCE, "timing_hold")
    _hold_kernel((1,), (1,), (np.uint64(int(ms * 1e6)),))


def _sync() -> None:
    import cupy

    cupy.cuda.get_current_stream().synchronize()


class _Batch:
    """Event pairs around back-to-back calls, each behind a hold, rotating over the copies.

    calls: per event pair, one number for every subject or name -> number. hold_ms: the first hold, or None for
    no hold at all (the batch then carries whatever the host's enqueueing exposes: kept only to be compared with).
    """

    def __init__(self, calls: int | Mapping[str, int], hold_ms: float | None = HOLD_MS,
                 before: Callable[[str, list], None] | None = None,
                 after: Callable[[str, list], None] | None = None):
        import cupy

        self.calls, self.hold_ms, self.before, self.after = calls, hold_ms, before, after
        self.start, self.end = cupy.cuda.Event(), cupy.cuda.Event()
        self.cursor: dict[str, int] = {}
        self.exposed = 0      # event pairs whose hold ran out before the batch was queued (measured again)

    def calls_of(self, name: str) -> int:
        return self.calls if isinstance(self.calls, int) else self.calls[name]

    def time(self, name: str, fns: Sequence[Callable[[], None]]) -> float:
        """Milliseconds per call of one batch of `name`'s calls (measured again with a longer hold if the
        host fell behind)."""
        import cupy

        calls = self.calls_of(name)
        while True:
            first = self.cursor.get(name, 0)
            used = [(first + j) % len(fns) for j in range(calls)]
            if self.before is not None:
                self.before(name, sorted(set(used)))
            if self.hold_ms is not None:
                hold(self.hold_ms)
            self.start.record()
            for i in used:
                fns[i]()
            self.end.record()
            late = self.hold_ms is not None and self.start.done   # the GPU already passed the start
            self.end.synchronize()
            self.cursor[name] = (first + calls) % len(fns)
            if self.after is not None:
                self.after(name, sorted(set(used)))
            if late and self.hold_ms < MAX_HOLD_MS:
                self.exposed += 1
                self.hold_ms = min(MAX_HOLD_MS, self.hold_ms * 2)
                continue
            return cupy.cuda.get_elapsed_time(self.start, self.end) / calls


def estimate_ms(fns: Sequence[Callable[[], None]]) -> float:
    """A first, rough time of one call (one hold, one call), for choosing how many calls a batch holds."""
    batch = _Batch(1)
    return batch.time("estimate", fns[:1])


def order_of(names: Sequence[str], r: int) -> list[str]:
    """The subjects' turn order in round r: rotated by r, so that each subject goes first in turn, and reversed
    in every other cycle of len(names) rounds, so that each also follows each other one (two subjects: ab, ba,
    ba, ab; three: all six orders in six rounds)."""
    names = list(names)
    n = len(names)
    order = names[r % n:] + names[:r % n]
    return order[::-1] if (r // n) % 2 else order


def alternate(subjects: Mapping[str, Sequence[Callable[[], None]]], rounds: int = ROUNDS, warmup: int = WARMUP,
              calls: int | Mapping[str, int] | None = None, before=None, after=None,
              hold_ms: float | None = HOLD_MS) -> dict[str, Timing]:
    """Time each subject's calls in alternation: GPU milliseconds per call, median over `rounds`.

    subjects: name -> one callable per operand copy (the same work on different memory; one element when no
    rotation is wanted). Every callable is run `warmup` times first (compiles, allocations, clocks up).
    calls: per event pair, for all subjects or per name (default: each subject's own calls_for of a first
    estimate, so that a slow kernel beside a fast one is not run MAX_CALLS times per round).
    before(name, copies) / after(name, copies): called outside the events around each batch with
    the copy indices it used (the exercise checker poisons and checks there).
    hold_ms: the first hold; None for no hold (only to show what the hold removes).
    """
    names = list(subjects)
    if not names:
        return {}
    for _ in range(warmup):
        for name in names:
            for fn in subjects[name]:
                fn()
    _sync()
    if calls is None:
        calls = {n: calls_for(estimate_ms(subjects[n])) for n in names}
    batch = _Batch(calls, hold_ms=hold_ms, before=before, after=after)
    samples: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for name in order_of(names, r):
            samples[name].append(batch.time(name, subjects[name]))
    return {n: Timing.of(samples[n], batch.calls_of(n), len(subjects[n])) for n in names}


def per_call(subjects: Mapping[str, Callable[[], None]], rounds: int = ROUNDS * 3,
             warmup: int = WARMUP) -> dict[str, Timing]:
    """The older protocol, kept to be compared with: CUDA events around each single call on the same
    operands, the subjects in alternation, no hold. Short calls then carry the host's launch cost and a warm
    L2."""
    import cupy

    names = list(subjects)
    for _ in range(warmup):
        for name in names:
            subjects[name]()
    _sync()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    samples: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(rounds):
        for name in names:
            start.record()
            subjects[name]()
            end.record()
            end.synchronize()
            samples[name].append(cupy.cuda.get_elapsed_time(start, end))
    return {n: Timing.of(samples[n]) for n in names}


def operand_copies(M: int, N: int, K: int, seed: int = 0, count: int | None = None) -> list[tuple]:
    """Copies of one GEMM's random operands (A: M x K, B: K x N, the same values in every copy) with an output
    C each, as many as copies_for asks on this GPU (or `count`)."""
    import cupy

    from kernels import check

    if count is None:
        from kernels.device import free_memory_bytes

        count = copies_for(4 * (M * K + K * N + M * N), l2_bytes(), free_memory_bytes())
    A, B = check.random_matrix(M, K, seed), check.random_matrix(K, N, seed + 1)
    sets = [(A, B, cupy.empty((M, N), dtype=cupy.float32))]
    for _ in range(count - 1):
        sets.append((A.copy(), B.copy(), cupy.empty((M, N), dtype=cupy.float32)))
    return sets


COPY_BYTES = 1 << 30


def copy_bandwidth(nbytes: int = COPY_BYTES) -> tuple[float, Timing]:
    """A practical DRAM ceiling: GB/s of a device-to-device copy of `nbytes` (bytes read + written), timed with
    this protocol, and its Timing. The copy is checked (a sample of the destination) so that a failed copy is never
    reported as a bandwidth."""
    import cupy

    src = cupy.ones(nbytes // 4, dtype=cupy.float32)
    dst = cupy.zeros_like(src)
    def copy(dst=dst, src=src) -> None:
        dst.data.copy_from_device_async(src.data, nbytes)

    t = alternate({"copy": [copy]})["copy"]
    landed = bool((dst[:: 2**20] == 1).all())
    del src, dst, copy          # free the 2 GiB before the pool is emptied
    if not landed:
        raise RuntimeError("device-to-device copy did not land: no bandwidth to report")
    cupy.get_default_memory_pool().free_all_blocks()
    return 2 * nbytes / (t.median_ms * 1e6), t


def describe(t: Timing) -> str:
    """How a time was taken, in one line (records store it)."""
    return (f"median of {t.reps} rounds; per round one CUDA event pair around {t.calls} back-to-back call(s) "
            f"behind a hold, rotating over {t.copies} operand cop{'y' if t.copies == 1 else 'ies'}")


PROTOCOL = ("GPU time per call: each round, a one-thread hold kernel keeps the GPU busy while the host enqueues "
            "a CUDA event, back-to-back calls and a second event (the host's launch cost falls outside the "
            "events); the calls rotate over operand copies that together exceed twice the L2; the subjects "
            "alternate within each round, the order rotating by round; median over rounds (kernels/timing.py)")
