"""Launching a course kernel: validate everything first, then run it with the registry's shape.

    C = run("sgemm_tiled", A, B)                      # C = A @ B
    run("sgemm_tiled", A, B, C, alpha=2.0, beta=0.5)  # C = 2 A @ B + 0.5 C, in place

A refused launch raises KernelInputError with a Korean message (and the English term) that says
what is wrong and what would work; nothing reaches the GPU in that case.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels import compiler, registry
from kernels.errors import KernelInputError

INT32_MAX = 2**31 - 1
GRID_Y_MAX = 65535
FLOAT_BYTES = 4


@dataclass(frozen=True)
class Operand:
    """What validation needs to know about one matrix argument (no GPU access required)."""

    label: str
    shape: tuple
    dtype: np.dtype
    strides: tuple
    ptr: int
    nbytes: int

    @classmethod
    def of(cls, x, label: str) -> "Operand":
        if isinstance(x, np.ndarray):
            raise KernelInputError(
                f"{label}는 GPU 배열(cupy.ndarray)이어야 합니다. NumPy 배열은 `cupy.asarray({label})`로 GPU에 올리세요."
            )
        if not (hasattr(x, "data") and hasattr(x.data, "ptr") and hasattr(x, "strides")):
            raise KernelInputError(
                f"{label}는 cupy.ndarray여야 합니다 (받은 형식: {type(x).__module__}.{type(x).__name__})."
            )
        return cls(label, tuple(x.shape), np.dtype(x.dtype), tuple(x.strides), int(x.data.ptr), int(x.nbytes))


@dataclass(frozen=True)
class LaunchPlan:
    M: int
    N: int
    K: int
    lda: int
    ldb: int
    ldc: int
    grid: tuple
    block: tuple
    alpha: float
    beta: float


def _check_matrix(op: Operand) -> None:
    if op.dtype != np.float32:
        raise KernelInputError(
            f"{op.label}의 자료형(dtype)은 float32여야 합니다 (받은 값: {op.dtype}). "
            f"`{op.label}.astype(cupy.float32)`를 쓰세요."
        )
    if len(op.shape) != 2:
        raise KernelInputError(f"{op.label}는 2차원 행렬(2-D)이어야 합니다 (받은 shape: {op.shape}).")
    if 0 in op.shape:
        raise KernelInputError(f"{op.label}의 크기는 0보다 커야 합니다 (받은 shape: {op.shape}).")


def leading_dimension(op: Operand) -> int:
    """Row stride in elements of a row-major 2-D view; refuses layouts the kernels cannot read."""
    row_stride, col_stride = op.strides
    if col_stride != FLOAT_BYTES:
        raise KernelInputError(
            f"{op.label}의 열 방향 간격(column stride)이 {col_stride}B입니다. 커널은 행 우선(row-major)이고 "
            f"열 간격이 4B인 배열만 읽습니다. `cupy.ascontiguousarray({op.label})`로 복사하세요."
        )
    if row_stride % FLOAT_BYTES or row_stride // FLOAT_BYTES < op.shape[1]:
        raise KernelInputError(
            f"{op.label}의 선행 차원(leading dimension)이 열 수({op.shape[1]})보다 작거나 4B의 배수가 아닙니다 "
            f"(행 간격 {row_stride}B). 연속 배열(contiguous)로 만들어 주세요."
        )
    return row_stride // FLOAT_BYTES


def _overlaps(a: Operand, b: Operand) -> bool:
    return a.ptr < b.ptr + b.nbytes and b.ptr < a.ptr + a.nbytes


def _check_scalar(label: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise KernelInputError(f"{label}는 실수(float)여야 합니다 (받은 형식: {type(value).__name__}).")
    return float(value)


def plan(spec: registry.KernelSpec, a: Operand, b: Operand, c: Operand | None,
         alpha=1.0, beta=0.0) -> LaunchPlan:
    """Check every rule of `spec`; return the launch plan or raise KernelInputError."""
    for op in (a, b, c):
        if op is not None:
            _check_matrix(op)
    M, K = a.shape
    if b.shape[0] != K:
        raise KernelInputError(
            f"행렬 크기가 맞지 않습니다(shape mismatch): A는 {M}×{K}, B는 {b.shape[0]}×{b.shape[1]}입니다. "
            f"A의 열 수와 B의 행 수가 같아야 합니다."
        )
    N = b.shape[1]
    alpha, beta = _check_scalar("alpha", alpha), _check_scalar("beta", beta)
    if c is None and beta != 0.0:
        raise KernelInputError("beta ≠ 0이면 기존 C가 필요합니다. C를 넘기거나 beta=0으로 호출하세요.")
    if c is not None:
        if c.shape != (M, N):
            raise KernelInputError(f"C의 shape은 ({M}, {N})이어야 합니다 (받은 값: {c.shape}).")
        if _overlaps(c, a) or _overlaps(c, b):
            raise KernelInputError("C가 A나 B와 같은 메모리를 가리킵니다(aliasing). 결과를 담을 C를 따로 만드세요.")
    lda, ldb = leading_dimension(a), leading_dimension(b)
    ldc = leading_dimension(c) if c is not None else N
    for label, value in (("M", M), ("N", N), ("K", K), ("M·lda", M * lda), ("K·ldb", K * ldb), ("M·ldc", M * ldc)):
        if value > INT32_MAX:
            raise KernelInputError(f"{label} = {value:,}이 32비트 정수(int32) 범위를 넘습니다. 행렬을 나누어 호출하세요.")
    grid = spec.grid(M, N)
    if grid[1] > GRID_Y_MAX:
        raise KernelInputError(f"그리드 y 크기(grid.y) {grid[1]:,}이 한도 {GRID_Y_MAX:,}를 넘습니다. 행렬을 나누어 호출하세요.")
    if spec.vec4:
        _check_vec4(spec, {"K": K, "N": N, "lda": lda, "ldb": ldb, "ldc": ldc}, (a, b, c))
    return LaunchPlan(M, N, K, lda, ldb, ldc, grid, (*spec.block, 1), alpha, beta)


def _check_vec4(spec: registry.KernelSpec, dims: dict, operands) -> None:
    problems = [f"{label} = {value} (4의 배수가 아님)" for label, value in dims.items() if value % 4]
    problems += [f"{op.label}의 시작 주소가 16바이트 정렬(16-byte aligned)이 아님"
                 for op in operands if op is not None and op.ptr % 16]
    if problems:
        raise KernelInputError(
            f"{spec.name}는 float4(16바이트) 로드를 쓰므로 K, N, lda, ldb, ldc가 4의 배수이고 포인터가 16바이트 "
            f"정렬이어야 합니다: " + "; ".join(problems) + ". 크기를 4의 배수로 채우거나(zero padding) "
            "sgemm_naive나 sgemm_tiled처럼 임의 크기를 받는 커널을 쓰세요."
        )


def _check_memory(M: int, N: int) -> None:
    from kernels.device import free_memory_bytes

    need = M * N * FLOAT_BYTES
    free = free_memory_bytes()
    if need > free:
        raise KernelInputError(
            f"C({M}×{N})에 {need / 2**20:,.0f} MiB가 필요하지만 GPU 여유 메모리는 {free / 2**20:,.0f} MiB입니다. "
            f"더 작은 크기로 실행하세요."
        )


def prepare(name: str, A, B, C=None, alpha: float = 1.0, beta: float = 0.0):
    """Validate, allocate C if needed, compile: returns (kernel, grid, block, args, C)."""
    spec = registry.get(name)
    p = plan(spec, Operand.of(A, "A"), Operand.of(B, "B"), Operand.of(C, "C") if C is not None else None,
             alpha, beta)
    import cupy

    if C is None:
        _check_memory(p.M, p.N)
        C = cupy.empty((p.M, p.N), dtype=cupy.float32)
    kernel = compiler.get_kernel(name)
    args = (A, B, C, np.int32(p.M), np.int32(p.N), np.int32(p.K), np.int32(p.lda), np.int32(p.ldb),
            np.int32(p.ldc), np.float32(p.alpha), np.float32(p.beta))
    return kernel, p.grid, p.block, args, C


def run(name: str, A, B, C=None, alpha: float = 1.0, beta: float = 0.0):
    """C = alpha * A @ B + beta * C with the named course kernel. Returns C."""
    kernel, grid, block, args, C = prepare(name, A, B, C, alpha, beta)
    kernel(grid, block, args)
    return C
