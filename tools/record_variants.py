"""Time the chapters' unshipped variants against their base kernels on this GPU; write book/data/variants.json.

    CUPY_TF32=0 python tools/record_variants.py [--sizes 1024 2048 4096] [--reps 30] [--out PATH]

Each variant (kernels/variants.py) is checked first: the base kernel computes C, C is poisoned with NaN,
the variant must write the same values (relative error below 1e-5, no NaN left). Then the two are timed in
alternation by kernels/timing.py's protocol (back-to-back calls behind a hold, rotating over operand copies,
the turn order rotating by round) so that both see the same clocks; the record keeps both medians and their
ratio. Exit code 1 when a variant computes a different C.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("CUPY_TF32", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernels import bench, check, launch, loader, record, registry, timing  # noqa: E402
from kernels.variants import VARIANTS  # noqa: E402

OUT = record.DATA_DIR / "variants.json"
TOLERANCE = 1e-5


def compile_variant(v):
    spec = registry.get(v.base)
    if v.source is None:
        return loader.get_variant(spec.file, v.entry, v.defines, spec.dynamic_smem, spec.threads)
    return loader.kernel_from_source(v.source(), v.entry, spec.dynamic_smem, spec.threads)


def measure(v, kernel, n: int, reps: int) -> dict:
    import cupy

    copies = timing.operand_copies(n, n, n)
    bases = [launch.prepare(v.base, A, B, C) for A, B, C in copies]
    run_base = bases[0]
    base_kernel, grid, block, args, C = run_base
    smem = run_base.plan.shared_mem
    base_kernel(grid, block, args)
    expected = C.copy()
    variants = [lambda b=b: kernel(b.grid, b.block, b.args, shared_mem=smem) for b in bases]
    err, nonfinite = check.poisoned_run(variants[0], C, expected)
    t_var, t_base = bench.interleaved_timings(variants, bases, warmup=3, reps=reps)
    del copies, bases, variants, run_base, args, C, expected
    cupy.get_default_memory_pool().free_all_blocks()
    return {"variant": v.name, "base": v.base, "M": n, "N": n, "K": n,
            "variant_ms": round(t_var.median_ms, 5), "base_ms": round(t_base.median_ms, 5),
            "time_ratio": round(t_var.median_ms / t_base.median_ms, 4),
            "rel_error_vs_base": err, "nonfinite": nonfinite, "reps": reps,
            "variant_calls": t_var.calls, "base_calls": t_base.calls, "copies": t_var.copies,
            "correct": bool(err < TOLERANCE and nonfinite == 0)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096])
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--only", action="append", choices=sorted(VARIANTS))
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    record.spin_up()
    out = record.provenance("python tools/record_variants.py " + " ".join(sys.argv[1:]))
    out["method"] = ("variant and base timed in alternation (kernels/timing.py) after the variant's C matched "
                     "the base's "
                     f"(NaN-poisoned C, relative error < {TOLERANCE:g}); time_ratio = variant / base")
    out["variants"], out["rows"] = {}, []
    bad = 0
    print(f"{'variant':<22} {'n':>5} {'variant ms':>11} {'base ms':>9} {'ratio':>7} {'regs':>9}  ok")
    for name in args.only or list(VARIANTS):
        v = VARIANTS[name]
        kernel = compile_variant(v)
        base_regs = loader.get_kernel(v.base).attributes["num_regs"]
        regs = kernel.attributes["num_regs"]
        out["variants"][name] = {"base": v.base, "what_ko": v.what_ko, "defines": v.defines,
                                 "registers": regs, "base_registers": base_regs}
        for n in args.sizes:
            row = measure(v, kernel, n, args.reps)
            out["rows"].append(row)
            bad += not row["correct"]
            print(f"{name:<22} {n:>5} {row['variant_ms']:>11.3f} {row['base_ms']:>9.3f} {row['time_ratio']:>7.3f} "
                  f"{regs:>4}/{base_regs:<4}  {'yes' if row['correct'] else 'NO'}", flush=True)
    record.guard_book_record(args.out)
    Path(args.out).write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
