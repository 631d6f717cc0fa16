"""Correctness against cuBLAS: random inputs, poisoned outputs, awkward shapes, alpha/beta mixes."""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass

from kernels import launch, registry

# TF32 must stay off for the reference: cuBLAS SGEMM then computes in FP32 like our kernels.
os.environ.setdefault("CUPY_TF32", "0")

# Relative Frobenius error allowed between a course kernel and cuBLAS. Both sum in FP32 in
# different orders; for K up to 8192 the observed difference is ~1e-7, so 1e-5 leaves headroom
# while a single dropped k-term per output (relative size ~1/sqrt(K)) still fails.
REL_TOLERANCE = 1e-5


@dataclass
class CheckResult:
    kernel: str
    M: int
    N: int
    K: int
    alpha: float
    beta: float
    rel_error: float
    max_abs_error: float
    non_finite: int
    ok: bool

    def as_row(self) -> dict:
        return asdict(self)


def _require_tf32_off() -> None:
    if os.environ.get("CUPY_TF32", "0") == "1":
        raise RuntimeError("CUPY_TF32=1이면 cuBLAS가 TF32로 계산합니다. FP32 비교를 위해 CUPY_TF32=0으로 실행하세요.")


def random_matrix(rows: int, cols: int, seed: int, ld_pad: int = 0, offset: int = 0, transposed: bool = False):
    """Uniform(-1, 1) float32 values (never zeros), as a view of the requested layout.

    ld_pad > 0: rows lie ld_pad floats apart beyond their width (leading dimension > columns);
    offset > 0: the view starts `offset` floats into its buffer (offset 1: only 4-byte aligned);
    transposed: the transpose of a row-major cols x rows array (column-major, not row-major).
    """
    import cupy

    rng = cupy.random.default_rng(seed)
    if transposed:
        return random_matrix(cols, rows, seed, ld_pad, offset).T
    width = cols + ld_pad
    flat = rng.uniform(-1.0, 1.0, size=rows * width + offset, dtype=cupy.float32)
    full = flat[offset:].reshape(rows, width)
    return full[:, :cols] if ld_pad else full


def reference(A, B, C0, alpha: float, beta: float):
    """cuBLAS result in FP32 (TF32 off): alpha * A @ B + beta * C0."""
    import cupy

    _require_tf32_off()
    out = cupy.matmul(A, B)
    if alpha != 1.0:
        out *= cupy.float32(alpha)
    if beta != 0.0:
        out += cupy.float32(beta) * C0
    return out


def compare(C, ref) -> tuple[float, float, int]:
    """Relative Frobenius error, max absolute error, and the number of NaN/Inf outputs."""
    import cupy

    diff = C.astype(cupy.float64) - ref.astype(cupy.float64)
    non_finite = int((~cupy.isfinite(C)).sum())
    ref_norm = float(cupy.linalg.norm(ref.astype(cupy.float64)))
    err = float(cupy.linalg.norm(diff)) / ref_norm if ref_norm else float(cupy.linalg.norm(diff))
    max_abs = float(cupy.abs(diff).max())
    return err, max_abs, non_finite


def poisoned_run(run, C, ref) -> tuple[float, int]:
    """Fill C with NaN, call `run()` (which writes C with beta = 0), compare C with `ref`: (the relative error,
    NaN when any output is NaN/Inf; how many are). A NaN left is an element the kernel never wrote: the check
    every tool makes on one operand copy before it times a kernel."""
    import cupy

    C.fill(cupy.nan)
    run()
    err, _, non_finite = compare(C, ref)
    return (float("nan") if non_finite else err), non_finite


def check(name: str, M: int, N: int, K: int, alpha: float = 1.0, beta: float = 0.0,
          seed: int = 0, ld_pad: int = 0, offset: int = 0, transposed: bool = False) -> CheckResult:
    """Run one kernel on fresh random inputs and compare with cuBLAS.

    With beta == 0, C is filled with NaN first: BLAS says C is not read then, so any NaN left in
    the result is an element the kernel never wrote (or a read it should not have made).
    ld_pad, offset and transposed choose the layout of A, B and C (see random_matrix).
    """
    import cupy

    layout = dict(ld_pad=ld_pad, offset=offset, transposed=transposed)
    A = random_matrix(M, K, seed, **layout)
    B = random_matrix(K, N, seed + 1, **layout)
    C0 = random_matrix(M, N, seed + 2, **layout)
    ref = reference(A, B, C0 if beta != 0.0 else None, alpha, beta)
    C = C0 if beta != 0.0 else _nan_like(C0)
    launch.run(name, A, B, C, alpha=alpha, beta=beta)
    cupy.cuda.get_current_stream().synchronize()
    err, max_abs, non_finite = compare(C, ref)
    ok = non_finite == 0 and err <= REL_TOLERANCE
    return CheckResult(name, M, N, K, float(alpha), float(beta), err, max_abs, non_finite, ok)


def _nan_like(X):
    """X's own view (same strides and offset), every element set to NaN."""
    import cupy

    X.fill(cupy.nan)
    return X


# Shapes that every kernel must take: 1, primes, and sizes that break every tile, every BK and
# every multiple of 4 (the first five are the list).
REQUIRED_SHAPES = [(1, 1, 1), (7, 5, 3), (33, 65, 17), (1000, 1023, 1025), (129, 257, 63)]


def awkward_shapes(spec: registry.KernelSpec | None = None) -> list[tuple[int, int, int]]:
    """Shapes that break every tile size: 1, primes, non-multiples of 4/16/64/128 and of BK."""
    return REQUIRED_SHAPES + [(2, 3, 5), (17, 31, 19), (127, 129, 131), (1, 257, 3), (251, 1, 97), (33, 65, 1),
                              (131, 132, 68), (255, 124, 1028), (500, 4, 4)]


ALPHA_BETA_CASES = [(1.0, 0.0), (0.5, 0.0), (1.0, 1.0), (-1.5, 0.25), (0.0, 2.0)]
