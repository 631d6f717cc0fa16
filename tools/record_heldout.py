"""Level 7 on shapes its model never saw: book/data/level7_heldout.json.

    python tools/record_heldout.py [--out book/data/level7_heldout.json] [--quick] [--budget 90]

The model's constants were fitted on the zoo (tools/tune_level7.py); its held-out shapes
(kernels/level7_model.py HELDOUT) were written down before any tuning and nothing tuned reads them. For each
held-out shape: Level 7's result (the dispatcher's choice) is checked against cuBLAS (random inputs, C
poisoned with NaN), then Level 7 and cupy.matmul are timed in alternation over operand copies
(kernels/timing.py). of_cublas = cuBLAS's time / Level 7's; bytes_min = 4 (MK + KN + MN), the least a GEMM
reads and writes; dram_fraction = bytes_min / Level 7's time / the DRAM bandwidth measured in the same run
(a 1 GiB device-to-device copy, bytes read + written, timed with the same protocol). Then the model's regret:
every option the model weighs (kernels.level7_model.predictions: tile, ring, split, and any other path it
offers) is checked and timed in one alternation, and regret = the chosen option's time / the fastest
option's time - 1. The sweep is bounded: SWEEP_ROUNDS rounds, options predicted slower than SWEEP_FACTOR x
the best prediction are not timed (the record counts them), and after --budget seconds the remaining
shapes get no sweep (the record says which).
"""
from __future__ import annotations

import argparse
import json
import statistics
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("CUPY_TF32", "0")

from kernels import bench, check, level7, record, timing  # noqa: E402
from kernels import level7_model as model  # noqa: E402
from sims import roofline  # noqa: E402
from kernels.device import info  # noqa: E402
from level7_forms import describe, label, launch_for  # noqa: E402

OUT = record.DATA_DIR / "level7_heldout.json"
QUICK = ((1, 11008, 4096), (1000, 3001, 777))   # --quick: a memory-bound shape and an odd compute-bound one
SWEEP_ROUNDS = 3
SWEEP_WARMUP = 1
SWEEP_FACTOR = 3.0          # options predicted slower than this many times the best prediction are not timed
SWEEP_BUDGET_S = 90.0       # after this many seconds of the run, the remaining shapes get no sweep
NEAR_CUBLAS = 0.95          # the summary's share of rows at or above this fraction of cuBLAS's speed


# --------------------------------------------------------------------------- pure parts (CPU tests)

def bytes_min(M: int, N: int, K: int) -> int:
    """Bytes any GEMM must move at least: A and B read once, C written once (the roofline's compulsory bytes)."""
    return roofline.compulsory_bytes(M, N, K)


def memory_bound(M: int, N: int, K: int, peak_gflops: float, dram_gbs: float) -> bool:
    """Below the ridge point: the shape's FLOPs per least byte are fewer than the GPU's peak FLOPs per byte."""
    return roofline.ai_compulsory(M, N, K) < peak_gflops / dram_gbs


def sweep_plan(found: list, factor: float = SWEEP_FACTOR) -> tuple[list, int]:
    """(the predictions worth timing, how many were left out): within `factor` x the best prediction."""
    if not found:
        return [], 0
    best = min(p.total_us for p in found)
    kept = [p for p in found if p.total_us <= factor * best]
    return kept, len(found) - len(kept)


def regret(times: dict, chosen: str) -> tuple[str, float, float] | None:
    """(fastest option, its time, chosen time / fastest - 1) from option -> ms, or None when the chosen option
    was not timed."""
    if chosen not in times or not times:
        return None
    best = min(times, key=times.get)
    return best, times[best], times[chosen] / times[best] - 1


def derive_row(M: int, N: int, K: int, level7_ms: float, cublas_ms: float, choice: dict, dram_gbs: float,
               peak_gflops: float, sweep: dict | None = None) -> dict:
    """One record row from what was measured. sweep: {"times": option -> ms, "chosen": option,
    "choices": option -> choice dict, ...} (missing: no sweep for this shape)."""
    need = bytes_min(M, N, K)
    row = {"M": M, "N": N, "K": K, "level7_ms": level7_ms, "cublas_ms": cublas_ms, "of_cublas": cublas_ms / level7_ms,
           "choice": choice, "bytes_min": need, "dram_fraction": need / (level7_ms * 1e-3) / (dram_gbs * 1e9),
           "cublas_dram_fraction": need / (cublas_ms * 1e-3) / (dram_gbs * 1e9),
           "gflops": 2.0 * M * N * K / (level7_ms * 1e6),
           "memory_bound": memory_bound(M, N, K, peak_gflops, dram_gbs)}
    if sweep:
        found = regret(sweep["times"], sweep["chosen"])
        if found:
            best, best_ms, r = found
            row["best_measured"] = {"choice": sweep["choices"][best], "ms": best_ms}
            row["chosen_in_sweep_ms"] = sweep["times"][sweep["chosen"]]
            row["regret"] = r
        row["sweep"] = {k: v for k, v in sweep.items() if k not in ("chosen", "choices")}
    return row


def summary(rows: list[dict]) -> dict:
    """What the held-out record says in a few numbers."""
    timed = [r for r in rows if r.get("of_cublas")]
    if not timed:
        return {}
    ratios = [r["of_cublas"] for r in timed]
    worst = min(timed, key=lambda r: r["of_cublas"])
    regrets = [r["regret"] for r in timed if "regret" in r]
    mem = [r for r in timed if r["memory_bound"]]
    out = {
        "shapes": len(timed),
        "geomean_of_cublas": statistics.geometric_mean(ratios),
        "worst_of_cublas": worst["of_cublas"], "worst_shape": [worst["M"], worst["N"], worst["K"]],
        "near_cublas": NEAR_CUBLAS, "share_near_cublas": sum(v >= NEAR_CUBLAS for v in ratios) / len(ratios),
        "regret_shapes": len(regrets),
        "regret_mean": sum(regrets) / len(regrets) if regrets else None,
        "regret_max": max(regrets) if regrets else None,
        "memory_bound_shapes": len(mem),
        "memory_bound_dram_fraction": {f"{r['M']}x{r['N']}x{r['K']}": r["dram_fraction"] for r in mem},
    }
    if mem:
        fractions = [r["dram_fraction"] for r in mem]
        out["memory_bound_dram_fraction_min"] = min(fractions)
        out["memory_bound_dram_fraction_geomean"] = statistics.geometric_mean(fractions)
    if regrets:
        out["regret_worst_shape"] = next([r["M"], r["N"], r["K"]] for r in timed if r.get("regret") == max(regrets))
    return out


def shapes_for(quick: bool) -> tuple:
    return QUICK if quick else model.HELDOUT


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(OUT), help="where the JSON goes (default: book/data/level7_heldout.json)")
    ap.add_argument("--quick", action="store_true", help=f"smoke test: {len(QUICK)} shapes only")
    ap.add_argument("--budget", type=float, default=SWEEP_BUDGET_S,
                    help="seconds after which the remaining shapes get no sweep (the main timing still runs)")
    return ap.parse_args(argv)


# --------------------------------------------------------------------------- on the GPU

def sweep_shape(M: int, N: int, K: int, copies: list, ref, limits, bandwidth: float) -> dict:
    """Every option the model weighs for this shape (within SWEEP_FACTOR), checked then timed together."""
    found = model.predictions(M, N, K, limits, bandwidth)
    kept, skipped = sweep_plan(found)
    chosen = label(found[0])
    subjects, choices, wrong, refused = {}, {}, [], []
    for p in kept:
        name = label(p)
        try:
            runs = [launch_for(p, A, B, C) for A, B, C in copies]
        except Exception as exc:   # an option the launcher refuses is recorded, not fatal
            refused.append({"option": name, "why": str(exc)[:200]})
            continue
        err, _ = check.poisoned_run(runs[0], copies[0][2], ref)
        if not err < check.REL_TOLERANCE:
            wrong.append({"option": name, "rel_error": err})
            continue
        subjects[name], choices[name] = runs, describe(p)
    times = {n: t.median_ms for n, t in timing.alternate(subjects, rounds=SWEEP_ROUNDS, warmup=SWEEP_WARMUP).items()}
    return {"times": times, "chosen": chosen, "choices": choices, "options": len(found), "timed": len(times),
            "not_timed_predicted_slow": skipped, "wrong": wrong, "refused": refused, "rounds": SWEEP_ROUNDS}


def measure_shape(M: int, N: int, K: int, limits, bandwidth: float, dram_gbs: float, peak: float,
                  sweep: bool) -> dict:
    import cupy

    copies = timing.operand_copies(M, N, K)
    A0, B0, C0 = copies[0]
    ref = cupy.matmul(A0, B0)
    l7 = [level7.prepare(A, B, C) for A, B, C in copies]
    err, _ = check.poisoned_run(l7[0], C0, ref)
    choice = l7[0].describe()
    if not err < check.REL_TOLERANCE:
        print(f"{M}x{N}x{K}: WRONG (rel. error {err:.1e})", flush=True)
        return {"M": M, "N": N, "K": K, "choice": choice, "rel_error": err}
    cublas = bench.cublas_calls(copies)
    t = timing.alternate({"level7": l7, "cublas": cublas})
    found = sweep_shape(M, N, K, copies, ref, limits, bandwidth) if sweep else None
    row = derive_row(M, N, K, t["level7"].median_ms, t["cublas"].median_ms, choice, dram_gbs, peak, found)
    row.update(rel_error=err, calls=t["level7"].calls, copies=t["level7"].copies, rounds=t["level7"].reps)
    if not sweep:
        row["sweep"] = "not run: the time budget was spent"
    del l7, cublas, copies, A0, B0, C0, ref
    cupy.get_default_memory_pool().free_all_blocks()
    return row


def print_row(r: dict) -> None:
    c = r["choice"]
    ring = f" BK{c['BK']}x{c['STAGES']}" if "BK" in c else ""
    regret_text = f"{100 * r['regret']:6.1f}%" if "regret" in r else "     -"
    print(f"{r['M']:>6}x{r['N']:<6}x{r['K']:<6} {c['tile'] + ring:>20} s{c['split']:<3} {r['level7_ms']:9.4f} ms "
          f"{r['cublas_ms']:9.4f} ms {r['of_cublas']:6.2f}  DRAM {100 * r['dram_fraction']:5.1f}%  "
          f"regret {regret_text}", flush=True)


def main(argv=None) -> int:
    args = parse_args(argv)
    record.guard_book_record(args.out)
    shapes = shapes_for(args.quick)
    zoo = set(model.ZOO)
    assert not zoo.intersection(shapes), "a held-out shape is in the zoo"
    limits, bandwidth = level7.device_model()      # what the dispatcher sees
    record.spin_up(1.0)
    start = time.perf_counter()
    dram_gbs, t_copy = timing.copy_bandwidth()     # 1 GiB device-to-device, (read + written bytes) / time
    peak = info()["peak_gflops"]
    print(f"{limits.name}: DRAM copy {dram_gbs:.0f} GB/s measured ({bandwidth:.0f} GB/s in the model); "
          f"peak {peak / 1e3:.1f} TFLOP/s", flush=True)
    print(f"{'M x N x K':>20} {'choice':>20} {'':4} {'Level 7':>12} {'cuBLAS':>12} {'of cB':>6}  {'DRAM':>10}  regret")
    rows = []
    for M, N, K in shapes:
        sweep = time.perf_counter() - start < args.budget
        rows.append(measure_shape(M, N, K, limits, bandwidth, dram_gbs, peak, sweep))
        if "of_cublas" in rows[-1]:
            print_row(rows[-1])
    s = summary(rows)
    seconds = time.perf_counter() - start
    state = record.gpu_state()
    result = record.provenance("python tools/record_heldout.py " + " ".join(sys.argv[1:] if argv is None else argv))
    result.update({
        "commit": result.get("git_commit"),
        "method": __doc__.strip().split("\n\n", 2)[2],
        "dram_gbs_measured": dram_gbs,
        "dram_method": f"device-to-device copy of 1 GiB (cudaMemcpyAsync), (read + written bytes) / time; "
                       f"{timing.describe(t_copy)}",
        "level7_device": {"limits": limits.as_dict(), "bandwidth_gbs": bandwidth},
        "sweep_rule": {"rounds": SWEEP_ROUNDS, "warmup": SWEEP_WARMUP, "predicted_factor": SWEEP_FACTOR,
                       "budget_s": args.budget,
                       "note": f"options predicted slower than {SWEEP_FACTOR:g} x the best prediction are not timed; "
                               "regret compares times from the sweep's own alternation"},
        "quick": args.quick, "heldout": [list(s) for s in shapes], "gpu_state_after": state,
        "seconds": seconds, "rows": rows, "summary": s,
    })
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    print(f"\n{seconds:.0f} s. geomean {s.get('geomean_of_cublas', 0):.3f} of cuBLAS, "
          f"worst {s.get('worst_of_cublas', 0):.3f} "
          f"at {s.get('worst_shape')}, {100 * s.get('share_near_cublas', 0):.0f}% of shapes >= {NEAR_CUBLAS}; "
          f"regret mean {s.get('regret_mean')}, max {s.get('regret_max')}; memory-bound DRAM share min "
          f"{s.get('memory_bound_dram_fraction_min')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
