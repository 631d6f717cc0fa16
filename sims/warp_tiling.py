"""Simulation 11: warp tiling (Level 6) — which thread owns which element of C, which banks a
warp's fragment loads touch, and how many waves of blocks a grid makes.

Model (mirrors kernels/sgemm_warp_tiling.cu)
--------------------------------------------
* A block tile BM×BN is cut into warp tiles WM×WN; warp ``w`` starts at row
  ``(w // WARPS_N)·WM`` and column ``(w % WARPS_N)·WN`` of the block tile.
* Inside a warp tile the 32 lanes form LANES_M × LANES_N = (WM/TM) × (WN/TN) positions
  ``(tr, tc)``. Lane order "columns" (the kernel's default, LANE_ORDER 0): ``tr = lane // LANES_N``,
  ``tc = lane % LANES_N`` (neighbouring lanes, neighbouring columns); "rows" (LANE_ORDER 1):
  ``tr = lane % LANES_M``, ``tc = lane // LANES_M``.
* Layout "interleaved" (the kernel): a thread's TM rows are TM/4 groups of 4 consecutive rows,
  ``LANES_M·4`` rows apart, starting at ``tr·4``; its TN columns likewise (``LANES_N·4`` apart,
  starting at ``tc·4``). Layout "contiguous" is a counter-example the kernel does not use: the
  thread owns rows ``tr·TM .. tr·TM+TM-1`` and columns ``tc·TN .. tc·TN+TN-1``.
* Shared memory holds one K tile as ``As[k][m]`` (pitch BM + 4 floats) and ``Bs[k][n]`` (pitch BN).
  At step k a thread reads each 4-row group of its A fragment and each 4-column group of its B
  fragment with one 128-bit load (LDS.128). A warp's load is a request of the course's one bank model
  (:mod:`sims.banks`, book/appendix/models.md): a 128-bit request is served per half-warp (lanes 0-15,
  then 16-31); inside a half-warp, words sit in bank ``word mod 32``, the same word read by several
  lanes is a broadcast, and the tallest bank (distinct words in one bank) against the ideal
  ``ceil(distinct words / 32)`` says whether that half-warp conflicts. The model's wavefronts (two
  for a conflict-free load of the shipped layout) are a lower bound of what Nsight Compute measures
  for Level 6 (the chapter shows both).
* Waves: a grid of ``ceil(M/BM)·ceil(N/BN)`` blocks (times a split-K factor) runs in waves of
  ``SMs × blocks per SM`` blocks; with blocks of equal length the share of busy block slots is
  ``blocks / (waves · SMs · blocks per SM)``.
* Block order (the kernel's ``swizzled_tile``, GROUP tile rows walked column by column) decides which
  tiles share a wave. Operand traffic model: the blocks of a wave read their rows of A and columns of
  B once from DRAM (L2 serves the rest of the wave), and nothing stays in L2 between waves.

Views: :func:`figure` (static plotly: warp-tile ownership with a lane slider, bank bars of the A
and B loads, a menu of layouts) and :func:`widget` (ipywidgets, any shape).
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np

from korean_text import with_particle
from sims._common import (
    SimInputError,
    error_figure,
    group_visibility,
    live_widget,
    require,
    require_int_in_range,
    restyle_slider,
)
from sims.banks import NUM_BANKS, BankRequest, ThreadBankAccess, summarize

__all__ = [
    "WARP_SIZE",
    "SHIPPED",
    "LANE_ORDERS",
    "LAYOUTS",
    "PRESETS",
    "WarpTiling",
    "FragmentLoad",
    "Waves",
    "warp_tiling",
    "lane_position",
    "warp_origin",
    "thread_rows",
    "thread_cols",
    "owner_map",
    "warp_lane_map",
    "fragment_load",
    "step_loads",
    "ffma_per_lds",
    "lane_text",
    "ranges_text",
    "waves",
    "swizzled_tile",
    "Footprint",
    "wave_footprints",
    "operand_traffic",
    "widget",
    "figure",
]

WARP_SIZE = 32
FLOAT4 = 4
MAX_THREADS = 1024
MAX_TILE = 512
# The kernel's shipped shape (registry.LEVEL6, chosen by tools/tune_level6.py).
SHIPPED = {"bm": 128, "bn": 256, "wm": 64, "wn": 64, "tm": 8, "tn": 16}
LANE_ORDERS = {
    "columns": "이웃 레인 = 이웃 열 (LANE_ORDER 0, 기본 구성)",
    "rows": "이웃 레인 = 이웃 행 (LANE_ORDER 1)",
}
LAYOUTS = {
    "interleaved": "4칸 묶음을 띄엄띄엄 (커널의 배치)",
    "contiguous": "스레드 타일을 한 덩어리로 (가상의 배치, 커널에 없음)",
}
# The figure's menu: (label, keyword arguments of warp_tiling).
PRESETS = (
    ("기본 구성 8×16", {}),
    ("레인 순서: 이웃 행", {"lane_order": "rows"}),
    ("스레드 타일 16×8", {"tm": 16, "tn": 8}),
    ("가상: 한 덩어리 배치", {"layout": "contiguous"}),
)


@dataclass(frozen=True)
class WarpTiling:
    """One warp-tiling shape, validated (see :func:`warp_tiling`)."""

    bm: int
    bn: int
    wm: int
    wn: int
    tm: int
    tn: int
    lane_order: str = "columns"
    layout: str = "interleaved"

    @property
    def lanes_m(self) -> int:
        return self.wm // self.tm

    @property
    def lanes_n(self) -> int:
        return self.wn // self.tn

    @property
    def warps_m(self) -> int:
        return self.bm // self.wm

    @property
    def warps_n(self) -> int:
        return self.bn // self.wn

    @property
    def warps(self) -> int:
        return self.warps_m * self.warps_n

    @property
    def threads(self) -> int:
        return self.warps * WARP_SIZE

    @property
    def pitch_a(self) -> int:
        """Row pitch of As[k][m] in floats (the kernel's TileCopier: BM + 4)."""
        return self.bm + 4

    @property
    def pitch_b(self) -> int:
        return self.bn

    @property
    def lds_per_step(self) -> int:
        """128-bit shared loads per thread and k step: TM/4 for A, TN/4 for B."""
        return self.tm // FLOAT4 + self.tn // FLOAT4

    @property
    def ffma_per_step(self) -> int:
        return self.tm * self.tn

    @property
    def accumulators(self) -> int:
        return self.tm * self.tn

    @property
    def fragment_registers(self) -> int:
        """Two sets of fragments (the kernel's fragment pipeline): 2·(TM + TN)."""
        return 2 * (self.tm + self.tn)

    @property
    def label(self) -> str:
        return (f"블록 {self.bm}×{self.bn}, 워프 타일 {self.wm}×{self.wn}, 스레드 타일 {self.tm}×{self.tn}, "
                f"레인 {self.lanes_m}×{self.lanes_n}")


@dataclass(frozen=True)
class FragmentLoad:
    """One LDS.128 of a warp: which operand, which 4-row (4-column) group, and its bank request."""

    operand: str          # "A" or "B"
    group: int            # index of the 4-row (A) or 4-column (B) group of the fragment
    k: int
    request: BankRequest

    @property
    def distinct_float4(self) -> int:
        return len({t.words[0] for t in self.request.threads})

    @property
    def conflict_free(self) -> bool:
        return self.request.wavefronts <= self.request.ideal_wavefronts

    @property
    def summary(self) -> str:
        r = self.request
        verdict = "충돌 없음" if self.conflict_free else f"{r.conflict_ways:g}-way 뱅크 충돌"
        return (f"{self.operand} 조각 {self.group}번 묶음: 서로 다른 float4 {self.distinct_float4}개 "
                f"(워드 {r.distinct_words}개), 반 워프 {len(r.passes)}번에 웨이브프론트 {r.wavefronts}개, "
                f"이상적 {r.ideal_wavefronts}개 → {verdict}")


def warp_tiling(bm=128, bn=256, wm=64, wn=64, tm=8, tn=16, lane_order="columns",
                layout="interleaved") -> WarpTiling:
    """Validate a warp-tiling shape; the errors name the kernel's own static_asserts in Korean."""
    bm = require_int_in_range(bm, "블록 타일 행 수 BM", 1, MAX_TILE)
    bn = require_int_in_range(bn, "블록 타일 열 수 BN", 1, MAX_TILE)
    wm = require_int_in_range(wm, "워프 타일 행 수 WM", 1, bm)
    wn = require_int_in_range(wn, "워프 타일 열 수 WN", 1, bn)
    tm = require_int_in_range(tm, "스레드 타일 행 수 TM", 1, wm)
    tn = require_int_in_range(tn, "스레드 타일 열 수 TN", 1, wn)
    require(lane_order in LANE_ORDERS, f"레인 순서(lane order)는 {', '.join(LANE_ORDERS)} 중 하나여야 합니다 "
                                       f"(받은 값: {lane_order!r})")
    require(layout in LAYOUTS, f"배치(layout)는 {', '.join(LAYOUTS)} 중 하나여야 합니다 (받은 값: {layout!r})")
    require(tm % FLOAT4 == 0 and tn % FLOAT4 == 0,
            f"스레드 타일(thread tile)은 float4로 읽으므로 TM과 TN이 4의 배수여야 합니다 (받은 값: {tm}×{tn})")
    require(wm % tm == 0 and wn % tn == 0,
            f"워프 타일(warp tile) {wm}×{with_particle(wn, '은')} 스레드 타일 {tm}×{with_particle(tn, '로')} "
            "나누어떨어져야 합니다")
    require((wm // tm) * (wn // tn) == WARP_SIZE,
            f"워프 타일 하나에 스레드 타일이 정확히 32개 들어가야 합니다 (받은 값: "
            f"{wm // tm}×{wn // tn} = {(wm // tm) * (wn // tn)}개)")
    require(bm % wm == 0 and bn % wn == 0,
            f"블록 타일(block tile) {bm}×{with_particle(bn, '은')} 워프 타일 {wm}×{with_particle(wn, '로')} "
            "나누어떨어져야 합니다")
    threads = (bm // wm) * (bn // wn) * WARP_SIZE
    require(threads <= MAX_THREADS,
            f"블록 크기(block size)는 {MAX_THREADS} 스레드 이하여야 합니다 (받은 값: {threads})")
    return WarpTiling(bm, bn, wm, wn, tm, tn, lane_order, layout)


def _lane(lane) -> int:
    return require_int_in_range(lane, "레인 번호(lane)", 0, WARP_SIZE - 1)


def _warp(cfg: WarpTiling, warp) -> int:
    return require_int_in_range(warp, "워프 번호(warp index)", 0, cfg.warps - 1)


def lane_position(cfg: WarpTiling, lane) -> tuple[int, int]:
    """(tr, tc): the lane's row and column position among the warp's thread tiles."""
    lane = _lane(lane)
    if cfg.lane_order == "columns":
        return lane // cfg.lanes_n, lane % cfg.lanes_n
    return lane % cfg.lanes_m, lane // cfg.lanes_m


def warp_origin(cfg: WarpTiling, warp) -> tuple[int, int]:
    """First row and column of the warp's tile inside the block tile."""
    warp = _warp(cfg, warp)
    return (warp // cfg.warps_n) * cfg.wm, (warp % cfg.warps_n) * cfg.wn


def _span(start_pos: int, size: int, lanes: int, layout: str) -> tuple[int, ...]:
    """Offsets inside the warp tile of one thread's size rows (or columns)."""
    if layout == "contiguous":
        return tuple(start_pos * size + i for i in range(size))
    return tuple(start_pos * FLOAT4 + g * lanes * FLOAT4 + i
                 for g in range(size // FLOAT4) for i in range(FLOAT4))


def thread_rows(cfg: WarpTiling, warp, lane) -> tuple[int, ...]:
    """The TM rows of the block tile that this thread owns (in the order of its accumulators)."""
    wm0, _ = warp_origin(cfg, warp)
    tr, _ = lane_position(cfg, lane)
    return tuple(wm0 + r for r in _span(tr, cfg.tm, cfg.lanes_m, cfg.layout))


def thread_cols(cfg: WarpTiling, warp, lane) -> tuple[int, ...]:
    """The TN columns of the block tile that this thread owns."""
    _, wn0 = warp_origin(cfg, warp)
    _, tc = lane_position(cfg, lane)
    return tuple(wn0 + c for c in _span(tc, cfg.tn, cfg.lanes_n, cfg.layout))


def owner_map(cfg: WarpTiling) -> np.ndarray:
    """BM×BN array: the thread (warp·32 + lane) that computes each element of the block tile.

    Raises SimInputError if an element would be computed twice or not at all (the kernel's
    mapping is a partition; a test checks it for every preset)."""
    owner = np.full((cfg.bm, cfg.bn), -1, dtype=int)
    for warp in range(cfg.warps):
        for lane in range(WARP_SIZE):
            rows, cols = thread_rows(cfg, warp, lane), thread_cols(cfg, warp, lane)
            block = owner[np.ix_(rows, cols)]
            require((block == -1).all(), f"원소를 두 스레드가 맡습니다 (워프 {warp}, 레인 {lane})")
            owner[np.ix_(rows, cols)] = warp * WARP_SIZE + lane
    require((owner >= 0).all(), "어느 스레드도 맡지 않은 원소가 있습니다")
    return owner


def warp_lane_map(cfg: WarpTiling, warp=0) -> np.ndarray:
    """WM×WN array of the lane that owns each element of one warp's tile."""
    wm0, wn0 = warp_origin(cfg, warp)
    lanes = np.full((cfg.wm, cfg.wn), -1, dtype=int)
    for lane in range(WARP_SIZE):
        rows = [r - wm0 for r in thread_rows(cfg, warp, lane)]
        cols = [c - wn0 for c in thread_cols(cfg, warp, lane)]
        lanes[np.ix_(rows, cols)] = lane
    return lanes


def fragment_load(cfg: WarpTiling, operand: str, group=0, k=0, warp=0) -> FragmentLoad:
    """The warp's LDS.128 of one fragment group at step k: A reads As[k][row .. row+3] (pitch BM + 4),
    B reads Bs[k][col .. col+3] (pitch BN), for every lane."""
    require(operand in ("A", "B"), f"피연산자(operand)는 'A' 또는 'B'여야 합니다 (받은 값: {operand!r})")
    groups = (cfg.tm if operand == "A" else cfg.tn) // FLOAT4
    group = require_int_in_range(group, f"{operand} 조각의 4칸 묶음 번호(group)", 0, groups - 1)
    k = require_int_in_range(k, "k 스텝(k-step)", 0, 10_000)
    warp = _warp(cfg, warp)
    threads = []
    for lane in range(WARP_SIZE):
        tr, tc = lane_position(cfg, lane)
        if operand == "A":
            start_index, pitch = thread_rows(cfg, warp, lane)[group * FLOAT4], cfg.pitch_a
        else:
            start_index, pitch = thread_cols(cfg, warp, lane)[group * FLOAT4], cfg.pitch_b
        start = k * pitch + start_index
        threads.append(ThreadBankAccess(lane, tc, tr, k, start_index // FLOAT4,
                                        tuple(range(start, start + FLOAT4))))
    pitch = cfg.pitch_a if operand == "A" else cfg.pitch_b
    return FragmentLoad(operand, group, k, summarize(tuple(threads), 16, pitch))


def step_loads(cfg: WarpTiling, k=0, warp=0) -> list[FragmentLoad]:
    """Every LDS.128 of one k step of one warp: TM/4 loads of A, then TN/4 loads of B."""
    return ([fragment_load(cfg, "A", g, k, warp) for g in range(cfg.tm // FLOAT4)]
            + [fragment_load(cfg, "B", g, k, warp) for g in range(cfg.tn // FLOAT4)])


def ffma_per_lds(tm, tn) -> float:
    """FFMAs per 128-bit shared load of a TM×TN outer product: TM·TN / (TM/4 + TN/4)."""
    tm = require_int_in_range(tm, "TM", FLOAT4, 64)
    tn = require_int_in_range(tn, "TN", FLOAT4, 64)
    require(tm % FLOAT4 == 0 and tn % FLOAT4 == 0, f"TM과 TN은 4의 배수여야 합니다 (받은 값: {tm}×{tn})")
    return tm * tn / (tm // FLOAT4 + tn // FLOAT4)


# ------------------------------------------------------------------------------------ waves


@dataclass(frozen=True)
class Waves:
    """How a grid of equal blocks fills the GPU's block slots."""

    m: int
    n: int
    bm: int
    bn: int
    sms: int
    blocks_per_sm: int
    split_k: int
    blocks: int

    @property
    def slots(self) -> int:
        return self.sms * self.blocks_per_sm

    @property
    def waves(self) -> int:
        return math.ceil(self.blocks / self.slots)

    @property
    def last_wave_blocks(self) -> int:
        return self.blocks - (self.waves - 1) * self.slots

    @property
    def efficiency(self) -> float:
        """Share of block slots that hold a block, over all waves (1.0: every wave full)."""
        return self.blocks / (self.waves * self.slots)

    @property
    def busy_sms(self) -> int:
        """SMs that get at least one block in the first wave (blocks spread one per SM first)."""
        return min(self.blocks, self.sms)

    @property
    def summary(self) -> str:
        split = f" × split-K {self.split_k}" if self.split_k > 1 else ""
        return (f"{self.m}×{self.n}, 타일 {self.bm}×{self.bn}{split}: 블록 {self.blocks:,}개, SM {self.sms}개 × "
                f"{self.blocks_per_sm} = 자리 {self.slots}개 → 웨이브 {self.waves}번 (마지막 {self.last_wave_blocks}개), "
                f"자리 사용률 {100 * self.efficiency:.1f}%")


def waves(m, n, bm=128, bn=256, sms=132, blocks_per_sm=1, split_k=1) -> Waves:
    """Blocks of an M×N output in BM×BN tiles (each split into split_k slices of K), and its waves."""
    m = require_int_in_range(m, "M", 1)
    n = require_int_in_range(n, "N", 1)
    bm = require_int_in_range(bm, "BM", 1)
    bn = require_int_in_range(bn, "BN", 1)
    sms = require_int_in_range(sms, "SM 수(SM count)", 1)
    blocks_per_sm = require_int_in_range(blocks_per_sm, "SM당 블록 수(blocks per SM)", 1, 32)
    split_k = require_int_in_range(split_k, "K 분할 수(split-K)", 1, 64)
    blocks = math.ceil(m / bm) * math.ceil(n / bn) * split_k
    return Waves(m, n, bm, bn, sms, blocks_per_sm, split_k, blocks)


def swizzled_tile(pid, tiles_m, tiles_n, group) -> tuple[int, int]:
    """(tile row, tile column) of the block launched pid-th: the kernel's swizzled_tile. GROUP tile rows are
    walked column by column; GROUP 1 is the plain row-major order."""
    tiles_m = require_int_in_range(tiles_m, "타일 행 수(tiles_m)", 1)
    tiles_n = require_int_in_range(tiles_n, "타일 열 수(tiles_n)", 1)
    group = require_int_in_range(group, "스위즐 묶음 GROUP", 1)
    pid = require_int_in_range(pid, "블록 순번(pid)", 0, tiles_m * tiles_n - 1)
    per_group = group * tiles_n
    first_m = (pid // per_group) * group
    rows = min(tiles_m - first_m, group)
    in_group = pid % per_group
    return first_m + in_group % rows, in_group // rows


@dataclass(frozen=True)
class Footprint:
    """What one wave of blocks reads: its distinct tile rows of A and tile columns of B, over all of K."""

    wave: int
    blocks: int
    tile_rows: int
    tile_cols: int
    a_bytes: int          # whole rows of A (all of K) for those tile rows, float32
    b_bytes: int          # whole columns of B (all of K) for those tile columns

    @property
    def total_bytes(self) -> int:
        return self.a_bytes + self.b_bytes


def wave_footprints(m, n, k, bm=128, bn=256, group=8, sms=132, blocks_per_sm=1) -> list[Footprint]:
    """Footprint of every wave, in the kernel's launch order (consecutive launch numbers fill a wave).

    Read as a model of DRAM reads: the blocks of one wave run together, so L2 serves each operand byte
    to all of them after one DRAM read; nothing is assumed to stay in L2 from one wave to the next."""
    w = waves(m, n, bm, bn, sms, blocks_per_sm)
    k = require_int_in_range(k, "K", 1)
    group = require_int_in_range(group, "스위즐 묶음 GROUP", 1)
    tiles_m, tiles_n = math.ceil(w.m / w.bm), math.ceil(w.n / w.bn)
    out = []
    for index, first in enumerate(range(0, w.blocks, w.slots)):
        tiles = [swizzled_tile(pid, tiles_m, tiles_n, group) for pid in range(first, min(w.blocks, first + w.slots))]
        rows = {t[0] for t in tiles}
        cols = {t[1] for t in tiles}
        row_elems = sum(min(w.bm, w.m - r * w.bm) for r in rows)
        col_elems = sum(min(w.bn, w.n - c * w.bn) for c in cols)
        out.append(Footprint(index, len(tiles), len(rows), len(cols), 4 * row_elems * k, 4 * col_elems * k))
    return out


def operand_traffic(m, n, k, bm=128, bn=256, group=8, sms=132, blocks_per_sm=1) -> int:
    """Bytes of A and B read from DRAM under the wave model of :func:`wave_footprints`."""
    return sum(fp.total_bytes for fp in wave_footprints(m, n, k, bm, bn, group, sms, blocks_per_sm))


# ------------------------------------------------------------------------------------ shared text


def lane_text(cfg: WarpTiling, lane: int, warp: int = 0) -> str:
    tr, tc = lane_position(cfg, lane)
    rows, cols = thread_rows(cfg, warp, lane), thread_cols(cfg, warp, lane)
    return (f"레인 {lane} (tr={tr}, tc={tc}): 행 {ranges_text(rows)}, 열 {ranges_text(cols)} → C 원소 "
            f"{len(rows) * len(cols)}개")


def ranges_text(values) -> str:
    """(0, 1, 2, 3, 32, 33, 34, 35) → '0–3, 32–35'."""
    values = sorted(values)
    parts, start, prev = [], values[0], values[0]
    for v in values[1:] + [None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        parts.append(f"{start}–{prev}" if prev > start else str(start))
        if v is not None:
            start = prev = v
    return ", ".join(parts)


def _config_title(cfg: WarpTiling) -> str:
    loads = step_loads(cfg)
    a, b = loads[0], loads[cfg.tm // FLOAT4]
    return (f"{html.escape(cfg.label)}<br>"
            f"k 스텝 하나: LDS.128 {cfg.lds_per_step}개(A {cfg.tm // FLOAT4}, B {cfg.tn // FLOAT4}), FFMA "
            f"{cfg.ffma_per_step}개 → LDS 하나에 FFMA {cfg.ffma_per_step / cfg.lds_per_step:.1f}개<br>"
            f"{html.escape(a.summary)}<br>{html.escape(b.summary)}")


# ------------------------------------------------------------------------------------ widget view


TOOLTIPS = {
    "tm": "스레드 타일의 행 수 TM: 스레드 하나가 맡는 C의 행",
    "tn": "스레드 타일의 열 수 TN: 스레드 하나가 맡는 C의 열",
    "wm": "워프 타일의 행 수 WM: 워프 하나가 맡는 C의 행",
    "wn": "워프 타일의 열 수 WN: 워프 하나가 맡는 C의 열",
    "lane_order": "레인 번호를 이웃 열부터 채울지, 이웃 행부터 채울지",
    "layout": "스레드 타일을 4칸 묶음으로 띄엄띄엄 둘지(커널), 한 덩어리로 둘지(가상)",
    "lane": "살펴볼 레인(lane) 번호: 그 레인이 맡는 C 원소와 읽는 뱅크를 보여 줌",
    "k": "K 타일 안의 k 스텝(k-step): 이번에 읽는 As와 Bs의 행",
}


def _loads_table(cfg: WarpTiling, k: int, lane: int) -> str:
    rows = []
    for load in step_loads(cfg, k):
        mine = load.request.threads[lane]
        rows.append(f"<tr><td>{load.operand}{load.group}</td><td>{load.distinct_float4}</td>"
                    f"<td>{load.request.wavefronts} / {load.request.ideal_wavefronts}</td>"
                    f"<td>{'충돌 없음' if load.conflict_free else f'{load.request.conflict_ways:g}-way 충돌'}</td>"
                    f"<td>{', '.join(map(str, mine.words))}</td><td>{', '.join(map(str, mine.banks))}</td></tr>")
    return ("<table style='border-collapse:collapse'><caption>조각 읽기별 뱅크 충돌</caption><thead><tr><th>읽기</th><th>서로 다른 float4</th>"
            "<th>웨이브프론트 / 이상적 (반 워프씩)</th><th>판정</th><th>이 레인의 워드</th><th>뱅크</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def _widget_html(params: dict) -> str:
    # The block holds 2×4 warp tiles, as the kernel's 128×256 block holds its eight 64×64 warp tiles.
    cfg = warp_tiling(bm=2 * params["wm"], bn=4 * params["wn"], wm=params["wm"], wn=params["wn"],
                      tm=params["tm"], tn=params["tn"], lane_order=params["lane_order"], layout=params["layout"])
    lane, k = _lane(params["lane"]), require_int_in_range(params["k"], "k 스텝(k-step)", 0, 31)
    return (f"<p>{_config_title(cfg)}</p><p>{html.escape(lane_text(cfg, lane))}</p>"
            f"<p>k = {k}에서 워프 0이 내는 LDS.128 (뱅크 모델: 시뮬레이션 6과 같음)</p>"
            f"{_loads_table(cfg, k, lane)}")


def widget(tm=8, tn=16, wm=64, wn=64, lane=0, k=0, lane_order="columns", layout="interleaved"):
    """ipywidgets view: the shape and a lane; shows what the lane owns and every load of one k step."""
    import ipywidgets as w

    options = (4, 8, 16, 32)
    controls = {
        "tm": w.Dropdown(options=options, value=tm, description="TM"),
        "tn": w.Dropdown(options=options, value=tn, description="TN"),
        "wm": w.Dropdown(options=(16, 32, 64, 128), value=wm, description="WM"),
        "wn": w.Dropdown(options=(16, 32, 64, 128), value=wn, description="WN"),
        "lane_order": w.Dropdown(options=[(v, k_) for k_, v in LANE_ORDERS.items()], value=lane_order,
                                 description="레인 순서"),
        "layout": w.Dropdown(options=[(v, k_) for k_, v in LAYOUTS.items()], value=layout, description="배치"),
        "lane": w.IntSlider(value=lane, min=0, max=WARP_SIZE - 1, description="레인"),
        "k": w.IntSlider(value=k, min=0, max=31, description="k 스텝"),
    }
    return live_widget(controls, _widget_html, "시뮬레이션 11: 워프 타일 배치와 뱅크", TOOLTIPS)


# ------------------------------------------------------------------------------------ figure view

_LANE_MARK = "#111111"
_OK, _CONFLICT = "#4c78a8", "#c0392b"


def _bank_trace_data(load: FragmentLoad):
    counts = [len(ws) for ws in load.request.words_per_bank]
    colours = [_CONFLICT if c > load.request.pass_ideal else _OK for c in counts]
    hover = []
    for bank, words in enumerate(load.request.words_per_bank):
        readers = {w: [t.tid for t in load.request.threads if w in t.words] for w in words}
        lines = [f"워드 {w} (As/Bs 안의 위치 {w % (load.request.pitch)}) ← 레인 "
                 + ",".join(map(str, lanes)) for w, lanes in readers.items()]
        hover.append(f"{load.operand} 읽기 · 뱅크 {bank}: 반 워프 하나가 읽는 서로 다른 워드 최대 {len(words)}개<br>"
                     + "<br>".join(lines))
    return counts, colours, hover


def _lane_points(cfg: WarpTiling, lane: int):
    wm0, wn0 = warp_origin(cfg, 0)
    rows, cols = thread_rows(cfg, 0, lane), thread_cols(cfg, 0, lane)
    xs = [c - wn0 for r in rows for c in cols]
    ys = [r - wm0 for r in rows for c in cols]
    return xs, ys


def _lane_banks(cfg: WarpTiling, lane: int, operand: str):
    load = fragment_load(cfg, operand, 0)
    banks = list(load.request.threads[lane].banks)
    counts = [len(load.request.words_per_bank[b]) for b in banks]
    return banks, counts


def figure(presets=PRESETS, active=0, lane=0):
    """Simulation 11 as a static interactive figure.

    Left: the warp tile (WM×WN) coloured by the lane that owns each element, with the chosen lane's
    elements marked. Right: distinct words per bank of the warp's first A load and first B load at
    k = 0, in the busier half-warp (a bar above one half-warp's ideal is a conflict), with the chosen
    lane's four banks marked. The menu
    picks a layout (each keeps its own traces); the slider picks the lane for every layout at once.
    Returns an error figure (never raises) on invalid presets."""
    import plotly.graph_objects as go

    try:
        configs = [(label, warp_tiling(**{**SHIPPED, **kwargs})) for label, kwargs in presets]
        active = require_int_in_range(active, "처음 보여 줄 배치(preset)", 0, len(configs) - 1)
        lane = require_int_in_range(lane, "레인 번호(lane)", 0, WARP_SIZE - 1)
        for _, cfg in configs:
            owner_map(cfg)                      # every preset must be a partition of the block tile
    except SimInputError as err:
        return error_figure(err, "시뮬레이션 11 입력 오류")

    traces, groups = [], []
    overlay_idx, bank_mark_idx = [], []
    for index, (label, cfg) in enumerate(configs):
        lanes = warp_lane_map(cfg)
        traces.append(go.Heatmap(
            z=lanes.tolist(), zmin=0, zmax=WARP_SIZE - 1, colorscale="Viridis", showscale=False,
            name=f"{label}: 원소를 맡은 레인",
            hovertemplate="C 타일의 (행 %{y}, 열 %{x}) ← 레인 %{z}<extra></extra>",
            xaxis="x", yaxis="y"))
        groups.append(index)
        xs, ys = _lane_points(cfg, lane)
        overlay_idx.append(len(traces))
        traces.append(go.Scatter(
            x=xs, y=ys, mode="markers", name=f"{label}: 고른 레인의 원소",
            marker={"symbol": "square-open", "size": 6, "color": _LANE_MARK, "line": {"width": 1.5}},
            hoverinfo="skip", xaxis="x", yaxis="y"))
        groups.append(index)
        for operand, axis in (("A", "2"), ("B", "3")):
            load = fragment_load(cfg, operand, 0)
            counts, colours, hover = _bank_trace_data(load)
            traces.append(go.Bar(
                x=list(range(NUM_BANKS)), y=counts, marker={"color": colours}, hovertext=hover,
                hoverinfo="text", name=f"{label}: {operand} 읽기의 뱅크별 워드 수",
                xaxis=f"x{axis}", yaxis=f"y{axis}"))
            groups.append(index)
            banks, marks = _lane_banks(cfg, lane, operand)
            bank_mark_idx.append(len(traces))
            traces.append(go.Scatter(
                x=banks, y=[c + 0.25 for c in marks], mode="markers", name=f"{label}: 고른 레인의 {operand} 뱅크",
                marker={"symbol": "triangle-down", "size": 10, "color": _LANE_MARK},
                hoverinfo="skip", xaxis=f"x{axis}", yaxis=f"y{axis}"))
            groups.append(index)
    fig = go.Figure(traces)
    for i, trace in enumerate(fig.data):
        trace.visible = group_visibility(groups, active)[i]

    steps = []
    for step_lane in range(WARP_SIZE):
        xs, ys, bx, by = [], [], [], []
        for _, cfg in configs:
            x, y = _lane_points(cfg, step_lane)
            xs.append(x)
            ys.append(y)
            for operand in ("A", "B"):
                banks, marks = _lane_banks(cfg, step_lane, operand)
                bx.append(banks)
                by.append([c + 0.25 for c in marks])
        steps.append((str(step_lane), {"x": xs + bx, "y": ys + by}, overlay_idx + bank_mark_idx))

    buttons = [{"label": label, "method": "update",
                "args": [{"visible": group_visibility(groups, i)}, {"title.text": _config_title(cfg)}]}
               for i, (label, cfg) in enumerate(configs)]
    first = configs[active][1]
    fig.update_layout(
        title={"text": _config_title(first), "font": {"size": 12}, "y": 0.98},
        height=640, showlegend=False, margin={"t": 190, "b": 110, "l": 60, "r": 20},
        xaxis={"domain": [0, 0.45], "title": {"text": "워프 타일의 열 (n)"}, "range": [-0.5, first.wn - 0.5]},
        yaxis={"domain": [0, 1], "title": {"text": "워프 타일의 행 (m)"}, "range": [first.wm - 0.5, -0.5]},
        xaxis2={"domain": [0.55, 1], "anchor": "y2", "title": {"text": "뱅크 번호 (A 읽기, k = 0)"},
                "dtick": 4, "range": [-0.6, NUM_BANKS - 0.4]},
        yaxis2={"domain": [0.58, 1], "anchor": "x2", "title": {"text": "워드 수 (A)"}, "range": [0, 2.6],
                "dtick": 1},
        xaxis3={"domain": [0.55, 1], "anchor": "y3", "title": {"text": "뱅크 번호 (B 읽기, k = 0)"},
                "dtick": 4, "range": [-0.6, NUM_BANKS - 0.4]},
        yaxis3={"domain": [0, 0.42], "anchor": "x3", "title": {"text": "워드 수 (B)"}, "range": [0, 2.6],
                "dtick": 1},
        updatemenus=[{"name": "스레드 타일 배치", "type": "buttons", "direction": "right", "active": active,
                      "buttons": buttons, "x": 0.0, "y": 1.0, "xanchor": "left", "yanchor": "bottom",
                      "pad": {"b": 6}}],
        sliders=[restyle_slider(steps, prefix="레인 ", active=lane, name="레인 번호")],
    )
    return fig
