"""Simulation 10 (a) roofline and (b) occupancy calculator.

(a) Roofline: attainable GFLOP/s = min(peak, AI × bandwidth), log–log. Devices are data
(:class:`DeviceRoof`): the recorded device from ``book/data/benchmarks.json`` (its own SM
count, FP32 lanes and clock; its measured device-copy bandwidth), or the H100 with its
datasheet bandwidth when nothing is recorded, plus the A100 figures the seeds use, shown
only as a labelled reference. Kernels are placed from recorded measurements only, with
the arithmetic-intensity model chosen explicitly (course-spec D1):

* (i)   per thread, operands loaded into registers: 2·TM·TN / (4·(TM+TN)) FLOP/B
        (from shared memory for Level 2–6, from global memory for Level 0–1);
* (ii)  per block, global traffic with no cache: BM·BN / (2·(BM+BN)) FLOP/B
        (Level 0–1 share nothing between threads, so their thread tile is the unit);
* (iii) measured DRAM bytes (Nsight Compute ``dram__bytes``), when recorded;
* (iv)  compulsory minimum: 2MNK / (4·(MK+KN+MN)) FLOP/B.

cuBLAS's own kernel is placed beside the levels as a reference (:func:`reference_points`): its block
tile comes from its kernel name (``tilesize256x128x8``), its DRAM bytes from the reference profile;
its thread tile is not recorded, so it has no place under model (i).

(b) Occupancy: blocks per SM limited by warps, blocks, registers (allocated per warp in
units of 256) and shared memory (1 KiB reserved per block, 128-B granularity).

Views: :func:`widget` / :func:`figure` (roofline), :func:`occupancy_widget` /
:func:`occupancy_figure` (occupancy).
"""
from __future__ import annotations

import html
import json
import math
import numbers
import re
from dataclasses import dataclass
from pathlib import Path

from kernels import devices, registry
from kernels.devices import DeviceLimits
from sims._common import (
    SimInputError,
    error_figure,
    group_visibility,
    require,
    require_int_in_range,
    live_widget,
)

__all__ = [
    "DATA_DIR",
    "DeviceRoof",
    "H100_SM_COUNT", "H100_FP32_LANES_PER_SM", "H100_BOOST_CLOCK_MHZ",
    "H100_DATASHEET_BANDWIDTH_GBS",
    "A100_REFERENCE",
    "AI_MODELS",
    "LEVEL_TILES",
    "RooflinePoint",
    "fp32_peak_gflops",
    "h100_roof",
    "recorded_device_roof",
    "attainable_gflops",
    "ai_thread_registers",
    "ai_block_global",
    "ai_compulsory",
    "ai_measured_dram",
    "level_ai",
    "load_recorded",
    "benchmark_sizes",
    "roofline_points",
    "reference_points",
    "reference_block_tile",
    "cublas_gflops",
    "cublas_range",
    "ARCHS",
    "SmArch",
    "OccupancyResult",
    "occupancy",
    "widget",
    "figure",
    "occupancy_widget",
    "occupancy_figure",
]

DATA_DIR = Path(__file__).resolve().parent.parent / "book" / "data"
BYTES_PER_FLOAT = 4

# ====================================================================================
# (a) Roofline — devices
# ====================================================================================

H100_SM_COUNT = 132
H100_FP32_LANES_PER_SM = 128
H100_BOOST_CLOCK_MHZ = 1980
H100_DATASHEET_BANDWIDTH_GBS = 3350.0


@dataclass(frozen=True)
class DeviceRoof:
    """A roof: FP32 peak and DRAM bandwidth, each with where the number comes from."""

    name: str
    peak_gflops: float
    bandwidth_gbs: float | None
    peak_source: str
    bandwidth_source: str

    @property
    def ridge_ai(self) -> float | None:
        """Ridge point (FLOP/B) where the slope meets the flat roof."""
        if not self.bandwidth_gbs:
            return None
        return self.peak_gflops / self.bandwidth_gbs

    @property
    def label(self) -> str:
        bw = (f"{self.bandwidth_gbs:,.0f} GB/s ({self.bandwidth_source})"
              if self.bandwidth_gbs else "대역폭 기록 없음")
        return (f"{self.name}: {self.peak_gflops / 1000:,.1f} TFLOP/s ({self.peak_source}), {bw}")


def fp32_peak_gflops(sm_count, lanes_per_sm, clock_mhz) -> float:
    """SMs × FP32 lanes per SM × clock × 2 FLOP per FMA, in GFLOP/s."""
    sm_count = require_int_in_range(sm_count, "SM 수(SM count)", 1)
    lanes_per_sm = require_int_in_range(lanes_per_sm, "SM당 FP32 레인(FP32 lanes per SM)", 1)
    clock = _require_positive(clock_mhz, "클럭(clock, MHz)")
    return sm_count * lanes_per_sm * clock * 1e6 * 2 / 1e9


def h100_roof() -> DeviceRoof:
    """The course's recorded device with no recorded results: datasheet bandwidth."""
    peak = fp32_peak_gflops(H100_SM_COUNT, H100_FP32_LANES_PER_SM, H100_BOOST_CLOCK_MHZ)
    return DeviceRoof("H100", peak, H100_DATASHEET_BANDWIDTH_GBS,
                      "132 SM × 128 레인 × 1,980 MHz × 2로 계산", "데이터시트")


A100_REFERENCE = DeviceRoof(
    "A100 참고값(원 자료, 측정 아님)", 19500.0, 2039.0, "원 자료", "원 자료")


def recorded_device_roof(benchmarks: dict | None) -> DeviceRoof:
    """Roof of the device that produced benchmarks (its own properties), else the H100."""
    if not benchmarks:
        return h100_roof()
    name = str(benchmarks.get("device") or "기록된 GPU")
    props = [benchmarks.get(k) for k in ("sm_count", "fp32_lanes_per_sm", "clock_mhz")]
    if benchmarks.get("peak_gflops"):
        peak = float(benchmarks["peak_gflops"])
        peak_source = "기록된 장치 속성으로 계산"
    elif all(props):
        peak = fp32_peak_gflops(*props)
        peak_source = "기록된 장치 속성으로 계산"
    else:
        fallback = h100_roof()
        peak, peak_source = fallback.peak_gflops, fallback.peak_source
    bandwidth = benchmarks.get("bandwidth_gbs")
    if bandwidth:
        return DeviceRoof(name, peak, float(bandwidth), peak_source, "측정: 장치 내 복사")
    if "H100" in name.upper() or not benchmarks.get("device"):
        return DeviceRoof(name, peak, H100_DATASHEET_BANDWIDTH_GBS, peak_source, "데이터시트")
    return DeviceRoof(name, peak, None, peak_source, "기록 없음")


def attainable_gflops(ai, roof: DeviceRoof) -> float:
    """min(peak, AI × bandwidth); the flat roof alone if no bandwidth is known."""
    ai = _require_positive(ai, "산술 강도(arithmetic intensity)")
    if not roof.bandwidth_gbs:
        return roof.peak_gflops
    return min(roof.peak_gflops, ai * roof.bandwidth_gbs)


# ====================================================================================
# (a) Roofline — arithmetic-intensity models
# ====================================================================================

AI_MODELS = {
    "i": "모델 (i) 스레드당 레지스터 적재 (Level 2–6: 공유→레지스터, Level 0–1: 글로벌→레지스터)",
    "ii": "모델 (ii) 블록 단위 글로벌 트래픽, 캐시 없음",
    "iii": "모델 (iii) 측정한 DRAM 바이트 (Nsight Compute dram__bytes)",
    "iv": "모델 (iv) 필수 최소 트래픽 (compulsory) 2MNK / 4(MK+KN+MN)",
}
AI_MODEL_SHORT = {"i": "(i) 스레드", "ii": "(ii) 블록", "iii": "(iii) 측정 DRAM",
                  "iv": "(iv) 필수 최소"}

# Thread tile (TM, TN) and block tile (BM, BN) of each level; None: no shared memory.
LEVEL_TILES = {
    0: {"thread": (1, 1), "block": None},
    1: {"thread": (1, 4), "block": None},
    2: {"thread": (1, 1), "block": (16, 16)},
    3: {"thread": (8, 8), "block": (128, 128)},
    4: {"thread": (8, 8), "block": (128, 128)},
    5: {"thread": (8, 8), "block": (128, 128)},
    6: {"thread": (8, 16), "block": (128, 256)},
}
MAX_LEVEL = max(LEVEL_TILES)


def _require_positive(value, label: str) -> float:
    ok = (isinstance(value, numbers.Real) and not isinstance(value, bool)
          and math.isfinite(float(value)) and float(value) > 0)
    require(ok, f"{label} 값은 0보다 큰 유한한 수여야 합니다 (받은 값: {value!r})")
    return float(value)


def ai_thread_registers(tm, tn) -> float:
    """Model (i): 2·TM·TN FLOP per (TM+TN) floats loaded into registers."""
    tm = require_int_in_range(tm, "TM", 1)
    tn = require_int_in_range(tn, "TN", 1)
    return 2 * tm * tn / (BYTES_PER_FLOAT * (tm + tn))


def ai_block_global(bm, bn) -> float:
    """Model (ii): 2·BM·BN·BK / (4·BK·(BM+BN)) = BM·BN / (2(BM+BN)); BK cancels."""
    bm = require_int_in_range(bm, "BM", 1)
    bn = require_int_in_range(bn, "BN", 1)
    return bm * bn / (2 * (bm + bn))


def compulsory_bytes(m, n, k) -> int:
    """The least DRAM traffic of an SGEMM: A and B read once, C written once (model (iv)'s denominator)."""
    m, n, k = (require_int_in_range(v, name, 1) for v, name in ((m, "M"), (n, "N"), (k, "K")))
    return int(registry.min_bytes(m, n, k))


def ai_compulsory(m, n, k) -> float:
    """Model (iv): every operand read once and C written once."""
    return 2 * m * n * k / compulsory_bytes(m, n, k)


def ai_measured_dram(m, n, k, dram_bytes) -> float:
    """Model (iii): 2MNK FLOP over the DRAM bytes Nsight Compute measured."""
    m, n, k = (require_int_in_range(v, name, 1) for v, name in ((m, "M"), (n, "N"), (k, "K")))
    dram_bytes = _require_positive(dram_bytes, "DRAM 바이트(dram__bytes)")
    return 2 * m * n * k / dram_bytes


def level_ai(level, model, m=4096, n=4096, k=4096, dram_bytes=None) -> float | None:
    """AI of a course level under a model; None for (iii) when nothing was measured."""
    level = require_int_in_range(level, "레벨(level)", 0, MAX_LEVEL)
    require(model in AI_MODELS, f"AI 모델(model) 값은 i, ii, iii, iv 중 하나여야 합니다 "
                                f"(받은 값: {model!r})")
    tiles = LEVEL_TILES[level]
    if model == "i":
        return ai_thread_registers(*tiles["thread"])
    if model == "ii":
        return ai_block_global(*(tiles["block"] or tiles["thread"]))
    if model == "iv":
        return ai_compulsory(m, n, k)
    return None if dram_bytes is None else ai_measured_dram(m, n, k, dram_bytes)


# ====================================================================================
# (a) Roofline — recorded results
# ====================================================================================

@dataclass(frozen=True)
class RooflinePoint:
    kernel: str
    variant: str
    level: int | None              # None: the library's kernel (cuBLAS), a reference
    m: int
    n: int
    k: int
    gflops: float
    ai: float
    model: str
    pct_cublas: float | None = None  # as recorded: timed in alternation with cuBLAS
    gflops_range: tuple[float, float] | None = None   # (low, high) of a reference's measurements

    @property
    def series(self) -> str:
        return f"L{self.level}" if self.level is not None else self.kernel

    @property
    def label(self) -> str:
        variant = f" ({self.variant})" if self.variant else ""
        if self.level is None:
            return f"{self.variant or self.kernel}"
        return f"L{self.level} {self.kernel}{variant}"


def load_recorded(name: str, data_dir=None) -> dict | None:
    """book/data/<name> as a dict, or None when absent or unreadable."""
    path = Path(data_dir or DATA_DIR) / name
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _rows(benchmarks: dict | None) -> list[dict]:
    rows = (benchmarks or {}).get("rows") or []
    needed = ("kernel", "M", "N", "K", "gflops")
    return [r for r in rows if isinstance(r, dict) and all(r.get(key) is not None
                                                           for key in needed)]


def benchmark_sizes(benchmarks: dict | None) -> list[tuple[int, int, int]]:
    """Problem sizes present, most rows first, then largest first."""
    counts: dict[tuple, int] = {}
    for row in _rows(benchmarks):
        size = (int(row["M"]), int(row["N"]), int(row["K"]))
        counts[size] = counts.get(size, 0) + 1
    return sorted(counts, key=lambda s: (-counts[s], -(s[0] * s[1] * s[2])))


def _profile_dram_bytes(profiles: dict | None, kernel: str, size) -> float | None:
    for entry in (profiles or {}).get("kernels") or []:
        if not isinstance(entry, dict) or entry.get("kernel") != kernel:
            continue
        if (entry.get("M"), entry.get("N"), entry.get("K")) == tuple(size) and entry.get(
                "dram_bytes"):
            return float(entry["dram_bytes"])
    return None


def roofline_points(benchmarks, model, size=None, profiles=None) -> list[RooflinePoint]:
    """Recorded level kernels at one size, placed with the chosen AI model.

    Rows without a level (cuBLAS) are excluded; under model (iii) only kernels with
    recorded DRAM bytes appear."""
    require(model in AI_MODELS, f"AI 모델(model) 값은 i, ii, iii, iv 중 하나여야 합니다 "
                                f"(받은 값: {model!r})")
    sizes = benchmark_sizes(benchmarks)
    if not sizes:
        return []
    size = tuple(size) if size is not None else sizes[0]
    points = []
    for row in _rows(benchmarks):
        if row.get("level") is None or (row["M"], row["N"], row["K"]) != size:
            continue
        dram = _profile_dram_bytes(profiles, row["kernel"], size) if model == "iii" else None
        ai = level_ai(int(row["level"]), model, *size, dram_bytes=dram)
        if ai is None:
            continue
        pct = row.get("pct_cublas")
        points.append(RooflinePoint(str(row["kernel"]), str(row.get("variant") or ""),
                                    int(row["level"]), *size, float(row["gflops"]), ai, model,
                                    float(pct) if isinstance(pct, numbers.Real) else None))
    return points


_TILESIZE = re.compile(r"tilesize(\d+)x(\d+)x(\d+)")


def reference_block_tile(function_name) -> tuple[int, int] | None:
    """(BM, BN) from a cuBLAS kernel name such as '..._tilesize256x128x8_...', else None."""
    match = _TILESIZE.search(str(function_name or ""))
    return (int(match.group(1)), int(match.group(2))) if match else None


def _cublas_row(benchmarks, size) -> dict | None:
    for row in _rows(benchmarks):
        if row["kernel"] == "cublas" and (row["M"], row["N"], row["K"]) == tuple(size):
            return row
    return None


def cublas_range(benchmarks, size=None) -> tuple[float, float] | None:
    """(lowest, highest) GFLOP/s of cuBLAS at size: its recorded row keeps the median of the medians
    timed beside each kernel, and their minimum and maximum (min_ms, max_ms)."""
    sizes = benchmark_sizes(benchmarks)
    if not sizes:
        return None
    size = tuple(size) if size is not None else sizes[0]
    row = _cublas_row(benchmarks, size)
    if not row or not row.get("min_ms") or not row.get("max_ms"):
        return None
    flop = 2.0 * size[0] * size[1] * size[2]
    return flop / (float(row["max_ms"]) * 1e6), flop / (float(row["min_ms"]) * 1e6)


def reference_points(benchmarks, model, size=None, profiles=None) -> list[RooflinePoint]:
    """cuBLAS's own kernel as a point: its recorded GFLOP/s (the median row) at the AI of the model.

    (ii) uses the block tile in its kernel name (profiles.json "reference"), (iii) its measured DRAM
    bytes, (iv) the compulsory minimum; (i) needs a thread tile, which is not recorded: no point."""
    require(model in AI_MODELS, f"AI 모델(model) 값은 i, ii, iii, iv 중 하나여야 합니다 "
                                f"(받은 값: {model!r})")
    sizes = benchmark_sizes(benchmarks)
    if not sizes or model == "i":
        return []
    size = tuple(size) if size is not None else sizes[0]
    row = _cublas_row(benchmarks, size)
    if row is None:
        return []
    entry = next((e for e in (profiles or {}).get("reference") or []
                  if isinstance(e, dict) and e.get("kernel") == "cublas"
                  and (e.get("M"), e.get("N"), e.get("K")) == size), None)
    if model == "iv":
        ai = ai_compulsory(*size)
    elif model == "ii":
        tile = reference_block_tile(entry.get("function")) if entry else None
        ai = ai_block_global(*tile) if tile else None
    else:
        ai = ai_measured_dram(*size, entry["dram_bytes"]) if entry and entry.get("dram_bytes") else None
    if ai is None:
        return []
    return [RooflinePoint("cublas", str(row.get("variant") or "cuBLAS"), None, *size,
                          float(row["gflops"]), ai, model, 100.0, cublas_range(benchmarks, size))]


def cublas_gflops(benchmarks, size=None) -> float | None:
    """Measured cuBLAS GFLOP/s at size (default: the main size), if recorded."""
    sizes = benchmark_sizes(benchmarks)
    if not sizes:
        return None
    row = _cublas_row(benchmarks, tuple(size) if size is not None else sizes[0])
    return float(row["gflops"]) if row else None


# The seeds' claimed A100 placements (course-spec §2.9), shown only as claims.
SEED_CLAIMS = [(0, 0.25, 500), (1, 0.5, 1000), (2, 2.0, 4000), (3, 8.0, 13000),
               (4, 8.0, 16000), (5, 8.0, 17000)]


# ====================================================================================
# (a) Views
# ====================================================================================

AI_RANGE = (0.05, 3000.0)


def _roof_xy(roof: DeviceRoof):
    lo, hi = AI_RANGE
    if not roof.bandwidth_gbs:
        return [lo, hi], [roof.peak_gflops] * 2
    ridge = roof.ridge_ai
    return [lo, ridge, hi], [lo * roof.bandwidth_gbs, roof.peak_gflops, roof.peak_gflops]


def _point_hover(p: RooflinePoint, roof: DeviceRoof, cublas: float | None) -> str:
    bound = attainable_gflops(p.ai, roof)
    text = (f"{html.escape(p.label)}<br>{p.m}×{p.n}×{p.k}<br>"
            f"산술 강도 {p.ai:.3g} FLOP/B — {html.escape(AI_MODEL_SHORT[p.model])}<br>"
            f"측정 {p.gflops:,.0f} GFLOP/s = 지붕의 {100 * p.gflops / bound:.0f}% "
            f"(이 AI에서 지붕 {bound:,.0f})")
    if p.level is None:
        text += "<br>라이브러리 커널: 커널마다 번갈아 잰 cuBLAS 중앙값들의 중앙값"
        if p.gflops_range:
            text += f" (범위 {p.gflops_range[0]:,.0f}–{p.gflops_range[1]:,.0f})"
    elif p.pct_cublas is not None:
        text += f"<br>cuBLAS 대비 {p.pct_cublas:.1f}% (cuBLAS와 번갈아 측정)"
    elif cublas:
        text += f"<br>cuBLAS 대비 {100 * p.gflops / cublas:.1f}% (같은 실행에서 측정)"
    return text


def _provenance(benchmarks: dict | None) -> str:
    if not benchmarks:
        return ""
    parts = [str(benchmarks.get("device") or ""), str(benchmarks.get("date") or "")[:10]]
    if benchmarks.get("driver"):
        parts.append(f"드라이버 {benchmarks['driver']}")
    if benchmarks.get("git_commit"):
        parts.append(f"커밋 {str(benchmarks['git_commit'])[:10]}")
    return ", ".join(p for p in parts if p)


def figure(model="ii", benchmarks=None, profiles=None, data_dir=None, size=None,
           show_seed_claims=True):
    """Log–log roofline of the recorded device (A100 reference overlaid), with recorded
    kernels placed under the AI model chosen by the buttons."""
    import plotly.graph_objects as go

    try:
        require(model in AI_MODELS, f"AI 모델(model) 값은 i, ii, iii, iv 중 하나여야 "
                                    f"합니다 (받은 값: {model!r})")
        if benchmarks is None:
            benchmarks = load_recorded("benchmarks.json", data_dir)
        if profiles is None:
            profiles = load_recorded("profiles.json", data_dir)
        roof = recorded_device_roof(benchmarks)
        by_model = {m: roofline_points(benchmarks, m, size, profiles) for m in AI_MODELS}
        refs = {m: reference_points(benchmarks, m, size, profiles) for m in AI_MODELS}
        cublas = cublas_gflops(benchmarks, size)
    except SimInputError as err:
        return error_figure(err, "루프라인")

    traces = []
    x, y = _roof_xy(roof)
    traces.append(go.Scatter(x=x, y=y, mode="lines", name=html.escape(roof.label),
                             line={"color": "#1f77b4", "width": 3},
                             hovertemplate="AI %{x:.3g} FLOP/B → 최대 %{y:,.0f} GFLOP/s"
                                           "<extra></extra>"))
    x, y = _roof_xy(A100_REFERENCE)
    traces.append(go.Scatter(x=x, y=y, mode="lines", name=html.escape(A100_REFERENCE.label),
                             line={"color": "#999999", "dash": "dash"},
                             hovertemplate="A100 참고: AI %{x:.3g} → %{y:,.0f} GFLOP/s"
                                           "<extra></extra>"))
    groups: list = [None, None]
    if cublas:
        traces.append(go.Scatter(x=list(AI_RANGE), y=[cublas, cublas], mode="lines",
                                 name=f"cuBLAS 측정 {cublas:,.0f} GFLOP/s (중앙값, 실제 도달 가능선)",
                                 line={"color": "#2ca02c", "dash": "dot"},
                                 hovertemplate="cuBLAS 측정 %{y:,.0f} GFLOP/s<extra></extra>"))
        groups.append(None)
    if show_seed_claims:
        traces.append(go.Scatter(
            x=[c[1] for c in SEED_CLAIMS], y=[c[2] for c in SEED_CLAIMS],
            mode="markers+text", text=[f"L{c[0]}" for c in SEED_CLAIMS],
            textposition="top center", marker={"symbol": "x", "color": "#aaaaaa", "size": 9},
            name="원 자료의 주장(A100, 측정 아님)", visible="legendonly",
            hovertemplate=("원 자료의 주장 L%{text}: AI %{x} · %{y:,} GFLOP/s — 측정값 아님, "
                           "AI는 어느 모델과도 맞지 않음<extra></extra>")))
        groups.append(None)

    available = [m for m in AI_MODELS if by_model[m]]
    active = model if model in available else (available[0] if available else None)
    for m in available:
        shown = _dodged_x(by_model[m] + refs[m])
        for level in sorted({p.level for p in by_model[m]}):
            pts = [p for p in by_model[m] if p.level == level]
            traces.append(go.Scatter(
                x=[shown[id(p)] for p in pts], y=[p.gflops for p in pts], mode="markers",
                marker={"size": 11, "color": LEVEL_COLOURS[level],
                        "symbol": [_level_symbol(level, i) for i in range(len(pts))],
                        "line": {"width": 1, "color": "black"}},
                hovertext=[_point_hover(p, roof, cublas) for p in pts],
                hovertemplate="%{hovertext}<extra></extra>",
                name=f"Level {level} 측정", legendgroup=f"L{level}"))
            groups.append(m)
        for p in refs[m]:
            low, high = p.gflops_range or (p.gflops, p.gflops)
            traces.append(go.Scatter(
                x=[shown[id(p)]], y=[p.gflops], mode="markers",
                marker={"size": 13, "color": REFERENCE_COLOUR, "symbol": REFERENCE_SYMBOL,
                        "line": {"width": 1, "color": "black"}},
                error_y={"type": "data", "symmetric": False, "array": [high - p.gflops],
                         "arrayminus": [p.gflops - low], "color": REFERENCE_COLOUR, "width": 6},
                hovertext=[_point_hover(p, roof, cublas)], hovertemplate="%{hovertext}<extra></extra>",
                name="cuBLAS 측정 (라이브러리 커널, 세로 막대: 측정 범위)", legendgroup="cublas"))
            groups.append(m)
    fig = go.Figure(data=traces)
    for trace, visible in zip(fig.data, group_visibility(groups, active)):
        if trace.visible != "legendonly":
            trace.visible = visible

    annotations = []
    if roof.ridge_ai:
        annotations.append({"x": math.log10(roof.ridge_ai), "y": math.log10(roof.peak_gflops),
                            "text": f"꺾임점(ridge) {roof.ridge_ai:.1f} FLOP/B",
                            "showarrow": True, "ax": 70, "ay": 70, "font": {"size": 11}})
    # A muted grey that still reads at 6:1 on the plot background (WCAG 1.4.3 asks 4.5:1).
    annotations.append({"x": math.log10(A100_REFERENCE.ridge_ai),
                        "y": math.log10(A100_REFERENCE.peak_gflops),
                        "text": f"A100 참고 꺾임점 {A100_REFERENCE.ridge_ai:.1f}",
                        "showarrow": True, "ax": 40, "ay": 60, "font": {"size": 10,
                                                                       "color": "#595959"}})
    if not benchmarks:
        annotations.append(_note("기록된 벤치마크 결과(book/data/benchmarks.json)가 없어 "
                                 "지붕선만 표시합니다. GPU에서 벤치마크를 실행하면 점이 나타납니다."))
    elif not available:
        annotations.append(_note("기록된 파일에 레벨 커널 측정 행이 없습니다."))
    else:
        annotations.append(_note(f"기록: {html.escape(_provenance(benchmarks))}<br>같은 AI의 "
                                 "레벨은 조금씩 옆으로 벌려 그렸습니다 (실제 값은 마우스로).",
                                 y=-0.62, anchor="top"))

    menus = []
    if available:
        buttons = [{"label": AI_MODEL_SHORT[m], "method": "update",
                    "args": [{"visible": [v if t.visible != "legendonly" else "legendonly"
                                          for v, t in zip(group_visibility(groups, m),
                                                          fig.data)]},
                             {"title.text": _roofline_title(roof, m)}]}
                   for m in available]
        menus.append({"name": "산술 강도 모델", "type": "buttons", "direction": "right",
                      "active": available.index(active), "buttons": buttons,
                      "x": 1.0, "y": 1.02, "xanchor": "right", "yanchor": "bottom"})
    fig.update_layout(
        title={"text": _roofline_title(roof, active), "font": {"size": 13}, "y": 0.985,
               "yanchor": "top"},
        height=780, margin={"t": 150, "b": 270},
        xaxis={"type": "log", "range": [math.log10(AI_RANGE[0]), math.log10(AI_RANGE[1])],
               "dtick": 1, "title": {"text": "산술 강도(arithmetic intensity, FLOP/B)"}},
        yaxis={"type": "log", "range": [1, math.log10(roof.peak_gflops * 2)], "dtick": 1,
               "title": {"text": "성능 (GFLOP/s)"}},
        legend={"orientation": "h", "y": -0.16, "yanchor": "top", "x": 0,
                "font": {"size": 11}},
        updatemenus=menus, annotations=annotations,
    )
    return fig


LEVEL_COLOURS = {0: "#440154", 1: "#414487", 2: "#2a788e", 3: "#22a884", 4: "#7ad151",
                 5: "#fde725", 6: "#ed7953"}
REFERENCE_COLOUR = "#2ca02c"          # cuBLAS, as its line
REFERENCE_SYMBOL = "hexagram"         # a shape no level uses
_SYMBOLS = ["circle", "square", "diamond", "triangle-up", "cross", "star", "pentagon"]
_VARIANT_FILLS = ["", "-open", "-dot", "-open-dot"]


def _level_symbol(level: int, variant: int) -> str:
    """Marker of a level's variant: the shape says the level (so levels differ without their colour),
    the fill the variant within it."""
    return _SYMBOLS[level % len(_SYMBOLS)] + _VARIANT_FILLS[variant % len(_VARIANT_FILLS)]


def _series_order(p: RooflinePoint) -> tuple:
    """Sort key of a point's series: the levels in order, then the reference."""
    return (p.level is None, p.level or 0, p.series)


def _dodged_x(points: list[RooflinePoint]) -> dict[int, float]:
    """Display x of each point: series (levels, then the reference) that share one AI are spread a
    little sideways (multiplicatively, so it looks the same on the log axis); hover keeps the true AI."""
    by_ai: dict[float, set] = {}
    for p in points:
        by_ai.setdefault(round(p.ai, 9), set()).add(_series_order(p))
    shown = {}
    for p in points:
        series = sorted(by_ai[round(p.ai, 9)])
        offset = series.index(_series_order(p)) - (len(series) - 1) / 2
        shown[id(p)] = p.ai * 1.12 ** offset
    return shown


def _roofline_title(roof: DeviceRoof, model: str | None) -> str:
    head = "루프라인(roofline): 달성 가능 = min(피크, 산술 강도 × 대역폭)"
    if model is None:
        return head
    hint = ("점이 경사면보다 위에 있으면 실제 DRAM 트래픽이 이 모델의 가정보다 적다는 뜻 "
            "(캐시가 재사용을 잡음)" if model in ("i", "ii") else
            "필수 최소 트래픽: 이보다 적은 바이트는 불가능 — 모든 점이 같은 x" if model == "iv"
            else "Nsight Compute가 잰 DRAM 바이트로 계산한 산술 강도")
    return (f"{head}<br><sup>점의 x 위치: {html.escape(AI_MODELS[model])}<br>"
            f"{hint}</sup>")


def _note(text: str, y: float = 0.02, anchor: str = "bottom") -> dict:
    return {"text": text, "xref": "paper", "yref": "paper", "x": 0.0, "y": y,
            "xanchor": "left", "yanchor": anchor, "showarrow": False, "align": "left",
            "font": {"size": 12, "color": "#7a4b00"}, "bgcolor": "#fff6e0"}


def _points_html(points: list[RooflinePoint], roof: DeviceRoof, cublas) -> str:
    if not points:
        return "<p>이 모델로 놓을 수 있는 기록된 커널이 없습니다.</p>"
    rows = []
    for p in points:
        bound = attainable_gflops(p.ai, roof)
        pct = f"{100 * p.gflops / cublas:.1f}%" if cublas else "—"
        if p.pct_cublas is not None:
            pct = f"{p.pct_cublas:.1f}%"
        rows.append(f"<tr><td>{html.escape(p.label)}</td><td>{p.ai:.3g}</td>"
                    f"<td>{p.gflops:,.0f}</td><td>{bound:,.0f}</td><td>{pct}</td></tr>")
    return ("<table border='1' cellpadding='3' style='border-collapse:collapse'>"
            "<caption>커널별 산술 강도, 측정 성능, 지붕</caption><tr><th>커널</th><th>AI (FLOP/B)</th><th>측정 GFLOP/s</th>"
            "<th>이 AI의 지붕</th><th>cuBLAS 대비</th></tr>" + "".join(rows) + "</table>")


ROOFLINE_TOOLTIPS = {
    "model": "산술 강도(arithmetic intensity) 모델: 점의 x 위치를 어떻게 셀지",
    "ai": "지붕을 읽을 산술 강도 (FLOP/B)",
}
OCCUPANCY_TOOLTIPS = {
    "threads_per_block": "블록당 스레드 수",
    "registers_per_thread": "스레드당 레지스터 수",
    "smem_per_block": "블록당 공유 메모리 (바이트)",
    "arch": "GPU 아키텍처 (compute capability): SM당 자원 한도",
}


def widget(model="ii", ai=8.0, data_dir=None):
    """ipywidgets view: pick an AI model and query the roofs at any AI."""
    import ipywidgets as widgets

    benchmarks = load_recorded("benchmarks.json", data_dir)
    profiles = load_recorded("profiles.json", data_dir)
    controls = {
        "model": widgets.Dropdown(options=[(AI_MODELS[m], m) for m in AI_MODELS], value=model,
                                  description="AI 모델", layout={"width": "640px"}),
        "ai": widgets.FloatText(value=ai, description="AI (FLOP/B)"),
    }

    def render(p):
        roof = recorded_device_roof(benchmarks)
        lines = [f"<p>{html.escape(r.label)}: AI {p['ai']:g}에서 최대 "
                 f"{attainable_gflops(p['ai'], r):,.0f} GFLOP/s"
                 f"{' (꺾임점 %.1f FLOP/B)' % r.ridge_ai if r.ridge_ai else ''}</p>"
                 for r in (roof, A100_REFERENCE)]
        if not benchmarks:
            lines.append("<p><i>기록된 벤치마크 결과가 없습니다 (book/data/benchmarks.json).</i></p>")
        else:
            pts = (roofline_points(benchmarks, p["model"], profiles=profiles)
                   + reference_points(benchmarks, p["model"], profiles=profiles))
            lines.append(_points_html(pts, roof, cublas_gflops(benchmarks)))
        return "".join(lines)

    return live_widget(controls, render, "시뮬레이션 10 (a): 루프라인(roofline)", ROOFLINE_TOOLTIPS)


# ====================================================================================
# (b) Occupancy calculator
# ====================================================================================

@dataclass(frozen=True)
class SmArch:
    """Per-SM limits of one compute capability: a view of the course's device profile (kernels.devices),
    so that the calculator and the kernels' configurations use the same numbers and the same rule."""

    name: str
    label: str
    limits: DeviceLimits
    static_smem_limit: int = 48 * 1024    # larger needs dynamic smem + the attribute

    @property
    def max_threads_per_sm(self) -> int:
        return self.limits.max_threads_per_sm

    @property
    def max_warps_per_sm(self) -> int:
        return self.limits.max_threads_per_sm // 32

    @property
    def max_blocks_per_sm(self) -> int:
        return self.limits.max_blocks_per_sm

    @property
    def registers_per_sm(self) -> int:
        return self.limits.regs_per_sm

    @property
    def smem_per_sm(self) -> int:
        return self.limits.smem_per_sm

    @property
    def max_smem_per_block(self) -> int:
        return self.limits.smem_per_block_optin

    @property
    def max_registers_per_thread(self) -> int:
        return self.limits.max_regs_per_thread

    @property
    def max_threads_per_block(self) -> int:
        return self.limits.max_threads_per_block

    @property
    def smem_reserved_per_block(self) -> int:
        return self.limits.smem_reserved_per_block

    @property
    def smem_alloc_unit(self) -> int:
        return self.limits.smem_alloc_unit


ARCHS = {
    "sm_80": SmArch("sm_80", "sm_80 (A100)", devices.PROFILES["A100-80GB"]),
    "sm_86": SmArch("sm_86", "sm_86 (GA10x, 예: RTX 30)", devices.PROFILES["RTX3090"]),
    "sm_90": SmArch("sm_90", "sm_90 (H100)", devices.PROFILES["H100"]),
}

RESOURCE_LABELS = {
    "warps": "워프 수(warps per SM)",
    "blocks": "블록 수 한도(blocks per SM)",
    "registers": "레지스터(registers)",
    "smem": "공유 메모리(shared memory)",
}


@dataclass(frozen=True)
class OccupancyResult:
    arch: SmArch
    threads_per_block: int
    registers_per_thread: int
    smem_per_block: int
    warps_per_block: int
    registers_per_warp: int               # after rounding to the allocation unit
    smem_allocated_per_block: int         # with the reserved 1 KiB, rounded to 128 B
    limits: dict                          # resource → blocks per SM it allows
    blocks_per_sm: int
    limiting: tuple[str, ...]
    active_warps: int
    needs_dynamic_smem: bool

    @property
    def occupancy(self) -> float:
        return self.active_warps / self.arch.max_warps_per_sm

    @property
    def occupancy_pct(self) -> float:
        return 100.0 * self.occupancy


# kernels.devices names the limits as the CUDA occupancy rule does; the calculator's table uses its own keys.
_DEVICE_LIMIT_KEYS = {"warps": "threads", "blocks": "blocks", "registers": "registers", "smem": "shared memory"}


def occupancy(threads_per_block, registers_per_thread, smem_per_block=0,
              arch="sm_90") -> OccupancyResult:
    """Theoretical occupancy: resident blocks per SM and the resource that limits them.

    The rule is kernels.devices.occupancy (the one the kernels' configurations use); this function
    checks the learner's inputs in Korean and keeps the numbers the calculator shows."""
    require(arch in ARCHS, f"아키텍처(arch) 값은 {', '.join(ARCHS)} 중 하나여야 합니다 "
                           f"(받은 값: {arch!r})")
    a = ARCHS[arch]
    threads = require_int_in_range(threads_per_block, "블록당 스레드 수(threads per block)",
                                   1, a.max_threads_per_block)
    regs = require_int_in_range(registers_per_thread, "스레드당 레지스터(registers per thread)",
                                1, a.max_registers_per_thread)
    smem = require_int_in_range(smem_per_block, "블록당 공유 메모리(shared memory per block, B)",
                                0, a.max_smem_per_block)

    warps_per_block = -(-threads // 32)
    regs_per_warp = devices.registers_per_warp(a.limits, regs)
    by = devices.occupancy(a.limits, threads, regs, smem)["by"]
    limits = {key: by[device_key] for key, device_key in _DEVICE_LIMIT_KEYS.items()}
    require(limits["registers"] > 0,
            f"블록 하나에 레지스터 {regs_per_warp * warps_per_block:,}개가 필요해 SM의 "
            f"{a.registers_per_sm:,}개를 넘습니다: 실행할 수 없습니다 (too many resources "
            f"requested for launch)")
    blocks = min(limits.values())
    limiting = tuple(k for k, v in limits.items() if v == blocks)
    return OccupancyResult(
        arch=a, threads_per_block=threads, registers_per_thread=regs, smem_per_block=smem,
        warps_per_block=warps_per_block, registers_per_warp=regs_per_warp,
        smem_allocated_per_block=devices.smem_allocated_per_block(a.limits, smem), limits=limits,
        blocks_per_sm=blocks, limiting=limiting, active_warps=blocks * warps_per_block,
        needs_dynamic_smem=smem > a.static_smem_limit,
    )


def _occupancy_html(r: OccupancyResult) -> str:
    highlight = " style='background:#fde9a9'"
    rows = "".join(
        f"<tr{highlight if k in r.limiting else ''}>"
        f"<td>{RESOURCE_LABELS[k]}</td><td>{v}</td></tr>" for k, v in r.limits.items())
    notes = [
        f"워프당 레지스터 {r.registers_per_thread}×32 → {r.registers_per_warp}개 "
        f"(256개 단위로 올림)",
        f"블록당 공유 메모리 {r.smem_per_block:,} B + 예약 {r.arch.smem_reserved_per_block:,} B → "
        f"{r.smem_allocated_per_block:,} B ({r.arch.smem_alloc_unit} B 단위)",
    ]
    if r.needs_dynamic_smem:
        notes.append("48 KiB(49,152 B)를 넘는 공유 메모리: 정적 선언은 불가, 동적 공유 메모리와 "
                     "cudaFuncAttributeMaxDynamicSharedMemorySize 설정이 필요합니다")
    limiting = ", ".join(RESOURCE_LABELS[k] for k in r.limiting)
    return (f"<p><b>{html.escape(r.arch.label)}</b>: SM당 블록 {r.blocks_per_sm}개 × "
            f"워프 {r.warps_per_block}개 = 활성 워프 {r.active_warps}/{r.arch.max_warps_per_sm}"
            f" → 이론 점유율(theoretical occupancy) <b>{r.occupancy_pct:.1f}%</b>; "
            f"제한 요인: {limiting}</p>"
            "<table border='1' cellpadding='3' style='border-collapse:collapse'>"
            "<caption>자원별로 허용하는 SM당 블록 수</caption><tr><th>자원</th><th>허용 블록 수/SM</th></tr>" + rows + "</table>"
            "<ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>"
            "<p style='font-size:12px'>이론값입니다. 실제 달성 점유율(achieved occupancy)은 "
            "Nsight Compute로 측정해야 하며 더 낮을 수 있습니다.</p>")


def occupancy_widget(threads_per_block=256, registers_per_thread=128, smem_per_block=8192,
                     arch="sm_90"):
    """ipywidgets view of the occupancy calculator."""
    import ipywidgets as widgets

    controls = {
        "threads_per_block": widgets.IntText(value=threads_per_block, description="스레드/블록"),
        "registers_per_thread": widgets.IntText(value=registers_per_thread, description="레지스터/스레드"),
        "smem_per_block": widgets.IntText(value=smem_per_block, description="공유 메모리 B"),
        "arch": widgets.Dropdown(options=[(a.label, k) for k, a in ARCHS.items()], value=arch,
                                 description="아키텍처"),
    }
    return live_widget(controls, lambda p: _occupancy_html(occupancy(
        p["threads_per_block"], p["registers_per_thread"], p["smem_per_block"], p["arch"])),
        "시뮬레이션 10 (b): 점유율(occupancy) 계산기", OCCUPANCY_TOOLTIPS)


# Named cases (course-spec A7, D5 and the Level 3–5 tiles); resources, not timings.
OCCUPANCY_CASES = [
    ("32 레지스터<br>2,176 B", 256, 32, 2176),
    ("128 레지스터<br>8,192 B", 256, 128, 8192),
    ("96 레지스터<br>32,768 B", 256, 96, 32768),
    ("128 레지스터<br>24,576 B", 256, 128, 24576),
]
BLOCK_SIZES = (64, 128, 256, 512, 1024)


def occupancy_figure(arch="sm_90", smem_per_block=8192):
    """Occupancy against registers per thread (one line per block size), and the
    per-resource block limits of named cases; buttons switch the architecture."""
    import plotly.graph_objects as go

    try:
        require(arch in ARCHS, f"아키텍처(arch) 값은 {', '.join(ARCHS)} 중 하나여야 합니다 "
                               f"(받은 값: {arch!r})")
        occupancy(256, 32, smem_per_block, arch)           # validates smem for this arch
    except SimInputError as err:
        return error_figure(err, "점유율 계산기")

    regs_axis = list(range(16, 256, 1))
    traces, groups = [], []
    arch_keys = list(ARCHS)
    for key in arch_keys:
        for threads in BLOCK_SIZES:
            ys = []
            for regs in regs_axis:
                try:
                    ys.append(occupancy(threads, regs, smem_per_block, key).occupancy_pct)
                except SimInputError:
                    ys.append(None)                        # the block cannot launch at all
            traces.append(go.Scatter(
                x=regs_axis, y=ys, mode="lines", line={"shape": "hv"},
                name=f"{threads} 스레드/블록",
                hovertemplate=(f"{threads} 스레드, %{{x}} 레지스터 → %{{y:.1f}}%"
                               "<extra></extra>"),
                xaxis="x", yaxis="y", legendgroup=str(threads)))
            groups.append(key)
        results = [occupancy(t, r, s, key) for _, t, r, s in OCCUPANCY_CASES]
        for resource in RESOURCE_LABELS:
            traces.append(go.Bar(
                x=[c[0] for c in OCCUPANCY_CASES], y=[r.limits[resource] for r in results],
                text=[r.limits[resource] for r in results], textposition="outside",
                name=RESOURCE_LABELS[resource],
                customdata=[[r.occupancy_pct, ", ".join(r.limiting)] for r in results],
                hovertemplate=(f"{RESOURCE_LABELS[resource]}: SM당 %{{y}}블록<br>"
                               "이론 점유율 %{customdata[0]:.1f}% (제한: %{customdata[1]})"
                               "<extra></extra>"),
                xaxis="x2", yaxis="y2", legendgroup=resource))
            groups.append(key)
    fig = go.Figure(data=traces)
    for trace, visible in zip(fig.data, group_visibility(groups, arch)):
        trace.visible = visible

    def title(key):
        a = ARCHS[key]
        return (f"점유율(occupancy) 계산기 — {html.escape(a.label)}: SM당 최대 워프 "
                f"{a.max_warps_per_sm}, 블록 {a.max_blocks_per_sm}, 레지스터 "
                f"{a.registers_per_sm:,}, 공유 메모리 {a.smem_per_sm // 1024} KiB<br><sup>"
                f"왼쪽: 블록당 공유 메모리 {smem_per_block:,} B일 때 스레드당 레지스터에 따른 "
                "이론 점유율 · 오른쪽: 256 스레드 블록 사례마다 자원별로 허용하는 SM당 블록 수"
                "<br>(가장 낮은 막대가 제한 요인: 128 레지스터는 2블록 = 16워프 = 25%)</sup>")

    buttons = [{"label": ARCHS[k].label, "method": "update",
                "args": [{"visible": group_visibility(groups, k)}, {"title.text": title(k)}]}
               for k in arch_keys]
    fig.update_layout(
        title={"text": title(arch), "font": {"size": 13}}, height=580,
        margin={"t": 150, "b": 110}, barmode="group",
        xaxis={"domain": [0, 0.48], "title": {"text": "스레드당 레지스터"}, "range": [16, 255]},
        yaxis={"title": {"text": "이론 점유율 (%)"}, "range": [0, 105]},
        xaxis2={"domain": [0.56, 1.0], "anchor": "y2", "tickfont": {"size": 10}},
        yaxis2={"anchor": "x2", "type": "log", "range": [0, 2.1], "dtick": 1,
                "title": {"text": "SM당 블록 수 (로그)"}},
        legend={"orientation": "h", "y": -0.3, "font": {"size": 11}},
        updatemenus=[{"name": "아키텍처", "type": "buttons", "direction": "right",
                      "active": arch_keys.index(arch), "buttons": buttons,
                      "x": 0.0, "y": 1.03, "xanchor": "left", "yanchor": "bottom"}],
    )
    return fig
