"""Module 12's live cell: Level 7 and cuBLAS on the shape zoo, on the learner's GPU, or the record without one.

    from course.page.shape_zoo import zoo_results, show_zoo
    show_zoo(zoo_results())          # live on a GPU (tqdm progress), else book/data/shapes.json, labelled

Live: each zoo shape (kernels/level7_model.py ZOO) is checked against cuBLAS (NaN-poisoned C, relative Frobenius
error, TF32 off) and timed in alternation with it by kernels/timing.py's protocol (back-to-back calls behind a
hold, rotating over operand copies; a few rounds: this is a glance, the record is tools/record_shapes.py). A shape
that does not fit this GPU's memory, or a GPU with no Level 7 configuration, gets a Korean note and the recorded row
instead of a CUDA error.
"""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field

from kernels.record import DATA_DIR

LEVEL7 = "sgemm_shape_aware"
RECORD = DATA_DIR / "shapes.json"
LIVE_REPS = 5
MEMORY_SHARE = 0.6            # a shape runs live only if A, B, C, the reference and the workspace fit in this share


@dataclass
class ZooResults:
    rows: list                # {"M","N","K","level7_ms","cublas_ms","ratio","tflops","choice","live"}
    live: bool
    provenance: dict
    notes: list = field(default_factory=list)

    def label(self) -> str:
        p = self.provenance
        if self.live:
            return (f"이 컴퓨터에서 방금 측정한 결과 (live): {p.get('device')}, CuPy {p.get('cupy')}, "
                    f"{str(p.get('date'))[:10]}. cuBLAS 대비 비율은 같은 실행에서 번갈아 잰 cuBLAS와의 비입니다. "
                    f"{LIVE_REPS}회 잰 값의 중앙값이라 기록보다 흔들립니다.")
        return (f"기록된 결과 (recorded): {p.get('device')}, 드라이버 {p.get('driver')}, CuPy {p.get('cupy')}, "
                f"{str(p.get('date'))[:10]}, 명령 `{p.get('command')}`, 커밋 {str(p.get('git_commit'))[:10]}")

    @property
    def geomean(self) -> float:
        ratios = [r["ratio"] for r in self.rows if r.get("ratio")]
        return statistics.geometric_mean(ratios) if ratios else float("nan")


def recorded_rows() -> tuple[list, dict]:
    data = json.loads(RECORD.read_text(encoding="utf-8"))
    cublas = {(r["M"], r["N"], r["K"]): r for r in data["rows"] if r["kernel"] == "cublas"}
    rows = []
    for r in data["rows"]:
        if r["kernel"] != LEVEL7:
            continue
        shape = (r["M"], r["N"], r["K"])
        rows.append({"M": r["M"], "N": r["N"], "K": r["K"], "level7_ms": r["median_ms"], "cublas_ms": r["cublas_ms"],
                     "ratio": r["pct_cublas"] / 100, "tflops": r["gflops"] / 1000, "choice": r["choice"], "live": False,
                     "cublas_tflops": cublas[shape]["gflops"] / 1000 if shape in cublas else None})
    provenance = {k: v for k, v in data.items() if k not in ("rows", "log", "summary", "method")}
    return rows, provenance


def _fits(M: int, N: int, K: int, split: int) -> bool:
    import cupy

    free, _ = cupy.cuda.runtime.memGetInfo()
    need = 4 * (M * K + K * N + 3 * M * N + (split * M * (N + 3) if split > 1 else 0))
    return need < MEMORY_SHARE * free


def measure_shape(M: int, N: int, K: int, reps: int = LIVE_REPS) -> dict:
    import cupy

    from kernels import bench, check, level7, timing

    copies = timing.operand_copies(M, N, K)
    runs = [level7.prepare(A, B, C) for A, B, C in copies]
    A0, B0, C0 = copies[0]
    C_ref = cupy.matmul(A0, B0)
    C0.fill(cupy.nan)
    runs[0]()
    err = float(cupy.linalg.norm((C0 - C_ref).astype(cupy.float64)) / cupy.linalg.norm(C_ref.astype(cupy.float64)))
    if not err <= check.REL_TOLERANCE:
        raise ArithmeticError(f"{M}×{N}×{K}: Level 7의 결과가 cuBLAS와 다릅니다 (상대 오차 {err:.1e})")
    t7, tc = bench.interleaved_timings(runs, bench.cublas_calls(copies), warmup=1, reps=reps)
    choice = runs[0].describe()
    del runs, copies, A0, B0, C0, C_ref
    cupy.get_default_memory_pool().free_all_blocks()
    return {"M": M, "N": N, "K": K, "level7_ms": t7.median_ms, "cublas_ms": tc.median_ms,
            "ratio": tc.median_ms / t7.median_ms, "tflops": 2.0 * M * N * K / (t7.median_ms * 1e9),
            "cublas_tflops": 2.0 * M * N * K / (tc.median_ms * 1e9), "choice": choice, "live": True,
            "rel_error": err, "calls": t7.calls, "copies": t7.copies}


def zoo_results(force_recorded: bool = False, progress: bool = True) -> ZooResults:
    """Live on a GPU (each shape that fits; the record for the others, said so), else the record."""
    from kernels.device import gpu_available
    from kernels.errors import CompileError, DeviceLimitError, KernelInputError

    recorded, provenance = recorded_rows()
    if force_recorded or not gpu_available():
        return ZooResults(recorded, False, provenance)
    from kernels import level7, record
    from kernels import level7_model as model

    by_shape = {(r["M"], r["N"], r["K"]): r for r in recorded}
    notes, rows = [], []
    try:
        level7.plan_for(1024, 1024, 1024)
    except KernelInputError as exc:
        return ZooResults(recorded, False, provenance, [f"이 GPU에서는 Level 7을 실행할 수 없어 기록을 보여 줍니다: {exc}"])
    from cupy.cuda.memory import OutOfMemoryError

    skip = (MemoryError, OutOfMemoryError, DeviceLimitError, KernelInputError, CompileError, ArithmeticError)
    bar = _bar(len(model.ZOO)) if progress else None
    try:
        for shape in model.ZOO:
            if bar is not None:
                bar.set_description("×".join(map(str, shape)))
            try:
                if not _fits(*shape, level7.plan_for(*shape).split):
                    raise MemoryError
                rows.append(measure_shape(*shape))
            except skip as exc:
                why = "GPU 메모리가 모자랍니다" if isinstance(exc, (MemoryError, OutOfMemoryError)) else str(exc)
                notes.append(f"{'×'.join(map(str, shape))}: {why}. 이 모양은 기록된 값을 보여 줍니다 (recorded).")
                rows.append(by_shape[shape])
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return ZooResults(rows, True, record.provenance("(live, in this notebook)"), notes)


def _bar(total: int):
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="모양", leave=False)


def table_rows(results: ZooResults) -> list[dict]:
    out = []
    for r in results.rows:
        c = r["choice"]
        shape = f"{r['M']}³" if r["M"] == r["N"] == r["K"] else f"{r['M']}×{r['N']}×{r['K']}"
        out.append({"shape": shape + ("" if r.get("live", results.live) == results.live else " (기록)"),
                    "choice": f"{c['tile']} × split {c['split']}", "blocks": f"{c['blocks']:,}", "waves": c["waves"],
                    "l7": f"{r['level7_ms']:.3f}", "cb": f"{r['cublas_ms']:.3f}", "tf": f"{r['tflops']:.1f}",
                    "ratio": f"{r['ratio']:.3f}"})
    return out


COLUMNS = [("shape", "M×N×K"), ("choice", "디스패처의 선택"), ("blocks", "블록"), ("waves", "웨이브"),
           ("l7", "Level 7 ms"), ("cb", "cuBLAS ms"), ("tf", "Level 7 TFLOP/s"), ("ratio", "Level 7 / cuBLAS")]


def figure(results: ZooResults):
    import plotly.graph_objects as go

    labels = [r["shape"] for r in table_rows(results)]
    ratios = [r["ratio"] for r in results.rows]
    source = (f"실시간 측정, {results.provenance.get('device')}" if results.live
              else f"기록된 결과, {results.provenance.get('device')}")
    fig = go.Figure(go.Bar(x=labels, y=ratios, name="Level 7 / cuBLAS", marker_color="#4c78a8",
                           text=[f"{x:.3f}" for x in ratios], textposition="outside",
                           hovertext=[f"{lab}: Level 7 / cuBLAS = {x:.3f}" for lab, x in zip(labels, ratios)],
                           hoverinfo="text"))
    fig.add_hline(y=1.0, line_dash="dash", line_color="#444444", annotation_text="cuBLAS와 같음")
    fig.add_hline(y=0.9, line_dash="dot", line_color="#b22222", annotation_text="목표 하한 0.90",
                  annotation_position="bottom right")
    fig.update_layout(title=f"모양 모음: Level 7 / cuBLAS ({source})", height=440,
                      yaxis=dict(title="Level 7 / cuBLAS (1 = 같은 속도)", range=[0, max(ratios + [1.0]) * 1.15]),
                      xaxis=dict(title="M×N×K", tickangle=-35), margin=dict(t=60, b=110, l=60, r=20))
    return fig


def show_zoo(results: ZooResults) -> None:
    from course.page import note, show, table

    for text in results.notes:
        note(text, kind="warning")
    note(results.label(), kind="live" if results.live else "recorded")
    table(table_rows(results), COLUMNS, f"모양 모음 12가지: Level 7과 cuBLAS (기하 평균 {results.geomean:.3f})")
    show(figure(results))
