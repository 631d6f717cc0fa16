"""Measure Level 5 over its two knobs, BK (depth of a K tile) and STAGES (ring length).

    python tools/tune_async.py [--out book/data/async_tuning.json]

Each configuration is the shipped sgemm_async_copy.cu compiled with -DL5_BK=.. -DL5_STAGES=..,
checked against cuBLAS on random inputs (NaN-poisoned C) and timed at 4096^3 and 2048^3 in
alternation with cuBLAS (so that clock drift affects both sides of each ratio alike).
Module 9 uses the recorded file to discuss the trade-off with measured numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("CUPY_TF32", "0")

from kernels import bench, check, compiler, record, registry  # noqa: E402

# (BK, STAGES, extra defines)
CONFIGS = [(bk, st, {"L5_KC": kc}) for kc in (2, 4) for bk, st in ((8, 2), (8, 3), (8, 4), (16, 2), (16, 3))]
SIZES = (2048, 4096)


def main() -> int:
    import cupy

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=None)
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    base = compiler.expanded_source("sgemm_async_copy.cu")
    rows = []
    for n in SIZES:
        A, B = check.random_matrix(n, n, 1), check.random_matrix(n, n, 2)
        C = cupy.empty((n, n), dtype=cupy.float32)
        ref = cupy.matmul(A, B)
        C_ref = cupy.empty_like(C)

        def cublas():
            cupy.matmul(A, B, out=C_ref)
        for bk, stages, extra in CONFIGS:
            defines = {"L5_BK": bk, "L5_STAGES": stages, **extra}
            module = cupy.RawModule(code="".join(f"#define {k} {v}\n" for k, v in defines.items()) + base,
                                    options=compiler.NVRTC_OPTIONS)
            for name in ("sgemm_async_copy", "sgemm_async_copy_vec"):
                k = module.get_function(name)
                grid = registry.get(name).grid(n, n)
                kargs = (A, B, C, *(cupy.int32(v) for v in (n, n, n, n, n, n)), cupy.float32(1), cupy.float32(0))
                C.fill(cupy.nan)
                k(grid, (16, 16, 1), kargs)
                err, _, bad = check.compare(C, ref)
                t_cublas, t = bench.interleaved_timings(cublas, lambda: k(grid, (16, 16, 1), kargs), 3, args.reps)
                row = {"kernel": name, "BK": bk, "STAGES": stages, "defines": defines, "M": n, "N": n, "K": n,
                       "median_ms": t.median_ms, "min_ms": t.min_ms, "max_ms": t.max_ms,
                       "gflops": registry.flops(n, n, n) / (t.median_ms * 1e6),
                       "cublas_ms": t_cublas.median_ms, "pct_cublas": 100 * t_cublas.median_ms / t.median_ms,
                       "rel_error": err if not bad else float("nan"),
                       "registers": int(k.num_regs), "smem_static": int(k.shared_size_bytes),
                       "local_bytes": int(k.local_size_bytes)}
                rows.append(row)
                print(f"{n:5d} {name:<22} {extra} BK={bk:<2} S={stages} {t.median_ms:7.3f} ms {row['gflops']:8.0f} GFLOP/s "
                      f"{row['pct_cublas']:5.1f}% cuBLAS regs={row['registers']} smem={row['smem_static']} "
                      f"local={row['local_bytes']} err={row['rel_error']:.1e}", flush=True)
    if args.out:
        result = record.provenance("python tools/tune_async.py --out " + args.out)
        result["rows"] = rows
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
