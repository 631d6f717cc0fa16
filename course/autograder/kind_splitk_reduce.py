"""The exercise kind "splitk_reduce": the split-K reduction of module 12.

    entry(const float* P, float* C, int M, int N, int ldp, int ldc, int S, float alpha, float beta)
    C[r][c] = alpha * (P_0[r][c] + ... + P_{S-1}[r][c]) + beta * C[r][c],   P_s[r][c] = P[s*M*ldp + r*ldp + c]

A workspace of S partial M x N slabs (slab s at P + s * M * ldp, ldp a multiple of 4 >= N), launched as
kernels/sgemm_shape_aware.cu's shape_aware_reduce is, with the exercise's block and a grid over C.

Its cases are planned here (drawn as course.autograder.cases draws the SGEMM's: the same seeds, (alpha, beta)
pairs and speed band). In the worker every mode sees what the SGEMM's sees, on these operands: the workspace P
sits in a buffer whose guard bands and row padding (columns N..ldp-1, which the GEMM never writes) hold NaN, so
a read outside the slabs' M x N elements shows up; C sits among finite canaries, so a write outside shows up; P
is compared bit for bit after the run (an input); C is poisoned with NaN and then +-Inf when beta = 0; some
cases hold NaN and +-Inf in the slabs; shared memory is filled with the run's two bit patterns. The reference
is computed on the GPU in float64, slab by slab (a NaN or infinity in a slab gives what IEEE arithmetic gives).
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass

import numpy as np

from course.autograder import timing
from course.autograder.cases import DRAWN_CASES, SPECIALS, SPEED_ALPHA_BETA, alpha_beta_choices, speed_sizes
from course.autograder.kind_base import ExerciseKind
from course.autograder.worker_base import (CANARY, CaseRun, LearnerKernel, Operand, correctness, device_random,
                                           differential, emit, host_random, put_specials, start_values)

REDUCE_SIGNATURE = (("P", "pointer"), ("C", "pointer"), ("M", "int"), ("N", "int"), ("ldp", "int"), ("ldc", "int"),
                    ("S", "int"), ("alpha", "float"), ("beta", "float"))
# The course's reductions a splitk_reduce exercise may be timed against: (file, entry, threads per block).
REDUCE_REFERENCES = {"shape_aware_reduce": ("sgemm_shape_aware.cu", "shape_aware_reduce", 256)}

# ----------------------------------------------------------------------------- the cases

SLICES = (2, 3, 4, 5, 8, 13, 16, 24)   # S values the drawn cases pick from (past 8 and past 16 too)
MANY_SLICES = 19                  # the fixed case with many slabs (an odd number past 16)
REDUCE_SPEED_SLICES = 8           # the timed case: 8 slabs of about speed.size x speed.size (drawn per run)


@dataclass(frozen=True)
class ReduceCase:
    M: int
    N: int
    S: int
    alpha: float
    beta: float
    pad_p: int = 0        # ldp = N rounded up to 4, plus pad_p (a multiple of 4: the workspace's rows stay aligned)
    pad_c: int = 0        # ldc = N + pad_c (any value)
    edge: bool = False    # M or N cuts a block tile
    drawn: bool = False
    data_seed: int = 0
    specials: int = 0     # NaN, +Inf and -Inf values put into the slabs (the expected C is IEEE arithmetic's)

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def ldp(self) -> int:
        return _workspace_ld(self.N, self.pad_p)

    @property
    def ldc(self) -> int:
        return self.N + self.pad_c


def _workspace_ld(N: int, pad_p: int) -> int:
    """ldp: N rounded up to a multiple of 4 (the workspace's rows stay 16-byte aligned), plus pad_p."""
    return -(-N // 4) * 4 + pad_p


def reduce_strides(case: dict) -> tuple[int, int]:
    """(ldp, ldc) of a case given as the worker's dict."""
    return (_workspace_ld(case["N"], case["pad_p"]), case["N"] + case["pad_c"])


def _reduce_pads(rng: random.Random, N: int) -> tuple[int, int]:
    """pad_p (multiple of 4) and pad_c with ldp != ldc, so a kernel that swaps the strides fails."""
    for _ in range(64):
        pad_p, pad_c = 4 * rng.randint(0, 4), rng.randint(1, 9)
        if _workspace_ld(N, pad_p) != N + pad_c:
            return pad_p, pad_c
    return 4, 1 if N % 4 else 2   # N + 1 or N + 2 can never equal a multiple of 4 >= N plus 4


def _reduce_edge(spec, M: int, N: int) -> bool:
    rows, cols = spec.tile
    return bool(M % rows or N % cols)


def reduce_correctness_cases(spec, seed: int = 0) -> list[ReduceCase]:
    """Fixed cases (one element; edges; whole tiles with alpha and beta != 0; one slab; tight rows; every class of
    (alpha, beta) of course.autograder.cases.alpha_beta_class; 19 slabs; NaN and +-Inf in the slabs) and cases
    drawn from `seed` (shape, S, alpha, beta, strides; the second drawn case holds NaN and +-Inf)."""
    rows, cols = spec.tile
    fixed = [(1, 1, 2, 1.0, 0.0, True, 0), (7, 5, 3, 0.5, 0.0, True, 0), (rows + 1, cols + 3, 4, -1.5, 0.25, True, 0),
             (2 * rows, 2 * cols, 4, 1.25, -0.5, True, 0),   # whole tiles, alpha and beta both != 0 and != 1
             (rows, cols, 1, 2.0, 0.5, True, 0),             # one slab: still alpha * P + beta * C
             (2 * rows, 4 * cols, 3, 1.0, 0.0, False, 0),    # whole tiles, tight rows (ldp = ldc = N)
             (33, 65, 5, 0.0, 2.0, True, 0),                 # alpha = 0: C = beta * C
             (3 * rows + 5, 2 * cols - 3, 8, 0.5, 0.0, True, 0),
             (rows + 3, cols + 1, 4, 0.0, 0.0, True, 0),     # alpha = beta = 0: C = 0, C never read
             (2 * rows + 1, cols + 5, 6, 1.0, -0.37, True, 0),   # alpha = 1 with beta neither 0 nor 1
             (rows + 7, 2 * cols + 3, 3, 1.1, 1.0, True, 0),     # beta = 1 with alpha neither 0 nor 1
             (2 * rows + 5, cols + 2, 2, 1.0, 1.0, True, 0),     # alpha = beta = 1: C += the sum
             (3 * rows + 1, 2 * cols + 5, MANY_SLICES, -0.37, 1.1, True, 0),   # many slabs
             (2 * rows + 3, cols + 9, 7, -0.75, 0.0, True, SPECIALS),          # NaN and +-Inf in the slabs
             (rows + 9, 2 * cols + 1, 4, 1.1, -0.37, True, SPECIALS)]
    rng, fixed_rng = random.Random(f"{int(seed)}:{spec.id}"), random.Random(f"fixed:{spec.id}")
    out = []
    for M, N, S, alpha, beta, padded, specials in fixed:
        pads = _reduce_pads(fixed_rng, N) if padded else (0, 0)
        if not padded and N % 4:
            raise ValueError("a tight-rows case needs N a multiple of 4 (ldp = N)")
        out.append(ReduceCase(M, N, S, alpha, beta, *pads, edge=_reduce_edge(spec, M, N),
                              data_seed=fixed_rng.randrange(2 ** 32), specials=specials))
    for i in range(DRAWN_CASES):
        if i == 0:
            M, N = rows * rng.randint(1, 3), cols * rng.randint(1, 3)
        else:
            M, N = rng.randint(1, 3 * rows + 17), rng.randint(1, 3 * cols + 17)
        specials = SPECIALS if i == 1 else 0
        alpha, beta = rng.choice(alpha_beta_choices(specials))
        out.append(ReduceCase(M, N, rng.choice(SLICES), alpha, beta, *_reduce_pads(rng, N),
                              edge=_reduce_edge(spec, M, N), drawn=True, data_seed=rng.randrange(2 ** 32),
                              specials=specials))
    return out


def reduce_hazard_cases(spec, seed: int = 0) -> list[ReduceCase]:
    rows, cols = spec.tile
    rng = random.Random(f"{int(seed)}:{spec.id}:hazards")
    first, second = (rows + 3, cols + 5), (max(rows - 1, 1), 2 * cols - 1)
    return [ReduceCase(*first, 3, 1.0, 0.0, *_reduce_pads(rng, first[1]), edge=True),
            ReduceCase(*second, 4, 0.5, 0.5, *_reduce_pads(rng, second[1]), edge=True)]


def reduce_differential_cases(spec, seed: int = 0) -> list[ReduceCase]:
    rng = random.Random(f"{int(seed)}:{spec.id}:differential")
    return [ReduceCase(1027, 1029, 4, 1.0, 0.0, *_reduce_pads(rng, 1029), edge=True, data_seed=4242)]


def reduce_speed_case(spec, seed: int = 0) -> ReduceCase:
    """The timed case of a run: M, N, alpha and beta drawn from `seed` (M and N within the band of
    cases.speed_sizes), 8 slabs."""
    rng = random.Random(f"{int(seed)}:{spec.id}:speed")
    M, N = (rng.choice(speed_sizes(spec.speed_size)) for _ in range(2))
    data_seed = rng.randrange(2 ** 32)
    alpha, beta = rng.choice(SPEED_ALPHA_BETA)
    return ReduceCase(M, N, REDUCE_SPEED_SLICES, alpha, beta, 8, 4, edge=_reduce_edge(spec, M, N),
                      data_seed=data_seed)


def reduce_shape_text(case: dict, spec=None) -> str:
    ldp, ldc = reduce_strides(case)
    poison = {"nan": ", C를 NaN으로 채움", "inf": ", C를 ±Inf로 채움"}.get(case.get("poison", ""), "")
    specials = ", P에 NaN·±Inf 있음" if case.get("specials") else ""
    return (f"M={case['M']}, N={case['N']}, 조각 S={case['S']} (alpha={case['alpha']:g}, beta={case['beta']:g}, "
            f"ldp={ldp}, ldc={ldc}{specials}{poison})")


def case_label(case: dict) -> str:
    return f"M={case['M']}, N={case['N']}, S={case['S']}"


# ----------------------------------------------------------------------------- the kind

class SplitKReduce(ExerciseKind):
    name = "splitk_reduce"
    signature = REDUCE_SIGNATURE
    read_only = ("P",)
    reference_text_ko = "강좌의 리덕션 커널 이름 (" + ", ".join(REDUCE_REFERENCES) + ")"
    reference_name_ko = "float64로 더한 기준값"
    tight_rows_hint_ko = (" 같은 경우를 행 여백 없이(ldc = N, ldp = N을 4의 배수로 올린 값) 다시 실행하면 맞습니다: "
                          "조각 s의 시작은 P + s·M·ldp, 조각 안의 행은 ldp, C의 행은 ldc로 계산하세요 (N이 아니라).")
    hazard_sizes_ko = "작은 크기"
    operands_ko = "작업 공간 P(S × M × ldp)와 C(M × ldc)가 각각 차지하는 원소"
    tool_advice_ko = {
        "memcheck": "작업 공간이나 C 밖의 주소를 읽거나 쓰는 스레드가 있습니다: 조각의 시작(P + s·M·ldp), 조각 안의 행 간격(ldp), "
                    "C의 행 간격(ldc)과 경계 검사(row < M, col < N)를 확인하세요.",
        "racecheck": "한 스레드가 공유 메모리에 쓴 값을 다른 스레드가 배리어 없이 읽습니다: 쓴 뒤, 다른 스레드가 읽기 전에 "
                     "__syncthreads()가 있어야 합니다.",
    }

    def reference_ok(self, name) -> bool:
        return name in REDUCE_REFERENCES

    def correctness_cases(self, spec, seed: int = 0) -> list:
        return reduce_correctness_cases(spec, seed)

    def hazard_cases(self, spec, seed: int = 0) -> list:
        return reduce_hazard_cases(spec, seed)

    def differential_cases(self, spec, seed: int = 0) -> list:
        return reduce_differential_cases(spec, seed)

    def speed_case(self, spec, seed: int = 0):
        return reduce_speed_case(spec, seed)

    def case_label(self, case: dict) -> str:
        return case_label(case)

    def shape_text(self, case: dict, spec) -> str:
        return reduce_shape_text(case, spec)

    def speed_size_text(self, result: dict, spec) -> str:
        return reduce_shape_text({"alpha": 1.0, "beta": 0.0, **result}, spec)

    def edge_hint_ko(self, spec) -> str:
        return (f" M, N이 블록 타일({spec.tile[0]}×{spec.tile[1]})의 배수인 경우는 모두 맞고, 나머지에서만 틀립니다: "
                "가장자리 블록의 경계 검사(row < M, col < N)를 확인하세요.")

    def card_kernel_ko(self, spec) -> str:
        return (f"`{spec.signature_text()}`, 행 우선(row-major), C = alpha·(P₀ + … + P_(S−1)) + beta·C, 조각 s는 "
                "P + s·M·ldp에서 시작; 매개변수 목록이 다르면 실행하기 전에 알려 줍니다")

    def correctness_text_ko(self, spec) -> str:
        return ("고정된 경우와 실행마다 시드로 뽑는 경우(크기, 조각 수 S는 16개가 넘는 경우까지), alpha/beta의 모든 종류"
                "(0과 0, 0과 beta, alpha와 0, 1과 beta, alpha와 1, 음수와 정확히 표현되지 않는 값), ldp와 ldc가 다른 행 "
                "여백(작업 공간의 여백은 NaN), beta = 0이면 NaN과 ±Inf로 채운 C, P 안의 NaN·±Inf(기대값은 IEEE 규칙대로), "
                "실행마다 다른 무작위 비트 패턴 두 가지로 채운 공유 메모리(두 실행의 결과가 같아야 함), 실행 뒤 P가 "
                "그대로인지; float64로 더한 기준값과 상대 오차 1e-05 이내. 시드는 판정에 적히고 `--seed`로 같은 검사를 "
                "다시 할 수 있습니다")

    def speed_shape_ko(self, band: str) -> str:
        return f"M, N을 실행마다 {band}에서 뽑은 M×N 조각 {REDUCE_SPEED_SLICES}개(alpha·beta도 실행마다 뽑은 값, 1과 0은 아님)"

    def speed_target_ko(self, spec) -> str:
        return f"강좌의 리덕션 커널 `{spec.speed_reference}`"

    def compile(self, job: dict) -> "ReduceKernel":
        return ReduceKernel(job)

    def worker_modes(self) -> dict:
        return {"correctness": correctness, "sanitize": sanitize, "differential": differential, "speed": speed}


KIND = SplitKReduce()


# ----------------------------------------------------------------------------- the worker's side

class ReduceKernel(LearnerKernel):
    """A learner's reduction, launched with the exercise's block and a grid over C."""

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

    def case_label(self, case: dict) -> str:
        return case_label(case)

    def launch_case(self, junk, case: dict, ab_fill: float, c_start: str, tile_rows: int, fill: str = "a") -> CaseRun:
        """P among `ab_fill` guard bands and padding, C among canaries, the reference in float64."""
        import cupy

        M, N, S, seed = case["M"], case["N"], case["S"], case["data_seed"]
        ldp, ldc = reduce_strides(case)
        host = host_random((S * M, N), seed)       # slab s = rows s*M .. s*M + M - 1
        put_specials((host,), case.get("specials", 0), seed)
        slabs = cupy.asarray(host)
        c0 = device_random((M, N), seed + 2)
        P = Operand(slabs, ldp, ab_fill, max(tile_rows, 128))
        start = c0 if c_start == "c0" else start_values(c_start, M, N, seed)
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
    """A reduction made of CuPy operations, right or (wrong=True) NaN everywhere, for worker_base.warm_up."""

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


def sanitize(job: dict, kernel: ReduceKernel) -> dict:
    """Exact-size buffers: the last slab's last row ends at its last element, as does C's."""
    import cupy

    rng = np.random.default_rng(7)
    for case in job["cases"]:
        M, N, S = case["M"], case["N"], case["S"]
        ldp, ldc = reduce_strides(case)
        emit("stage", what=f"{job.get('tool', 'sanitizer')} M={M}, N={N}, S={S}")
        P = cupy.asarray(rng.uniform(-1, 1, (S * M - 1) * ldp + N).astype(np.float32))
        C = cupy.asarray(rng.uniform(-1, 1, (M - 1) * ldc + N).astype(np.float32))
        kernel.launch_reduce(P, C, M, N, ldp, ldc, S, case["alpha"], case["beta"])
        cupy.cuda.runtime.deviceSynchronize()
    return {"cases": len(job["cases"])}


def speed(job: dict, kernel: ReduceKernel) -> dict:
    """The learner's reduction and the course's (REDUCE_REFERENCES), each over its own copies of the same
    workspace, in alternation; every timed launch's C poisoned before its event pair and checked after it
    (course.autograder.timing)."""
    import cupy

    from kernels import loader

    case = job["case"]
    M, N, S = case["M"], case["N"], case["S"]
    ldp, ldc = reduce_strides(case)
    emit("stage", what=f"속도 M={M}, N={N}, S={S}")
    shape = {"M": M, "N": N, "S": S, "pad_p": case["pad_p"], "pad_c": case["pad_c"], "ldp": ldp, "ldc": ldc,
             "alpha": case["alpha"], "beta": case["beta"]}
    try:
        count = timing.room(4 * (S * M * ldp + M * ldc), M * N)
    except timing.NoRoom as short:
        return {**shape, "no_room": short.message_ko, "need_bytes": short.need, "free_bytes": short.free}
    file, entry, threads = REDUCE_REFERENCES[job["reference"]]
    ref_kernel = loader.get_variant(file, entry, {}, 0, threads=threads)
    P = cupy.full((S * M, ldp), cupy.nan, dtype=cupy.float32)
    P[:, :N] = device_random((S * M, N), case.get("data_seed", 11))
    groups = M * ldp // 4
    learner, course, outs, out_refs = [], [], [], []
    # the learner's copies, then the course's
    alpha, beta = case["alpha"], case["beta"]
    c0 = device_random((M, N), case.get("data_seed", 11) + 1)   # C's starting values (read: beta != 0)
    C0 = cupy.zeros((M, ldc), dtype=cupy.float32)
    C0[:, :N] = c0
    sets = timing.replicate((P, C0), 2 * count)
    for (P_mine, C), (P_theirs, C_ref) in zip(sets[:count], sets[count:]):
        learner.append(lambda P=P_mine, C=C: kernel.launch_reduce(P, C, M, N, ldp, ldc, S, alpha, beta))
        course.append(lambda P=P_theirs, C=C_ref: ref_kernel(
            (-(-groups // threads),), (threads,),
            (P, C, np.int32(M), np.int32(N), np.int32(ldp), np.int32(ldc), np.int32(S), np.float32(alpha),
             np.float32(beta))))
        outs.append(C[:, :N])
        out_refs.append(C_ref[:, :N])
    measured = timing.measure(job, learner, course, outs, out_refs, start=c0 if beta != 0.0 else None)
    moved = (S + 1 + (beta != 0.0)) * M * N * 4     # every slab read once, C written once (and read if beta != 0)
    return {**shape, **measured, "learner_gbs": moved / (measured["learner_ms"] * 1e6), "registers": kernel.registers,
            "staged": []}
