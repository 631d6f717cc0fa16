"""Level 7 and cuBLAS timed four ways in one run: what each part of the course's timing protocol changes.

    CUPY_TF32=0 python tools/record_timing_protocols.py [--out book/data/timing_protocols.json]

For a few shapes, from a single row of A (decode) to 4096^3, Level 7 (kernels/level7.prepare, one prepared launch
per operand copy) and cuBLAS (cupy.matmul(A_i, B_i, out=C_i)) are checked (Level 7's C, NaN-poisoned, against
cuBLAS) and then timed, in the same run, by:

- per_call: CUDA events around every single call on the same operands, no hold (the older protocol);
- hold_only: back-to-back calls between one event pair, queued behind a hold kernel, on one operand copy;
- rotation_only: events around every single call, no hold, the calls rotating over the operand copies;
- full: the course's protocol (kernels/timing.py): hold, back-to-back calls, rotation over the copies.

In every way the two subjects alternate within each round (the order rotating by round) and the median over rounds
is kept. ratio = cuBLAS time / Level 7 time (above 1: Level 7 is faster).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("CUPY_TF32", "0")

from kernels import bench, check, level7, record, timing  # noqa: E402

OUT = record.DATA_DIR / "timing_protocols.json"
SHAPES = ((1, 4096, 4096), (33, 4096, 4096), (128, 4096, 4096), (1024, 1024, 1024), (4096, 4096, 4096))
PROTOCOLS = ("per_call", "hold_only", "rotation_only", "full")


def measure(M: int, N: int, K: int, rounds: int) -> dict:
    """One shape: Level 7 checked, then both subjects timed by each protocol."""
    import cupy

    copies = timing.operand_copies(M, N, K)
    runs = [level7.prepare(A, B, C) for A, B, C in copies]
    cublas = bench.cublas_calls(copies)
    A0, B0, C0 = copies[0]
    ref = cupy.matmul(A0, B0)
    err, bad = check.poisoned_run(runs[0], C0, ref)
    if bad or not err <= check.REL_TOLERANCE:
        raise ArithmeticError(f"{M}x{N}x{K}: Level 7 differs from cuBLAS (rel. error {err:.1e}, {bad} NaN/Inf)")
    times = {
        "per_call": timing.per_call({"level7": runs[0], "cublas": cublas[0]}, rounds=3 * rounds),
        "hold_only": timing.alternate({"level7": runs[:1], "cublas": cublas[:1]}, rounds=rounds),
        "rotation_only": timing.alternate({"level7": runs, "cublas": cublas}, rounds=3 * rounds, calls=1,
                                          hold_ms=None),
        "full": timing.alternate({"level7": runs, "cublas": cublas}, rounds=rounds),
    }
    row = {"M": M, "N": N, "K": K, "copies": len(copies), "choice": runs[0].describe(), "rel_error": err}
    for name, t in times.items():
        l7, cb = t["level7"], t["cublas"]
        row[name] = {"level7_ms": l7.median_ms, "cublas_ms": cb.median_ms, "ratio": cb.median_ms / l7.median_ms,
                     "rounds": l7.reps, "level7_calls": l7.calls, "cublas_calls": cb.calls, "copies": l7.copies}
    del runs, cublas, copies, A0, B0, C0, ref
    cupy.get_default_memory_pool().free_all_blocks()
    return row


def table(rows: list[dict]) -> str:
    head = f"{'M x N x K':>16} {'copies':>6} " + " ".join(f"{p + ' L7/cuBLAS ms (ratio)':>34}" for p in PROTOCOLS)
    lines = [head, "-" * len(head)]
    for r in rows:
        cells = [f"{r[p]['level7_ms']:.4f}/{r[p]['cublas_ms']:.4f} ({r[p]['ratio']:.3f})" for p in PROTOCOLS]
        lines.append(f"{r['M']:>4}x{r['N']}x{r['K']:<6} {r['copies']:>6} " + " ".join(f"{c:>34}" for c in cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--rounds", type=int, default=timing.ROUNDS * 3,
                    help="rounds of the batched protocols (the per-call ones take three times as many)")
    args = ap.parse_args(argv)
    record.guard_book_record(args.out)
    record.spin_up(2.0)
    start = time.perf_counter()
    rows = [measure(M, N, K, args.rounds) for M, N, K in SHAPES]
    result = record.provenance("python tools/record_timing_protocols.py"
                               + (f" --rounds {args.rounds}" if args.rounds != timing.ROUNDS * 3 else ""))
    result.update({
        "method": __doc__.strip().split("\n\n", 2)[2],
        "protocols": {
            "per_call": "CUDA events around each single call, same operands, no hold (timing.per_call)",
            "hold_only": "back-to-back calls per event pair behind a hold, one operand copy (timing.alternate)",
            "rotation_only": "events around each single call, no hold, rotating over the operand copies "
                             "(timing.alternate with calls=1, hold_ms=None)",
            "full": timing.PROTOCOL,
        },
        "l2_bytes": timing.l2_bytes(),
        "seconds": time.perf_counter() - start,
        "rows": rows,
    })
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    print(table(rows))
    print(f"{result['seconds']:.1f} s; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
