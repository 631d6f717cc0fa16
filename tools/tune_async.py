"""Measure Level 5 over its two knobs, BK (depth of a K tile) and STAGES (ring length), beside Level 4.

    python tools/tune_async.py [--out book/data/async_tuning.json]

Each configuration is the shipped sgemm_async_copy.cu compiled with -DL5_BK=.. -DL5_STAGES=..,
checked against cuBLAS on random inputs (NaN-poisoned C) and timed at 2048^3, 4096^3 and 8192^3 in
alternation with cuBLAS (so that clock drift affects both sides of each ratio), by kernels/timing.py's protocol
(back-to-back calls behind a hold, rotating over operand copies, median of rounds). Level 4
(sgemm_double_buffer) is timed the same way in the same run, as the bar Level 5 must reach.
Module 9 uses the recorded file to discuss the trade-off with measured numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("CUPY_TF32", "0")

from kernels import bench, configs, record, registry  # noqa: E402
from kernels.errors import DeviceLimitError  # noqa: E402

# (BK, STAGES, EARLY_BARRIER): the rings kernels/configs.py chooses from. The ring is in dynamic shared
# memory; two blocks per SM must fit in 228 KiB, which rules out BK 32 with 4 stages. The early barrier
# (before the last k step of a tile) needs three stages or more. Under COURSE_DEVICE_PROFILE the rings
# that do not fit the profile's GPU are skipped.
CONFIGS = list(configs.LEVEL5_RINGS)
SIZES = (2048, 4096, 8192)
BAR_SIZES = (4096, 8192)
REPS = {2048: 40, 4096: 30, 8192: 12}
VARIANTS = ("sgemm_async_copy", "sgemm_async_copy_vec")
# The shipped ring stays unless another one is faster against Level 4 by more than this (the spread of
# repeated alternated timings): smaller differences would re-pick at random from run to run.
KEEP_MARGIN = 0.02
SHIPPED = (registry.LEVEL5["BK"], registry.LEVEL5["STAGES"], registry.LEVEL5["EARLY_BARRIER"])


def against_level4(spec, defines: dict, smem: int, n: int) -> float:
    """Level 4's time over this variant's, the two timed in direct alternation (above 1: faster).

    Each % of cuBLAS is measured in its own window, and cuBLAS's time drifts by a few per cent
    between windows; alternating the two kernels themselves compares them in the same conditions.
    """
    import cupy
    import numpy as np

    from kernels import loader, timing

    copies = timing.operand_copies(n, n, n)
    dims = tuple(np.int32(v) for v in (n, n, n, n, n, n)) + (np.float32(1.0), np.float32(0.0))
    l4 = loader.get_kernel("sgemm_double_buffer")
    l5 = loader.get_variant(spec.file, spec.name, defines, smem)
    grid = spec.grid(n, n)
    run5 = [lambda A=A, B=B, C=C: l5(grid, (*spec.block, 1), (A, B, C, *dims), shared_mem=smem) for A, B, C in copies]
    run4 = [lambda A=A, B=B, C=C: l4(grid, (16, 16, 1), (A, B, C, *dims)) for A, B, C in copies]
    t5, t4 = bench.interleaved_timings(run5, run4, 3, REPS.get(n, 20))
    del copies, run5, run4
    cupy.get_default_memory_pool().free_all_blocks()
    return t4.median_ms / t5.median_ms


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=None)
    ap.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    args = ap.parse_args()
    rows = []
    l4 = registry.get("sgemm_double_buffer")
    for n in args.sizes:
        for r in bench.variant_rows(l4.file, l4.name, {}, l4.block, l4.tile, 0, [n], reps=REPS.get(n, 20)):
            rows.append({**r, "BK": 8, "STAGES": None, "EARLY_BARRIER": None, "vs_level4": 1.0})
            print(f"{n:5d} {l4.name:<22} (Level 4)  {r['median_ms']:8.3f} ms {r['pct_cublas']:6.1f}% cuBLAS "
                  f"regs={r['registers']}", flush=True)
        for bk, stages, early in CONFIGS:
            for name in VARIANTS:
                spec = registry.get(name)
                defines = {"L5_BK": bk, "L5_STAGES": stages, "L5_EARLY_BARRIER": early}
                smem = registry.level5_smem({"BK": bk, "STAGES": stages})
                try:
                    measured = bench.variant_rows(spec.file, name, defines, spec.block, spec.tile, smem, [n],
                                                  reps=REPS.get(n, 20))
                except DeviceLimitError as exc:
                    print(f"{n:5d} {name:<22} BK={bk:<2} S={stages} E={early} skipped: {exc}", flush=True)
                    continue
                for r in measured:
                    r["vs_level4"] = against_level4(spec, defines, smem, n)
                    rows.append({**r, "BK": bk, "STAGES": stages, "EARLY_BARRIER": early})
                    print(f"{n:5d} {name:<22} BK={bk:<2} S={stages} E={early} {r['median_ms']:8.3f} ms "
                          f"{r['pct_cublas']:6.1f}% cuBLAS {r['vs_level4']:.3f}x L4 regs={r['registers']} smem={r['smem_dynamic']} "
                          f"local={r['local_bytes']} err={r['rel_error']:.1e}", flush=True)
    best = {}
    for r in rows:
        if r["kernel"] == "sgemm_async_copy_vec" and r["rel_error"] < 1e-5 and r["local_bytes"] == 0 \
                and r["M"] in BAR_SIZES:
            key = (r["BK"], r["STAGES"], r["EARLY_BARRIER"])
            best.setdefault(key, []).append(r["vs_level4"])
    chosen = max(best, key=lambda k: min(best[k])) if best else None
    if chosen and SHIPPED in best and min(best[chosen]) <= min(best[SHIPPED]) * (1 + KEEP_MARGIN):
        chosen = SHIPPED
    print("chosen (fastest against Level 4 at the worse of 4096^3 and 8192^3, 16-byte variant): "
          "BK={} STAGES={} EARLY_BARRIER={}".format(*chosen)
          if chosen else "chosen: none")
    if args.out:
        result = record.provenance("python tools/tune_async.py --out " + args.out)
        result["reps"] = {str(k): v for k, v in REPS.items()}
        result["rows"] = rows
        result["rule"] = ("16-byte variant with the highest speed-up over Level 4 (vs_level4: the two timed in "
                          "direct alternation) at the worse of 4096^3 and 8192^3, the sizes of the bar; rel. error "
                          "< 1e-5, no local memory; the shipped ring stays unless another is more than "
                          f"{KEEP_MARGIN:.0%} faster")
        result["keep_margin"] = KEEP_MARGIN
        result["chosen"] = dict(zip(("BK", "STAGES", "EARLY_BARRIER"), chosen)) if chosen else None
        record.guard_book_record(args.out)
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
