"""Record the shape zoo: every course level and cuBLAS on the shapes people multiply (book/data/shapes.json).

    python tools/record_shapes.py [--out book/data/shapes.json] [--budget 1.2]

Kernels: the representative of each level (registry.LEVEL_REPRESENTATIVE) and Level 7 (sgemm_shape_aware,
through its dispatcher, as a learner calls it). On each zoo shape (kernels/level7_model.py ZOO) every kernel
is first checked against cuBLAS (NaN-poisoned C, relative Frobenius error, TF32 off), then timed in
alternation with cuBLAS: median of CUDA-event timings, with the repetitions bounded by a time budget per
(kernel, shape) so that Levels 0-2 take seconds, not minutes. % of cuBLAS = cuBLAS's median in the same
alternation / the kernel's median. Level 7's rows say which tile, ring and split the dispatcher chose.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("CUPY_TF32", "0")

from kernels import bench, check, launch, level7, record, registry  # noqa: E402
from kernels import level7_model as model  # noqa: E402
from kernels.device import info  # noqa: E402

OUT = record.DATA_DIR / "shapes.json"
LEVEL7 = "sgemm_shape_aware"
KERNELS = tuple(registry.LEVEL_REPRESENTATIVE[lv] for lv in sorted(registry.LEVEL_REPRESENTATIVE)) + (LEVEL7,)
MIN_REPS, MAX_REPS = 3, 30
# The goals of issue 25 on the H100 (Level 7 / cuBLAS): every shape, their geometric mean, the squares;
# and the stretch: 80% of the FP32 peak at 8192^3.
GOAL_EVERY, GOAL_GEOMEAN, GOAL_SQUARES, STRETCH_SHARE_OF_PEAK = 0.90, 1.00, 1.00, 0.80


def reps_for(budget_s: float, kernel_ms: float, cublas_ms: float) -> int:
    return max(MIN_REPS, min(MAX_REPS, int(budget_s * 1e3 / (kernel_ms + cublas_ms))))


def time_once(fn) -> float:
    import cupy

    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    fn()
    end.record()
    end.synchronize()
    return cupy.cuda.get_elapsed_time(start, end)


def record_shape(M: int, N: int, K: int, budget_s: float, peak: float) -> list[dict]:
    import cupy

    A, B = check.random_matrix(M, K, 0), check.random_matrix(K, N, 1)
    C = cupy.empty((M, N), dtype=cupy.float32)
    C_ref = cupy.empty((M, N), dtype=cupy.float32)
    ref = cupy.matmul(A, B)

    def cublas():
        cupy.matmul(A, B, out=C_ref)

    t_cublas = bench.time_callable(cublas, 2, 5).median_ms
    rows = []
    for name in KERNELS:
        spec = registry.get(name)
        prepared = launch.prepare(name, A, B, C)
        C.fill(cupy.nan)
        first_ms = time_once(prepared)          # also the result checked below (warms the caches too)
        err, _, bad = check.compare(C, ref)
        row = {"kernel": name, "level": spec.level, "M": M, "N": N, "K": K, "rel_error": float("nan") if bad else err,
               "staged": list(prepared.staged)}
        if hasattr(prepared, "describe"):
            row["choice"] = prepared.describe()
        if bad or err > check.REL_TOLERANCE:
            rows.append(row)
            print(f"  {name:<24} WRONG: rel.err {err:.1e}, {bad} NaN/Inf", flush=True)
            continue
        reps = reps_for(budget_s, first_ms, t_cublas)
        t_cb, t = bench.interleaved_timings(cublas, prepared, warmup=1 if first_ms > 50 else 3, reps=reps)
        gflops = 2.0 * M * N * K / (t.median_ms * 1e6)
        row.update(median_ms=t.median_ms, min_ms=t.min_ms, max_ms=t.max_ms, reps=reps, gflops=gflops,
                   pct_peak=100 * gflops / peak, cublas_ms=t_cb.median_ms,
                   pct_cublas=100 * t_cb.median_ms / t.median_ms)
        rows.append(row)
        extra = ""
        if "choice" in row:
            c = row["choice"]
            extra = f"  [{c['tile']} BK{c['BK']}x{c['STAGES']} split {c['split']}, {c['waves']} waves, b16={c['b16']}]"
        print(f"  {name:<24} {t.median_ms:9.3f} ms {gflops / 1e3:6.1f} TFLOP/s {row['pct_cublas']:6.1f}% cuBLAS "
              f"reps {reps:>2}{extra}", flush=True)
    medians = [r["cublas_ms"] for r in rows if "cublas_ms" in r]
    if medians:
        median = statistics.median(medians)
        gflops = 2.0 * M * N * K / (median * 1e6)
        rows.insert(0, {"kernel": "cublas", "level": None, "M": M, "N": N, "K": K, "median_ms": median,
                        "min_ms": min(medians), "max_ms": max(medians), "reps": len(medians), "gflops": gflops,
                        "pct_peak": 100 * gflops / peak, "note": "median of the cuBLAS medians measured beside each kernel"})
    del A, B, C, C_ref, ref
    cupy.get_default_memory_pool().free_all_blocks()
    return rows


def summary(rows: list[dict], peak: float) -> dict:
    """Level 7 against cuBLAS per shape, their geometric mean, and the goals of issue 25."""
    l7 = {(r["M"], r["N"], r["K"]): r for r in rows if r["kernel"] == LEVEL7}
    ratios = {s: l7[s]["pct_cublas"] / 100 for s in model.ZOO if s in l7 and "pct_cublas" in l7[s]}
    if not ratios:
        return {}
    geomean = math.exp(sum(math.log(v) for v in ratios.values()) / len(ratios))
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--budget", type=float, default=1.2, help="seconds of timing per (kernel, shape)")
    args = ap.parse_args()
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
        "method": __doc__.strip().split("\n\n", 1)[1],
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
