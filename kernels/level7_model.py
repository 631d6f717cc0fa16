"""Level 7's cost model: which block tile, ring and split-K count suit a shape on a GPU.

Pure arithmetic, no GPU and no CuPy: kernels/level7.py runs it before every launch, and the module-12
simulator can run it for any shape a learner types. The rule, in five lines:

    blocks = ceil(M / BM) x ceil(N / BN) x split           (split = how many K slices)
    waves  = ceil(blocks / (resident blocks per SM x SMs)) (rounds of blocks the busiest SM runs)
    round  = overhead + ring fill + c x 2 BM BN (K / split) x narrow / (SM peak x efficiency x hiding(c) x depth x last)
    time   = launch + the rounds                                              the GEMM
           + (split > 1) x (launch + 2 x split x M x N x 4 bytes / bandwidth) the reduction

A round lasts as long as its busiest SM: with one resident block per SM a partly full wave costs a whole
round, which is why 64 large tiles on 132 SMs (1024^3) or 160 blocks (M = 513) waste so much; with several
blocks per SM the busiest SM runs c of its slots and the round costs that share (through c). Within a round, c blocks share an SM: with fewer warps in flight it
hides latency worse (hiding(c) = w / (w + HIDING_WARPS) for w = c x warps per block, relative to a full SM),
and the last wave ends with its slowest block (last = LAST_WAVE, 1 for the other waves). A smaller tile
makes more blocks but does less work per byte it loads (a lower efficiency); splitting K makes more blocks
without shrinking the tile but adds the reduction's traffic. Two smaller terms: when B's rows do not allow
16-byte copies (N not a multiple of 4), the main loop issues four times as many copies of B and runs `narrow`
times longer (per tile); and the ring. A ring holds STAGES x BK rows of K: filling it before the first FFMA
costs RING_FILL_US per row, every round (ring fill), while a deeper ring keeps more loads in flight
(depth = d / (d + RING_HALF_K) for d = STAGES x BK, relative to the tile's deepest ring). With
RINGS_PER_SHAPE the ring is chosen per shape like the tile and the split (among the rings that keep as many
blocks per SM), a shallow one where slices are short. The model weighs exactly these, with rates
measured on the H100 (tools/tune_level7.py -> book/data/level7_tuning.json; CALIBRATION carries the fit).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from kernels.device import fp32_lanes
from kernels.devices import DeviceLimits, occupancy
# The tiles lie along grid x (any M and N), the K slices along z: the grid's limits are the registry's.
from kernels.registry import GRID_X_MAX, GRID_YZ_MAX, INT32_MAX

FLOAT = 4
REGISTERS_PER_SM = 65536
MAX_REGISTERS = 255


@dataclass(frozen=True)
class Tile:
    """One block tile of sgemm_shape_aware.cu and the ring depths it may use."""

    name: str
    BM: int
    BN: int
    WM: int                    # warp tile
    WN: int
    TM: int                    # thread tile
    TN: int
    min_blocks: int            # blocks per SM its registers are budgeted for (__launch_bounds__)
    rings: tuple               # (BK, STAGES) options, most preferred first

    @property
    def threads(self) -> int:
        return 32 * (self.BM // self.WM) * (self.BN // self.WN)

    @property
    def register_cap(self) -> int:
        """Registers per thread ptxas may use: __launch_bounds__(threads, min_blocks) guarantees it."""
        return min(MAX_REGISTERS, REGISTERS_PER_SM // (self.threads * self.min_blocks))

    def smem_bytes(self, bk: int, stages: int) -> int:
        """The ring: STAGES x BK x (BM + 4 + BN) floats (A transposed with a +4 pitch, B as it is)."""
        return stages * bk * (self.BM + 4 + self.BN) * FLOAT


# [region: tiles]
# Level 6's tile for large shapes; a quarter as many rows and columns per block makes two (128 x 128)
# or four (64 x 128) blocks share an SM, for shapes with few tiles. Rings deepest first: a GPU with
# less shared memory takes the first ring that still lets min_blocks blocks share an SM.
TILES = (
    Tile("128x256", 128, 256, 64, 64, 8, 16, 1, ((32, 4), (32, 3), (16, 4), (16, 3), (8, 3))),
    Tile("128x128", 128, 128, 32, 64, 8, 8, 2, ((32, 3), (16, 4), (16, 3), (8, 3))),
    Tile("64x128", 64, 128, 32, 64, 8, 8, 4, ((16, 4), (16, 3), (8, 3))),
)
# [end-region: tiles]
TILE_BY_NAME = {t.name: t for t in TILES}


@dataclass(frozen=True)
class Rate:
    """A tile's measured speed: the share of an SM's FP32 peak it reaches while the SM holds as many of its
    blocks as fit, and what a round of blocks spends outside the main loop (filling the ring before the first
    FFMA, storing the tile after the last)."""

    efficiency: float
    overhead_us: float
    narrow_b: float = 1.0      # the main loop's time x this when B's rows take 4-byte copies


# [region: calibration]
# Fitted by tools/tune_level7.py on the H100 (book/data/level7_tuning.json "fit", refitted to the same rows when
# the copy-width term was added: its "refit"; a CPU test checks that these are the recorded values). For other GPUs the model assumes the same shares of their own FP32 peak:
# an assumption, never measured there (a T4 has no cp.async and runs the synchronous-copy fallback).
CALIBRATION = {
    "128x256": Rate(efficiency=0.8057, overhead_us=7.168, narrow_b=1.0946),
    "128x128": Rate(efficiency=0.7510, overhead_us=1.617, narrow_b=1.0490),
    "64x128": Rate(efficiency=0.7512, overhead_us=0.102, narrow_b=1.0919),
}
HIDING_WARPS = 0.75          # warps in flight at which an SM hides half of what a full SM hides
LAST_WAVE = 0.945            # the last wave waits for its slowest block: it runs at this share of the rate
LAUNCH_US = 12.84            # the GEMM kernel's fixed cost: launch, first loads from DRAM
REDUCE_LAUNCH_US = 0.0       # the reduction kernel's (too small to tell apart from the GEMM's)
WORKSPACE_BANDWIDTH = 1.449  # the partial tiles move at this multiple of DRAM bandwidth (much of them in L2)
RING_FILL_US = 0.0           # per round, per row of K the ring holds (STAGES x BK): filling it before the first FFMA
RING_HALF_K = 0.0            # rows of K in flight at which a ring keeps half the loads in flight a deep one does
RINGS_PER_SHAPE = False      # choose the ring per shape (only once a sweep measured every ring: tune_level7.py)
# [end-region: calibration]

# The shapes people multiply: squares, LLM layers (4096 x 11008, batch 128), a short and a long
# K, an M one past a tile, sizes one off a power of two, and a plain odd size. M x N x K.
ZOO = ((1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (4096, 11008, 4096),
       (4096, 4096, 11008), (8192, 8192, 1024), (1024, 1024, 16384), (513, 8192, 8192), (128, 4096, 4096),
       (4095, 4097, 4099), (3000, 5000, 2000))
SQUARES = tuple(s for s in ZOO if s[0] == s[1] == s[2])

# Shapes the model is judged on but never fitted to, chosen before any tuning against them (M x N x K):
# LLM decode and prefill (M = 1, 8, 16, 64, 512 tokens) through the 4096-, 11008- and 14336-wide layers in
# both orientations (up: K 4096 -> N wide; down: K wide -> N 4096); the same layers with the tokens on N
# (weights on the left); tall and wide; odd sizes; small; long K. Nothing tuned may read this list.
HELDOUT = tuple((m, n, k) for m in (1, 8, 16, 64, 512)
                for n, k in ((11008, 4096), (4096, 11008), (14336, 4096), (4096, 14336))) + (
    (1, 4096, 4096), (4096, 8, 11008), (11008, 16, 4096), (14336, 1, 4096), (4096, 64, 4096),
    (65536, 256, 1024), (256, 65536, 1024), (1000, 3001, 777), (5119, 2053, 3071),
    (256, 256, 256), (384, 640, 512), (256, 256, 65536), (64, 4096, 32768))

SPLITS = (1, 2, 3, 4, 6, 8, 12, 16)   # K slices the dispatcher considers
MIN_SLICE_K = 128                     # a shorter slice spends more time filling the ring than computing
WORKSPACE_LIMIT_BYTES = 256 * 2**20   # partial tiles of all slices together

# Published DRAM bandwidth (GB/s) of the listed GPUs; by compute capability for others.
DRAM_GBS = {"T4": 320, "RTX3090": 936, "A10G": 600, "L4": 300, "RTX4090": 1008, "A100-40GB": 1555,
            "A100-80GB": 2039, "H100": 3350, "H200": 4800}
DRAM_GBS_BY_CC = {(7, 5): 320, (8, 0): 1555, (8, 6): 600, (8, 9): 300, (9, 0): 3350}


def dram_gbs(limits: DeviceLimits) -> float:
    if limits.name in DRAM_GBS:
        return float(DRAM_GBS[limits.name])
    return float(DRAM_GBS_BY_CC.get(limits.cc, 500))


def sm_peak_gflops(limits: DeviceLimits) -> float:
    """FP32 peak of one SM: lanes x clock x 2 FLOP per FMA."""
    return fp32_lanes(limits.cc) * limits.clock_mhz * 2 / 1e3


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class Candidate:
    """A tile with the ring it gets on one GPU and the blocks per SM that ring allows."""

    tile: Tile
    BK: int
    STAGES: int
    resident: int

    @property
    def name(self) -> str:
        return f"{self.tile.name} BK{self.BK}x{self.STAGES}"

    @property
    def smem_bytes(self) -> int:
        return self.tile.smem_bytes(self.BK, self.STAGES)

    @property
    def register_cap(self) -> int:
        """Registers per thread that still let `resident` blocks share an SM (the kernel's launch bounds)."""
        return min(MAX_REGISTERS, REGISTERS_PER_SM // (self.tile.threads * self.resident))


def ring_for(tile: Tile, limits: DeviceLimits, registers: int | None = None) -> Candidate | None:
    """The first ring that lets the most blocks (up to tile.min_blocks) share an SM of this GPU.

    registers: per thread as ptxas allocated them (from a cubin); default: the launch-bounds cap.
    None when no ring fits at all (more shared memory or threads than one block may have).
    """
    regs = registers if registers is not None else tile.register_cap
    best = None
    for bk, stages in tile.rings:
        resident = min(occupancy(limits, tile.threads, regs, tile.smem_bytes(bk, stages))["blocks_per_sm"],
                       tile.min_blocks)
        if resident and (best is None or resident > best.resident):
            best = Candidate(tile, bk, stages, resident)
    return best


def candidates(limits: DeviceLimits) -> list[Candidate]:
    """Every tile that fits this GPU, with its ring."""
    return [c for c in (ring_for(t, limits) for t in TILES) if c is not None]


def ring_candidates(limits: DeviceLimits) -> list[Candidate]:
    """Every tile that fits this GPU with every ring that keeps as many blocks per SM as its own ring (ring_for),
    deepest first: the rings a shape may choose among (the launch bounds stay those of ring_for's form)."""
    out = []
    for t in TILES:
        best = ring_for(t, limits)
        if best is None:
            continue
        for bk, stages in t.rings:
            blocks = occupancy(limits, t.threads, t.register_cap, t.smem_bytes(bk, stages))["blocks_per_sm"]
            if min(blocks, t.min_blocks) >= best.resident:
                out.append(Candidate(t, bk, stages, best.resident))
    return out


def ring_depth(cand: Candidate) -> int:
    """Rows of K the ring holds: STAGES x BK."""
    return cand.STAGES * cand.BK


def depth_speed(cand: Candidate, ring_half_k: float = RING_HALF_K) -> float:
    """How well this ring keeps loads in flight, relative to the tile's deepest ring (1 with RING_HALF_K = 0)."""
    deepest = max(bk * stages for bk, stages in cand.tile.rings)

    def share(d: int) -> float:
        return d / (d + ring_half_k)

    return share(ring_depth(cand)) / share(deepest)


@dataclass(frozen=True)
class Prediction:
    """The model's account of one (tile, split) for one shape: every term a learner can check."""

    candidate: Candidate
    split: int
    k_per_split: int
    tiles_m: int
    tiles_n: int
    blocks: int
    slots: int            # blocks that run at once: resident x SMs
    rounds: tuple         # blocks the busiest SM holds together, round by round (len = waves)
    block_flops: float    # 2 x BM x BN x k_per_split
    gemm_us: float
    reduce_us: float      # the reduction: its launch and the partial tiles' traffic (0 without a split)
    total_us: float
    flops: float
    moved_bytes: float = 0.0   # the streaming path's DRAM bytes (operands, then C or the partial sums); 0 for tiles

    @property
    def is_stream(self) -> bool:
        return is_stream(self.candidate)

    @property
    def waves(self) -> int:
        return len(self.rounds)

    @property
    def wave_fill(self) -> float:
        """Share of the SM slots that hold a block, averaged over the waves."""
        return self.blocks / (self.waves * self.slots)

    @property
    def tile_fill(self) -> float:
        """Share of the computed tile area that lies inside C (edge tiles compute wasted rows/columns)."""
        return self.flops / (self.block_flops * self.blocks)

    @property
    def gflops(self) -> float:
        return self.flops / (self.total_us * 1e3)


def slices(K: int, bk: int, split: int) -> tuple[int, int]:
    """(k_per_split, slices that exist): slices are whole K tiles deep; the last one may be shorter."""
    k_per_split = cdiv(cdiv(K, bk), split) * bk
    return k_per_split, cdiv(K, k_per_split)


# [region: predict]
def rounds(blocks: int, resident: int, sms: int) -> tuple:
    """How many blocks the busiest SM holds at once, round by round. The GPU hands blocks out one per SM
    first, so that SM gets ceil(blocks / SMs) in all, `resident` at a time."""
    per_sm = cdiv(blocks, sms)
    full, last = divmod(per_sm, resident)
    return (resident,) * full + ((last,) if last else ())


def hiding(c: int, cand: Candidate, hiding_warps: float = HIDING_WARPS) -> float:
    """How well c blocks on an SM hide latency, relative to the `resident` blocks of a full SM."""
    warps = cand.tile.threads // 32

    def share(w: int) -> float:
        return w / (w + hiding_warps)

    return share(c * warps) / share(cand.resident * warps)


def predict(M: int, N: int, K: int, cand: Candidate, split: int, limits: DeviceLimits,
            bandwidth_gbs: float | None = None, calibration: dict | None = None, launch_us: float = LAUNCH_US,
            reduce_launch_us: float = REDUCE_LAUNCH_US, workspace_bandwidth: float = WORKSPACE_BANDWIDTH,
            hiding_warps: float = HIDING_WARPS, last_wave: float = LAST_WAVE, ring_fill_us: float = RING_FILL_US,
            ring_half_k: float = RING_HALF_K, b16: bool | None = None) -> Prediction:
    """Predicted time of one launch (and its reduction) of `cand` cut into `split` K slices.

    b16: whether B's rows allow 16-byte copies; None: as for a contiguous B (N a multiple of 4).
    A streaming form (stream-B, stream-A) is predicted by predict_stream."""
    if is_stream(cand):
        return predict_stream(M, N, K, cand, split, limits, bandwidth_gbs, reduce_launch_us=reduce_launch_us,
                              workspace_bandwidth=workspace_bandwidth)
    tile, rate = cand.tile, (calibration or CALIBRATION)[cand.tile.name]
    narrow = 1.0 if (N % 4 == 0 if b16 is None else b16) else rate.narrow_b
    depth = depth_speed(cand, ring_half_k)
    k_per_split, split = slices(K, cand.BK, split)
    tiles_m, tiles_n = cdiv(M, tile.BM), cdiv(N, tile.BN)
    blocks = tiles_m * tiles_n * split
    per_round = rounds(blocks, cand.resident, limits.sm_count)
    block_flops = 2.0 * tile.BM * tile.BN * k_per_split
    gemm_us = launch_us
    for i, c in enumerate(per_round):
        last = last_wave if i == len(per_round) - 1 else 1.0
        speed = rate.efficiency * hiding(c, cand, hiding_warps) * depth * last
        gemm_us += (rate.overhead_us + ring_fill_us * ring_depth(cand)
                    + c * block_flops * narrow / (speed * sm_peak_gflops(limits) * 1e3))
    reduce_us = 0.0
    if split > 1:
        bandwidth = (bandwidth_gbs or dram_gbs(limits)) * workspace_bandwidth
        reduce_us = reduce_launch_us + workspace_traffic(M, N, split) / (bandwidth * 1e3)
    return Prediction(cand, split, k_per_split, tiles_m, tiles_n, blocks, cand.resident * limits.sm_count,
                      per_round, block_flops, gemm_us, reduce_us, gemm_us + reduce_us, 2.0 * M * N * K)


def workspace_traffic(M: int, N: int, split: int) -> float:
    """Bytes the split adds: every slice's partial tile written by the GEMM and read back by the reduction."""
    return 2.0 * split * M * workspace_ld(N) * FLOAT
# [end-region: predict]


def workspace_ld(N: int) -> int:
    """Leading dimension of a workspace slab: N rounded up to 4, so every partial row is float4-aligned."""
    return cdiv(N, 4) * 4


def workspace_bytes(M: int, N: int, split: int) -> int:
    return split * M * workspace_ld(N) * FLOAT if split > 1 else 0


def grid(tiles_m: int, tiles_n: int, split: int) -> tuple[int, int, int]:
    """The launch grid: every tile along x (swizzled inside the kernel), the K slices along z."""
    return (tiles_m * tiles_n, 1, split)


def grid_limit(M: int, N: int, cand: Candidate, split: int) -> str | None:
    """The grid limit this (tile, split) breaks, or None: "split" (z holds 1 .. 65,535 slices), "tiles" (x holds
    2^31 - 1 tiles) or "index" (the kernel's tile row and column indices are 32-bit)."""
    tiles_m, tiles_n = cdiv(M, cand.tile.BM), cdiv(N, cand.tile.BN)
    if not 1 <= split <= GRID_YZ_MAX:
        return "split"
    if tiles_m * tiles_n > GRID_X_MAX:
        return "tiles"
    if tiles_m * cand.tile.BM > INT32_MAX or tiles_n * cand.tile.BN > INT32_MAX:
        return "index"
    return None


def grid_fits(M: int, N: int, cand: Candidate, split: int) -> bool:
    return grid_limit(M, N, cand, split) is None


def allowed(M: int, N: int, K: int, cand: Candidate, split: int) -> bool:
    """Whether the dispatcher may launch this (tile, split): grid limits, slice depth, workspace size."""
    if not grid_fits(M, N, cand, split):
        return False
    if split == 1:
        return True
    k_per_split, slices_made = slices(K, cand.BK, split)
    return (slices_made == split and k_per_split >= MIN_SLICE_K
            and workspace_bytes(M, N, split) <= WORKSPACE_LIMIT_BYTES)


def predictions(M: int, N: int, K: int, limits: DeviceLimits, bandwidth_gbs: float | None = None,
                cands: list[Candidate] | None = None, every_ring: bool = False, **model) -> list[Prediction]:
    """Every allowed (tile, split) for this shape, fastest first (ties: fewer slices, larger tile, deeper ring).

    With RINGS_PER_SHAPE each (tile, split) comes with its fastest ring; every_ring=True keeps every ring of it (no caller
    in the tools needs that: tools/tune_level7.py chooses the rings it times itself)."""
    if cands is None:
        cands = ring_candidates(limits) if RINGS_PER_SHAPE or every_ring else candidates(limits)
        cands = cands + stream_candidates(M, N, limits)   # M <= 16 or N <= 16: the streaming path too
    out = [predict(M, N, K, c, s, limits, bandwidth_gbs, **model)
           for c in cands for s in SPLITS if allowed(M, N, K, c, s)]
    out.sort(key=_tie_order)
    if every_ring:
        return out
    fastest: dict = {}
    for p in out:
        fastest.setdefault((p.candidate.tile.name, p.split), p)
    return list(fastest.values())


def _tie_order(p: Prediction) -> tuple:
    """Fastest first; ties: fewer slices, larger tile, deeper ring."""
    t, ring = p.candidate.tile, (p.candidate.BK, p.candidate.STAGES)
    order = TILES.index(t) if t in TILES else len(TILES) + STREAM_NAMES.index(t.name)
    return (round(p.total_us, 6), p.split, order, t.rings.index(ring) if ring in t.rings else len(t.rings))


def choose(M: int, N: int, K: int, limits: DeviceLimits, bandwidth_gbs: float | None = None,
           cands: list[Candidate] | None = None, **model) -> Prediction:
    """The (tile, split) the model predicts fastest for an M x N x K SGEMM on this GPU."""
    found = predictions(M, N, K, limits, bandwidth_gbs, cands, **model)
    if not found:
        raise ValueError(f"no Level 7 configuration fits {limits.name}")
    return found[0]


def waves_text(p: Prediction) -> str:
    """One line a learner can check by hand: blocks, slots, waves and how full they are."""
    c = p.candidate
    if p.is_stream:
        return (f"{c.tile.name} ({c.tile.rows} rows) x split {p.split}: {p.tiles_m}x{p.tiles_n}x{p.split} = "
                f"{p.blocks} blocks, {c.resident}/SM x SMs = {p.slots} slots, {p.waves} wave(s) "
                f"{100 * p.wave_fill:.0f}% full, {p.moved_bytes / 1e6:,.1f} MB from DRAM")
    return (f"{c.tile.name} x split {p.split}: {p.tiles_m}x{p.tiles_n}x{p.split} = {p.blocks} blocks, "
            f"{c.resident}/SM x SMs = {p.slots} slots, {p.waves} wave(s) {100 * p.wave_fill:.0f}% full, "
            f"{math.floor(100 * p.tile_fill)}% of the tiles' area inside C")


# [region: stream]
# The memory-bound end (M <= 16 or N <= 16): sgemm_shape_aware.cu's streaming kernels read the big operand
# once, float4 by float4, and keep the small one in shared memory. Their time is bytes over bandwidth:
#
#     gemm   = STREAM_LAUNCH_US + bytes of the busiest SM / (its share of DRAM bandwidth x efficiency x fill)
#     fill   = min(1, blocks the SM streams at once / STREAM_FILL)   (too few blocks cannot draw its share)
#     bytes  = 4 (M K + K N) + C (one slice) or the partial sums (several: 4 x split x M x ldp)
#
# plus the same reduction as the tile path when K is split. More slices fill the GPU with blocks; their
# partial sums cost workspace traffic; the model weighs the two.
STREAM_NAMES = ("stream-B", "stream-A")   # small M: B is streamed; small N: A is streamed
STREAM_MAX = 16                           # the largest small dimension the streaming kernels take
STREAM_THREADS = 256
STREAM_MIN_BLOCKS = {1: 4, 2: 2, 4: 2, 8: 2, 16: 2}   # __launch_bounds__ per bucket (no spills on any listed cc)
# Fitted by tools/stream_bench.py on shapes outside HELDOUT (2 x 8192 x 8192, 16 x 12288 x 6144, their mirrors,
# and 1 x 2048 x 2048 for the fixed cost): the share of the model's DRAM bandwidth the kernels reach.
# The values are the fit recorded in book/data/level7_stream.json (`python tools/stream_bench.py --apply` writes
# them here; one fixed cost, the mean of the two kernels').
STREAM_EFFICIENCY = {"stream-B": 0.759, "stream-A": 0.696}
STREAM_LAUNCH_US = 6.09
STREAM_FILL = 2                           # blocks per SM that keep enough loads in flight to draw its share


@dataclass(frozen=True)
class StreamTile:
    """One bucket of a streaming kernel: the block's share of C (BM x BN) and its K chunk (the slice unit)."""

    name: str        # "stream-B" or "stream-A"
    rows: int        # L7S_ROWS: the small dimension rounded up to a power of two
    BM: int
    BN: int
    chunk: int       # k rows of the small operand's chunk in shared memory; slices are whole chunks
    smem_static: int

    threads = STREAM_THREADS

    @property
    def min_blocks(self) -> int:
        return STREAM_MIN_BLOCKS[self.rows]

    @property
    def rings(self) -> tuple:
        return ((self.chunk, 1),)

    @property
    def register_cap(self) -> int:
        return min(MAX_REGISTERS, REGISTERS_PER_SM // (self.threads * self.min_blocks))

    def smem_bytes(self, bk: int = 0, stages: int = 0) -> int:
        """Static shared memory (two chunks, filled by cp.async in turn; stream-B reuses them for the warps' sums)."""
        return self.smem_static


def stream_rows(n: int) -> int:
    """The bucket of a small dimension: the power of two at or above it (1, 2, 4, 8, 16)."""
    return 1 << max(0, int(n) - 1).bit_length()


def stream_tile(name: str, rows: int) -> StreamTile:
    if name == "stream-B":   # 128 columns per block; two chunks As[rows][256]
        return StreamTile(name, rows, rows, 128, 256, 2 * rows * 256 * FLOAT)
    # stream-A: 32 rows per block; two chunks Bs: chunk/4 groups x odd pitch x float4
    chunk = 128 if rows >= 16 else 256 if rows >= 8 else 512
    pitch = rows if rows % 2 else rows + 1
    return StreamTile(name, rows, 32, rows, chunk, 2 * chunk // 4 * pitch * 4 * FLOAT)


def is_stream(cand) -> bool:
    return isinstance(getattr(cand, "tile", None), StreamTile)


def stream_candidate(name: str, M: int, N: int, limits: DeviceLimits) -> Candidate | None:
    """The streaming form `name` for this shape on this GPU, or None (the small side is above 16, or no fit)."""
    small = M if name == "stream-B" else N
    if name not in STREAM_NAMES or small > STREAM_MAX:
        return None
    return ring_for(stream_tile(name, stream_rows(small)), limits)


def stream_candidates(M: int, N: int, limits: DeviceLimits) -> list[Candidate]:
    return [c for c in (stream_candidate(n, M, N, limits) for n in STREAM_NAMES) if c is not None]


def stream_bytes(M: int, N: int, K: int, split: int) -> float:
    """DRAM bytes of the streaming kernel: A and B once, then C (one slice) or every slice's partial sums."""
    out = M * N if split == 1 else split * M * workspace_ld(N)
    return float(FLOAT * (M * K + K * N + out))


def predict_stream(M: int, N: int, K: int, cand: Candidate, split: int, limits: DeviceLimits,
                   bandwidth_gbs: float | None = None, efficiency: dict | None = None,
                   launch_us: float = STREAM_LAUNCH_US, fill_blocks: float = STREAM_FILL,
                   reduce_launch_us: float = REDUCE_LAUNCH_US,
                   workspace_bandwidth: float = WORKSPACE_BANDWIDTH) -> Prediction:
    """Predicted time of the streaming kernel cut into `split` K slices (and the reduction)."""
    tile = cand.tile
    k_per_split, split = slices(K, cand.BK, split)
    tiles_m, tiles_n = cdiv(M, tile.BM), cdiv(N, tile.BN)
    blocks = tiles_m * tiles_n * split
    sms = limits.sm_count
    per_round = rounds(blocks, cand.resident, sms)
    bandwidth = bandwidth_gbs or dram_gbs(limits)
    moved = stream_bytes(M, N, K, split)
    per_sm = cdiv(blocks, sms)                          # blocks the busiest SM streams
    fill = min(1.0, min(per_sm, cand.resident) / fill_blocks)
    sm_gbs = bandwidth * (efficiency or STREAM_EFFICIENCY)[tile.name] / sms * fill
    gemm_us = launch_us + moved / blocks * per_sm / (sm_gbs * 1e3)
    reduce_us = 0.0
    if split > 1:
        reduce_us = reduce_launch_us + workspace_traffic(M, N, split) / (bandwidth * workspace_bandwidth * 1e3)
    return Prediction(cand, split, k_per_split, tiles_m, tiles_n, blocks, cand.resident * sms, per_round,
                      2.0 * tile.BM * tile.BN * k_per_split, gemm_us, reduce_us, gemm_us + reduce_us,
                      2.0 * M * N * K, moved)
# [end-region: stream]
