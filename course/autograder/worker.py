"""The subprocess that runs a learner's kernel: ``python -m course.autograder.worker JOB.json STATUS.jsonl``.

Only this process touches the GPU with the learner's code, so a kernel that hangs or faults takes
down nothing but this process (the parent, course.autograder.gpu, kills it at its time limit).

Two channels, never mixed: the checker's events go as JSON lines into the STATUS file, which only
this Python code writes ({"event": "stage", ...} while it works, {"event": "ready"} once the kernel
is compiled, {"event": "result", ...} at the end). stdout belongs to the learner's kernel (printf):
the parent shows it, capped, and never parses it, so a kernel that prints lines looking like events
changes nothing. A CUDA error (illegal address, launch failure) becomes {"event": "fault", ...}; the
process then leaves with os._exit, since a context after a sticky error cannot be trusted to tear
down cleanly.

Modes (job["mode"]):
  correctness   every case of cases.correctness_cases against cuBLAS (float64, rounded to float32), with
                NaN-filled guard bands and row padding around A and B (reads outside the matrix show up
                as NaN), a finite canary around C (writes outside show up as changed canaries), A and B
                compared with their values after the run (a kernel must not write its inputs), C
                poisoned with NaN and then with +-Inf when beta = 0, NaN and +-Inf inside A and B in some
                cases (their places in C and the infinities' signs must be IEEE arithmetic's), and the
                shared memory of every SM filled before each launch with one of the run's two bit patterns
                (NaNs, infinities, arbitrary bits): a right result is launched again with the other
                pattern and must come out bit for bit the same, so a kernel that reads shared memory it
                never wrote fails however it treats what it finds; failures are re-run to tell the
                causes apart
  sanitize      the hazard cases with exact-size allocations, no memory pool and no other kernel,
                so that compute-sanitizer (the parent wraps us in it) reports only on the learner's
  differential  the stand-in for racecheck where compute-sanitizer is missing: repeated runs under
                perturbed scheduling must agree bit for bit, canaries must stay intact
  speed         the learner's kernel and the reference registry kernel timed in alternation (GPU time per
                launch, kernels/timing.py's protocol), each over its own copies of the same padded
                operands, at the run's drawn shape; every timed launch's output is poisoned before its
                event pair and checked after it, outside the events (course.autograder.timing)
"""
from __future__ import annotations

import json
import os
import sys
import traceback

os.environ.setdefault("CUPY_TF32", "0")

import numpy as np  # noqa: E402

from course.autograder.compare import TOLERANCE, agrees as _agrees, error as _error, mismatch as _mismatch  # noqa: E402

NVRTC_OPTIONS = ("-std=c++17", "-lineinfo")
CANARY = -12345.678           # the value around C; a write outside the matrix changes it
GUARD_ROWS = 8                # guard band beyond the last row, on top of one block tile of rows
PRINTF_FIFO_BYTES = 256 * 1024   # device printf buffer: a flood is cut here, not in our pipes
MAX_SHARED_CARVEOUT = 100     # percent: keep the SM's shared-memory split between junk fill and launch

_status = None


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


# ----------------------------------------------------------------------------- kernels

class LearnerKernel:
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

    def stand_ins(self) -> list:
        """Right and wrong kernels made of CuPy operations, judged by warm_up before "ready"."""
        return [_StandIn(self.spec, wrong=False), _StandIn(self.spec, wrong=True)]

    def warm_cases(self) -> tuple:
        return WARM_CASES

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

    def launch(self, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta, stream=None) -> None:
        bx, by = self.spec["block"]
        args = (A, B, C, np.int32(M), np.int32(N), np.int32(K), np.int32(lda), np.int32(ldb), np.int32(ldc),
                np.float32(alpha), np.float32(beta))
        self.kernel(self.grid(M, N), (bx, by, 1), args, shared_mem=self.spec["dynamic_smem"], stream=stream)


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


def leading_dim(spec: dict, cols: int, pad: int) -> int:
    if spec["aligned16"]:
        cols = -(-cols // 4) * 4
    return cols + pad


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


def _random(shape, seed: int):
    import cupy

    return cupy.asarray(host_random(shape, seed))


def _reference(A, B, C0, alpha, beta):
    """alpha * A @ B + beta * C0 by cuBLAS in float64, rounded to float32 (beta = 0: C0 is not read). NaN and
    +-Inf in A and B give what IEEE arithmetic gives (in any order of the sum: NaN, or the infinity's sign)."""
    import cupy

    out = cupy.matmul(A.astype(cupy.float64), B.astype(cupy.float64))
    out *= float(np.float32(alpha))          # the float32 value the kernel receives
    if beta != 0.0:
        out += float(np.float32(beta)) * C0.astype(cupy.float64)
    return out.astype(cupy.float32)


def _same_bits(X, Y) -> bool:
    """The same result twice (NaN == NaN)."""
    import cupy

    return bool(((X == Y) | (cupy.isnan(X) & cupy.isnan(Y))).all())


def _start_values(kind: str, M: int, N: int, seed: int):
    """C before the launch: "nan" or "inf" (beta = 0 poison; +Inf and -Inf alternate), "c0", "random"."""
    import cupy

    if kind == "nan":
        return cupy.full((M, N), cupy.nan, dtype=cupy.float32)
    if kind == "inf":
        signs = cupy.where(cupy.arange(M * N).reshape(M, N) % 2 == 0, 1.0, -1.0).astype(cupy.float32)
        return signs * cupy.float32(np.inf)
    return _random((M, N), seed + (2 if kind == "c0" else 3))


class CaseRun:
    """One launch of the learner's kernel on one case, and everything seen around it."""

    def __init__(self, C, ref, start, c_outside, inputs_outside, inputs_written):
        self.C, self.ref, self.start = C, ref, start
        self.c_outside = c_outside              # (guard, padding) floats changed around C
        self.inputs_outside = inputs_outside    # (guard, padding) floats changed around A and B
        self.inputs_written = inputs_written    # elements of A and B changed


def run_case(kernel: LearnerKernel, junk, case: dict, ab_fill: float, c_start: str, tile_rows: int,
             fill: str = "a") -> CaseRun:
    """One launch. c_start: "nan" / "inf" (beta = 0 poison), "random" (finite, for the re-runs) or "c0".
    fill: what shared memory holds before the launch (FILLS). A kernel of another exercise kind
    (course.autograder.reduce_worker) lays out its own operands: launch_case."""
    if hasattr(kernel, "launch_case"):
        return kernel.launch_case(junk, case, ab_fill, c_start, tile_rows, fill)
    import cupy

    spec = kernel.spec
    M, N, K, seed = case["M"], case["N"], case["K"], case["data_seed"]
    a_host, b_host = host_random((M, K), seed), host_random((K, N), seed + 1)
    put_specials((a_host, b_host), case.get("specials", 0), seed)
    a_vals, b_vals, c0 = cupy.asarray(a_host), cupy.asarray(b_host), _random((M, N), seed + 2)
    guard_rows = max(tile_rows, 128)
    A = Operand(a_vals, leading_dim(spec, K, case["pad_a"]), ab_fill, guard_rows)
    B = Operand(b_vals, leading_dim(spec, N, case["pad_b"]), ab_fill, guard_rows)
    start = c0 if c_start == "c0" else _start_values(c_start, M, N, seed)
    C = Operand(start, leading_dim(spec, N, case["pad_c"]), CANARY, guard_rows)
    junk.fill(fill)
    kernel.launch(A.matrix, B.matrix, C.matrix, M, N, K, A.ld, B.ld, C.ld, case["alpha"], case["beta"])
    cupy.cuda.get_current_stream().synchronize()
    ref = _reference(a_vals, b_vals, c0, case["alpha"], case["beta"])
    a_out, b_out = A.outside_changed(), B.outside_changed()
    return CaseRun(C.matrix.copy(), ref, start, C.outside_changed(), (a_out[0] + b_out[0], a_out[1] + b_out[1]),
                   {"A": A.body_changed(a_vals), "B": B.body_changed(b_vals)})


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
    import cupy

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


def case_label(case: dict) -> str:
    """"M×N×K" of an SGEMM case, "M=…, N=…, S=…" of a reduction's."""
    if "K" in case:
        return f"{case['M']}×{case['N']}×{case['K']}"
    return f"M={case['M']}, N={case['N']}, S={case['S']}"


def correctness(job: dict, kernel: LearnerKernel) -> dict:
    tile_rows = max(job["spec"]["tile"])
    junk = kernel.junk
    results = []
    for i, case in enumerate(job["cases"]):
        emit("stage", what=f"정확성 {case_label(case)} (alpha={case['alpha']:g}, beta={case['beta']:g})", index=i)
        results.append(judge_case(kernel, junk, case, tile_rows))
        emit("case", index=i, outcome=results[-1]["outcome"])
    return {"cases": results, "registers": kernel.registers, "shared_junk_seen": kernel.junk_seen,
            "shared_junk_bytes": junk.bytes, "shared_fill": [junk.seeds.get("a"), junk.seeds.get("b")]}


# ----------------------------------------------------------------------------- sanitize / differential

def sanitize(job: dict, kernel: LearnerKernel) -> dict:
    """Exact-size device buffers filled from the host: the only kernel launched is the learner's."""
    import cupy

    rng = np.random.default_rng(7)
    for case in job["cases"]:
        M, N, K = case["M"], case["N"], case["K"]
        emit("stage", what=f"{job.get('tool', 'sanitizer')} {M}×{N}×{K}")
        lda, ldb, ldc = (leading_dim(kernel.spec, c, case[p]) for c, p in ((K, "pad_a"), (N, "pad_b"), (N, "pad_c")))
        # The last row ends at its last valid element: one float past the matrix is past the allocation.
        A = cupy.asarray(rng.uniform(-1, 1, (M - 1) * lda + K).astype(np.float32))
        B = cupy.asarray(rng.uniform(-1, 1, (K - 1) * ldb + N).astype(np.float32))
        C = cupy.asarray(rng.uniform(-1, 1, (M - 1) * ldc + N).astype(np.float32))
        kernel.launch(A, B, C, M, N, K, lda, ldb, ldc, case["alpha"], case["beta"])
        cupy.cuda.runtime.deviceSynchronize()
    return {"cases": len(job["cases"])}


def differential(job: dict, kernel: LearnerKernel, repeats: int = 16) -> dict:
    import cupy

    busy = cupy.ones(1 << 24, dtype=cupy.float32)
    side = cupy.cuda.Stream(non_blocking=True)
    junk = kernel.junk
    out = []
    for case in job["cases"]:
        emit("stage", what=f"반복 실행 {case_label(case)}")
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


# ----------------------------------------------------------------------------- speed

def speed(job: dict, kernel: LearnerKernel) -> dict:
    """Both kernels on padded operands (lda, ldb, ldc all different), each over its own copies of them (the same
    values), timed in alternation; every timed launch's C poisoned before its event pair and checked after it
    (course.autograder.timing)."""
    import cupy

    from course.autograder import timing
    from kernels import launch

    case = job["case"]
    M, N, K = case["M"], case["N"], case["K"]
    emit("stage", what=f"속도 {M}×{N}×{K}")
    spec = kernel.spec

    lda, ldb, ldc = (leading_dim(spec, cols, case[pad]) for cols, pad in ((K, "pad_a"), (N, "pad_b"), (N, "pad_c")))
    shape = {"M": M, "N": N, "K": K, "lda": lda, "ldb": ldb, "ldc": ldc}
    try:
        count = timing.room(4 * (M * lda + K * ldb + M * ldc), M * N)
    except timing.NoRoom as short:
        return {**shape, "no_room": short.message_ko, "need_bytes": short.need, "free_bytes": short.free}

    def padded(rows: int, cols: int, ld: int, values=None):
        buffer = cupy.zeros((rows, ld), dtype=cupy.float32)
        if values is not None:
            buffer[:, :cols] = values
        return buffer

    seed = case.get("data_seed", 11)
    a, b, c = padded(M, K, lda, _random((M, K), seed)), padded(K, N, ldb, _random((K, N), seed + 1)), padded(M, N, ldc)
    learner, reference, outs, out_refs = [], [], [], []
    sets = timing.replicate((a, b, c), 2 * count)        # the learner's copies, then the reference's
    for mine, theirs in zip(sets[:count], sets[count:]):
        A, B, C = mine[0][:, :K], mine[1][:, :N], mine[2][:, :N]
        learner.append(lambda A=A, B=B, C=C: kernel.launch(A, B, C, M, N, K, lda, ldb, ldc, 1.0, 0.0))
        outs.append(C)
        C_ref = theirs[2][:, :N]
        reference.append(launch.prepare(job["reference"], theirs[0][:, :K], theirs[1][:, :N], C_ref))
        out_refs.append(C_ref)
    measured = timing.measure(job, learner, reference, outs, out_refs)
    return {**shape, **measured, "registers": kernel.registers, "staged": list(reference[0].plan.staged_operands)}


# ----------------------------------------------------------------------------- warm-up

class _StandIn:
    """A kernel made of CuPy operations, right or (wrong=True) NaN everywhere, for warm_up."""

    def __init__(self, spec: dict, wrong: bool):
        self.spec, self.wrong = spec, wrong

    def launch(self, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta, stream=None) -> None:
        import cupy

        if self.wrong:
            C[...] = cupy.nan
            return
        out = cupy.float32(alpha) * cupy.matmul(A, B)
        if beta != 0.0:
            out += cupy.float32(beta) * C
        C[...] = out


WARM_CASES = ({"M": 3, "N": 8, "K": 4, "alpha": 0.5, "beta": 0.0, "pad_a": 4, "pad_b": 8, "pad_c": 4, "data_seed": 1,
               "specials": 0},
              {"M": 4, "N": 8, "K": 8, "alpha": 1.5, "beta": 0.5, "pad_a": 0, "pad_b": 0, "pad_c": 0, "data_seed": 2,
               "specials": 3})


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


MODES = {"correctness": correctness, "sanitize": sanitize, "differential": differential, "speed": speed}


def _device_name() -> str:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def _limit_printf() -> None:
    """A printf flood fills a small device buffer and the rest is dropped (before any kernel runs)."""
    import cupy

    try:
        cupy.cuda.runtime.deviceSetLimit(cupy.cuda.runtime.cudaLimitPrintfFifoSize, PRINTF_FIFO_BYTES)
    except Exception:   # noqa: BLE001 - only a cap; the parent caps what it keeps anyway
        pass


def main(argv=None) -> int:
    global _status
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0], encoding="utf-8") as handle:
        job = json.load(handle)
    if len(argv) > 1:
        _status = open(argv[1], "a", encoding="utf-8")
    emit("stage", what="컴파일(NVRTC)과 GPU 준비")
    try:
        import cupy

        device = _device_name()
        _limit_printf()
        if job["mode"] == "sanitize":
            cupy.cuda.set_allocator(None)        # every array its own cudaMalloc: memcheck sees exact sizes
        kind = job["spec"].get("kind", "sgemm")
        if kind == "sgemm":
            kernel, modes = LearnerKernel(job), MODES
        else:
            from course.autograder import reduce_worker

            kernel, modes = reduce_worker.ReduceKernel(job), reduce_worker.MODES
        if job["mode"] in ("correctness", "differential"):
            # The fill kernel is compiled and probed before "ready": it is the checker's time, not the kernel's.
            kernel.junk = make_junk(job.get("shared_fill") or (1, 2))
            kernel.junk_seen = kernel.junk.seen_fraction()
            kernel.prefer_shared()
            warm_up(kernel, job.get("cases", ()))
        emit("ready")
        result = modes[job["mode"]](job, kernel)
    except Exception as exc:   # CUDA errors: the kernel faulted or could not launch
        name = type(exc).__name__
        if "CUDA" in name or "cuda" in type(exc).__module__:
            emit("fault", error=f"{name}: {exc}")
            leave(0)
        emit("crash", error=f"{name}: {exc}", traceback=traceback.format_exc()[-3000:])
        leave(2)
    emit("result", device=device, **result)
    leave(0)
    return 0


if __name__ == "__main__":
    main()
