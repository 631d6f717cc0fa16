"""Two measured questions about Level 7 that the shipped forms leave open (A/B, in direct alternation).

    python tools/level7_experiments.py [--out level7_experiments.json]

1. Rotated K order (L7_ROTATE=1): does a launch whose blocks all start together (one wave) lose speed
   because neighbouring blocks ask L2 for the same lines at the same moment? Each block then starts its
   whole K tiles at a different tile and wraps around. Timed against the shipped form on single-wave
   launches (where the model's LAST_WAVE and the low one-wave rates show up) and on a multi-wave one.
2. 4-byte against 16-byte copies of B on aligned data: what the 4-byte path (taken when B's rows are not
   16-byte aligned, e.g. N = 4097) costs, against staging B into an aligned copy as Level 6 does.

Both sides are checked against cuBLAS first, then timed in alternation by kernels/timing.py's protocol (back-to-back
calls behind a hold, rotating over operand copies, median of rounds); speedup = shipped time / variant time (above
1: the variant is faster). Nothing here changes what the dispatcher launches.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("CUPY_TF32", "0")

from kernels import bench, check, level7, record, timing  # noqa: E402

ROTATION_CASES = [  # M, N, K, tile, split
    (2048, 2048, 2048, "128x256", 1), (2048, 2048, 2048, "64x128", 1), (1024, 1024, 16384, "128x256", 4),
    (1024, 1024, 16384, "128x256", 8), (128, 4096, 4096, "64x128", 8), (4096, 4096, 4096, "128x256", 1),
]
B_WIDTH_CASES = [(4096, 4096, 4096, "128x256", 1), (4096, 4096, 4096, "128x128", 1), (4096, 4096, 4096, "64x128", 1)]
REPS = 30


def compare(M, N, K, tile, split, shipped: dict, variant: dict) -> dict:
    import cupy

    copies = timing.operand_copies(M, N, K)
    A0, B0, C0 = copies[0]
    ref = cupy.matmul(A0, B0)
    launches = [[level7.prepare(A, B, C, tile=tile, split=split, **kw) for A, B, C in copies]
                for kw in (shipped, variant)]
    errors = []
    for runs in launches:
        errors.append(check.poisoned_run(runs[0], C0, ref)[0])
    t_ship, t_var = bench.interleaved_timings(launches[0], launches[1], warmup=3, reps=REPS)
    waves = launches[0][0].choice.waves
    del launches, copies, A0, B0, C0, ref
    cupy.get_default_memory_pool().free_all_blocks()
    row = {"M": M, "N": N, "K": K, "tile": tile, "split": split, "shipped": shipped, "variant": variant,
           "waves": waves, "rel_errors": errors, "shipped_ms": t_ship.median_ms,
           "variant_ms": t_var.median_ms, "speedup": t_ship.median_ms / t_var.median_ms,
           "reps": t_ship.reps, "calls": t_ship.calls, "copies": t_ship.copies}
    print(f"{M}x{N}x{K} {tile}/{split} {json.dumps(variant)}: shipped {t_ship.median_ms:.4f} ms, variant "
          f"{t_var.median_ms:.4f} ms, speedup {row['speedup']:.3f} (errors {errors[0]:.1e} {errors[1]:.1e})",
          flush=True)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    record.spin_up(2.0)
    rows = [compare(*case, {}, {"knobs": {"ROTATE": 1}}) for case in ROTATION_CASES]
    rows += [compare(*case, {"b16": True}, {"b16": False}) for case in B_WIDTH_CASES]
    if args.out:
        result = record.provenance("python tools/level7_experiments.py --out " + args.out)
        result.update({"method": __doc__.strip().split("\n\n", 2)[2], "rows": rows})
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
