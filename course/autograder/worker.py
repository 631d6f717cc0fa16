"""The subprocess that runs a learner's kernel: ``python -m course.autograder.worker JOB.json``.

Only this process touches the GPU with the learner's code, so a kernel that hangs or faults takes
down nothing but this process (the parent, course.autograder.gpu, kills it at its time limit).
It prints one JSON object per line on stdout: {"event": "stage", ...} while it works (the parent
names the last stage when it has to kill us) and {"event": "result", ...} at the end. A CUDA error
(illegal address, launch failure) becomes {"event": "fault", ...}; the process then leaves with
os._exit, since a context after a sticky error cannot be trusted to tear down cleanly.

Modes (job["mode"]):
  correctness   every case of cases.correctness_cases against cuBLAS (TF32 off), with NaN-filled
                guard bands and row padding around A and B (reads outside the matrix show up as
                NaN), a finite canary around C (writes outside show up as changed canaries) and
                NaN-poisoned C when beta = 0; failures are re-run to tell the causes apart
  sanitize      the hazard cases with exact-size allocations, no memory pool and no other kernel,
                so that compute-sanitizer (the parent wraps us in it) reports only on the learner's
  differential  the stand-in for racecheck where compute-sanitizer is missing: repeated runs under
                perturbed scheduling must agree bit for bit, canaries must stay intact
  speed         the learner's kernel and the reference registry kernel timed in alternation
"""
from __future__ import annotations

import json
import os
import sys
import traceback

os.environ.setdefault("CUPY_TF32", "0")

import numpy as np  # noqa: E402

NVRTC_OPTIONS = ("-std=c++17", "-lineinfo")
TOLERANCE = 1e-5              # relative Frobenius error, as kernels.check.REL_TOLERANCE
CANARY = -12345.678           # the value around C; a write outside the matrix changes it
GUARD_ROWS = 8                # guard band beyond the last row, on top of one block tile of rows


def emit(event: str, **data) -> None:
    print(json.dumps({"event": event, **data}, ensure_ascii=False), flush=True)


def leave(code: int = 0) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


# ----------------------------------------------------------------------------- kernel

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
        self.rows, self.cols, self.ld = rows, cols, ld
        self.front = 64 * 4                      # floats; a multiple of 4 keeps 16-byte alignment
        back = (guard_rows + GUARD_ROWS) * ld + 1024
        self.buffer = cupy.full(self.front + rows * ld + back, fill, dtype=cupy.float32)
        self.matrix = self.buffer[self.front:self.front + rows * ld].reshape(rows, ld)[:, :cols]
        self.matrix[...] = values

    def outside_changed(self, fill: float) -> tuple[int, int]:
        """(changed guard-band floats, changed row-padding floats) compared with `fill`."""
        import cupy

        body = self.buffer[self.front:self.front + self.rows * self.ld].reshape(self.rows, self.ld)
        guard = int((self.buffer[:self.front] != fill).sum()
                    + (self.buffer[self.front + self.rows * self.ld:] != fill).sum())
        padding = int((body[:, self.cols:] != fill).sum()) if self.ld > self.cols else 0
        del cupy
        return guard, padding


# ----------------------------------------------------------------------------- correctness

def _random(shape, seed: int):
    import cupy

    return cupy.random.default_rng(seed).uniform(-1.0, 1.0, size=shape, dtype=cupy.float32)


def _reference(A, B, C0, alpha, beta):
    import cupy

    out = cupy.matmul(A, B)
    out *= cupy.float32(alpha)
    if beta != 0.0:
        out += cupy.float32(beta) * C0
    return out


def _error(C, ref) -> tuple[float, float]:
    import cupy

    diff = C.astype(cupy.float64) - ref.astype(cupy.float64)
    norm = float(cupy.linalg.norm(ref.astype(cupy.float64)))
    err = float(cupy.linalg.norm(diff))
    return (err / norm if norm else err), float(cupy.abs(diff).max())


def run_case(kernel: LearnerKernel, case: dict, seed: int, ab_fill: float, c_start: str, tile_rows: int):
    """One launch. c_start: "nan" (beta = 0 poison), "random" (finite, for the re-run) or "c0"."""
    import cupy

    spec = kernel.spec
    M, N, K, pad = case["M"], case["N"], case["K"], case["pad"]
    a_vals, b_vals, c0 = _random((M, K), seed), _random((K, N), seed + 1), _random((M, N), seed + 2)
    guard_rows = max(tile_rows, 128)
    A = Operand(a_vals, leading_dim(spec, K, pad), ab_fill, guard_rows)
    B = Operand(b_vals, leading_dim(spec, N, pad), ab_fill, guard_rows)
    start = {"nan": cupy.full((M, N), cupy.nan, dtype=cupy.float32), "c0": c0,
             "random": _random((M, N), seed + 3)}[c_start]
    C = Operand(start, leading_dim(spec, N, pad), CANARY, guard_rows)
    kernel.launch(A.matrix, B.matrix, C.matrix, M, N, K, A.ld, B.ld, C.ld, case["alpha"], case["beta"])
    cupy.cuda.get_current_stream().synchronize()
    ref = _reference(a_vals, b_vals, c0, case["alpha"], case["beta"])
    return C.matrix.copy(), ref, start, C.outside_changed(CANARY)


def _first_wrong(C, ref, limit_abs: float):
    import cupy

    bad = ~cupy.isfinite(C) | (cupy.abs(C - ref) > limit_abs)
    where = cupy.argwhere(bad)
    if not len(where):
        return None, 0
    i, j = (int(v) for v in where[0])
    return {"row": i, "col": j, "got": float(C[i, j]), "want": float(ref[i, j])}, int(bad.sum())


def _wrong_rows_cols(C, ref, limit_abs: float) -> dict:
    """Where the wrong elements are: only in the last partial tile rows/columns, or everywhere."""
    import cupy

    bad = ~cupy.isfinite(C) | (cupy.abs(C - ref) > limit_abs)
    rows = cupy.nonzero(bad.any(axis=1))[0]
    cols = cupy.nonzero(bad.any(axis=0))[0]
    return {"rows": [int(rows.min()), int(rows.max())] if len(rows) else None,
            "cols": [int(cols.min()), int(cols.max())] if len(cols) else None}


def judge_case(kernel: LearnerKernel, case: dict, seed: int, tile_rows: int) -> dict:
    import cupy

    beta = case["beta"]
    C, ref, _, (guard, padding) = run_case(kernel, case, seed, np.nan, "nan" if beta == 0.0 else "c0", tile_rows)
    scale = float(cupy.abs(ref).max()) or 1.0
    limit_abs = 1e-4 * scale
    err, max_abs = _error(C, ref)
    non_finite = int((~cupy.isfinite(C)).sum())
    out = {**case, "rel_error": err if np.isfinite(err) else None, "non_finite": non_finite,
           "guard_written": guard, "padding_written": padding, "outcome": "ok"}
    if guard or padding:
        out["outcome"] = "oob_write"
    elif non_finite:
        C2, ref2, _, _ = run_case(kernel, case, seed, 0.0, "nan" if beta == 0.0 else "c0", tile_rows)
        err2, _ = _error(C2, ref2)
        finite2 = bool(cupy.isfinite(C2).all())
        if finite2 and err2 <= TOLERANCE:
            out["outcome"] = "oob_read"
        elif beta == 0.0:
            C3, ref3, start3, _ = run_case(kernel, case, seed, 0.0, "random", tile_rows)
            poisoned = ~cupy.isfinite(C2)
            unchanged = int((poisoned & (C3 == start3)).sum())
            fixed = int((poisoned & (cupy.abs(C3 - ref3) <= limit_abs)).sum())
            out.update(unchanged=unchanged, fixed_by_finite_c=fixed)
            if unchanged and unchanged >= fixed:
                out["outcome"] = "unwritten"
            elif fixed:
                out["outcome"] = "reads_c"
            else:
                out["outcome"] = "wrong_values"
        else:
            out["outcome"] = "wrong_values"
    elif not err <= TOLERANCE:
        out["outcome"] = "wrong_values"
    if out["outcome"] != "ok":
        out["first_wrong"], out["wrong_count"] = _first_wrong(C, ref, limit_abs)
        out["where"] = _wrong_rows_cols(C, ref, limit_abs)
    return out


def correctness(job: dict, kernel: LearnerKernel) -> dict:
    tile_rows = max(job["spec"]["tile"])
    results = []
    for i, case in enumerate(job["cases"]):
        emit("stage", what=f"정확성 {case['M']}×{case['N']}×{case['K']} (alpha={case['alpha']:g}, beta={case['beta']:g})",
             index=i)
        results.append(judge_case(kernel, case, 1000 + 17 * i, tile_rows))
        emit("case", index=i, outcome=results[-1]["outcome"])
    return {"cases": results, "registers": kernel.registers}


# ----------------------------------------------------------------------------- sanitize / differential

def sanitize(job: dict, kernel: LearnerKernel) -> dict:
    """Exact-size device buffers filled from the host: the only kernel launched is the learner's."""
    import cupy

    rng = np.random.default_rng(7)
    for case in job["cases"]:
        M, N, K, pad = case["M"], case["N"], case["K"], case["pad"]
        emit("stage", what=f"{job.get('tool', 'sanitizer')} {M}×{N}×{K}")
        lda, ldb, ldc = (leading_dim(kernel.spec, c, pad) for c in (K, N, N))
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
    out = []
    for case in job["cases"]:
        emit("stage", what=f"반복 실행 {case['M']}×{case['N']}×{case['K']}")
        first, distinct, canary = None, 0, (0, 0)
        for r in range(repeats):
            if r % 2:   # perturb the schedule: another stream competes for the SMs
                with side:
                    busy *= 1.0000001
            C, _, _, changed = run_case(kernel, case, 4242, 0.0, "nan" if case["beta"] == 0.0 else "c0",
                                        max(kernel.spec["tile"]))
            canary = max(canary, changed)
            if first is None:
                first = C
            elif not bool(((C == first) | (cupy.isnan(C) & cupy.isnan(first))).all()):
                distinct += 1
        side.synchronize()
        out.append({**case, "repeats": repeats, "differing_runs": distinct, "guard_written": canary[0],
                    "padding_written": canary[1]})
    return {"cases": out}


# ----------------------------------------------------------------------------- speed

def speed(job: dict, kernel: LearnerKernel) -> dict:
    import cupy

    from kernels import bench, launch

    n = job["shape"]
    M, N, K = n
    emit("stage", what=f"속도 {M}×{N}×{K}")
    A, B = _random((M, K), 11), _random((K, N), 12)
    C, C_ref = cupy.empty((M, N), dtype=cupy.float32), cupy.empty((M, N), dtype=cupy.float32)
    reference = launch.prepare(job["reference"], A, B, C_ref)

    def learner():
        kernel.launch(A, B, C, M, N, K, K, N, N, 1.0, 0.0)

    C.fill(cupy.nan)
    learner()
    reference()
    cupy.cuda.get_current_stream().synchronize()
    err, _ = _error(C, C_ref)
    t_learner, t_reference = bench.interleaved_timings(learner, reference, warmup=job.get("warmup", 2),
                                                       reps=job.get("reps", 10))
    return {"M": M, "N": N, "K": K, "learner_ms": t_learner.median_ms, "reference_ms": t_reference.median_ms,
            "learner_min_ms": t_learner.min_ms, "reference_min_ms": t_reference.min_ms, "reps": t_learner.reps,
            "ratio": t_reference.median_ms / t_learner.median_ms, "rel_error": err if np.isfinite(err) else None,
            "registers": kernel.registers}


def warm_up(kernel: LearnerKernel) -> None:
    """Everything a correctness case does except the learner's launch, on a tiny case: CuPy compiles
    its own kernels on first use, which on a cold machine takes many seconds and must not count
    against the learner's time limit."""
    import cupy

    case = {"M": 3, "N": 4, "K": 4, "pad": 4, "alpha": 1.0, "beta": 0.5}
    a_vals, b_vals, c0 = _random((3, 4), 1), _random((4, 4), 2), _random((3, 4), 3)
    A = Operand(a_vals, leading_dim(kernel.spec, 4, 4), np.nan, 1)
    C = Operand(cupy.full((3, 4), cupy.nan, dtype=cupy.float32), leading_dim(kernel.spec, 4, 4), CANARY, 1)
    ref = _reference(A.matrix, b_vals, c0, case["alpha"], case["beta"])
    C.matrix[...] = ref
    C.outside_changed(CANARY)
    got = C.matrix.copy()
    _error(got, ref)
    _first_wrong(got, ref, 1e-4)
    _wrong_rows_cols(got, ref, 1e-4)
    int((~cupy.isfinite(got)).sum())
    float(cupy.abs(ref).max())
    cupy.cuda.get_current_stream().synchronize()


MODES = {"correctness": correctness, "sanitize": sanitize, "differential": differential, "speed": speed}


def _device_name() -> str:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0], encoding="utf-8") as handle:
        job = json.load(handle)
    emit("stage", what="컴파일(NVRTC)과 GPU 준비")
    try:
        import cupy

        device = _device_name()
        if job["mode"] == "sanitize":
            cupy.cuda.set_allocator(None)        # every array its own cudaMalloc: memcheck sees exact sizes
        kernel = LearnerKernel(job)
        if job["mode"] in ("correctness", "differential"):
            warm_up(kernel)
        emit("ready")
        result = MODES[job["mode"]](job, kernel)
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
