"""Level 7: the dispatcher that gives every SGEMM shape the tile, ring and split-K count that suit it.

    from kernels import run
    run("sgemm_shape_aware", A, B, C, alpha, beta)      # as every level: the registry sends it here

    from kernels import level7
    level7.plan_for(128, 4096, 4096)                    # what it would launch (no GPU needed with limits=)

For each call: read the GPU's limits (kernels/devices.py; COURSE_DEVICE_PROFILE may name a listed GPU),
ask the cost model (kernels/level7_model.py) for the fastest (tile, split) that fits, compile that form
of sgemm_shape_aware.cu once per process (NVRTC through CuPy), and launch it, followed by the split-K
reduction when K was split. Operands are never staged for their size or alignment: edges are handled
inside the kernel, and B's rows that do not allow 16-byte copies take 4-byte ones. Only an operand that is
not row-major at all (a transposed view) is copied, as for every level (kernels/launch.py).

Results are deterministic: the same inputs and the same choice give bitwise the same C on every run (the
reduction adds the K slices in a fixed order; nothing uses float atomics).
"""
from __future__ import annotations

import dataclasses
import functools
import os
import tempfile

import numpy as np

from kernels import compiler, devices, launch, loader, registry
from kernels import level7_model as model
from kernels.errors import CompileError, KernelInputError
from korean_text import with_particle

FILE = "sgemm_shape_aware.cu"
NAME = "sgemm_shape_aware"
REDUCE = "shape_aware_reduce"
REDUCE_THREADS = 256
DEFAULT_TILE = model.TILES[0]     # the .cu file's macro defaults are this tile with its deepest ring
DEFAULTS = {"BM": 128, "BN": 256, "BK": 32, "WM": 64, "WN": 64, "TM": 8, "TN": 16, "STAGES": 4, "GROUP": 8,
            "B16": 1, "MIN_BLOCKS": 1, "ROTATE": 0}   # ROTATE: an experiment, never set by the dispatcher


# --------------------------------------------------------------------------- the registry's view

def largest_form(limits: devices.DeviceLimits) -> model.Candidate | None:
    """The biggest tile whose ring fits this GPU (what large squares run), or None when none fits."""
    for tile in model.TILES:
        cand = model.ring_for(tile, limits)
        if cand is not None:
            return cand
    return None


def device_spec(name: str, limits: devices.DeviceLimits) -> registry.KernelSpec:
    """The registry entry as `limits`' GPU compiles it for large shapes: its largest fitting form.

    kernels/configs.py shows and checks this form (`python -m kernels configs`); smaller tiles and
    split-K are chosen per shape at launch, from the same file, and need less shared memory."""
    spec = registry.get(name)
    cand = largest_form(limits)
    if cand is None:   # nothing fits: the default form is what the check then reports as too big
        return spec
    t = cand.tile
    return dataclasses.replace(
        spec, block=(t.threads, 1), tile=(t.BM, t.BN), dynamic_smem=cand.smem_bytes,
        config=tuple(sorted(macros(cand, True).items())),
        defines=tuple(sorted(defines(cand, True).items())))


# --------------------------------------------------------------------------- compiled forms

def macros(cand: model.Candidate, b16: bool) -> dict:
    """The L7_* values of one compiled form of the kernel."""
    t = cand.tile
    # __launch_bounds__(threads, resident): ptxas sizes the registers for the blocks per SM this GPU's ring
    # allows (the T4's 64 x 128 form: 3, since 64 KiB hold only three rings; asking for 4 there spills).
    return {"BM": t.BM, "BN": t.BN, "BK": cand.BK, "WM": t.WM, "WN": t.WN, "TM": t.TM, "TN": t.TN,
            "STAGES": cand.STAGES, "GROUP": DEFAULTS["GROUP"], "B16": int(b16), "MIN_BLOCKS": cand.resident}


def defines(cand: model.Candidate, b16: bool, knobs: dict | None = None) -> dict:
    """#defines for compiler.variant_source: only the knobs that differ from the file's defaults, so the
    default form is the file itself (one compile shared with the registry's SASS and resource checks).
    knobs: extra L7_* macros for experiments (tools/level7_experiments.py), e.g. {"ROTATE": 1}."""
    out = {f"L7_{k}": v for k, v in macros(cand, b16).items() if DEFAULTS[k] != v}
    out.update({f"L7_{k}": v for k, v in (knobs or {}).items()})
    return out


def source_for(cand: model.Candidate, b16: bool, knobs: dict | None = None) -> str:
    return compiler.variant_source(FILE, defines(cand, b16, knobs))


def kernels_for(cand: model.Candidate, b16: bool, ptx_arch: str | None = None, knobs: dict | None = None):
    """(GEMM kernel, reduction kernel) of one form, compiled for this GPU (once per process).

    ptx_arch='compute_75' compiles PTX for an older virtual architecture instead, which this GPU's driver
    translates: the path a T4 takes (no cp.async), run on any newer GPU for the tests.
    """
    if model.is_stream(cand):
        return stream_kernels(cand, b16, ptx_arch)
    if ptx_arch is not None:
        module = _ptx_module(source_for(cand, b16, knobs), ptx_arch)
        gemm, reduce = module.get_function(NAME), module.get_function(REDUCE)
        loader.allow_dynamic_smem(gemm, cand.smem_bytes)
        return gemm, reduce
    found = defines(cand, b16, knobs)
    return (loader.get_variant(FILE, NAME, found, cand.smem_bytes), loader.get_variant(FILE, REDUCE, found, 0))


STREAM_KERNELS = {"stream-B": "sgemm_stream_b", "stream-A": "sgemm_stream_a"}


def stream_defines(cand: model.Candidate, v4: bool) -> dict:
    """#defines of a streaming form: its bucket, the streamed operand's load width, its launch bounds."""
    t = cand.tile
    return {"L7S_ROWS": t.rows, "L7S_B16": int(v4), "L7S_MIN_BLOCKS": t.min_blocks}


def stream_kernels(cand: model.Candidate, v4: bool, ptx_arch: str | None = None):
    """(streaming kernel, reduction kernel) of one streaming form (static shared memory only)."""
    name, found = STREAM_KERNELS[cand.tile.name], stream_defines(cand, v4)
    if ptx_arch is not None:
        module = _ptx_module(compiler.variant_source(FILE, found), ptx_arch, name)
        return module.get_function(name), module.get_function(REDUCE)
    return (loader.get_variant(FILE, name, found, 0, threads=cand.tile.threads),
            loader.get_variant(FILE, REDUCE, found, 0, threads=REDUCE_THREADS))


@functools.lru_cache(maxsize=None)
def _ptx_module(text: str, arch: str, name: str = NAME):
    import cupy
    from cupy_backends.cuda.libs import nvrtc

    prog = nvrtc.createProgram(text, FILE, [], [])
    try:
        nvrtc.compileProgram(prog, [f"-arch={arch}", *compiler.NVRTC_OPTIONS, *compiler.AOT_EXTRA_OPTIONS])
        ptx = nvrtc.getPTX(prog)
    except nvrtc.NVRTCError as exc:
        raise CompileError(f"{FILE} ({arch}) 컴파일 실패(compile error):\n{nvrtc.getProgramLog(prog)}") from exc
    finally:
        nvrtc.destroyProgram(prog)
    with tempfile.NamedTemporaryFile("wb", suffix=".ptx", delete=False) as fh:
        fh.write(ptx if isinstance(ptx, bytes) else ptx.encode())
        path = fh.name
    try:
        module = cupy.RawModule(path=path)
        module.get_function(name)     # loads (and JIT-translates) the module while the file exists
    finally:
        os.unlink(path)
    return module


# --------------------------------------------------------------------------- the GPU the model sees

@functools.lru_cache(maxsize=None)
def _device_model(device_id: int, profile_name: str) -> tuple[devices.DeviceLimits, float]:
    if profile_name:
        limits = devices.profile(profile_name)
        return limits, model.dram_gbs(limits)
    limits = devices.current(device_id)
    return limits, _measured_bandwidth(device_id) or model.dram_gbs(limits)


def _measured_bandwidth(device_id: int) -> float | None:
    """DRAM bandwidth from the device's memory clock and bus width (2 transfers per clock), in GB/s."""
    import cupy

    rt = cupy.cuda.runtime
    try:
        clock_khz = rt.deviceGetAttribute(rt.cudaDevAttrMemoryClockRate, device_id)
        bus_bits = rt.deviceGetAttribute(rt.cudaDevAttrGlobalMemoryBusWidth, device_id)
    except Exception:
        return None
    return 2 * clock_khz * 1e3 * bus_bits / 8 / 1e9 if clock_khz and bus_bits else None


def device_model() -> tuple[devices.DeviceLimits, float]:
    """(limits, DRAM GB/s) of this GPU, or of the listed GPU named by COURSE_DEVICE_PROFILE."""
    import cupy

    return _device_model(cupy.cuda.Device().id, os.environ.get(devices.PROFILE_ENV, "").strip())


def plan_for(M: int, N: int, K: int, limits: devices.DeviceLimits | None = None,
             bandwidth_gbs: float | None = None) -> model.Prediction:
    """The model's choice for an M x N x K SGEMM on `limits` (default: this GPU)."""
    if limits is None:
        limits, bandwidth_gbs = device_model()
    try:
        return model.choose(M, N, K, limits, bandwidth_gbs)
    except ValueError:
        cands = model.candidates(limits)
        if cands:   # tiles that fit the GPU, but not this shape's grid
            raise KernelInputError(grid_problem(M, N, cands[0], 1) or f"{M}×{N}×{K}: Level 7의 그리드 한도") from None
        raise KernelInputError(
            f"{limits.name}에는 Level 7의 어떤 구성(configuration)도 맞지 않습니다: 공유 메모리(shared memory)나 "
            f"스레드 수가 부족합니다. Level 6 이하의 커널을 쓰세요."
        ) from None


# --------------------------------------------------------------------------- a (tile, split) forced by hand

def grid_problem(M: int, N: int, cand: model.Candidate, split: int) -> str | None:
    """Why (M, N) in this tile with `split` slices cannot be launched (grid and 32-bit index limits), or None."""
    t = cand.tile
    tiles_m, tiles_n = model.cdiv(M, t.BM), model.cdiv(N, t.BN)
    limit = model.grid_limit(M, N, cand, split)
    if limit == "split":
        return (f"{with_particle(f'split {split:,}', '은')} 그리드 z 크기(grid.z)의 한도 "
                f"{with_particle(f'{model.GRID_YZ_MAX:,}', '를')} 넘습니다: K 조각(K slice) 하나가 z의 한 칸입니다.")
    if limit == "tiles":
        return (f"{t.name} 타일로는 타일이 {tiles_m:,}×{tiles_n:,} = {tiles_m * tiles_n:,}개라 그리드 x 크기(grid.x)의 한도 "
                f"{with_particle(f'{model.GRID_X_MAX:,}', '를')} 넘습니다. 곱을 나누어 호출하세요(split the product).")
    if limit == "index":
        return (f"{M:,}×{N:,}의 C를 {t.name} 타일로 덮으면 행·열 번호가 32비트 정수(int32) 범위를 넘습니다. "
                f"곱을 나누어 호출하세요(split the product).")
    return None


def valid_splits(K: int, cand: model.Candidate, limit: int = model.GRID_YZ_MAX) -> list[int]:
    """Every split that cuts K into exactly that many slices of whole K tiles (BK deep), up to `limit`."""
    tiles = model.cdiv(K, cand.BK)
    return [s for s in range(1, min(tiles, limit) + 1) if model.slices(K, cand.BK, s)[1] == s]


def forced_problem(M: int, N: int, K: int, cand: model.Candidate, split, free_bytes: int | None = None) -> str | None:
    """Why a (tile, split) forced by hand cannot run, in Korean, or None when it can.

    The same hard rules as the dispatcher's (model.allowed): the grid's limits, a split that cuts K into exactly
    `split` slices (so split <= K), 32-bit indices, and a workspace the GPU can hold (`free_bytes`, when given).
    Not its speed preferences: a slice shallower than model.MIN_SLICE_K or a workspace above
    model.WORKSPACE_LIMIT_BYTES is allowed here, so that tests and the tuner reach every path."""
    if isinstance(split, bool) or not isinstance(split, (int, np.integer)) or split < 1:
        return f"K 조각 수(split)는 1 이상의 정수여야 합니다 (받은 값: {split!r})."
    split = int(split)
    problem = grid_problem(M, N, cand, split)
    if problem:
        return problem
    if split > K:
        return (f"K 조각 수(split, {split:,})가 K({K:,})보다 큽니다 (split > K): 조각마다 k가 하나 이상 있어야 합니다. "
                f"split을 K 이하로, 조각이 꼭 split개 생기는 값으로 고르세요.")
    k_per_split, made = model.slices(K, cand.BK, split)
    if made != split:
        ok = valid_splits(K, cand, limit=min(split, model.GRID_YZ_MAX))
        return (f"{with_particle(f'K = {K:,}', '를')} {cand.tile.name} 타일의 K 타일(BK {cand.BK}) 단위로 {split}조각 내면 "
                f"{made}조각만 생깁니다 (K slice). 조각이 꼭 split개 생기는 값을 고르세요: "
                f"{', '.join(map(str, ok[-6:]))} 등.")
    if split > 1:
        ldp = model.workspace_ld(N)
        need = model.workspace_bytes(M, N, split)
        if ldp > model.INT32_MAX or model.cdiv(M * ldp // 4, REDUCE_THREADS) > model.GRID_X_MAX:
            return (f"split-K 작업 공간(workspace)의 크기({split}×{M:,}×{ldp:,})가 32비트 정수(int32)나 리덕션 그리드의 "
                    f"한도를 넘습니다. split=1로 실행하세요.")
        if free_bytes is not None and need > free_bytes:
            return (f"split-K 작업 공간(workspace, {split}×{M:,}×{ldp:,} floats)에 {launch.memory_text(need, free_bytes)}. "
                    f"split을 줄이세요.")
    return None


def stream_form(M: int, N: int, name: str, limits: devices.DeviceLimits) -> model.Candidate:
    """The streaming form forced by hand, or a Korean KernelInputError saying why it cannot take this shape."""
    side, value = ("M", M) if name == "stream-B" else ("N", N)
    if value > model.STREAM_MAX:
        streamed = "B" if name == "stream-B" else "A"
        raise KernelInputError(
            f"{name} 경로(streaming path)는 {side}가 {model.STREAM_MAX} 이하일 때만 씁니다 ({side} = {value:,}): "
            f"{streamed}를 한 번 읽어 흘려보내며(stream) 작은 쪽 {side}개를 레지스터에 누적합니다. 타일(tile)을 고르세요.")
    cand = model.stream_candidate(name, M, N, limits)
    if cand is None:
        raise KernelInputError(f"{name} 경로는 {limits.name}에 맞지 않습니다 (shared memory, registers).")
    return cand


def forced(M: int, N: int, K: int, tile: str, split: int, limits: devices.DeviceLimits | None = None,
           bandwidth_gbs: float | None = None, free_bytes: int | None = None) -> model.Prediction:
    """The model's account of a (tile, split) chosen by hand (tests and the tuner try every one), after the
    checks of forced_problem: a Korean KernelInputError before anything is allocated or launched."""
    if limits is None:
        limits, bandwidth_gbs = device_model()
    if tile in model.STREAM_NAMES:
        cand = stream_form(M, N, tile, limits)
    elif tile not in model.TILE_BY_NAME:
        raise KernelInputError(f"Level 7에는 {tile!r} 타일이 없습니다 (tile). 있는 타일: "
                               f"{', '.join((*model.TILE_BY_NAME, *model.STREAM_NAMES))}")
    else:
        cand = model.ring_for(model.TILE_BY_NAME[tile], limits)
    if cand is None:
        raise KernelInputError(f"{tile} 타일은 {limits.name}에 맞지 않습니다 (shared memory).")
    problem = forced_problem(M, N, K, cand, split, free_bytes)
    if problem:
        raise KernelInputError(problem)
    return model.predict(M, N, K, cand, int(split), limits, bandwidth_gbs)


# --------------------------------------------------------------------------- launching

def b_rows_allow_16(ptr: int, ldb: int) -> bool:
    """16-byte copies of B need every row to start on a 16-byte boundary: aligned pointer, ldb % 4 == 0."""
    return ptr % 16 == 0 and ldb % 4 == 0


class ShapeAwareLaunch(launch.Launch):
    """A Level 7 launch: the chosen form of the kernel over grid (tiles_n, tiles_m, split), then, when K is
    split, the reduction of the partial tiles into C. Runs and unpacks like every other launch."""

    def __init__(self, name: str, p: launch.LaunchPlan, A, B, C, choice: model.Prediction,
                 b16: bool | None = None, ptx_arch: str | None = None, knobs: dict | None = None):
        import cupy

        cand, split = choice.candidate, choice.split
        problem = grid_problem(p.M, p.N, cand, split)
        if problem:
            raise KernelInputError(problem)
        p = dataclasses.replace(p, grid=model.grid(choice.tiles_m, choice.tiles_n, split),
                                block=(cand.tile.threads, 1, 1), shared_mem=self._dynamic_smem(cand))
        need = model.workspace_bytes(p.M, p.N, split)
        if need:   # before the staging copies, the compile and the workspace are made
            launch._check_memory(need, f"split-K 작업 공간(workspace, {split}×{p.M:,}×{model.workspace_ld(p.N):,} floats)")
        super().__init__(name, p, self._gemm_then_reduce, A, B, C)
        label, index, ld = self._wide_operand(cand)
        aligned = b_rows_allow_16(int(self.args[index].data.ptr), ld)
        if b16 and not aligned:
            raise KernelInputError(f"{label}의 행이 16바이트 정렬(16-byte aligned)이 아니어서 16바이트 복사를 쓸 수 없습니다.")
        self.choice, self.split = choice, split
        self.b16 = aligned if b16 is None else bool(b16)
        self.gemm, self.reduce = kernels_for(cand, self.b16, ptx_arch, knobs)
        self.ldp = np.int32(model.workspace_ld(p.N))
        self.workspace = cupy.empty(need // model.FLOAT, dtype=cupy.float32) if need else None

    def _dynamic_smem(self, cand: model.Candidate) -> int:
        return cand.smem_bytes

    def _wide_operand(self, cand: model.Candidate) -> tuple[str, int, int]:
        """(label, index in args, leading dimension) of the operand whose rows b16 is about: B's copies."""
        return "B", 1, self.plan.ldb

    def _gemm_then_reduce(self, grid, block, args, shared_mem: int = 0) -> None:
        self._gemm(grid, block, args, shared_mem)
        if self.split > 1:
            self._reduce(args)

    def _gemm(self, grid, block, args, shared_mem: int) -> None:
        A, B, C, M, N, K, lda, ldb, ldc, alpha, beta = args
        partials = self.workspace if self.workspace is not None else C   # unused with one slice
        self.gemm(grid, block, (A, B, C, M, N, K, lda, ldb, ldc, alpha, beta, partials, self.ldp,
                                np.int32(self.choice.k_per_split)), shared_mem=shared_mem)

    def _reduce(self, args) -> None:
        _, _, C, M, N, _, _, _, ldc, alpha, beta = args
        groups = int(M) * int(self.ldp) // 4
        self.reduce((model.cdiv(groups, REDUCE_THREADS), 1, 1), (REDUCE_THREADS, 1, 1),
                    (self.workspace, C, M, N, self.ldp, ldc, np.int32(self.split), alpha, beta))

    def parts(self):
        """(GEMM alone, reduction alone or None) as callables on this launch's buffers, for timing each
        term of the cost model (the tuner). Staging copies, if any, are not part of either."""
        gemm = lambda: self._gemm(self.grid, self.block, self.args, self.plan.shared_mem)  # noqa: E731
        return gemm, ((lambda: self._reduce(self.args)) if self.split > 1 else None)

    def describe(self) -> dict:
        """What was chosen and why, for records and tables."""
        c, p = self.choice.candidate, self.choice
        return {"tile": c.tile.name, "BK": c.BK, "STAGES": c.STAGES, "resident": c.resident, "split": p.split,
                "k_per_split": p.k_per_split, "blocks": p.blocks, "waves": p.waves, "b16": self.b16,
                "predicted_us": p.total_us, "staged": list(self.staged)}


class StreamLaunch(ShapeAwareLaunch):
    """A launch of the streaming path (M <= 16: stream-B, N <= 16: stream-A): grid (column strips or row
    groups, 1, split), static shared memory only, and b16 about the streamed operand's rows (B or A) taking
    16-byte loads. The split-K reduction, the workspace and the timing parts are the tile path's."""

    def _dynamic_smem(self, cand: model.Candidate) -> int:
        return 0

    def _wide_operand(self, cand: model.Candidate) -> tuple[str, int, int]:
        if cand.tile.name == "stream-A":
            return "A", 0, self.plan.lda
        return "B", 1, self.plan.ldb

    def describe(self) -> dict:
        out = super().describe()
        out.update(rows=self.choice.candidate.tile.rows, moved_bytes=self.choice.moved_bytes)
        return out


def launch_class(choice: model.Prediction) -> type:
    return StreamLaunch if choice.is_stream else ShapeAwareLaunch


def prepare_launch(name: str, p: launch.LaunchPlan, A, B, C) -> ShapeAwareLaunch:
    """The registry's dispatch hook (launch.prepare): a validated plan in, the shape's launch out."""
    choice = plan_for(p.M, p.N, p.K)
    return launch_class(choice)(name, p, A, B, C, choice)


def prepare(A, B, C=None, alpha: float = 1.0, beta: float = 0.0, *, tile: str | None = None,
            split: int | None = None, b16: bool | None = None, ptx_arch: str | None = None,
            knobs: dict | None = None) -> ShapeAwareLaunch:
    """As launch.prepare("sgemm_shape_aware", ...), optionally with the tile, split, B copy width or a PTX
    architecture forced (so that tests and the tuner reach every path the dispatcher can take), or with
    experimental knobs (extra L7_* macros). A forced (tile, split) is checked as the dispatcher checks its own
    (forced_problem: grid limits, split against K, the workspace against free GPU memory) and refused with a
    Korean KernelInputError before anything is allocated, compiled or launched."""
    import cupy

    from kernels.device import free_memory_bytes

    spec = registry.get(NAME)
    ops = [launch.Operand.of(A, "A"), launch.Operand.of(B, "B"), launch.Operand.of(C, "C") if C is not None else None]
    p = launch.plan(spec, *ops, alpha, beta)
    if tile is None and split is None:
        choice = plan_for(p.M, p.N, p.K)
    else:
        default_tile = tile or plan_for(p.M, p.N, p.K).candidate.tile.name
        choice = forced(p.M, p.N, p.K, default_tile, 1 if split is None else split, free_bytes=free_memory_bytes())
    need = (p.M * p.N if C is None else 0) + sum(s.rows * s.cols for s in p.staged)
    if need:
        launch._check_memory(need * model.FLOAT, f"C와 정렬용 복사본(staging, {p.M:,}×{p.N:,})")
    if C is None:
        C = cupy.empty((p.M, p.N), dtype=cupy.float32)
    return launch_class(choice)(NAME, p, A, B, C, choice, b16=b16, ptx_arch=ptx_arch, knobs=knobs)


def run(A, B, C=None, alpha: float = 1.0, beta: float = 0.0, **force):
    """C = alpha * A @ B + beta * C with Level 7 (keyword arguments as in prepare). Returns C."""
    return prepare(A, B, C, alpha, beta, **force)()
