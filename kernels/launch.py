"""Launching a course kernel: validate everything first, then run it with the registry's shape.

    C = run("sgemm_tiled", A, B)                      # C = A @ B
    run("sgemm_tiled", A, B, C, alpha=2.0, beta=0.5)  # C = 2 A @ B + 0.5 C, in place

Every kernel takes every shape. The float4 kernels read and write whole groups of 4 floats, so
they need N (and for some K) to be a multiple of 4, leading dimensions that are multiples of 4 and
16-byte aligned pointers; an operand that breaks one of these rules, or that is not row-major at
all (a transposed view, say), is STAGED: copied into an aligned buffer padded with zeros to the
next multiple of 4, and C is copied back afterwards. `plan(...).staged` says which operands took
that path and why, without touching a GPU.

What is really wrong (wrong dtype, mismatched shapes, C overlapping A or B, a size or leading
dimension past int32) is refused with KernelInputError: a Korean message (with the English term) that
says what would work. Operands above 2^31 elements are fine: the kernels index with 64-bit offsets
(Levels 5 and 6 keep 32-bit offsets inside a tile, KernelSpec.int32_spans, and say so when a leading
dimension is too long for them), and a C more than 65,535 tiles tall continues grid y in z.

alpha = 0 follows BLAS: A and B are not read at all (an Inf or NaN in them cannot reach C) and the
launch only scales C by beta (beta = 0: C becomes zeros without being read), on the GPU, without the kernel.

A kernel whose configuration needs more than the GPU gives (shared memory per block, threads,
registers) is refused with DeviceLimitError, a KernelInputError that names the limit and the kernel.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

import numpy as np

from kernels import configs, loader, registry
from kernels.errors import KernelInputError
from korean_text import with_particle

FLOAT_BYTES = 4
VEC_FLOATS = 4          # a float4 access covers 4 floats ...
VEC_BYTES = 16          # ... and needs a 16-byte aligned address


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

    def extent(self) -> tuple[int, int]:
        """First and one-past-last byte address the view can touch (negative strides included)."""
        lo = hi = self.ptr
        for n, s in zip(self.shape, self.strides):
            lo += min(0, s * (n - 1))
            hi += max(0, s * (n - 1))
        return lo, hi + self.dtype.itemsize


@dataclass(frozen=True)
class Staging:
    """One operand copied into an aligned, zero-padded row-major buffer around the launch."""

    label: str          # "A", "B" or "C"
    rows: int           # shape of the staged buffer (its leading dimension is `cols`)
    cols: int
    reason: str         # why, in Korean (for chapters and error-free explanations)


@dataclass(frozen=True)
class LaunchPlan:
    M: int
    N: int
    K: int
    lda: int            # leading dimensions the kernel sees (a staged buffer's when staged)
    ldb: int
    ldc: int
    grid: tuple
    block: tuple
    alpha: float
    beta: float
    kernel_N: int = 0   # N and K the kernel sees: rounded up to a multiple of 4 when padded
    kernel_K: int = 0
    staged: tuple = ()  # Staging entries, empty on the direct path
    shared_mem: int = 0 # dynamic shared memory per block, bytes

    @property
    def is_staged(self) -> bool:
        return bool(self.staged)

    @property
    def staged_operands(self) -> tuple:
        return tuple(s.label for s in self.staged)


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


def row_major_ld(op: Operand) -> int | None:
    """Leading dimension (in floats) when the view is row-major with unit column stride, else None.

    A dimension of length 1 has no meaningful stride, so a single row or column is row-major
    whatever its stride says.
    """
    rows, cols = op.shape
    row_stride, col_stride = op.strides
    if cols > 1 and col_stride != FLOAT_BYTES:
        return None
    if rows == 1:
        return cols
    if row_stride <= 0 or row_stride % FLOAT_BYTES or row_stride // FLOAT_BYTES < cols:
        return None
    return row_stride // FLOAT_BYTES


def leading_dimension(op: Operand) -> int:
    """Row stride in elements of a row-major view; refuses layouts the kernels cannot read directly."""
    ld = row_major_ld(op)
    if ld is None:
        raise KernelInputError(
            f"{op.label}는 행 우선(row-major) 배열이 아닙니다 (strides {op.strides}). 커널이 직접 읽으려면 "
            f"`cupy.ascontiguousarray({op.label})`로 복사해야 합니다 (run()은 이 복사를 스스로 합니다)."
        )
    return ld


def _elements_overlap(op: Operand) -> bool:
    """True when two elements of the view share memory (zero or overlapping strides)."""
    dims = sorted((abs(s), n) for s, n in zip(op.strides, op.shape) if n > 1)
    span = FLOAT_BYTES
    for stride, n in dims:
        if stride < span:
            return True
        span = stride * n
    return False


def _overlaps(a: Operand, b: Operand) -> bool:
    a_lo, a_hi = a.extent()
    b_lo, b_hi = b.extent()
    return a_lo < b_hi and b_lo < a_hi


def _check_scalar(label: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise KernelInputError(f"{label}는 실수(float)여야 합니다 (받은 형식: {type(value).__name__}).")
    return float(value)


def _round_up(x: int, multiple: int) -> int:
    return -(-x // multiple) * multiple


def _vector_rules(op: Operand, ld: int | None) -> list[str]:
    """Why a row-major operand cannot be read or written as float4 (empty list: it can)."""
    why = []
    if ld is not None and ld % VEC_FLOATS:
        why.append(f"선행 차원(leading dimension, {ld})이 4의 배수가 아님")
    if op.ptr % VEC_BYTES:
        why.append("시작 주소가 16바이트 정렬(16-byte aligned)이 아님")
    return why


def _staging(spec: registry.KernelSpec, ops: dict, M: int, N: int, K: int) -> tuple[int, int, list[Staging]]:
    """Padded N and K for the kernel and the operands to stage, with the reasons."""
    vec = set(spec.vec4)
    kernel_K = _round_up(K, VEC_FLOATS) if "A" in vec else K
    kernel_N = _round_up(N, VEC_FLOATS) if vec & {"B", "C"} else N
    shapes = {"A": (M, kernel_K), "B": (kernel_K, kernel_N), "C": (M, kernel_N)}
    staged = []
    for label in ("A", "B", "C"):
        op = ops.get(label)
        if op is None:
            continue
        ld = row_major_ld(op)
        why = []
        if ld is None:
            why.append(f"행 우선(row-major)이 아님 (strides {op.strides})")
        if label in vec:
            why += _vector_rules(op, ld)
        if label != "A" and kernel_N != N:
            why.append(f"N({N})이 4의 배수가 아니어서 0을 채워 넓힘(zero padding, {kernel_N}열)")
        if label != "C" and kernel_K != K:
            why.append(f"K({K})가 4의 배수가 아니어서 0을 채워 넓힘(zero padding, K를 {kernel_K}까지)")
        if why:
            staged.append(Staging(label, *shapes[label], reason=f"{label}: " + "; ".join(why)))
    return kernel_N, kernel_K, staged


def plan(spec: registry.KernelSpec, a: Operand, b: Operand, c: Operand | None,
         alpha=1.0, beta=0.0) -> LaunchPlan:
    """Check every rule of `spec`; return the launch plan (direct or staged) or raise KernelInputError."""
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
        if _elements_overlap(c):
            raise KernelInputError(
                f"C의 원소 여러 개가 같은 메모리를 가리킵니다 (strides {c.strides}): 결과를 쓸 수 없습니다. "
                f"C를 `cupy.empty(({M}, {N}), dtype=cupy.float32)`처럼 따로 만드세요."
            )
    ops = {"A": a, "B": b, "C": c}
    kernel_N, kernel_K, staged = _staging(spec, ops, M, N, K)
    staged_by_label = {s.label: s for s in staged}
    lds = {}
    for label in ("A", "B", "C"):
        if label in staged_by_label:
            lds[label] = staged_by_label[label].cols
        elif ops[label] is not None:
            lds[label] = row_major_ld(ops[label])
        else:
            lds[label] = kernel_N    # C allocated by the launcher: contiguous M x N
    if c is None and kernel_N != N:
        lds["C"] = kernel_N
        staged.append(Staging("C", M, kernel_N, reason=f"C: N({N})이 4의 배수가 아니어서 0을 채워 넓힘(zero padding, {kernel_N}열)"))
    check_int32(M, kernel_N, kernel_K, lds["A"], lds["B"], lds["C"])
    check_spans(spec, lds)
    grid = spec.grid(M, kernel_N)
    if not spec.dispatch:   # Level 7 lays out and checks its own grid (kernels/level7.py)
        check_grid(spec, grid)
    return LaunchPlan(M, N, K, lds["A"], lds["B"], lds["C"], grid, (*spec.block, 1), alpha, beta,
                      kernel_N=kernel_N, kernel_K=kernel_K, staged=tuple(staged), shared_mem=spec.dynamic_smem)


def check_int32(M: int, N: int, K: int, lda: int, ldb: int, ldc: int) -> None:
    """Every kernel takes M, N, K and the leading dimensions as 32-bit int arguments."""
    for label, value in (("M", M), ("N", N), ("K", K), ("lda", lda), ("ldb", ldb), ("ldc", ldc)):
        if value > registry.INT32_MAX:
            raise KernelInputError(
                f"{label} 값({value:,})이 32비트 정수(int32) 범위(최대 {registry.INT32_MAX:,})를 넘습니다: 커널은 크기와 "
                f"선행 차원(leading dimension)을 int 인자로 받습니다. 곱을 나누어 호출하세요(split the product).")


def check_spans(spec: registry.KernelSpec, lds: dict) -> None:
    """The offsets a kernel computes in 32-bit int (KernelSpec.int32_spans): rows x leading dimension."""
    for label, rows in spec.int32_spans:
        ld = lds[label]
        if rows * ld > registry.INT32_MAX:
            name = f"ld{label.lower()}"
            raise KernelInputError(
                f"Level {spec.level} 커널({spec.name})은 타일 안의 복사 주소를 32비트 정수(int32)로 계산하므로 "
                f"{rows}×{name}의 곱이 {registry.INT32_MAX:,} 이하여야 합니다 ({name} = {ld:,}, {rows}×{name} = {rows * ld:,}). "
                f"오프셋을 64비트로 계산하는 Level 7(sgemm_shape_aware)을 쓰거나, 곱을 나누어 호출하세요(split the product).")


def check_grid(spec: registry.KernelSpec, grid: tuple) -> None:
    """Grid limits (x up to 2^31 - 1, y and z up to 65,535) and 32-bit row and column indices inside the kernel."""
    x, y, z = grid
    rows, cols = spec.tile
    along_m, along_n = (x, y * z) if spec.grid_rows_from_x else (y * z, x)
    what = f"Level {spec.level} 커널({spec.name})의 그리드 {x:,}×{y:,}×{z:,}"
    if x > registry.GRID_X_MAX or y > registry.GRID_YZ_MAX or z > registry.GRID_YZ_MAX:
        raise KernelInputError(
            f"{with_particle(what, '가')} 한도(grid.x {registry.GRID_X_MAX:,}, grid.y·grid.z {registry.GRID_YZ_MAX:,})를 넘습니다. "
            f"곱을 나누어 호출하세요(split the product).")
    if x * y * z > registry.INT32_MAX or along_m * rows > registry.INT32_MAX or along_n * cols > registry.INT32_MAX:
        raise KernelInputError(
            f"{with_particle(what, '는')} 블록 번호나 행·열 번호가 32비트 정수(int32) 범위를 넘습니다 (블록 {x * y * z:,}개, "
            f"덮는 행 {along_m * rows:,}개, 열 {along_n * cols:,}개). 곱을 나누어 호출하세요(split the product).")


def memory_text(need: int, free: int) -> str:
    """Bytes needed and free, exact and in GiB (or MiB below 1 GiB)."""
    def size(b: int) -> str:
        return f"{b:,} B({b / 2**30:,.2f} GiB)" if b >= 2**30 else f"{b:,} B({b / 2**20:,.1f} MiB)"

    return f"{size(need)}가 필요하지만 GPU 여유 메모리(free)는 {size(free)}입니다"


def _check_memory(need: int, what: str) -> None:
    from kernels.device import free_memory_bytes

    free = free_memory_bytes()
    if need > free:
        raise KernelInputError(f"{what}에 {memory_text(need, free)}. 더 작은 크기로 실행하거나 곱을 나누어 "
                               f"호출하세요(split the product).")


class Launch:
    """A validated launch, ready to run any number of times: `launch()` computes C in place.

    On the staged path each call copies the awkward operands into their padded buffers, runs the
    kernel on those, and copies C back (C is read only when beta != 0). Unpacking gives the legacy
    5-tuple `kernel, grid, block, args, C`, where `kernel(grid, block, args)` does the same.
    """

    def __init__(self, name: str, p: LaunchPlan, kernel, A, B, C):
        import cupy

        self.name, self.plan, self.kernel, self.C = name, p, kernel, C
        self.grid, self.block = p.grid, p.block
        buffers = {"A": A, "B": B, "C": C}
        self._copy_in, self._copy_out = [], None
        for s in p.staged:
            user = buffers[s.label]
            # Zeros in the padding: padded k columns of A and rows of B then add nothing.
            padded = cupy.zeros((s.rows, s.cols), dtype=cupy.float32)
            inner = padded[:user.shape[0], :user.shape[1]]
            if s.label != "C" or p.beta != 0.0:
                self._copy_in.append((inner, user))
            if s.label == "C":
                self._copy_out = (user, inner)
            buffers[s.label] = padded
        self.args = (buffers["A"], buffers["B"], buffers["C"], np.int32(p.M), np.int32(p.kernel_N),
                     np.int32(p.kernel_K), np.int32(p.lda), np.int32(p.ldb), np.int32(p.ldc),
                     np.float32(p.alpha), np.float32(p.beta))

    @property
    def staged(self) -> tuple:
        """Labels of the staged operands (empty on the direct path)."""
        return self.plan.staged_operands

    def _run(self, grid, block, args) -> None:
        if float(args[9]) == 0.0:   # alpha = 0 (BLAS): C = beta * C, A and B never read
            scale_only(self.C, float(args[10]))
            return
        for dst, src in self._copy_in:
            dst[...] = src
        self.kernel(grid, block, args, shared_mem=self.plan.shared_mem)
        if self._copy_out is not None:
            dst, src = self._copy_out
            dst[...] = src

    def __call__(self):
        self._run(self.grid, self.block, self.args)
        return self.C

    def __iter__(self):
        direct = not self.plan.staged and not self.plan.shared_mem and self.plan.alpha != 0.0
        yield self.kernel if direct else self._run
        yield from (self.grid, self.block, self.args, self.C)


def scale_only(C, beta: float) -> None:
    """C = beta * C in place, through C's own view (any strides); beta = 0 writes zeros without reading C."""
    import cupy

    if beta == 0.0:
        C.fill(0.0)
    else:
        cupy.multiply(C, np.float32(beta), out=C)


def prepare(name: str, A, B, C=None, alpha: float = 1.0, beta: float = 0.0) -> Launch:
    """Validate, allocate C (and staging buffers) if needed, compile: returns a Launch.

    The launch shape is the active device's configuration (kernels/configs.py: this GPU's, or the one
    COURSE_DEVICE_PROFILE names); one that exceeds the device raises DeviceLimitError before anything runs.
    """
    spec = configs.spec_for(name)
    p = plan(spec, Operand.of(A, "A"), Operand.of(B, "B"), Operand.of(C, "C") if C is not None else None,
             alpha, beta)
    import cupy

    need = (p.M * p.N if C is None else 0) + sum(s.rows * s.cols for s in p.staged)
    if need:
        _check_memory(need * FLOAT_BYTES, f"C와 정렬용 복사본(staging, {p.M}×{p.N})")
    if spec.dispatch:   # tile, grid and companion kernels depend on the shape (Level 7: kernels/level7.py)
        if C is None:
            C = cupy.empty((p.M, p.N), dtype=cupy.float32)
        return importlib.import_module(f"kernels.{spec.dispatch}").prepare_launch(name, p, A, B, C)
    kernel = loader.get_kernel(name)   # compiled and checked against the device before any allocation
    if C is None:
        C = cupy.empty((p.M, p.N), dtype=cupy.float32)
    return Launch(name, p, kernel, A, B, C)


def run(name: str, A, B, C=None, alpha: float = 1.0, beta: float = 0.0):
    """C = alpha * A @ B + beta * C with the named course kernel. Returns C."""
    return prepare(name, A, B, C, alpha, beta)()
