"""Record the shape zoo: every course level and cuBLAS on the shapes people multiply (book/data/shapes.json).

    python tools/record_shapes.py [--out book/data/shapes.json] [--budget 1.2]
    python tools/record_shapes.py --from-log record.log --provenance book/data/level7_tuning_check.json
        (no GPU: rebuild the record from a run's printed lines when its JSON was lost, marked as such)

Kernels: the representative of each level (registry.LEVEL_REPRESENTATIVE) and Level 7 (sgemm_shape_aware,
through its dispatcher, as a learner calls it). On each zoo shape (kernels/level7_model.py ZOO) every kernel
is first checked against cuBLAS on one operand copy (NaN-poisoned C, relative Frobenius error, TF32 off), then
timed in alternation with cuBLAS by kernels/timing.py's protocol: per round one CUDA event pair around
back-to-back calls queued behind a hold kernel, rotating over operand copies larger than twice the L2; median of
rounds, the rounds bounded by a time budget per (kernel, shape) so that Levels 0-2 take seconds, not minutes.
Each row says its calls per event pair and its copies. % of cuBLAS = cuBLAS's median in the same alternation /
the kernel's median. Level 7's rows say which tile, ring and split the dispatcher chose.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("CUPY_TF32", "0")

from kernels import bench, check, launch, level7, record, registry, timing  # noqa: E402
from kernels import level7_model as model  # noqa: E402
from kernels.device import info  # noqa: E402

OUT = record.DATA_DIR / "shapes.json"
LEVEL7 = "sgemm_shape_aware"
KERNELS = tuple(registry.LEVEL_REPRESENTATIVE[lv] for lv in sorted(registry.LEVEL_REPRESENTATIVE)) + (LEVEL7,)
MIN_REPS, MAX_REPS = 3, 30
# Level 7's goals on the zoo (Level 7 / cuBLAS, timed by kernels/timing.py): every shape at least even with cuBLAS
# (2048^3 included), so their geometric mean and the squares too; and the stretch: 80% of the FP32 peak at 8192^3.
# Records made before this rule carry the goals they were judged by in their "summary".
GOAL_EVERY, GOAL_GEOMEAN, GOAL_SQUARES, STRETCH_SHARE_OF_PEAK = 1.00, 1.00, 1.00, 0.80


def round_ms(ms: float) -> float:
    """GPU time one subject's batch takes in a round: its calls (timing.calls_for) behind a hold."""
    return timing.calls_for(ms) * ms + timing.HOLD_MS


def reps_for(budget_s: float, kernel_ms: float, cublas_ms: float) -> int:
    """Rounds that fit the budget (each round: one batch of the kernel and one of cuBLAS)."""
    return max(MIN_REPS, min(MAX_REPS, int(budget_s * 1e3 / (round_ms(kernel_ms) + round_ms(cublas_ms)))))


def beside_cublas(M: int, N: int, K: int):
    """Operand copies (timing.operand_copies: random A and B, never zeros, and a C each), cuBLAS's product on the
    first copy, cuBLAS's calls (one per copy) and a first estimate of its time in ms (for the budget only): what
    every timing in alternation with cuBLAS starts from (also tools/tune_level7.py)."""
    import cupy

    copies = timing.operand_copies(M, N, K)
    A0, B0, _ = copies[0]
    ref = cupy.matmul(A0, B0)
    cublas = bench.cublas_calls(copies)
    return copies, ref, cublas, bench.time_callable(cublas, 1, 3).median_ms


def log_line(name: str, t, t_cb, row: dict) -> str:
    """The line printed per timed kernel (rows_from_log reads it back): calls per event pair of the kernel and of
    cuBLAS beside it, and the operand copies both rotated over."""
    extra = ""
    if "choice" in row:
        c = row["choice"]
        extra = f"  [{c['tile']} BK{c['BK']}x{c['STAGES']} split {c['split']}, {c['waves']} waves, b16={c['b16']}]"
    return (f"  {name:<24} {t.median_ms:9.3f} ms {row['gflops'] / 1e3:6.1f} TFLOP/s {row['pct_cublas']:6.1f}% cuBLAS "
            f"reps {t.reps:>2} calls {t.calls:>2}/{t_cb.calls:<2} copies {t.copies:>2}{extra}")


def record_shape(M: int, N: int, K: int, budget_s: float, peak: float) -> list[dict]:
    import cupy

    copies, ref, cublas, t_cublas = beside_cublas(M, N, K)
    C0 = copies[0][2]
    rows, cublas_times = [], []
    for name in KERNELS:
        spec = registry.get(name)
        launches = [launch.prepare(name, A, B, C) for A, B, C in copies]
        first = launches[0]
        err, bad = check.poisoned_run(first, C0, ref)
        row = {"kernel": name, "level": spec.level, "M": M, "N": N, "K": K, "rel_error": err,
               "staged": list(first.staged)}
        if hasattr(first, "describe"):
            row["choice"] = first.describe()
        if bad or err > check.REL_TOLERANCE:
            rows.append(row)
            print(f"  {name:<24} WRONG: rel.err {err:.1e}, {bad} NaN/Inf", flush=True)
            continue
        estimate = timing.estimate_ms(launches)  # sizes the rounds to the budget; not recorded
        reps = reps_for(budget_s, estimate, t_cublas)
        t_cb, t = bench.interleaved_timings(cublas, launches, warmup=1 if estimate > 50 else 3, reps=reps)
        cublas_times.append(t_cb)
        gflops = 2.0 * M * N * K / (t.median_ms * 1e6)
        row.update(median_ms=t.median_ms, min_ms=t.min_ms, max_ms=t.max_ms, reps=t.reps, calls=t.calls,
                   copies=t.copies, gflops=gflops, pct_peak=100 * gflops / peak, cublas_ms=t_cb.median_ms,
                   pct_cublas=100 * t_cb.median_ms / t.median_ms)
        rows.append(row)
        print(log_line(name, t, t_cb, row), flush=True)
        del launches, first
    if cublas_times:
        medians = [t.median_ms for t in cublas_times]
        median = statistics.median(medians)
        gflops = 2.0 * M * N * K / (median * 1e6)
        rows.insert(0, {"kernel": "cublas", "level": None, "M": M, "N": N, "K": K, "median_ms": median,
                        "min_ms": min(medians), "max_ms": max(medians), "reps": len(medians),
                        "calls": cublas_times[-1].calls, "copies": len(copies), "gflops": gflops,
                        "pct_peak": 100 * gflops / peak,
                        "note": "median of the cuBLAS medians measured beside each kernel"})
    del copies, ref, cublas, C0
    cupy.get_default_memory_pool().free_all_blocks()
    return rows


def summary(rows: list[dict], peak: float) -> dict:
    """Level 7 against cuBLAS per shape, their geometric mean, and the goals above."""
    l7 = {(r["M"], r["N"], r["K"]): r for r in rows if r["kernel"] == LEVEL7}
    ratios = {s: l7[s]["pct_cublas"] / 100 for s in model.ZOO if s in l7 and "pct_cublas" in l7[s]}
    if not ratios:
        return {}
    geomean = statistics.geometric_mean(ratios.values())
    big = l7.get((8192, 8192, 8192), {})
    return {
        "level7_over_cublas": {f"{M}x{N}x{K}": v for (M, N, K), v in ratios.items()},
        "geometric_mean": geomean,
        "worst": min(ratios.values()),
        "goals": {"every_shape_at_least": GOAL_EVERY, "geometric_mean_at_least": GOAL_GEOMEAN,
                  "squares_at_least": GOAL_SQUARES, "stretch_gflops_8192": STRETCH_SHARE_OF_PEAK * peak},
        "met": {"every_shape": min(ratios.values()) >= GOAL_EVERY, "geometric_mean": geomean >= GOAL_GEOMEAN,
                "squares": all(ratios.get(s, 0) >= GOAL_SQUARES for s in model.SQUARES),
                "stretch_8192": big.get("gflops", 0) >= STRETCH_SHARE_OF_PEAK * peak},
    }


_SHAPE_LINE = re.compile(r"^(\d+)x(\d+)x(\d+)$")
_ROW_LINE = re.compile(r"^\s+(\w+)\s+([\d.]+) ms\s+[\d.]+ TFLOP/s\s+([\d.]+)% cuBLAS reps\s+(\d+)"
                       r" calls\s+(\d+)/(\d+)\s+copies\s+(\d+)"
                       r"(?:\s+\[(\S+) BK(\d+)x(\d+) split (\d+), (\d+) waves, b16=(True|False)\])?")


def rows_from_log(text: str, limits, bandwidth: float, peak: float) -> list[dict]:
    """The rows of a run whose JSON was lost, from the lines it printed (median to 0.001 ms, % of cuBLAS to
    0.1). What the log does not print is derived the way the run computed it (FLOP rate, cuBLAS's median
    from the ratio, the operands the launcher stages, the dispatcher's full choice) or left out (min, max and
    the error itself: every kernel was checked below 1e-5 before it was timed, or the line says WRONG)."""
    rows, shape = [], None
    for line in text.splitlines():
        if (m := _SHAPE_LINE.match(line.strip())):
            if shape:
                rows += _with_cublas_row(shape, pending, peak)
            shape, pending = tuple(int(v) for v in m.groups()), []
        elif (m := _ROW_LINE.match(line)):
            name, median, pct, reps = m.group(1), float(m.group(2)), float(m.group(3)), int(m.group(4))
            calls, cublas_calls, copies = (int(v) for v in m.group(5, 6, 7))
            M, N, K = shape
            gflops = 2.0 * M * N * K / (median * 1e6)
            row = {"kernel": name, "level": registry.get(name).level, "M": M, "N": N, "K": K, "rel_error": None,
                   "staged": _staged(name, M, N, K), "median_ms": median, "reps": reps, "calls": calls,
                   "copies": copies, "gflops": gflops, "pct_peak": 100 * gflops / peak,
                   "cublas_ms": median * pct / 100, "pct_cublas": pct, "cublas_calls": cublas_calls}
            if m.group(8):
                row["choice"] = _choice(M, N, K, m.groups()[7:], limits, bandwidth)
            pending.append(row)
    return rows + _with_cublas_row(shape, pending, peak) if shape else rows


def _staged(name: str, M: int, N: int, K: int) -> list:
    """What the launcher stages for contiguous, 256-byte aligned operands (CuPy's allocations)."""
    ops = [launch.Operand(label, shape, np.dtype(np.float32), (shape[1] * 4, 4), 1 << (20 + 8 * i),
                          4 * shape[0] * shape[1])
           for i, (label, shape) in enumerate((("A", (M, K)), ("B", (K, N)), ("C", (M, N))))]
    return list(launch.plan(registry.get(name), *ops).staged_operands)


def _choice(M: int, N: int, K: int, logged: tuple, limits, bandwidth: float) -> dict:
    tile, bk, stages, split, waves, b16 = logged
    p = model.choose(M, N, K, limits, bandwidth)
    c = p.candidate
    if (c.tile.name, c.BK, c.STAGES, p.split, p.waves) != (tile, int(bk), int(stages), int(split), int(waves)):
        raise ValueError(f"{M}x{N}x{K}: the log says {logged}, the model now chooses {model.waves_text(p)}")
    return {"tile": tile, "BK": c.BK, "STAGES": c.STAGES, "resident": c.resident, "split": p.split,
            "k_per_split": p.k_per_split, "blocks": p.blocks, "waves": p.waves, "b16": b16 == "True",
            "predicted_us": p.total_us, "staged": []}


def _with_cublas_row(shape: tuple, rows: list[dict], peak: float) -> list[dict]:
    if not rows:        # no timed line for this shape (every kernel WRONG, or a log without calls and copies)
        return []
    M, N, K = shape
    medians = [r["cublas_ms"] for r in rows]
    median = statistics.median(medians)
    gflops = 2.0 * M * N * K / (median * 1e6)
    calls = [r.pop("cublas_calls") for r in rows]
    return [{"kernel": "cublas", "level": None, "M": M, "N": N, "K": K, "median_ms": median, "min_ms": min(medians),
             "max_ms": max(medians), "reps": len(medians), "calls": calls[-1], "copies": rows[-1]["copies"],
             "gflops": gflops, "pct_peak": 100 * gflops / peak,
             "note": "median of the cuBLAS medians measured beside each kernel (each from its logged ratio)"}] + rows


def from_log(log_path: str, provenance_path: str, out: str) -> int:
    """Write the record of a run whose JSON did not come back, from its log and the session's provenance."""
    from kernels import devices

    with open(provenance_path, encoding="utf-8") as fh:
        session = json.load(fh)
    d = session["device_model"]
    limits = devices.DeviceLimits(**{**d["limits"], "cc": tuple(int(v) for v in d["limits"]["cc"].split("."))})
    with open(log_path, encoding="utf-8") as fh:
        text = fh.read()
    peak = session["peak_gflops"]
    rows = rows_from_log(text, limits, d["bandwidth_gbs"], peak)
    if not rows:
        print(f"{log_path}: 시간 줄(calls와 copies가 있는 줄)이 하나도 없습니다. 이 로그는 지금의 측정 방식(timing "
              "protocol, kernels/timing.py) 이전의 것이어서 기록으로 되살릴 수 없습니다.", file=sys.stderr)
        return 2
    keys = ("device", "compute_capability", "driver", "cuda_driver_api", "cuda_runtime", "cupy", "git_commit",
            "sm_count", "clock_mhz", "clock_source", "fp32_lanes_per_sm", "peak_gflops", "tf32")
    result = {k: session[k] for k in keys}
    result["timing"] = timing.PROTOCOL       # the log's lines carry calls and copies: this protocol's lines
    result.update({
        "date": session["date"], "command": "python tools/record_shapes.py --budget 1.2",
        "reconstructed_from_log": {
            "command": f"python tools/record_shapes.py --from-log {log_path} --provenance {provenance_path}",
            "why": "the run's JSON did not come back from the GPU machine (it returns at most 8 files); its log did",
            "provenance": f"{os.path.basename(provenance_path)}: the same GPU session, about a minute later",
            "precision": "median_ms to 0.001 ms and pct_cublas to 0.1 as printed; min/max and rel_error not printed",
            "checked": "every kernel's result was checked against cuBLAS (rel. error below 1e-5) before timing"},
        "method": __doc__.strip().split("\n\n", 2)[2], "zoo": [list(s) for s in model.ZOO], "kernels": list(KERNELS),
        "budget_s": 1.2, "level7_device": d, "rows": rows, "summary": summary(rows, peak), "log": text.splitlines(),
    })
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    print(json.dumps(result["summary"], indent=1))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--budget", type=float, default=1.2, help="seconds of timing per (kernel, shape)")
    ap.add_argument("--from-log", metavar="LOG", help="rebuild the record from a run's log (no GPU needed)")
    ap.add_argument("--provenance", metavar="JSON", help="with --from-log: a record of the same GPU session")
    args = ap.parse_args()
    if args.from_log:
        return from_log(args.from_log, args.provenance, args.out)
    peak = info()["peak_gflops"]
    limits, bandwidth = level7.device_model()     # what the dispatcher saw (the CPU tests redo its choices)
    record.spin_up(2.0)
    state_before = record.gpu_state()
    start = time.perf_counter()
    rows = []
    for M, N, K in model.ZOO:
        print(f"{M}x{N}x{K}", flush=True)
        rows += record_shape(M, N, K, args.budget, peak)
    result = record.provenance(f"python tools/record_shapes.py --budget {args.budget}")
    result.update({
        "method": __doc__.strip().split("\n\n", 2)[2],
        "gpu_state": {"columns": "SM clock, temperature, power, clock-limit reasons (nvidia-smi)",
                      "before": state_before, "after": record.gpu_state()},
        "zoo": [list(s) for s in model.ZOO], "kernels": list(KERNELS), "budget_s": args.budget,
        "level7_device": {"limits": limits.as_dict(), "bandwidth_gbs": bandwidth},
        "seconds": time.perf_counter() - start, "rows": rows, "summary": summary(rows, peak),
    })
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    s = result["summary"]
    print(f"\n{result['seconds']:.0f} s; Level 7 / cuBLAS: " + ", ".join(f"{k} {v:.2f}" for k, v in
                                                                     s.get("level7_over_cublas", {}).items()))
    print(f"geometric mean {s.get('geometric_mean', 0):.3f}, worst {s.get('worst', 0):.3f}; met: {s.get('met')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
