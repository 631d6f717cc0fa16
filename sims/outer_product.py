"""Simulator 7: the outer-product micro-kernel of register blocking (Level 3–5).

Each thread owns a TM×TN micro-tile of C. At every k step of a BK-deep shared tile it
loads TM values of A (one column slice) and TN values of B (one row slice) from shared
memory into registers and performs TM·TN FMAs: the outer product of the two fragments.

Model (pure, no widgets): :func:`tile_metrics`, :func:`outer_product_step`,
:func:`t_table`, :func:`register_estimate`.
Views: :func:`widget` (ipywidgets) and :func:`figure` (static plotly).

Arithmetic intensity here is always model (i) of the course (course-spec D1): per
thread, shared memory → registers, AI = 2·TM·TN / (4·(TM+TN)) FLOP/B, T/4 for T×T.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from sims._common import (
    SimInputError,
    error_figure,
    group_visibility,
    require_int_in_range,
    restyle_slider,
    live_widget,
)
from sims.roofline import load_recorded, occupancy

__all__ = [
    "BK",
    "AI_MODEL_LABEL",
    "INDEX_OVERHEAD_REGISTERS",
    "MEASURED_8X8_REGISTERS",
    "MAX_REGISTERS_PER_THREAD",
    "PRESETS",
    "RegisterEstimate",
    "TileMetrics",
    "OuterProductState",
    "arithmetic_intensity",
    "register_estimate",
    "tile_metrics",
    "outer_product_step",
    "t_table",
    "recorded_8x8_registers",
    "widget",
    "figure",
]

BK = 8                      # depth of the shared-memory tile in the course's Level 3–5
T_MIN, T_MAX = 1, 16
BYTES_PER_FLOAT = 4
FLOPS_PER_FMA = 2
MAX_REGISTERS_PER_THREAD = 255

# Registers for indices, pointers, loop counters and addresses. 24 is the seed's own
# count; with it the 8×8 and 4×16 estimates share one base (104 and 108, course-spec C5).
INDEX_OVERHEAD_REGISTERS = 24
# What ptxas reported for the reconstructed 8×8 kernel of course-spec §3.7 (127–128 on
# sm_80 and sm_90), the reference when no recorded benchmark is at hand. The estimate is
# not an upper bound: the compiler also keeps staged global loads, unrolled addresses and
# temporaries alive. When book/data/benchmarks.json exists, its own ptxas counts are shown.
MEASURED_8X8_REGISTERS = 128

AI_MODEL_LABEL = "모델 (i): 스레드당 공유 메모리→레지스터"

PRESETS = ((1, 1), (2, 2), (4, 4), (8, 8), (4, 16), (16, 16))


@dataclass(frozen=True)
class RegisterEstimate:
    """Registers per thread: accumulators + fragments + a fixed overhead."""

    accumulators: int
    fragments: int
    overhead: int
    total: int
    spills: bool            # above the 255-register hardware limit per thread

    @property
    def gap_to_measured_8x8(self) -> int:
        """How far the 8×8 estimate is below the measured 128 (meaningful for 8×8 only)."""
        return MEASURED_8X8_REGISTERS - self.total


@dataclass(frozen=True)
class TileMetrics:
    """Per-k-step work and traffic of one thread's TM×TN outer product."""

    tm: int
    tn: int
    floats_per_step: int
    bytes_per_step: int
    fmas_per_step: int
    flops_per_step: int
    arithmetic_intensity: float
    registers: RegisterEstimate

    @property
    def a_reuse(self) -> int:
        """How many FMAs use each loaded A value (one row of the product grid)."""
        return self.tn

    @property
    def b_reuse(self) -> int:
        """How many FMAs use each loaded B value (one column of the product grid)."""
        return self.tm


@dataclass(frozen=True)
class OuterProductState:
    """The micro-tile after k steps 0..k of one BK-deep shared tile have run."""

    metrics: TileMetrics
    k: int
    fma_counts: np.ndarray      # TM×TN: FMAs each accumulator has received so far
    floats_loaded: int          # shared → register loads so far in this tile
    fmas_done: int

    @property
    def flops_done(self) -> int:
        return self.fmas_done * FLOPS_PER_FMA


def _check_tile(tm, tn) -> tuple[int, int]:
    tm = require_int_in_range(tm, "TM(스레드 타일 행 수)", T_MIN, T_MAX)
    tn = require_int_in_range(tn, "TN(스레드 타일 열 수)", T_MIN, T_MAX)
    return tm, tn


def arithmetic_intensity(tm, tn) -> float:
    """Model (i): FLOPs per byte loaded from shared memory into registers, per k step."""
    tm, tn = _check_tile(tm, tn)
    return FLOPS_PER_FMA * tm * tn / (BYTES_PER_FLOAT * (tm + tn))


def register_estimate(tm, tn, overhead: int = INDEX_OVERHEAD_REGISTERS) -> RegisterEstimate:
    """TM·TN accumulators + TM + TN fragment registers + overhead (default 24)."""
    tm, tn = _check_tile(tm, tn)
    overhead = require_int_in_range(overhead, "인덱스·주소용 레지스터(overhead)", 0, 255)
    total = tm * tn + tm + tn + overhead
    return RegisterEstimate(
        accumulators=tm * tn,
        fragments=tm + tn,
        overhead=overhead,
        total=total,
        spills=total > MAX_REGISTERS_PER_THREAD,
    )


def tile_metrics(tm, tn) -> TileMetrics:
    """Loads, FMAs, FLOPs, AI (model i) and register estimate of one k step."""
    tm, tn = _check_tile(tm, tn)
    floats = tm + tn
    fmas = tm * tn
    return TileMetrics(
        tm=tm,
        tn=tn,
        floats_per_step=floats,
        bytes_per_step=floats * BYTES_PER_FLOAT,
        fmas_per_step=fmas,
        flops_per_step=fmas * FLOPS_PER_FMA,
        arithmetic_intensity=arithmetic_intensity(tm, tn),
        registers=register_estimate(tm, tn),
    )


def outer_product_step(tm, tn, k) -> OuterProductState:
    """State after steps 0..k (k in 0..BK-1): every accumulator has k+1 FMAs."""
    metrics = tile_metrics(tm, tn)
    k = require_int_in_range(k, "k 단계(step)", 0, BK - 1)
    steps_done = k + 1
    counts = np.full((metrics.tm, metrics.tn), steps_done, dtype=int)
    return OuterProductState(
        metrics=metrics,
        k=k,
        fma_counts=counts,
        floats_loaded=steps_done * metrics.floats_per_step,
        fmas_done=steps_done * metrics.fmas_per_step,
    )


def t_table(sizes=(1, 2, 4, 8, 16)) -> list[TileMetrics]:
    """The square-tile table T×T of Simulation 7 (c)."""
    return [tile_metrics(t, t) for t in sizes]


def recorded_8x8_registers(benchmarks: dict | None) -> dict[str, int]:
    """ptxas register counts of the recorded 8×8 kernels (Levels 3–5), by "kernel (variant)"."""
    out: dict[str, int] = {}
    for row in (benchmarks or {}).get("rows") or []:
        if not isinstance(row, dict) or row.get("level") not in (3, 4, 5):
            continue
        if isinstance(row.get("registers"), int):
            name = f"L{row['level']} {row.get('variant') or row.get('kernel')}"
            out.setdefault(name, row["registers"])
    return out


# ------------------------------------------------------------------------------------
# Shared text for both views
# ------------------------------------------------------------------------------------

def _register_lines(m: TileMetrics, measured: dict | None = None) -> list[str]:
    r = m.registers
    lines = [f"레지스터 추정 {r.total}개 = 누산기 {r.accumulators} + 조각(fragment) "
             f"{r.fragments} + 인덱스·주소 {r.overhead}"]
    if r.spills:
        lines.append(f"→ {MAX_REGISTERS_PER_THREAD}개 한도 초과: 로컬 메모리로 스필(spill) 예상 "
                     "(SASS에 LDL/STL)")
    else:
        occ = occupancy(256, r.total, 0, "sm_90")
        lines.append(f"→ 256 스레드 블록이면 SM당 {occ.blocks_per_sm}블록, 이론 점유율 "
                     f"{occ.occupancy_pct:g}% (sm_90, 레지스터 기준)")
    if (m.tm, m.tn) == (8, 8):
        if measured:
            counts = ", ".join(f"{name} {regs}" for name, regs in measured.items())
            lines.append(f"기록된 ptxas 측정: {counts} (같은 8×8 타일도 변형마다 다름)")
        else:
            lines.append(f"재구성 커널의 ptxas 측정은 약 {MEASURED_8X8_REGISTERS}개 → 점유율 25%: "
                         "추정은 상한이 아님 (적재 중인 값, 주소, 임시값도 레지스터를 씀)")
    return lines


def _metrics_lines(m: TileMetrics, measured: dict | None = None) -> list[str]:
    return [
        f"k 한 단계: 공유 메모리→레지스터 {m.floats_per_step} float = {m.bytes_per_step} B, "
        f"FMA {m.fmas_per_step}회 = {m.flops_per_step} FLOP",
        f"산술 강도(arithmetic intensity) = {m.flops_per_step}/{m.bytes_per_step} = "
        f"{m.arithmetic_intensity:.3g} FLOP/B [{AI_MODEL_LABEL}]",
        f"재사용: A 값 하나를 {m.a_reuse}번, B 값 하나를 {m.b_reuse}번 사용",
    ] + _register_lines(m, measured)


# ------------------------------------------------------------------------------------
# Widget view (JupyterLab)
# ------------------------------------------------------------------------------------

def _state_html(state: OuterProductState, measured: dict | None = None) -> str:
    m = state.metrics
    cell = ("<td style='border:1px solid #999;padding:2px 4px;text-align:center;"
            "background:{bg};font-size:11px'>{txt}</td>")
    shade = int(255 - 150 * (state.k + 1) / BK)
    bg = f"rgb({shade},{shade},255)"
    rows = ["<tr><td></td>" + "".join(
        cell.format(bg="#ffe9b3", txt=f"b{n}") for n in range(m.tn)) + "</tr>"]
    for row in range(m.tm):
        cells = "".join(cell.format(bg=bg, txt=int(state.fma_counts[row, n]))
                        for n in range(m.tn))
        rows.append("<tr>" + cell.format(bg="#c8f0c8", txt=f"a{row}") + cells + "</tr>")
    lines = "".join(f"<li>{html.escape(line)}</li>" for line in _metrics_lines(m, measured))
    warn = ""
    if m.registers.spills:
        warn = ("<p style='color:#922b21'><b>경고:</b> 추정 레지스터가 255개를 넘습니다 — "
                "스필(spill)로 로컬 메모리 접근이 생깁니다.</p>")
    return (
        f"<p><b>k = {state.k}</b>까지 실행: a<sub>m</sub> = A[m][k], b<sub>n</sub> = B[k][n]; "
        f"칸의 숫자는 그 누산기(accumulator)가 받은 FMA 횟수. 지금까지 로드 "
        f"{state.floats_loaded} float, FMA {state.fmas_done}회 ({state.flops_done} FLOP).</p>"
        f"<table style='border-collapse:collapse'><caption>누산기별 FMA 횟수 (k = {state.k}까지)</caption>{''.join(rows)}</table>"
        f"<ul>{lines}</ul>{warn}"
    )


TOOLTIPS = {
    "tm": "스레드 타일의 행 수 TM: 스레드 하나가 맡는 C의 행",
    "tn": "스레드 타일의 열 수 TN: 스레드 하나가 맡는 C의 열",
    "k": "공유 메모리 타일 안의 k 단계: 이번에 레지스터로 읽는 A 열과 B 행",
}


def widget(tm=8, tn=8, k=0, data_dir=None):
    """ipywidgets view: TM, TN and k controls; the model redraws the grid and metrics."""
    import ipywidgets as widgets

    measured = recorded_8x8_registers(load_recorded("benchmarks.json", data_dir))
    controls = {
        "tm": widgets.IntText(value=tm, description="TM"),
        "tn": widgets.IntText(value=tn, description="TN"),
        "k": widgets.IntSlider(value=k, min=0, max=BK - 1, description="k 단계"),
    }
    return live_widget(controls, lambda p: _state_html(outer_product_step(p["tm"], p["tn"], p["k"]), measured),
                       "시뮬레이션 7: 외적 추적기(outer-product tracer)", TOOLTIPS)


# ------------------------------------------------------------------------------------
# Static figure view
# ------------------------------------------------------------------------------------

def _product_text(tm: int, tn: int) -> list[list[str]]:
    if tm * tn > 64:          # cells too small to read; the hover still explains them
        return [["" for _ in range(tn)] for _ in range(tm)]
    return [[f"a{m}·b{n}" for n in range(tn)] for m in range(tm)]


def _preset_title(m: TileMetrics, measured: dict | None = None) -> str:
    return (f"외적(outer product) 마이크로 커널 TM×TN = {m.tm}×{m.tn}<br>"
            + "<br>".join(html.escape(line) for line in _metrics_lines(m, measured)))


def _ai_curve_traces(go, presets):
    square = t_table()
    traces = [go.Scatter(
        x=[mt.fmas_per_step for mt in square],
        y=[mt.arithmetic_intensity for mt in square],
        mode="lines+markers+text",
        text=[f"{mt.tm}×{mt.tn}" for mt in square],
        textposition="top left",
        name="정사각 T×T: AI = T/4",
        customdata=[[mt.registers.total, "스필" if mt.registers.spills else "없음"]
                    for mt in square],
        hovertemplate=("%{text}: 출력 %{x}개/스레드<br>산술 강도 %{y:.3g} FLOP/B (모델 i)"
                       "<br>레지스터 추정 %{customdata[0]}개, 스필 %{customdata[1]}"
                       "<extra></extra>"),
        xaxis="x2", yaxis="y2",
    )]
    others = [tile_metrics(*p) for p in presets if p[0] != p[1]]
    if others:
        traces.append(go.Scatter(
            x=[mt.fmas_per_step for mt in others],
            y=[mt.arithmetic_intensity for mt in others],
            mode="markers+text", marker={"symbol": "diamond", "size": 10},
            text=[f"{mt.tm}×{mt.tn}" for mt in others], textposition="bottom right",
            name="직사각 TM×TN",
            hovertemplate=("%{text}: 출력 %{x}개/스레드<br>산술 강도 %{y:.3g} FLOP/B"
                           "<br>같은 출력 수라면 정사각이 더 높음<extra></extra>"),
            xaxis="x2", yaxis="y2",
        ))
    return traces


def figure(tm=8, tn=8, k=0, presets=PRESETS, benchmarks=None, data_dir=None):
    """Heatmap of the product grid with a k slider and preset buttons, plus AI vs tile.

    benchmarks (default: book/data/benchmarks.json) supplies the measured register counts
    of the 8×8 kernels. Returns an error figure (never raises) on invalid parameters.
    """
    import plotly.graph_objects as go

    if benchmarks is None:
        benchmarks = load_recorded("benchmarks.json", data_dir)
    measured = recorded_8x8_registers(benchmarks)
    try:
        presets = [tuple(_check_tile(*p)) for p in presets]
        start = outer_product_step(tm, tn, k)
    except (SimInputError, TypeError, ValueError) as err:
        return error_figure(err if isinstance(err, SimInputError) else SimInputError(str(err)),
                            "외적 시뮬레이터")
    current = (start.metrics.tm, start.metrics.tn)
    if current not in presets:
        presets = presets + [current]
    active = presets.index(current)

    heatmaps = []
    for p_tm, p_tn in presets:
        heatmaps.append(go.Heatmap(
            z=outer_product_step(p_tm, p_tn, k).fma_counts.tolist(),
            text=_product_text(p_tm, p_tn), texttemplate="%{text}",
            zmin=0, zmax=BK, colorscale="Blues",
            colorbar={"title": {"text": "누적 FMA"}, "x": 0.48, "len": 0.8, "thickness": 12},
            hovertemplate=("누산기 C[%{y}][%{x}] += a%{y}·b%{x}<br>"
                           "지금까지 받은 FMA: %{z}회<extra></extra>"),
            xgap=1, ygap=1, name=f"{p_tm}×{p_tn}", showscale=True,
        ))
    curve = _ai_curve_traces(go, presets)
    traces = heatmaps + curve
    trace_groups = list(range(len(heatmaps))) + [None] * len(curve)
    fig = go.Figure(data=traces)
    for index, trace in enumerate(fig.data):
        trace.visible = group_visibility(trace_groups, active)[index]

    heat_indices = list(range(len(heatmaps)))
    slider_steps = []
    for step in range(BK):
        z = [outer_product_step(p_tm, p_tn, step).fma_counts.tolist() for p_tm, p_tn in presets]
        label = f"k={step}"
        slider_steps.append((label, {"z": z}, heat_indices))

    buttons = []
    for index, (p_tm, p_tn) in enumerate(presets):
        buttons.append({
            "label": f"{p_tm}×{p_tn}", "method": "update",
            "args": [{"visible": group_visibility(trace_groups, index)}, {
                "title.text": _preset_title(tile_metrics(p_tm, p_tn), measured),
                "xaxis.range": [-0.5, p_tn - 0.5],
                "yaxis.range": [p_tm - 0.5, -0.5],
            }],
        })
    fig.update_layout(
        title={"text": _preset_title(start.metrics, measured), "font": {"size": 12},
               "y": 0.97},
        height=640,
        margin={"t": 170, "b": 90},
        xaxis={"domain": [0, 0.46], "title": {"text": "n (B 조각 b<sub>n</sub>)"},
               "range": [-0.5, current[1] - 0.5], "dtick": 1},
        yaxis={"title": {"text": "m (A 조각 a<sub>m</sub>)"},
               "range": [current[0] - 0.5, -0.5], "dtick": 1},
        xaxis2={"domain": [0.64, 1.0], "type": "log", "anchor": "y2",
                "tickvals": [1, 4, 16, 64, 256], "title": {"text": "스레드당 출력 수 TM·TN"}},
        yaxis2={"type": "log", "anchor": "x2", "tickvals": [0.25, 0.5, 1, 2, 4],
                "title": {"text": "산술 강도 (FLOP/B, 모델 i)"}},
        legend={"x": 0.64, "y": -0.12, "orientation": "h"},
        updatemenus=[{"name": "스레드 타일 크기 TM×TN", "type": "buttons", "direction": "right",
                      "active": active, "buttons": buttons, "x": 0.0, "y": 1.0, "xanchor": "left",
                      "yanchor": "bottom", "pad": {"b": 4}}],
        sliders=[restyle_slider(slider_steps, prefix="단계 ", active=start.k, name="k 단계")],
    )
    return fig
