"""The worker's GPU side for the "splitk_reduce" kind (course.autograder.kinds): a learner's split-K reduction.

The kernel is launched as kernels/sgemm_shape_aware.cu's shape_aware_reduce is, with the exercise's block and
a grid over C (course.autograder.worker.LearnerKernel.grid):

    entry(const float* P, float* C, int M, int N, int ldp, int ldc, int S, float alpha, float beta)
    C[r][c] = alpha * (P_0[r][c] + ... + P_{S-1}[r][c]) + beta * C[r][c],   P_s[r][c] = P[s*M*ldp + r*ldp + c]

What each mode sees is the SGEMM worker's, on these operands: the workspace P sits in a buffer whose guard
bands and row padding (columns N..ldp-1, which the GEMM never writes) hold NaN, so a read outside the slabs'
M x N elements shows up; C sits among finite canaries, so a write outside shows up; P is compared bit for bit
after the run (an input); C is poisoned with NaN and then +-Inf when beta = 0; some cases hold NaN and +-Inf in
the slabs; shared memory is filled with the run's two bit patterns. The reference is computed on the GPU in
float64, slab by slab (a NaN or infinity in a slab gives what IEEE arithmetic gives).
"""
from __future__ import annotations

import numpy as np

from course.autograder import worker
from course.autograder.worker import CANARY, CaseRun, Operand, _random, _start_values, emit, host_random, put_specials


def strides(case: dict) -> tuple[int, int]:
    from course.autograder.kinds import reduce_strides

    return reduce_strides(case)


class ReduceKernel(worker.LearnerKernel):
    """A learner's reduction: the SGEMM kernel's compile and grid, its own arguments and cases."""

    def launch_reduce(self, P, C, M: int, N: int, ldp: int, ldc: int, S: int, alpha: float, beta: float,
                      stream=None) -> None:
        bx, by = self.spec["block"]
        args = (P, C, np.int32(M), np.int32(N), np.int32(ldp), np.int32(ldc), np.int32(S), np.float32(alpha),
                np.float32(beta))
        self.kernel(self.grid(M, N), (bx, by, 1), args, shared_mem=self.spec["dynamic_smem"], stream=stream)

    def stand_ins(self) -> list:
        return [_StandIn(self.spec, wrong=False), _StandIn(self.spec, wrong=True)]

    def warm_cases(self) -> tuple:
        return WARM_CASES

    def launch_case(self, junk, case: dict, ab_fill: float, c_start: str, tile_rows: int, fill: str = "a") -> CaseRun:
        """One launch on one case (what worker.run_case does for SGEMM): P among NaN guard bands and padding,
        C among canaries, the reference in float64."""
        import cupy

        M, N, S, seed = case["M"], case["N"], case["S"], case["data_seed"]
        ldp, ldc = strides(case)
        host = host_random((S * M, N), seed)       # slab s = rows s*M .. s*M + M - 1
        put_specials((host,), case.get("specials", 0), seed)
        slabs = cupy.asarray(host)
        c0 = _random((M, N), seed + 2)
        P = Operand(slabs, ldp, ab_fill, max(tile_rows, 128))
        start = c0 if c_start == "c0" else _start_values(c_start, M, N, seed)
        C = Operand(start, ldc, CANARY, max(tile_rows, 128))
        junk.fill(fill)
        self.launch_reduce(P.matrix, C.matrix, M, N, ldp, ldc, S, case["alpha"], case["beta"])
        cupy.cuda.get_current_stream().synchronize()
        ref = reference(slabs, c0, M, S, case["alpha"], case["beta"])
        return CaseRun(C.matrix.copy(), ref, start, C.outside_changed(), P.outside_changed(),
                       {"P": P.body_changed(slabs)})


def reference(slabs, c0, M: int, S: int, alpha: float, beta: float):
    """alpha * (sum of the slabs) + beta * C0 in float64, rounded to float32 (beta = 0: C0 is not used)."""
    import cupy

    total = cupy.zeros((M, slabs.shape[1]), dtype=cupy.float64)
    for s in range(S):
        total += slabs[s * M:(s + 1) * M].astype(cupy.float64)
    out = float(np.float32(alpha)) * total          # the float32 values the kernel receives
    if beta != 0.0:
        out += float(np.float32(beta)) * c0.astype(cupy.float64)
    return out.astype(cupy.float32)


class _StandIn(ReduceKernel):
    """A reduction made of CuPy operations, right or (wrong=True) NaN everywhere, for worker.warm_up."""

    def __init__(self, spec: dict, wrong: bool):          # no compile: nothing of the learner's runs here
        self.spec, self.wrong, self.registers = spec, wrong, 0

    def launch_reduce(self, P, C, M, N, ldp, ldc, S, alpha, beta, stream=None) -> None:
        import cupy

        if self.wrong:
            C[...] = cupy.nan
            return
        total = P[0:M]
        for s in range(1, S):
            total = total + P[s * M:(s + 1) * M]
        out = cupy.float32(alpha) * total
        if beta != 0.0:
            out += cupy.float32(beta) * C
        C[...] = out


WARM_CASES = ({"M": 3, "N": 5, "S": 2, "alpha": 0.5, "beta": 0.0, "pad_p": 4, "pad_c": 2, "data_seed": 1, "specials": 0},
              {"M": 2, "N": 8, "S": 3, "alpha": 1.5, "beta": 0.5, "pad_p": 0, "pad_c": 0, "data_seed": 2, "specials": 3})


def correctness(job: dict, kernel: ReduceKernel) -> dict:
    return worker.correctness(job, kernel)


def sanitize(job: dict, kernel: ReduceKernel) -> dict:
    """Exact-size buffers: the last slab's last row ends at its last element, as does C's."""
    import cupy

    rng = np.random.default_rng(7)
    for case in job["cases"]:
        M, N, S = case["M"], case["N"], case["S"]
        ldp, ldc = strides(case)
        emit("stage", what=f"{job.get('tool', 'sanitizer')} M={M}, N={N}, S={S}")
        P = cupy.asarray(rng.uniform(-1, 1, (S * M - 1) * ldp + N).astype(np.float32))
        C = cupy.asarray(rng.uniform(-1, 1, (M - 1) * ldc + N).astype(np.float32))
        kernel.launch_reduce(P, C, M, N, ldp, ldc, S, case["alpha"], case["beta"])
        cupy.cuda.runtime.deviceSynchronize()
    return {"cases": len(job["cases"])}


def speed(job: dict, kernel: ReduceKernel) -> dict:
    """The learner's reduction and the course's (kinds.REDUCE_REFERENCES), each over its own copies of the
    same workspace, in alternation; every timed launch's C poisoned before its event pair and checked after it
    (course.autograder.timing)."""
    import cupy

    from course.autograder import timing
    from course.autograder.kinds import REDUCE_REFERENCES
    from kernels import compiler

    case = job["case"]
    M, N, S = case["M"], case["N"], case["S"]
    ldp, ldc = strides(case)
    emit("stage", what=f"속도 M={M}, N={N}, S={S}")
    shape = {"M": M, "N": N, "S": S, "pad_p": case["pad_p"], "pad_c": case["pad_c"], "ldp": ldp, "ldc": ldc}
    try:
        count = timing.room(4 * (S * M * ldp + M * ldc), M * N)
    except timing.NoRoom as short:
        return {**shape, "no_room": short.message_ko, "need_bytes": short.need, "free_bytes": short.free}
    file, entry, threads = REDUCE_REFERENCES[job["reference"]]
    ref_kernel = compiler.get_variant(file, entry, {}, 0, threads=threads)
    P = cupy.full((S * M, ldp), cupy.nan, dtype=cupy.float32)
    P[:, :N] = _random((S * M, N), case.get("data_seed", 11))
    groups = M * ldp // 4
    learner, course, outs, out_refs = [], [], [], []
    # the learner's copies, then the course's
    sets = timing.replicate((P, cupy.zeros((M, ldc), dtype=cupy.float32)), 2 * count)
    for (P_mine, C), (P_theirs, C_ref) in zip(sets[:count], sets[count:]):
        learner.append(lambda P=P_mine, C=C: kernel.launch_reduce(P, C, M, N, ldp, ldc, S, 1.0, 0.0))
        course.append(lambda P=P_theirs, C=C_ref: ref_kernel(
            (-(-groups // threads),), (threads,),
            (P, C, np.int32(M), np.int32(N), np.int32(ldp), np.int32(ldc), np.int32(S), np.float32(1.0),
             np.float32(0.0))))
        outs.append(C[:, :N])
        out_refs.append(C_ref[:, :N])
    measured = timing.measure(job, learner, course, outs, out_refs)
    moved = (S + 1) * M * N * 4            # every slab read once, C written once (beta = 0)
    return {**shape, **measured, "learner_gbs": moved / (measured["learner_ms"] * 1e6), "registers": kernel.registers,
            "staged": []}


MODES = {"correctness": correctness, "sanitize": sanitize, "differential": worker.differential, "speed": speed}
