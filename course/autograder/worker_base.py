"""What every exercise kind's worker shares: the status channel, the learner's compiled kernel, the operands
with their guard bands, the shared-memory fill, and the judgement of a case.

The worker subprocess (course.autograder.worker) runs a learner's kernel; each exercise kind
(course.autograder.kind_base) supplies how its kernel is launched on a case (LearnerKernel.launch_case) and
its own sanitize and speed modes. What is judged the same way for every kind lives here:

  correctness   every case against the kind's reference (float64, rounded to float32), with NaN-filled
                guard bands and row padding around the inputs (reads outside the matrix show up as NaN), a
                finite canary around C (writes outside show up as changed canaries), the inputs compared
                with their values after the run (a kernel must not write its inputs), C poisoned with NaN
                and then with +-Inf when beta = 0, NaN and +-Inf inside the inputs in some cases (their
                places in C and the infinities' signs must be IEEE arithmetic's), and the shared memory of
                every SM filled before each launch with one of the run's two bit patterns (NaNs,
                infinities, arbitrary bits): a right result is launched again with the other pattern and
                must come out bit for bit the same, so a kernel that reads shared memory it never wrote
                fails however it treats what it finds; failures are re-run to tell the causes apart
  differential  the stand-in for racecheck where compute-sanitizer is missing: repeated runs under
                perturbed scheduling must agree bit for bit, canaries must stay intact

Two channels, never mixed: the checker's events go as JSON lines into the status file (emit), which only
this Python code writes; stdout belongs to the learner's kernel (printf). Imports only
course.autograder.compare from the package (and NumPy; CuPy inside the functions that use the GPU).
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

from course.autograder.compare import TOLERANCE, agrees as _agrees, error as _error, mismatch as _mismatch

NVRTC_OPTIONS = ("-std=c++17", "-lineinfo")
CANARY = -12345.678           # the value around C; a write outside the matrix changes it
GUARD_ROWS = 8                # guard band beyond the last row, on top of one block tile of rows
PRINTF_FIFO_BYTES = 256 * 1024   # device printf buffer: a flood is cut here, not in our pipes
MAX_SHARED_CARVEOUT = 100     # percent: keep the SM's shared-memory split between junk fill and launch

_status = None


def open_status(path: str) -> None:
    """Send every later event to the status file at `path` (appended, one JSON line each)."""
    global _status
    _status = open(path, "a", encoding="utf-8")


def emit(event: str, **data) -> None:
    """One event on the status channel (never on stdout, which the kernel's printf shares)."""
    line = json.dumps({"event": event, **data}, ensure_ascii=False) + "\n"
    if _status is None:
        sys.stderr.write(line)
        return
    _status.write(line)
    _status.flush()


def leave(code: int = 0) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    if _status is not None:
        _status.flush()
    os._exit(code)


# ----------------------------------------------------------------------------- the learner's kernel

class LearnerKernel:
    """The learner's kernel, compiled by NVRTC with the exercise's entry, block and dynamic shared memory.

    A kind's subclass launches it with the kind's arguments and implements launch_case (one launch on one
    case: the operands among guard bands, the reference result), stand_ins (right and wrong kernels made of
    CuPy operations, for warm_up) and warm_cases (tiny cases for warm_up)."""

    def __init__(self, job: dict):
        import cupy

        spec = job["spec"]
        self.spec = spec
        code = f'#line 1 "{job["name"]}"\n{job["source"]}'
        try:
            module = cupy.RawModule(code=code, options=NVRTC_OPTIONS)
            self.kernel = module.get_function(spec["entry"])
        except cupy.cuda.compiler.CompileException as exc:
            emit("compile_failed", message=str(exc)[-4000:])
            leave(0)
        if spec["dynamic_smem"] > 48 * 1024:
            self.kernel.max_dynamic_shared_size_bytes = spec["dynamic_smem"]
        self.registers = int(self.kernel.num_regs)

    def launch_case(self, junk, case: dict, ab_fill: float, c_start: str, tile_rows: int, fill: str = "a") -> "CaseRun":
        """One launch on one case (see run_case): the kind lays out its operands, launches, computes the reference."""
        raise NotImplementedError

    def stand_ins(self) -> list:
        """A right and a wrong kernel of this kind made of CuPy operations, judged by warm_up before "ready"."""
        raise NotImplementedError

    def warm_cases(self) -> tuple:
        """Tiny cases (as the worker receives them) for warm_up."""
        raise NotImplementedError

    def case_label(self, case: dict) -> str:
        """A case's size in a few characters, for the progress stage."""
        raise NotImplementedError

    def prefer_shared(self) -> None:
        """Ask for the largest shared-memory carveout, the one the junk fill ran with."""
        try:
            self.kernel.preferred_shared_memory_carveout = MAX_SHARED_CARVEOUT
        except Exception:   # a hint only; older drivers may refuse it
            pass

    def grid(self, M: int, N: int) -> tuple:
        rows, cols = self.spec["tile"]
        if self.spec["grid_rows_from_x"]:
            return (-(-M // rows), -(-N // cols), 1)
        return (-(-N // cols), -(-M // rows), 1)


# ----------------------------------------------------------------------------- shared-memory fill

JUNK_SOURCE = r"""
// A word of the fill drawn from `seed`: a NaN of either sign with any payload (half the words), an infinity of
// either sign (an eighth), any bit pattern at all (the rest: finite values of every size, zeros, subnormals,
// now and then a NaN). A kernel that reads a cell its block never wrote cannot tell the fill from data, and
// the fill changes from run to run.
__device__ __forceinline__ unsigned int course_junk_word(unsigned int seed, unsigned int i)
{
    unsigned int h = seed ^ (i * 0x9E3779B9u + 0x7F4A7C15u);
    h ^= h >> 16; h *= 0x7FEB352Du; h ^= h >> 15; h *= 0x846CA68Bu; h ^= h >> 16;
    unsigned int g = h * 0x2C1B3C6Du + seed;
    g ^= g >> 12; g *= 0x297A2D39u; g ^= g >> 15;
    const unsigned int kind = h & 7u;
    if (kind < 4u) return 0x7FC00000u | (g & 0x803FFFFFu);
    if (kind == 4u) return 0x7F800000u | (g & 0x80000000u);
    return g;
}

// Fill a block's whole shared memory with the words of `seed` (0: zeros), through a volatile pointer so the
// stores are never dropped as dead.
extern "C" __global__ void course_fill_shared(unsigned int seed, int words)
{
    extern __shared__ unsigned int smem[];
    volatile unsigned int* cells = smem;
    for (int i = threadIdx.x; i < words; i += blockDim.x)
        cells[i] = seed ? course_junk_word(seed, (unsigned int)i) : 0u;
}

// Keep one SM busy for `cycles` clock cycles. Launched just before the fill, it keeps this process's queue
// non-empty while the fill and the learner's launch are queued behind it, so that the GPU, shared with other
// processes (the record tool checks several submissions at once), runs the two back to back: no other
// process's kernel runs between them and overwrites the fill.
extern "C" __global__ void course_hold(long long cycles)
{
    const long long start = clock64();
    while (clock64() - start < cycles) { }
}

// Read a block's shared memory without writing it first (the probe that the fill is seen).
extern "C" __global__ void course_probe_shared(unsigned int* out, int words)
{
    extern __shared__ unsigned int smem[];
    volatile unsigned int* cells = smem;
    for (int i = threadIdx.x; i < words; i += blockDim.x) out[i] = cells[i];
}
"""


def junk_words(seed: int, count: int) -> np.ndarray:
    """The first `count` words the fill of `seed` writes (JUNK_SOURCE's course_junk_word, on the host): what the
    probe must find, and what the CPU tests' stand-in kernels read from shared memory they never wrote."""
    if not seed:
        return np.zeros(count, dtype=np.uint32)
    with np.errstate(over="ignore"):
        s = np.uint32(seed)
        i = np.arange(count, dtype=np.uint32)
        h = s ^ (i * np.uint32(0x9E3779B9) + np.uint32(0x7F4A7C15))
        h ^= h >> np.uint32(16)
        h *= np.uint32(0x7FEB352D)
        h ^= h >> np.uint32(15)
        h *= np.uint32(0x846CA68B)
        h ^= h >> np.uint32(16)
        g = h * np.uint32(0x2C1B3C6D) + s
        g ^= g >> np.uint32(12)
        g *= np.uint32(0x297A2D39)
        g ^= g >> np.uint32(15)
    kind = h & np.uint32(7)
    nan = np.uint32(0x7FC00000) | (g & np.uint32(0x803FFFFF))
    inf = np.uint32(0x7F800000) | (g & np.uint32(0x80000000))
    return np.where(kind < 4, nan, np.where(kind == 4, inf, g)).astype(np.uint32)

FILLS = ("a", "b", "zero")     # the run's first and second fill (course.autograder.cases.shared_fill), zeros
HOLD_CYCLES = 1_000_000       # about half a millisecond: longer than queuing the fill and the learner's launch


class SharedJunk:
    """Fills the shared memory of every SM before a learner's launch: with one of the run's two bit patterns
    (NaNs, infinities, arbitrary bits; drawn from the run's seed) or with zeros.

    compute-sanitizer's initcheck covers global memory only, so this is how a read of shared memory that the
    kernel never wrote becomes visible: a wrong result with the pattern that is right with zeros, or a result
    that changes when the pattern does (the same launch with fill "a" and fill "b").
    """

    def __init__(self, seeds=(1, 2)):
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        self.bytes = int(props.get("sharedMemPerBlockOptin") or props["sharedMemPerBlock"])
        self.blocks = 2 * int(props["multiProcessorCount"])
        self.seeds = {"a": int(seeds[0]), "b": int(seeds[1]), "zero": 0}
        module = cupy.RawModule(code=JUNK_SOURCE, options=("-std=c++17",))
        self.fill_kernel = module.get_function("course_fill_shared")
        self.probe_kernel = module.get_function("course_probe_shared")
        self.hold_kernel = module.get_function("course_hold")
        for kernel in (self.fill_kernel, self.probe_kernel):
            kernel.max_dynamic_shared_size_bytes = self.bytes
            try:
                kernel.preferred_shared_memory_carveout = MAX_SHARED_CARVEOUT
            except Exception:
                pass

    def fill(self, which: str = "a") -> None:
        """Queue the hold, then the fill; the caller queues its launch right after (see course_hold)."""
        words = self.bytes // 4
        self.hold_kernel((1,), (1,), (np.int64(HOLD_CYCLES),))
        self.fill_kernel((self.blocks,), (1024,), (np.uint32(self.seeds[which]), np.int32(words)),
                         shared_mem=self.bytes)

    def seen_fraction(self) -> float:
        """Share of a fresh block's shared memory that holds the words of fill "a" (1.0: the fill works)."""
        import cupy

        words = min(4096, self.bytes // 4)
        out = cupy.zeros(words, dtype=cupy.uint32)
        self.fill("a")
        self.probe_kernel((1,), (256,), (out, np.int32(words)), shared_mem=words * 4)
        return round(float((cupy.asnumpy(out) == junk_words(self.seeds["a"], words)).sum()) / words, 4)


class _NoJunk:
    """Stand-in where the fill kernel cannot run (it is a check aid, not a reason to give no verdict)."""
    bytes = 0
    seeds = {}

    def fill(self, which: str = "a") -> None:
        pass

    def seen_fraction(self) -> float:
        return 0.0


def make_junk(seeds=(1, 2)):
    try:
        return SharedJunk(seeds)
    except Exception as exc:   # noqa: BLE001 - say so in the result, keep checking
        emit("note", what=f"shared-memory fill unavailable: {type(exc).__name__}: {exc}")
        return _NoJunk()


class Operand:
    """A rows x cols matrix with leading dimension ld inside a buffer with guard bands.

    The buffer is [front guard | rows x ld | back guard]; the guard bands and the row padding hold
    `fill`. The back guard covers one block tile of rows plus GUARD_ROWS, so a kernel without its
    edge guard reads or writes our own memory (and we see it) instead of faulting.
    """

    def __init__(self, values, ld: int, fill: float, guard_rows: int):
        import cupy

        rows, cols = values.shape
        self.rows, self.cols, self.ld, self.fill = rows, cols, ld, fill
        self.front = 64 * 4                      # floats; a multiple of 4 keeps 16-byte alignment
        back = (guard_rows + GUARD_ROWS) * ld + 1024
        self.buffer = cupy.full(self.front + rows * ld + back, fill, dtype=cupy.float32)
        self.matrix = self.buffer[self.front:self.front + rows * ld].reshape(rows, ld)[:, :cols]
        self.matrix[...] = values

    def outside_changed(self) -> tuple[int, int]:
        """(changed guard-band floats, changed row-padding floats) compared with the fill (NaN == NaN)."""
        import cupy

        def changed(part) -> int:
            if np.isnan(self.fill):
                return int((~cupy.isnan(part)).sum())
            return int((part != cupy.float32(self.fill)).sum())

        body = self.buffer[self.front:self.front + self.rows * self.ld].reshape(self.rows, self.ld)
        guard = changed(self.buffer[:self.front]) + changed(self.buffer[self.front + self.rows * self.ld:])
        padding = changed(body[:, self.cols:]) if self.ld > self.cols else 0
        return guard, padding

    def body_changed(self, values) -> int:
        """How many elements of the matrix differ from `values` bit for bit (a write into an input)."""
        import cupy

        now = cupy.ascontiguousarray(self.matrix).view(cupy.uint32)
        return int((now != cupy.ascontiguousarray(values).view(cupy.uint32)).sum())


# ----------------------------------------------------------------------------- correctness

SPECIAL_VALUES = (np.nan, np.inf, -np.inf)


def host_random(shape, seed: int) -> np.ndarray:
    """Uniform values in [-1, 1) drawn on the host (no generator to start on the GPU), float32."""
    return np.random.default_rng(seed).uniform(-1.0, 1.0, size=shape).astype(np.float32)


def put_specials(arrays, count: int, seed: int) -> None:
    """NaN, +Inf and -Inf in turn, `count` of them, at places drawn from `seed`, the arrays taking turns."""
    rng = np.random.default_rng(seed + 7)
    for i in range(count):
        target = arrays[i % len(arrays)]
        row, col = (int(rng.integers(n)) for n in target.shape)
        target[row, col] = SPECIAL_VALUES[i % len(SPECIAL_VALUES)]


def device_random(shape, seed: int):
    import cupy

    return cupy.asarray(host_random(shape, seed))


def _same_bits(X, Y) -> bool:
    """The same result twice (NaN == NaN)."""
    import cupy

    return bool(((X == Y) | (cupy.isnan(X) & cupy.isnan(Y))).all())


def start_values(kind: str, M: int, N: int, seed: int):
    """C before the launch: "nan" or "inf" (beta = 0 poison; +Inf and -Inf alternate), "c0", "random"."""
    import cupy

    if kind == "nan":
        return cupy.full((M, N), cupy.nan, dtype=cupy.float32)
    if kind == "inf":
        signs = cupy.where(cupy.arange(M * N).reshape(M, N) % 2 == 0, 1.0, -1.0).astype(cupy.float32)
        return signs * cupy.float32(np.inf)
    return device_random((M, N), seed + (2 if kind == "c0" else 3))


class CaseRun:
    """One launch of the learner's kernel on one case, and everything seen around it."""

    def __init__(self, C, ref, start, c_outside, inputs_outside, inputs_written):
        self.C, self.ref, self.start = C, ref, start
        self.c_outside = c_outside              # (guard, padding) floats changed around C
        self.inputs_outside = inputs_outside    # (guard, padding) floats changed around the inputs
        self.inputs_written = inputs_written    # elements of each input changed


def run_case(kernel: LearnerKernel, junk, case: dict, ab_fill: float, c_start: str, tile_rows: int,
             fill: str = "a") -> CaseRun:
    """One launch, laid out by the exercise's kind (kernel.launch_case). ab_fill: what the inputs' guard bands and
    row padding hold. c_start: "nan" / "inf" (beta = 0 poison), "random" (finite, for the re-runs) or "c0".
    fill: what shared memory holds before the launch (FILLS)."""
    return kernel.launch_case(junk, case, ab_fill, c_start, tile_rows, fill)


def _finite_scale(ref) -> float:
    import cupy

    finite = cupy.isfinite(ref)
    return float(cupy.abs(cupy.where(finite, ref, 0)).max()) if ref.size else 0.0


def _bad_mask(C, ref, limit_abs: float):
    import cupy

    both = cupy.isfinite(C) & cupy.isfinite(ref)
    return _mismatch(C, ref) | (both & (cupy.abs(cupy.where(both, C, 0) - cupy.where(both, ref, 0)) > limit_abs))


def _first_wrong(C, ref, limit_abs: float):
    import cupy

    where = cupy.argwhere(_bad_mask(C, ref, limit_abs))
    if not len(where):
        return None, 0
    i, j = (int(v) for v in where[0])
    return {"row": i, "col": j, "got": float(C[i, j]), "want": float(ref[i, j])}, int(len(where))


def _wrong_rows_cols(C, ref, limit_abs: float) -> dict:
    """Where the wrong elements are: only in the last partial tile rows/columns, or everywhere."""
    import cupy

    bad = _bad_mask(C, ref, limit_abs)
    rows = cupy.nonzero(bad.any(axis=1))[0]
    cols = cupy.nonzero(bad.any(axis=0))[0]
    return {"rows": [int(rows.min()), int(rows.max())] if len(rows) else None,
            "cols": [int(cols.min()), int(cols.max())] if len(cols) else None}


def _right(run: CaseRun) -> bool:
    return _agrees(run.C, run.ref)


def _explain_failure(kernel, junk, case: dict, poison: str, tile_rows: int, first: CaseRun) -> tuple[str, dict]:
    """Why a launch gave wrong values or special values where IEEE arithmetic has none: re-run with one suspect
    removed at a time."""

    unexpected = bool(_mismatch(first.C, first.ref).any())
    if unexpected and _right(run_case(kernel, junk, case, 0.0, poison, tile_rows)):
        return "oob_read", {}                     # NaN from beyond A or B: finite there, and it is right
    zeroed = run_case(kernel, junk, case, 0.0, poison, tile_rows, fill="zero")
    if _right(zeroed):
        return "uninitialized_shared", {}         # from shared memory nobody wrote: zeros there, right
    tight = {**case, **{key: 0 for key in case if key.startswith("pad_")}}
    if _right(run_case(kernel, junk, tight, 0.0, poison, tile_rows, fill="zero")):
        return "wrong_values", {"tight_ok": True}  # right when rows are tight: a leading dimension mixed up
    poisoned = _mismatch(zeroed.C, zeroed.ref)
    if case["beta"] == 0.0 and bool(poisoned.any()):
        finite = run_case(kernel, junk, case, 0.0, "random", tile_rows, fill="zero")
        limit_abs = 1e-4 * (_finite_scale(finite.ref) or 1.0)
        unchanged = int((poisoned & (finite.C == finite.start)).sum())
        fixed = int((poisoned & ~_bad_mask(finite.C, finite.ref, limit_abs)).sum())
        extra = {"unchanged": unchanged, "fixed_by_finite_c": fixed}
        if unchanged and unchanged >= fixed:
            return "unwritten", extra
        if fixed:
            return "reads_c", extra
        return "wrong_values", extra
    return "wrong_values", {}


RERUNS = 3                    # identical re-runs of a failing case before its cause is looked for


def _varies(kernel, junk, case: dict, poison: str, tile_rows: int, first: "CaseRun") -> int:
    """How many of RERUNS identical launches (the same shared-memory fill too) gave other bits than the first.
    A result that changes between identical runs is a race; the re-runs that tell other causes apart could be
    fooled by a lucky run."""
    differing = 0
    for _ in range(RERUNS):
        again = run_case(kernel, junk, case, np.nan, poison, tile_rows)
        differing += not _same_bits(again.C, first.C)
    return differing


def _stable_with_zeros(kernel, junk, case: dict, poison: str, tile_rows: int) -> bool:
    """Right, and the same bits, in RERUNS launches with shared memory zeroed first."""
    runs = [run_case(kernel, junk, case, np.nan, poison, tile_rows, fill="zero") for _ in range(RERUNS)]
    return all(_right(run) and _same_bits(run.C, runs[0].C) for run in runs)


def _outside(run: CaseRun) -> str | None:
    if any(run.c_outside) or any(run.inputs_outside):
        return "oob_write"
    if any(run.inputs_written.values()):
        return "writes_inputs"
    return None


def _judge_with(kernel, junk, case: dict, poison: str, tile_rows: int) -> dict:
    first = run_case(kernel, junk, case, np.nan, poison, tile_rows)
    limit_abs = 1e-4 * (_finite_scale(first.ref) or 1.0)
    err, _ = _error(first.C, first.ref)
    mismatched = int(_mismatch(first.C, first.ref).sum())
    out = {**case, "poison": poison if case["beta"] == 0.0 else "", "rel_error": err if np.isfinite(err) else None,
           "non_finite": mismatched, "guard_written": first.c_outside[0], "padding_written": first.c_outside[1],
           "input_guard_written": first.inputs_outside[0], "input_padding_written": first.inputs_outside[1],
           "inputs_written": first.inputs_written, "outcome": _outside(first) or "ok"}
    shown = first
    if out["outcome"] == "ok" and (mismatched or not err <= TOLERANCE):
        varies = _varies(kernel, junk, case, poison, tile_rows, first)
        if varies and _stable_with_zeros(kernel, junk, case, poison, tile_rows):
            # Other bits each time with the fill, right and the same each time with zeros: the result follows what
            # the block finds in cells it never wrote (another process on the GPU can change that between runs).
            out["outcome"], out["differing_reruns"] = "uninitialized_shared", varies
        elif varies:
            out["outcome"], out["differing_reruns"] = "nondeterministic", varies
        else:
            out["outcome"], extra = _explain_failure(kernel, junk, case, poison, tile_rows, first)
            out.update(extra)
    elif out["outcome"] == "ok":
        # Right with fill "a": the same launch with fill "b" must give the same bits, or the result depends on
        # shared memory the block never wrote (or on the schedule: re-runs with each fill tell which).
        second = run_case(kernel, junk, case, np.nan, poison, tile_rows, fill="b")
        outside = _outside(second)
        if outside:
            out["outcome"] = outside
            out.update(guard_written=second.c_outside[0], padding_written=second.c_outside[1],
                       input_guard_written=second.inputs_outside[0], input_padding_written=second.inputs_outside[1],
                       inputs_written=second.inputs_written)
        elif not _same_bits(second.C, first.C):
            import cupy

            shown = second
            out["fill_changed"] = int((~((second.C == first.C) | (cupy.isnan(second.C) & cupy.isnan(first.C)))).sum())
            # Each fill again, RERUNS times: the same bits as before with the same fill, or it is the schedule.
            differing = sum(not _same_bits(run_case(kernel, junk, case, np.nan, poison, tile_rows, fill=which).C,
                                           earlier.C)
                            for _ in range(RERUNS) for which, earlier in (("a", first), ("b", second)))
            if differing:
                out["outcome"], out["differing_reruns"] = "nondeterministic", differing
            else:
                out["outcome"] = "fill_dependent"
    if out["outcome"] != "ok":
        out["first_wrong"], out["wrong_count"] = _first_wrong(shown.C, shown.ref, limit_abs)
        out["where"] = _wrong_rows_cols(shown.C, shown.ref, limit_abs)
    return out


def judge_case(kernel: LearnerKernel, junk, case: dict, tile_rows: int) -> dict:
    """beta = 0: C poisoned with NaN, then (if that passed) with +-Inf; otherwise C holds values."""
    poisons = ("nan", "inf") if case["beta"] == 0.0 else ("c0",)
    for poison in poisons:
        out = _judge_with(kernel, junk, case, poison, tile_rows)
        if out["outcome"] != "ok":
            return out
    return out


# ----------------------------------------------------------------------------- the modes every kind shares

def correctness(job: dict, kernel: LearnerKernel) -> dict:
    tile_rows = max(job["spec"]["tile"])
    junk = kernel.junk
    results = []
    for i, case in enumerate(job["cases"]):
        emit("stage", what=f"정확성 {kernel.case_label(case)} (alpha={case['alpha']:g}, beta={case['beta']:g})", index=i)
        results.append(judge_case(kernel, junk, case, tile_rows))
        emit("case", index=i, outcome=results[-1]["outcome"])
    return {"cases": results, "registers": kernel.registers, "shared_junk_seen": kernel.junk_seen,
            "shared_junk_bytes": junk.bytes, "shared_fill": [junk.seeds.get("a"), junk.seeds.get("b")]}


def differential(job: dict, kernel: LearnerKernel, repeats: int = 16) -> dict:
    import cupy

    busy = cupy.ones(1 << 24, dtype=cupy.float32)
    side = cupy.cuda.Stream(non_blocking=True)
    junk = kernel.junk
    out = []
    for case in job["cases"]:
        emit("stage", what=f"반복 실행 {kernel.case_label(case)}")
        first, distinct, canary, written = None, 0, (0, 0), 0
        for r in range(repeats):
            if r % 2:   # perturb the schedule: another stream competes for the SMs
                with side:
                    busy *= 1.0000001
            run = run_case(kernel, junk, case, 0.0, "nan" if case["beta"] == 0.0 else "c0", max(kernel.spec["tile"]),
                           fill="zero")
            canary = tuple(max(a, b) for a, b in zip(canary, run.c_outside))
            written = max(written, sum(run.inputs_written.values()), sum(run.inputs_outside))
            if first is None:
                first = run.C
            elif not _same_bits(run.C, first):
                distinct += 1
        side.synchronize()
        out.append({**case, "repeats": repeats, "differing_runs": distinct, "guard_written": canary[0],
                    "padding_written": canary[1], "inputs_written": written})
    return {"cases": out}


# ----------------------------------------------------------------------------- start-up

def warm_up(kernel: LearnerKernel, cases=()) -> None:
    """The whole judgement of a case for a right and a wrong stand-in kernel (kernel.stand_ins): the right one on
    tiny cases and on every case of the job, the wrong one on tiny cases and the job's first. CuPy compiles each
    of its own kernels on first use, for each number of dimensions an array reduces to (a single row or column
    is one), which on a cold machine takes many seconds and must not count against the learner's time limit."""
    import cupy

    right, wrong = kernel.stand_ins()
    for stand_in, extra in ((right, list(cases)), (wrong, list(cases)[:1])):
        stand_in.junk = kernel.junk
        for case in (*kernel.warm_cases(), *extra):
            judge_case(stand_in, kernel.junk, dict(case), max(kernel.spec["tile"]))
    cupy.cuda.get_current_stream().synchronize()


def device_name() -> str:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def limit_printf() -> None:
    """A printf flood fills a small device buffer and the rest is dropped (before any kernel runs)."""
    import cupy

    try:
        cupy.cuda.runtime.deviceSetLimit(cupy.cuda.runtime.cudaLimitPrintfFifoSize, PRINTF_FIFO_BYTES)
    except Exception:   # noqa: BLE001 - only a cap; the parent caps what it keeps anyway
        pass

