"""Simulation 12: waves and split-K — which tile and how many K slices suit a shape on a GPU.

Model: kernels/level7_model.py, the cost model Level 7's dispatcher runs before every launch (no copy of
it here). For a shape M x N x K and a listed GPU (kernels/devices.py) every tile that fits the GPU is cut
into `split` K slices; the model counts

    blocks = ceil(M / BM) x ceil(N / BN) x split, slots = resident blocks per SM x SMs,
    waves  = rounds of blocks the busiest SM runs,  fill = blocks / (waves x slots),

and predicts the time of the GEMM (rounds of blocks at the tile's measured rate) plus, with split > 1, the
reduction (the partial tiles written and read back: 2 x split x M x N x 4 bytes at the workspace's rate).
This module only chooses, validates and presents: :func:`plan` (the model's choice, or a tile and split the
learner forces), :func:`alternatives` (every allowed pair, fastest first), :func:`explain` (one Korean line).

Views: :func:`widget` (ipywidgets, any shape, GPU, tile and split) and :func:`figure` (plotly with a menu of
the zoo's shapes: predicted time of every (tile, split), GEMM and reduction stacked).
"""
from __future__ import annotations

import html

from dataclasses import dataclass

from kernels import devices
from kernels import level7_model as model
from sims import roofline
from korean_text import with_particle
from sims._common import SimInputError, error_figure, live_widget, require, require_int_in_range

__all__ = ["DEVICES", "AUTO", "MAX_DIM", "plan", "alternatives", "explain", "rows", "widget", "figure",
           "PRESETS", "shape_text", "RoofEnd", "roofline_end", "end_sentence", "decode_figure"]

DEVICES = tuple(devices.PROFILES)
AUTO = "자동"                       # the model's choice (tile or split)
MAX_DIM = 65536
# The figure's menu: the zoo shapes where the choice is not the big tile with one slice, and 2048^3, where it
# is (the chapter compares its split 2 with the tuner's records).
PRESETS = ((128, 4096, 4096), (1024, 1024, 1024), (1024, 1024, 16384), (513, 8192, 8192), (4095, 4097, 4099),
           (2048, 2048, 2048))


def shape_text(M: int, N: int, K: int) -> str:
    return f"{M}³" if M == N == K else f"{M}×{N}×{K}"


def _limits(device: str) -> devices.DeviceLimits:
    require(device in devices.PROFILES,
            f"GPU {with_particle(repr(device), '는')} 목록에 없습니다 (device). 고를 수 있는 GPU: {', '.join(DEVICES)}")
    return devices.profile(device)


def _shape(M, N, K) -> tuple[int, int, int]:
    return tuple(require_int_in_range(v, name, 1, MAX_DIM) for v, name in ((M, "M"), (N, "N"), (K, "K")))


def alternatives(M, N, K, device: str = "H100") -> list[model.Prediction]:
    """Every (tile, split) the dispatcher may launch for this shape on this GPU, fastest predicted first."""
    M, N, K = _shape(M, N, K)
    found = model.predictions(M, N, K, _limits(device))
    require(bool(found), f"{device}에는 Level 7의 어떤 타일도 맞지 않습니다 (shared memory).")
    return found


def plan(M, N, K, device: str = "H100", tile: str = AUTO, split=AUTO) -> model.Prediction:
    """The model's choice, or the (tile, split) the learner picked (AUTO for either means: the model's)."""
    M, N, K = _shape(M, N, K)
    limits = _limits(device)
    choice = model.choose(M, N, K, limits) if model.candidates(limits) else None
    require(choice is not None, f"{device}에는 Level 7의 어떤 타일도 맞지 않습니다 (shared memory).")
    if tile == AUTO and split == AUTO:
        return choice
    tile = choice.candidate.tile.name if tile == AUTO else tile
    if tile in model.STREAM_NAMES:   # the model's own pick at a decode shape: the streaming path, any split
        cand = model.stream_candidate(tile, M, N, limits)
        require(cand is not None, f"{tile} 스트리밍 경로는 작은 쪽이 {model.STREAM_MAX} 이하인 모양에만 씁니다.")
    else:
        require(tile in model.TILE_BY_NAME,
                f"타일 {with_particle(repr(tile), '은')} 없습니다 (tile). 있는 타일: {', '.join(model.TILE_BY_NAME)}")
        cand = model.ring_for(model.TILE_BY_NAME[tile], limits)
        require(cand is not None, f"{tile} 타일은 {device}의 공유 메모리에 들어가지 않습니다 (shared memory).")
    if split == AUTO:
        allowed = [p for p in model.predictions(M, N, K, limits) if p.candidate.tile.name == tile]
        require(bool(allowed), f"{tile} 타일로는 이 모양을 실행할 수 없습니다 (그리드 한도).")
        return allowed[0]
    split = require_int_in_range(split, "split", 1, max(model.SPLITS))
    require(split in model.SPLITS, f"조각 수(split)는 {', '.join(map(str, model.SPLITS))} 중 하나여야 합니다.")
    if not model.allowed(M, N, K, cand, split):
        k_per_split, made = model.slices(K, cand.BK, split)
        if made != split:
            why = f"K = {with_particle(str(K), '를')} BK {cand.BK}의 배수로 {split}조각 내면 {made}조각만 생깁니다"
        elif k_per_split < model.MIN_SLICE_K:
            why = (f"조각 하나의 K가 {with_particle(str(k_per_split), '로')} 디스패처의 하한 {model.MIN_SLICE_K}보다 짧습니다 "
                   "(조각이 짧을수록 스테이지 링을 채우는 시간의 몫이 커짐)")
        else:
            why = (f"작업 공간(workspace)이 {model.workspace_bytes(M, N, split) / 2**20:,.0f} MiB로 한도 "
                   f"{model.WORKSPACE_LIMIT_BYTES // 2**20} MiB를 넘습니다")
        raise SimInputError(f"디스패처는 이 모양에 split {with_particle(str(split), '을')} 쓰지 않습니다: {why}.")
    return model.predict(M, N, K, cand, split, limits)


def explain(p: model.Prediction) -> str:
    """One Korean line a learner can check by hand: blocks, slots, waves, fill, the two terms of the time."""
    c = p.candidate
    reduce = f" + 리덕션 {p.reduce_us:,.1f} µs = {p.total_us:,.1f} µs" if p.split > 1 else ""
    form = (f"{c.tile.name} 타일(BK {c.BK}, 스테이지 {c.STAGES}개)" if is_tile(p) else
            f"{path_name(p)} 스트리밍 경로(K 묶음 {c.BK})")
    return (f"{form} × split {p.split}: 블록 {p.tiles_m}×{p.tiles_n}×{p.split} = "
            f"{p.blocks:,}개, 동시 자리 {c.resident}/SM × SM = {p.slots:,}개, 웨이브 {p.waves}개 (자리 {100 * p.wave_fill:.0f}% 사용), "
            f"예측 GEMM {p.gemm_us:,.1f} µs{reduce}")


def rows(M, N, K, device: str = "H100") -> list[dict]:
    """The alternatives as table rows (pre-formatted), the model's choice first."""
    out = []
    for i, p in enumerate(alternatives(M, N, K, device)):
        out.append({"choice": "선택" if i == 0 else "", "tile": p.candidate.tile.name, "split": p.split,
                    "blocks": f"{p.blocks:,}", "waves": p.waves, "fill": f"{100 * p.wave_fill:.0f}%",
                    "gemm": f"{p.gemm_us:,.1f}", "reduce": f"{p.reduce_us:,.1f}", "total": f"{p.total_us:,.1f}",
                    "tflops": f"{p.gflops / 1000:,.1f}"})
    return out


COLUMNS = (("choice", ""), ("tile", "타일"), ("split", "split"), ("blocks", "블록"), ("waves", "웨이브"),
           ("fill", "자리 사용"), ("gemm", "GEMM µs"), ("reduce", "리덕션 µs"), ("total", "합계 µs"),
           ("tflops", "TFLOP/s"))


# [region: roofline-end]
@dataclass(frozen=True)
class RoofEnd:
    """One shape at the memory-bound end: where it sits on the roofline and what each path is predicted to take."""

    intensity: float        # FLOP per least byte: 2MNK / 4(MK + KN + MN)
    ridge: float            # the GPU's FP32 peak / DRAM bandwidth (FLOP/B)
    bandwidth_gbs: float    # the DRAM bandwidth the model uses for this GPU
    bytes_min: int          # A and B read once, C written once
    floor_us: float         # bytes_min / DRAM bandwidth: no kernel can beat it
    compute_us: float       # 2MNK / FP32 peak: nor this
    tile: model.Prediction | None      # the best tile path (blocks of BM x BN)
    other: model.Prediction | None     # the best prediction that is not a tile (the streaming path), if the model has one

    @property
    def memory_bound(self) -> bool:
        return self.intensity < self.ridge


def is_tile(p) -> bool:
    """A prediction of the tile path; the other path is the streaming one (model.is_stream)."""
    return not p.is_stream


def path_name(p) -> str:
    """The tile's or the streaming form's name ("128x256", "stream-B"): every candidate carries its tile."""
    return p.candidate.tile.name


def roofline_end(M, N, K, device: str = "H100") -> RoofEnd:
    """The shape's intensity against the GPU's ridge point, the two floors (bytes / bandwidth, FLOP / peak), and
    the model's best tile path beside its best other path."""
    M, N, K = _shape(M, N, K)
    limits = _limits(device)
    found = model.predictions(M, N, K, limits)
    bandwidth = model.dram_gbs(limits)
    peak = model.sm_peak_gflops(limits) * limits.sm_count
    need = roofline.compulsory_bytes(M, N, K)
    return RoofEnd(roofline.ai_compulsory(M, N, K), peak / bandwidth, bandwidth, need, need / (bandwidth * 1e3),
                   2.0 * M * N * K / (peak * 1e3), next((p for p in found if is_tile(p)), None),
                   next((p for p in found if not is_tile(p)), None))


def end_sentence(M, N, K, device: str = "H100") -> str:
    """The memory-bound end in Korean: which side of the ridge, the floor, each path's prediction."""
    e = roofline_end(M, N, K, device)
    side = "꺾임점보다 낮아 메모리 쪽" if e.memory_bound else "꺾임점보다 높아 연산 쪽"
    line = (f"산술 강도 {e.intensity:,.2f} FLOP/B, {device}의 꺾임점 {e.ridge:,.1f} FLOP/B: {side}입니다. "
            f"최소 바이트 {e.bytes_min / 2**20:,.1f} MiB를 DRAM 대역폭({e.bandwidth_gbs:,.0f} GB/s, 모델의 값)으로 옮기는 "
            f"하한 {e.floor_us:,.1f} µs, "
            f"FP32 최대로 계산하는 하한 {e.compute_us:,.1f} µs.")
    for label, p in (("타일 경로", e.tile), ("스트리밍 경로", e.other)):
        if p is None:
            line += f" {label}: 모델에 이 모양의 후보가 없습니다."
        else:
            line += (f" {label}({path_name(p)} × split {p.split}) 예측 {p.total_us:,.1f} µs, "
                     f"하한의 {p.total_us / max(e.floor_us, e.compute_us):,.1f}배.")
    return line
# [end-region: roofline-end]


def _table_html(found: list[dict], caption: str, limit: int = 12) -> str:
    head = "".join(f'<th scope="col">{html.escape(h)}</th>' for _, h in COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(r[k]))}</td>" for k, _ in COLUMNS) + "</tr>"
                   for r in found[:limit])
    return (f'<table class="course-table"><caption>{html.escape(caption)}</caption>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


def _render(params: dict) -> str:
    M, N, K, device = params["M"], params["N"], params["K"], params["device"]
    picked = plan(M, N, K, device, params["tile"], params["split"])
    best = plan(M, N, K, device)
    lines = [f"<p><b>{html.escape(explain(picked))}</b></p>",
             f"<p>{html.escape(end_sentence(M, N, K, device))}</p>"]
    if picked.total_us > best.total_us:
        lines.append(f"<p>모델의 선택은 {html.escape(explain(best))}입니다. 고른 조합은 예측으로 "
                     f"{picked.total_us / best.total_us:.2f}배 느립니다.</p>")
    found = rows(M, N, K, device)
    caption = f"{shape_text(M, N, K)}, {device}: 디스패처가 고를 수 있는 조합 (빠른 순, 처음 12개)"
    return "\n".join(lines) + _table_html(found, caption)


def widget(M: int = 128, N: int = 4096, K: int = 4096, device: str = "H100"):
    """JupyterLab view: type a shape, pick a GPU, force a tile or a split, read the model's account."""
    import ipywidgets as w

    controls = {
        "M": w.BoundedIntText(value=M, min=1, max=MAX_DIM, description="M"),
        "N": w.BoundedIntText(value=N, min=1, max=MAX_DIM, description="N"),
        "K": w.BoundedIntText(value=K, min=1, max=MAX_DIM, description="K"),
        "device": w.Dropdown(options=list(DEVICES), value=device, description="GPU"),
        "tile": w.Dropdown(options=[AUTO, *model.TILE_BY_NAME], value=AUTO, description="타일"),
        "split": w.Dropdown(options=[AUTO, *model.SPLITS], value=AUTO, description="split"),
    }
    tooltips = {"M": "C의 행 수 (A의 행 수)", "N": "C의 열 수 (B의 열 수)", "K": "곱하는 길이 (A의 열 수, B의 행 수)",
                "device": "목록의 GPU: SM 수, 공유 메모리, 클럭이 모델에 들어갑니다",
                "tile": "블록 타일 (자동: 모델의 선택)", "split": "K를 나누는 조각 수 (자동: 모델의 선택)"}
    return live_widget(controls, _render, "시뮬레이션 12: 웨이브와 split-K", tooltips)


def figure(presets=PRESETS, device: str = "H100", active: int = 0):
    """Static view: for each preset shape, the predicted time of every allowed (tile, split), GEMM and
    reduction stacked, the model's choice marked; a menu switches the shape."""
    import plotly.graph_objects as go

    try:
        groups = [(shape, alternatives(*shape, device)) for shape in presets]
    except SimInputError as err:
        return error_figure(err)
    fig = go.Figure()
    buttons = []
    for g, (shape, found) in enumerate(groups):
        labels = [f"{p.candidate.tile.name} ×{p.split}" for p in found]
        hover = [explain(p) for p in found]
        fig.add_trace(go.Bar(name="GEMM", x=[p.gemm_us for p in found], y=labels, orientation="h",
                             marker_color="#4c78a8", visible=g == active, hovertext=hover, hoverinfo="text",
                             text=[f"{p.waves}웨이브 {100 * p.wave_fill:.0f}%" for p in found], textposition="inside"))
        fig.add_trace(go.Bar(name="리덕션", x=[p.reduce_us for p in found], y=labels, orientation="h",
                             marker_color="#f58518", visible=g == active, hovertext=hover, hoverinfo="text"))
        visible = [i // 2 == g for i in range(2 * len(groups))]
        best = found[0]
        title = (f"{shape_text(*shape)}, {device}: 조합마다 예측 시간 (µs) — 선택 "
                 f"{best.candidate.tile.name} × split {best.split}, {best.total_us:,.0f} µs")
        buttons.append(dict(label=shape_text(*shape), method="update",
                            args=[{"visible": visible}, {"title.text": title}]))
    fig.update_layout(
        title=buttons[active]["args"][1]["title.text"], barmode="stack", height=560,
        xaxis=dict(title="예측 시간 (µs, 모델)"), yaxis=dict(title="타일 × split", autorange="reversed"),
        margin=dict(t=110, b=60, l=120, r=20), legend=dict(orientation="h", y=-0.12),
        updatemenus=[dict(type="buttons", direction="right", buttons=buttons, active=active, x=0, y=1.16,
                          xanchor="left", yanchor="top", showactive=True, pad=dict(t=2, r=4))])
    return fig


def choice_sentence(M: int, N: int, K: int, device: str = "H100") -> str:
    """"128×4096×4096에서는 64x128 타일 × split 8을 고릅니다" with the particle the reading takes."""
    p = plan(M, N, K, device)
    form = f"{p.candidate.tile.name} 타일" if is_tile(p) else f"{path_name(p)} 스트리밍 경로"
    return f"{shape_text(M, N, K)}에서는 {form} × split {with_particle(str(p.split), '을')} 고릅니다"


DECODE_M = (1, 2, 4, 8, 16, 32, 64, 128)


def decode_figure(N: int = 4096, K: int = 4096, device: str = "H100", ms=DECODE_M):
    """Static view of the memory-bound end: for M tokens through an N x K layer, the predicted time of the best
    tile path and of the other path (when the model has one) beside the two floors, bytes / bandwidth and
    FLOP / peak; log axes."""
    import plotly.graph_objects as go

    try:
        ends = [roofline_end(m, N, K, device) for m in ms]
    except SimInputError as err:
        return error_figure(err)
    fig = go.Figure()
    series = [("타일 경로 (모델)", [e.tile.total_us if e.tile else None for e in ends], "#4c78a8", "solid"),
              ("스트리밍 경로 (모델)", [e.other.total_us if e.other else None for e in ends], "#f58518", "solid"),
              ("하한: 최소 바이트 ÷ DRAM 대역폭", [e.floor_us for e in ends], "#54a24b", "dash"),
              ("하한: FLOP ÷ FP32 최대", [e.compute_us for e in ends], "#b279a2", "dot")]
    for name, ys, color, dash in series:
        if any(y is not None for y in ys):
            fig.add_trace(go.Scatter(x=list(ms), y=ys, name=name, mode="lines+markers",
                                     line=dict(color=color, dash=dash)))
    ridge_m = next((m for m, e in zip(ms, ends) if not e.memory_bound), None)
    title = f"M×{N}×{K}, {device}: 토큰 수 M에 따른 예측 시간과 두 하한"
    if ridge_m is not None:
        title += f" (M = {ridge_m}부터 꺾임점 위)"
    fig.update_layout(title=title, height=460, xaxis=dict(title="M (토큰 수)", type="log", tickvals=list(ms)),
                      yaxis=dict(title="시간 (µs, 로그 눈금)", type="log"),
                      margin=dict(t=80, b=60, l=80, r=20), legend=dict(orientation="h", y=-0.2))
    return fig
