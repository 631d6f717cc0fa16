"""Measure Level 7's tiles and K splits on the zoo shapes beside cuBLAS, and fit the cost model to them.

    python tools/tune_level7.py [--out book/data/level7_tuning.json] [--shape 1024x1024x1024 ...] [--quick]

For each zoo shape, each tile in this GPU's ring and each split the dispatcher may take (split 1, or any
split that keeps the launch within MAX_WAVES waves), the launch is checked against cuBLAS (NaN-poisoned C, on
one operand copy) and timed in alternation with it by kernels/timing.py's protocol (back-to-back calls behind a
hold, rotating over operand copies larger than twice the L2, median of rounds; one prepared launch per copy); the
GEMM and the reduction are also timed alone, each rotating over the same copies. Two kinds of extra rows give
the model's smaller terms their data, at each tile's best predicted split: every other ring that keeps the
tile's blocks per SM (the ring's fill and depth), and, where B's rows allow 16-byte copies, the same launch
forced to 4-byte copies of B (the copy-width term; shapes whose N is not a multiple of 4 take them anyway).
Then the cost model's constants (kernels/level7_model.py: CALIBRATION, LAUNCH_US, WORKSPACE_BANDWIDTH,
RING_FILL_US, RING_HALF_K) are fitted to the total times by least squares on relative errors, and the fitted
model's choice for every shape is compared with the fastest measured option (its regret). The model stays the
rule; the fit only sets its rates. Only zoo shapes are measured: the held-out ones are never tuned against.
"""
from __future__ import annotations

import argparse
import json
import statistics
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("CUPY_TF32", "0")

from kernels import bench, check, level7, record  # noqa: E402
from kernels.device import today as device_today  # noqa: E402
from record_shapes import beside_cublas, round_ms  # noqa: E402  (tools/ is on sys.path when a tool runs)
from level7_forms import launch_for  # noqa: E402
from kernels import level7_model as model  # noqa: E402

MAX_WAVES = 10         # splits beyond this many waves only add reduction traffic
SECONDS_PER_CASE = 0.5 # timing budget of one (shape, tile, split), both sides of the alternation
MIN_REPS, MAX_REPS = 5, 40
QUICK = ((1024, 1024, 1024), (4095, 4097, 4099))   # --quick: a short square and one whose B takes 4-byte copies


def parse_shape(text: str) -> tuple[int, int, int]:
    M, N, K = (int(v) for v in text.lower().split("x"))
    return M, N, K


def swept(M: int, N: int, K: int, cands, limits, bandwidth: float, rings=(), narrow: bool = True) -> list[tuple]:
    """(prediction, b16) pairs to measure; b16 None: what B's rows allow, False: forced 4-byte copies of B.

    cands: each tile with its own ring, every split within MAX_WAVES; rings: every ring a shape may choose
    (model.ring_candidates), measured at each tile's best predicted split; narrow: that split with B forced to
    4-byte copies too, where B's rows would allow 16-byte ones."""
    out = []
    for cand in cands:
        for split in model.SPLITS:
            if not model.allowed(M, N, K, cand, split):
                continue
            p = model.predict(M, N, K, cand, split, limits, bandwidth)
            if split == 1 or p.waves <= MAX_WAVES:
                out.append((p, None))
    for cand in cands:
        mine = [p for p, _ in out if p.candidate == cand]
        if not mine:
            continue
        best = min(mine, key=lambda p: p.total_us)
        for other in rings:
            if other.tile == cand.tile and other != cand and model.allowed(M, N, K, other, best.split):
                out.append((model.predict(M, N, K, other, best.split, limits, bandwidth), None))
        if narrow and N % 4 == 0:
            out.append((best, False))
    return out


def reps_for(kernel_ms: float, cublas_ms: float) -> int:
    """Rounds that fit SECONDS_PER_CASE (each round: one batch of the launch and one of cuBLAS)."""
    return max(MIN_REPS, min(MAX_REPS, int(SECONDS_PER_CASE * 1e3 / (round_ms(kernel_ms) + round_ms(cublas_ms)))))


def measure_shape(M: int, N: int, K: int, cands, limits, bandwidth: float, rings=(), narrow: bool = True) -> list[dict]:
    import cupy

    copies, ref, cublas, t_cublas = beside_cublas(M, N, K)
    C0 = copies[0][2]
    rows = []
    for p, b16 in swept(M, N, K, cands, limits, bandwidth, rings, narrow):
        c = p.candidate
        launches = [launch_for(p, A, B, C, b16=b16) for A, B, C in copies]
        first = launches[0]
        err, _ = check.poisoned_run(first, C0, ref)
        reps = reps_for(p.total_us / 1e3, t_cublas)
        t_cb, t = bench.interleaved_timings(cublas, launches, warmup=2, reps=reps)
        parts = [run.parts() for run in launches]
        t_gemm = bench.time_callable([gemm for gemm, _ in parts], 1, max(3, reps // 3))
        reduces = [reduce for _, reduce in parts if reduce is not None]
        t_reduce = bench.time_callable(reduces, 1, max(3, reps // 3)).median_ms if reduces else 0.0
        row = {"M": M, "N": N, "K": K, "tile": c.tile.name, "BK": c.BK, "STAGES": c.STAGES, "resident": c.resident,
               "split": p.split, "k_per_split": p.k_per_split, "blocks": p.blocks, "waves": p.waves,
               "b16": first.b16, "forced_narrow": b16 is False, "own_ring": c in cands,
               "rel_error": err, "reps": reps,
               "calls": t.calls, "copies": t.copies,
               "median_ms": t.median_ms, "min_ms": t.min_ms, "max_ms": t.max_ms, "cublas_ms": t_cb.median_ms,
               "pct_cublas": 100 * t_cb.median_ms / t.median_ms, "gemm_ms": t_gemm.median_ms,
               "reduce_ms": t_reduce, "gflops": 2.0 * M * N * K / (t.median_ms * 1e6),
               "model_before_us": p.total_us}
        rows.append(row)
        print(f"  {M}x{N}x{K} {c.tile.name:>7} BK{c.BK}x{c.STAGES} split {p.split:>2} waves {p.waves:>2} "
              f"b16={int(first.b16)} {t.median_ms:8.3f} ms  {row['pct_cublas']:6.1f}% cuBLAS  "
              f"gemm {t_gemm.median_ms:.3f} red {t_reduce:.3f}  calls {t.calls} copies {t.copies}  err {err:.1e}",
              flush=True)
        del launches, first, parts, reduces
    del copies, ref, cublas, C0
    cupy.get_default_memory_pool().free_all_blocks()
    return rows


# --------------------------------------------------------------------------- the fit

# The two constants that enter the model non-linearly are found by a grid search; for each pair the others
# follow by linear least squares.
HIDING_GRID = [0.25 * i for i in range(33)]             # warps
LAST_WAVE_GRID = [0.85 + 0.005 * i for i in range(31)]
RING_HALF_GRID = [0.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0]   # rows of K (searched only when rings were swept)


def rings_swept(rows: list[dict]) -> bool:
    """Whether the rows hold more than one ring of some tile (else the ring's terms cannot be told apart from
    the tile's overhead and efficiency)."""
    rings: dict = {}
    for r in rows:
        rings.setdefault(r["tile"], set()).add((r["BK"], r["STAGES"]))
    return any(len(v) > 1 for v in rings.values())


def features(row: dict, limits, bandwidth: float, hiding_warps: float, last_wave: float,
             ring_half_k: float = 0.0, ring_fill: bool = False) -> dict:
    """The model's terms for one measured row, each multiplying one unknown constant (kernels/level7_model.py
    predict: launch + waves x (overhead + ring fill x STAGES x BK) + rounds' FLOPs x narrow / (peak x efficiency
    x hiding x depth x last) + reduction). A row whose B took 4-byte copies puts its FLOP term on the tile's
    narrow efficiency (efficiency / narrow_b)."""
    cand = model.Candidate(model.TILE_BY_NAME[row["tile"]], row["BK"], row["STAGES"], row["resident"])
    p = model.predict(row["M"], row["N"], row["K"], cand, row["split"], limits, bandwidth)
    tile = row["tile"]
    loop = f"inv_efficiency:{tile}" if row.get("b16", True) else f"inv_efficiency_narrow:{tile}"
    f = {"launch": 1.0, f"overhead:{tile}": float(p.waves), loop: 0.0}
    if ring_fill:
        f["ring_fill"] = float(p.waves * model.ring_depth(cand))
    depth = model.depth_speed(cand, ring_half_k)
    for i, c in enumerate(p.rounds):
        speed = model.hiding(c, cand, hiding_warps) * depth * (last_wave if i == len(p.rounds) - 1 else 1.0)
        f[loop] += c * p.block_flops / (speed * model.sm_peak_gflops(limits) * 1e3)
    if p.split > 1:
        f["reduce_launch"] = 1.0
        f["inv_bandwidth"] = model.workspace_traffic(row["M"], row["N"], p.split) / (bandwidth * 1e3)
    return f


def nonnegative_lstsq(rows: list[dict], names: list[str], targets: list[float], weights: list[float]) -> dict:
    """Weighted least squares of relative errors with every constant >= 0 (a negative one is pinned at 0)."""
    import numpy as np

    free = list(names)
    while True:
        X = np.array([[r.get(n, 0.0) / y * w for n in free] for r, y, w in zip(rows, targets, weights)])
        sol, *_ = np.linalg.lstsq(X, np.array(weights), rcond=None)
        negative = [n for n, v in zip(free, sol) if v < 0]
        if not negative:
            out = dict.fromkeys(names, 0.0)
            out.update(zip(free, (float(v) for v in sol)))
            return out
        free.remove(min(negative, key=lambda n: sol[free.index(n)]))


def fit(rows: list[dict], limits, bandwidth: float) -> dict:
    """Constants that minimise the weighted relative error. Each shape weighs as much as the others in total
    (rows weighted 1 / sqrt(rows of that shape)): the splits of small shapes must not outvote the few rows
    of the large ones."""
    from collections import Counter

    usable = [r for r in rows if r["rel_error"] < check.REL_TOLERANCE]
    per_shape = Counter((r["M"], r["N"], r["K"]) for r in usable)
    weights = [per_shape[(r["M"], r["N"], r["K"])] ** -0.5 for r in usable]
    targets = [1e3 * r["median_ms"] for r in usable]
    ring_fill = rings_swept(usable)

    def solve(hiding_warps: float, last_wave: float, ring_half_k: float):
        feats = [features(r, limits, bandwidth, hiding_warps, last_wave, ring_half_k, ring_fill) for r in usable]
        names = sorted({k for f in feats for k in f})
        sol = nonnegative_lstsq(feats, names, targets, weights)
        sse = sum((w * (sum(f.get(n, 0.0) * sol[n] for n in f) / y - 1)) ** 2
                  for f, y, w in zip(feats, targets, weights))
        return sse, hiding_warps, last_wave, ring_half_k, sol

    def search(ring_half_k: float):
        return min((solve(h, lw, ring_half_k) for h in HIDING_GRID for lw in LAST_WAVE_GRID), key=lambda b: b[0])

    # hiding and the last wave first with a neutral ring depth, then the depth, then both again with it
    best = search(0.0)
    if ring_fill:
        best = min((solve(best[1], best[2], rk) for rk in RING_HALF_GRID), key=lambda b: b[0])
        best = min(best, search(best[3]), key=lambda b: b[0])
    _, hiding_warps, last_wave, ring_half_k, sol = best
    tiles = sorted({r["tile"] for r in usable}, key=lambda t: list(model.TILE_BY_NAME).index(t))

    def narrow_b(t: str) -> float:
        wide, narrow = sol.get(f"inv_efficiency:{t}", 0.0), sol.get(f"inv_efficiency_narrow:{t}", 0.0)
        return narrow / wide if wide and narrow else 1.0

    f = {
        "calibration": {t: {"efficiency": 1.0 / sol[f"inv_efficiency:{t}"], "overhead_us": sol[f"overhead:{t}"],
                            "narrow_b": narrow_b(t)} for t in tiles},
        "hiding_warps": hiding_warps, "last_wave": last_wave,
        "launch_us": sol["launch"], "reduce_launch_us": sol.get("reduce_launch", 0.0),
        "workspace_bandwidth": 1.0 / sol["inv_bandwidth"] if sol.get("inv_bandwidth") else None,
        "ring_fill_us": sol.get("ring_fill", 0.0), "ring_half_k": ring_half_k, "rings_per_shape": ring_fill,
        "bandwidth_gbs": bandwidth, "rows_fitted": len(usable), "weights": "1 / sqrt(rows of the shape)",
        "narrow_rows": sum(not r.get("b16", True) for r in usable),
    }
    kw = fitted_model(f)
    errors = []
    for r in usable:
        cand = model.Candidate(model.TILE_BY_NAME[r["tile"]], r["BK"], r["STAGES"], r["resident"])
        r["model_fit_us"] = model.predict(r["M"], r["N"], r["K"], cand, r["split"], limits, bandwidth,
                                          b16=r.get("b16", True), **kw).total_us
        errors.append(abs(r["model_fit_us"] / (1e3 * r["median_ms"]) - 1))
    f["median_abs_error"] = sorted(errors)[len(errors) // 2]
    f["max_abs_error"] = max(errors)
    return f


def fitted_model(f: dict) -> dict:
    """The keyword arguments of model.predict that carry a fit (a fit made before a term has it neutral)."""
    return {"calibration": {t: model.Rate(v["efficiency"], v["overhead_us"], v.get("narrow_b", 1.0))
                            for t, v in f["calibration"].items()},
            "launch_us": f["launch_us"], "reduce_launch_us": f["reduce_launch_us"],
            "workspace_bandwidth": f["workspace_bandwidth"] or model.WORKSPACE_BANDWIDTH,
            "hiding_warps": f["hiding_warps"], "last_wave": f["last_wave"],
            "ring_fill_us": f.get("ring_fill_us", 0.0), "ring_half_k": f.get("ring_half_k", 0.0)}


def choices(rows: list[dict], f: dict, limits, bandwidth: float) -> list[dict]:
    """Per shape: the fastest measured option, the fitted model's pick among the measured ones, its regret.
    Options are what the dispatcher may launch: never a B forced to 4-byte copies, and other rings than the
    tile's own only when the fit chooses rings per shape."""
    kw = fitted_model(f)
    rings = f.get("rings_per_shape", False)
    keys = ("tile", "BK", "STAGES", "split", "median_ms", "pct_cublas")
    out = []
    for shape in sorted({(r["M"], r["N"], r["K"]) for r in rows}, key=lambda s: model.ZOO.index(s)
                        if s in model.ZOO else 99):
        at = [r for r in rows if (r["M"], r["N"], r["K"]) == shape and r["rel_error"] < check.REL_TOLERANCE
              and not r.get("forced_narrow") and (rings or r.get("own_ring", True))]
        best = min(at, key=lambda r: r["median_ms"])
        pick = min(at, key=lambda r: (r["model_fit_us"], r["split"]))
        overall = model.choose(*shape, limits, bandwidth, model.ring_candidates(limits) if rings else None, **kw)
        out.append({"M": shape[0], "N": shape[1], "K": shape[2],
                    "best": {k: best[k] for k in keys if k in best},
                    "model": {k: pick[k] for k in keys if k in pick},
                    "model_overall": {"tile": overall.candidate.tile.name, "BK": overall.candidate.BK,
                                      "STAGES": overall.candidate.STAGES, "split": overall.split,
                                      "predicted_us": overall.total_us},
                    "regret": pick["median_ms"] / best["median_ms"]})
    return out


def split_rows(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """(the sweep the records always had: each tile with its own ring and B as it comes; the extra rows for the
    ring and copy-width terms)."""
    plain = [r.get("own_ring", True) and not r.get("forced_narrow") for r in rows]
    return [r for r, p in zip(rows, plain) if p], [r for r, p in zip(rows, plain) if not p]


def report(f: dict, picked: list[dict]) -> None:
    print(f"\nfit: {json.dumps(f)}")
    print(f"{'shape':>18} {'best measured':>22} {'model pick':>22} {'regret':>7} {'overall pick':>16}")
    for c in picked:
        shape = f"{c['M']}x{c['N']}x{c['K']}"
        best = f"{c['best']['tile']}/{c['best']['split']} {c['best']['pct_cublas']:.0f}%"
        pick = f"{c['model']['tile']}/{c['model']['split']} {c['model']['pct_cublas']:.0f}%"
        over = f"{c['model_overall']['tile']}/{c['model_overall']['split']}"
        print(f"{shape:>18} {best:>22} {pick:>22} {c['regret']:7.3f} {over:>16}")
    geo = statistics.geometric_mean(c["model"]["pct_cublas"] / 100 for c in picked)
    print(f"geometric mean of the model's picks: {geo:.3f} of cuBLAS")


def constants_text(f: dict) -> str:
    """The fit as the lines of kernels/level7_model.py's calibration region (paste them there after a sweep)."""
    lines = ["CALIBRATION = {"]
    for t, v in f["calibration"].items():
        lines.append(f'    "{t}": Rate(efficiency={v["efficiency"]:.4f}, overhead_us={v["overhead_us"]:.3f}, '
                     f'narrow_b={v.get("narrow_b", 1.0):.4f}),')
    lines.append("}")
    values = (("HIDING_WARPS", f["hiding_warps"], ".2f"), ("LAST_WAVE", f["last_wave"], ".3f"),
              ("LAUNCH_US", f["launch_us"], ".2f"), ("REDUCE_LAUNCH_US", f["reduce_launch_us"], ".2f"),
              ("WORKSPACE_BANDWIDTH", f["workspace_bandwidth"] or model.WORKSPACE_BANDWIDTH, ".3f"),
              ("RING_FILL_US", f.get("ring_fill_us", 0.0), ".4f"), ("RING_HALF_K", f.get("ring_half_k", 0.0), ".1f"))
    lines += [f"{name} = {value:{fmt}}" for name, value, fmt in values]
    lines.append(f"RINGS_PER_SHAPE = {bool(f.get('rings_per_shape', False))}")
    return "\n".join(lines)


def refit(path: str, profile: str) -> int:
    """Fit the model again to the rows a sweep recorded (no GPU): for a change of the model's form."""
    from kernels import devices

    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    d = data.get("device_model")
    limits = devices.profile(profile) if d is None else devices.DeviceLimits(
        **{**d["limits"], "cc": tuple(int(v) for v in d["limits"]["cc"].split("."))})
    bandwidth = data["fit"]["bandwidth_gbs"] if d is None else d["bandwidth_gbs"]
    data["device_model"] = {"limits": limits.as_dict(), "bandwidth_gbs": bandwidth}
    rows = data["rows"] + data.get("extra_rows", [])
    data["fit"] = fit(rows, limits, bandwidth)
    data["choices"] = choices(rows, data["fit"], limits, bandwidth)
    data["refit"] = {"command": f"python tools/tune_level7.py --refit {path} --profile {profile}",
                     "date": device_today(), "git_commit": record.git_commit(),
                     "note": "fit and choices recomputed from the measured rows above (the model's form changed)"}
    report(data["fit"], data["choices"])
    print("\nkernels/level7_model.py, calibration region:\n" + constants_text(data["fit"]))
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, ensure_ascii=False)
    return 0


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=None)
    ap.add_argument("--shape", action="append", default=[], type=parse_shape, help="MxNxK (default: the zoo)")
    ap.add_argument("--quick", action="store_true", help=f"smoke test: {len(QUICK)} zoo shapes only")
    ap.add_argument("--no-rings", action="store_true", help="no extra rows for the other rings")
    ap.add_argument("--no-narrow", action="store_true", help="no extra rows with B forced to 4-byte copies")
    ap.add_argument("--refit", metavar="JSON", help="refit the model to a recorded sweep (no GPU needed)")
    ap.add_argument("--profile", default="H100", help="with --refit, when the file does not record the GPU")
    args = ap.parse_args(argv)
    held = set(model.HELDOUT) & set(args.shape)
    if held:    # the held-out shapes judge the model: never tuned against
        ap.error(f"held-out shapes are never tuned against: {sorted(held)}")
    return args


def shapes_for(args) -> list:
    return list(args.shape or (QUICK if args.quick else model.ZOO))


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.refit:
        return refit(args.refit, args.profile)
    shapes = shapes_for(args)
    limits, bandwidth = level7.device_model()
    cands = model.candidates(limits)
    rings = () if args.no_rings else model.ring_candidates(limits)
    print(f"{limits.name}: {', '.join(c.name + f' ({c.resident}/SM)' for c in cands)}; DRAM {bandwidth:.0f} GB/s; "
          f"other rings: {', '.join(c.name for c in rings if c not in cands) or 'none'}", flush=True)
    record.spin_up(2.0)
    start = time.perf_counter()
    rows = []
    for M, N, K in shapes:
        rows += measure_shape(M, N, K, cands, limits, bandwidth, rings, not args.no_narrow)
    f = fit(rows, limits, bandwidth)
    picked = choices(rows, f, limits, bandwidth)
    report(f, picked)
    print("\nkernels/level7_model.py, calibration region:\n" + constants_text(f))
    print(f"({time.perf_counter() - start:.0f} s)")
    if args.out:
        plain, extra = split_rows(rows)
        result = record.provenance("python tools/tune_level7.py " + " ".join(sys.argv[1:] if argv is None else argv))
        result.update({"method": __doc__.strip().split("\n\n", 2)[2], "max_waves": MAX_WAVES,
                       "device_model": {"limits": limits.as_dict(), "bandwidth_gbs": bandwidth},
                       "candidates": [{"tile": c.tile.name, "BK": c.BK, "STAGES": c.STAGES, "resident": c.resident,
                                       "smem_bytes": c.smem_bytes} for c in cands],
                       "rings": [c.name for c in rings], "quick": args.quick,
                       "rows": plain, "extra_rows": extra, "fit": f, "choices": picked})
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
