"""The exercise kind "sgemm": C = alpha * A @ B + beta * C, every exercise of modules 4-9.

    entry(const float* A, const float* B, float* C, int M, int N, int K, int lda, int ldb, int ldc,
          float alpha, float beta)          row-major, A is M x K (lda), B is K x N (ldb), C is M x N (ldc)

Its cases are planned by course.autograder.cases; the reference is cuBLAS in float64. In the worker, A and B
sit in buffers whose guard bands and row padding hold NaN (a read outside the matrix shows up), C among
finite canaries (a write outside shows up), and A and B are compared bit for bit after the run. Its own
worker modes: sanitize (exact-size allocations, the learner's kernel alone) and speed (timed in alternation
with a kernel of the kernels registry, over copies of the same padded operands).
"""
from __future__ import annotations

import numpy as np

from course.autograder import cases, timing
from course.autograder.kind_base import ExerciseKind
from course.autograder.worker_base import (CANARY, CaseRun, LearnerKernel, Operand, correctness, device_random,
                                           differential, emit, host_random, put_specials, start_values)

SGEMM_SIGNATURE = (("A", "pointer"), ("B", "pointer"), ("C", "pointer"), ("M", "int"), ("N", "int"), ("K", "int"),
                   ("lda", "int"), ("ldb", "int"), ("ldc", "int"), ("alpha", "float"), ("beta", "float"))


def case_label(case: dict) -> str:
    return f"{case['M']}×{case['N']}×{case['K']}"


class Sgemm(ExerciseKind):
    name = "sgemm"
    signature = SGEMM_SIGNATURE
    read_only = ("A", "B")
    reference_text_ko = "kernels 레지스트리의 커널 이름"
    reference_name_ko = "cuBLAS"
    tight_rows_hint_ko = (" 같은 경우를 행 여백 없이(ld = 열 수) 다시 실행하면 맞습니다: 행 주소를 K나 N이 아니라 각자의 선행 "
                          "차원(leading dimension)으로 계산하세요 (A는 lda, B는 ldb, C는 ldc).")
    hazard_sizes_ko = "작은 크기(k 타일 하나뿐인 경우 포함)"
    operands_ko = "A, B, C가 각각 차지하는 원소(행 수 × 선행 차원, 행 여백 포함)"
    tool_advice_ko = {}            # the general advice (course.autograder.gpu) is written for SGEMM

    def reference_ok(self, name) -> bool:
        from kernels import registry

        return name in registry.KERNELS

    def correctness_cases(self, spec, seed: int = 0) -> list:
        return cases.correctness_cases(spec, seed)

    def hazard_cases(self, spec, seed: int = 0) -> list:
        return cases.hazard_cases(spec, seed)

    def differential_cases(self, spec, seed: int = 0) -> list:
        return cases.differential_cases(spec, seed)

    def speed_case(self, spec, seed: int = 0):
        return cases.speed_case(spec, seed)

    def case_label(self, case: dict) -> str:
        return case_label(case)

    def shape_text(self, case: dict, spec) -> str:
        return cases.shape_text(case, spec)

    def speed_size_text(self, result: dict, spec) -> str:
        r = result
        ab = f"alpha={r['alpha']:g}, beta={r['beta']:g}, " if "alpha" in r else ""
        return f"{r['M']}×{r['N']}×{r['K']} ({ab}lda={r['lda']}, ldb={r['ldb']}, ldc={r['ldc']})"

    def edge_hint_ko(self, spec) -> str:
        return (f" M, N이 블록 타일({spec.tile[0]}×{spec.tile[1]})의 배수이고 K가 32의 배수인 경우는 모두 맞고, "
                "나머지에서만 틀립니다: 가장자리 블록의 경계 처리와 마지막(덜 찬) k 타일의 처리를 확인하세요.")

    def card_kernel_ko(self, spec) -> str:
        return (f'`extern "C" __global__ void {spec.entry}(A, B, C, M, N, K, lda, ldb, ldc, alpha, beta)`, '
                "행 우선(row-major), C = alpha·A·B + beta·C; 매개변수 목록이 다르면 실행하기 전에 알려 줍니다")

    def correctness_text_ko(self, spec) -> str:
        long_k = -(-cases.LONG_K // spec.multiple_of['K']) * spec.multiple_of['K']
        return ("고정된 경계 크기와 실행마다 시드로 뽑는 크기, alpha/beta의 모든 종류(0과 0, 0과 beta, alpha와 0, 1과 beta, "
                "alpha와 1, 음수와 정확히 표현되지 않는 값; 타일의 배수인 크기에서도 alpha·beta ≠ 0), k 타일 하나뿐인 K, "
                f"4096이 넘는 K({long_k}), 타일의 배수가 아닌 K, lda·ldb·ldc가 모두 다른 행 여백, beta = 0이면 NaN과 "
                "±Inf로 채운 C, A·B 안의 NaN·±Inf(기대값은 IEEE 규칙대로: NaN의 자리와 Inf의 부호까지), 실행마다 다른 무작위 "
                "비트 패턴 두 가지로 채운 공유 메모리(두 실행의 결과가 같아야 함), 행렬 밖 보호 구역, 실행 뒤 A·B가 "
                "그대로인지; cuBLAS(float64)와 상대 오차 1e-05 이내. 시드는 판정에 적히고 `--seed`로 같은 검사를 다시 할 수 "
                "있습니다")

    def speed_shape_ko(self, band: str) -> str:
        return f"M, N, K를 실행마다 {band}에서 하나씩 뽑은 크기(alpha·beta도 실행마다 뽑은 값, 1과 0은 아님)"

    def speed_target_ko(self, spec) -> str:
        return f"기준 커널 `{spec.speed_reference}`"

    def compile(self, job: dict) -> "SgemmKernel":
        return SgemmKernel(job)

    def worker_modes(self) -> dict:
        return {"correctness": correctness, "sanitize": sanitize, "differential": differential, "speed": speed}


KIND = Sgemm()


# ----------------------------------------------------------------------------- the worker's side

def leading_dim(spec: dict, cols: int, pad: int) -> int:
    return cases.row_stride(spec["aligned16"], cols, pad)


def reference(A, B, C0, alpha, beta):
    """alpha * A @ B + beta * C0 by cuBLAS in float64, rounded to float32 (beta = 0: C0 is not read). NaN and
    +-Inf in A and B give what IEEE arithmetic gives (in any order of the sum: NaN, or the infinity's sign)."""
    import cupy

    out = cupy.matmul(A.astype(cupy.float64), B.astype(cupy.float64))
    out *= float(np.float32(alpha))          # the float32 value the kernel receives
    if beta != 0.0:
        out += float(np.float32(beta)) * C0.astype(cupy.float64)
    return out.astype(cupy.float32)


class SgemmKernel(LearnerKernel):
    """A learner's SGEMM: launched with the exercise's block and a grid over C."""

    def launch(self, A, B, C, M, N, K, lda, ldb, ldc, alpha, beta, stream=None) -> None:
        bx, by = self.spec["block"]
        args = (A, B, C, np.int32(M), np.int32(N), np.int32(K), np.int32(lda), np.int32(ldb), np.int32(ldc),
                np.float32(alpha), np.float32(beta))
        self.kernel(self.grid(M, N), (bx, by, 1), args, shared_mem=self.spec["dynamic_smem"], stream=stream)

    def launch_case(self, junk, case: dict, ab_fill: float, c_start: str, tile_rows: int, fill: str = "a") -> CaseRun:
        """A and B among `ab_fill` guard bands and padding, C among canaries, the reference by cuBLAS."""
        import cupy

        spec = self.spec
        M, N, K, seed = case["M"], case["N"], case["K"], case["data_seed"]
        a_host, b_host = host_random((M, K), seed), host_random((K, N), seed + 1)
        put_specials((a_host, b_host), case.get("specials", 0), seed)
        a_vals, b_vals, c0 = cupy.asarray(a_host), cupy.asarray(b_host), device_random((M, N), seed + 2)
        guard_rows = max(tile_rows, 128)
        A = Operand(a_vals, leading_dim(spec, K, case["pad_a"]), ab_fill, guard_rows)
        B = Operand(b_vals, leading_dim(spec, N, case["pad_b"]), ab_fill, guard_rows)
        start = c0 if c_start == "c0" else start_values(c_start, M, N, seed)
        C = Operand(start, leading_dim(spec, N, case["pad_c"]), CANARY, guard_rows)
        junk.fill(fill)
        self.launch(A.matrix, B.matrix, C.matrix, M, N, K, A.ld, B.ld, C.ld, case["alpha"], case["beta"])
        cupy.cuda.get_current_stream().synchronize()
        ref = reference(a_vals, b_vals, c0, case["alpha"], case["beta"])
        a_out, b_out = A.outside_changed(), B.outside_changed()
        return CaseRun(C.matrix.copy(), ref, start, C.outside_changed(), (a_out[0] + b_out[0], a_out[1] + b_out[1]),
                       {"A": A.body_changed(a_vals), "B": B.body_changed(b_vals)})

    def stand_ins(self) -> list:
        return [_StandIn(self.spec, wrong=False), _StandIn(self.spec, wrong=True)]

    def warm_cases(self) -> tuple:
        return WARM_CASES

    def case_label(self, case: dict) -> str:
        return case_label(case)


class _StandIn(SgemmKernel):
    """An SGEMM made of CuPy operations, right or (wrong=True) NaN everywhere, for worker_base.warm_up."""

    def __init__(self, spec: dict, wrong: bool):          # no compile: nothing of the learner's runs here
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


def sanitize(job: dict, kernel: SgemmKernel) -> dict:
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


def speed(job: dict, kernel: SgemmKernel) -> dict:
    """Both kernels on padded operands (lda, ldb, ldc all different), each over its own copies of them (the same
    values), with the run's drawn alpha and beta, timed in alternation; every timed launch's C reset before its
    event pair (NaN, or C's starting values when beta != 0) and checked after it (course.autograder.timing)."""
    import cupy

    from kernels import launch

    case = job["case"]
    M, N, K = case["M"], case["N"], case["K"]
    emit("stage", what=f"속도 {M}×{N}×{K}")
    spec = kernel.spec

    lda, ldb, ldc = (leading_dim(spec, cols, case[pad]) for cols, pad in ((K, "pad_a"), (N, "pad_b"), (N, "pad_c")))
    shape = {"M": M, "N": N, "K": K, "lda": lda, "ldb": ldb, "ldc": ldc, "alpha": case["alpha"], "beta": case["beta"]}
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
    alpha, beta = case["alpha"], case["beta"]
    c0 = device_random((M, N), seed + 2)                 # C's starting values (read: beta != 0)
    a = padded(M, K, lda, device_random((M, K), seed))
    b, c = padded(K, N, ldb, device_random((K, N), seed + 1)), padded(M, N, ldc, c0)
    learner, references, outs, out_refs = [], [], [], []
    sets = timing.replicate((a, b, c), 2 * count)        # the learner's copies, then the reference's
    for mine, theirs in zip(sets[:count], sets[count:]):
        A, B, C = mine[0][:, :K], mine[1][:, :N], mine[2][:, :N]
        learner.append(lambda A=A, B=B, C=C: kernel.launch(A, B, C, M, N, K, lda, ldb, ldc, alpha, beta))
        outs.append(C)
        C_ref = theirs[2][:, :N]
        references.append(launch.prepare(job["reference"], theirs[0][:, :K], theirs[1][:, :N], C_ref, alpha, beta))
        out_refs.append(C_ref)
    measured = timing.measure(job, learner, references, outs, out_refs, start=c0 if beta != 0.0 else None)
    return {**shape, **measured, "registers": kernel.registers, "staged": list(references[0].plan.staged_operands)}
