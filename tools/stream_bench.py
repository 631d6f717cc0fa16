"""Level 7's memory-bound end on a GPU: the streaming path against cuBLAS and against the DRAM bandwidth.

    COURSE_GIT_COMMIT=$(git rev-parse --short HEAD) CUPY_TF32=0 python tools/stream_bench.py --out stream.json

For each shape (M <= 16: stream-B, N <= 16: stream-A) it first checks the streaming path against cuBLAS (C
starts as NaN), at every K-slice count the dispatcher may take, then times each of those counts beside
cupy.matmul with kernels.timing.alternate (a hold before each batch, calls rotating over operand copies larger
than twice the L2, median of rounds). The DRAM bandwidth is measured in the same run: a device-to-device copy of
1 GiB timed the same way (bytes read + written / time). Each row gives the time, the GB/s of the least bytes
(4 (MK + KN + MN): A and B read once, C written once), its share of the measured bandwidth, cuBLAS's time and
the ratio. CALIBRATION shapes (none of them in level7_model.HELDOUT) give the streaming efficiency and fixed
cost the model uses (level7_model.STREAM_EFFICIENCY, STREAM_LAUNCH_US): the fit is printed and written, never
read back by this tool.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kernels import bench, check, level7, timing  # noqa: E402
from kernels import level7_model as model  # noqa: E402
from sims import roofline  # noqa: E402

SHAPES = ((1, 4096, 4096), (8, 11008, 4096), (16, 4096, 14336), (4096, 8, 11008), (11008, 16, 4096),
          (4096, 1, 4096), (2, 8192, 8192))
# Shapes the streaming constants are fitted on: not in HELDOUT (checked below), both kernels, a large and a
# small one each (the small one carries the fixed cost).
CALIBRATION = ((2, 8192, 8192), (16, 12288, 6144), (8192, 2, 8192), (12288, 16, 6144), (1, 2048, 2048),
               (2048, 1, 2048))
COPY_BYTES = timing.COPY_BYTES


def least_bytes(M: int, N: int, K: int) -> int:
    """Bytes any GEMM must move at least: A and B read once, C written once (the roofline's compulsory bytes)."""
    return roofline.compulsory_bytes(M, N, K)


def path_of(M: int, N: int) -> str:
    return "stream-B" if M <= N else "stream-A"


def dram_copy_gbs() -> dict:
    """The measured DRAM ceiling of this run (kernels.timing.copy_bandwidth), as the record stores it."""
    gbs, t = timing.copy_bandwidth(COPY_BYTES)
    return {"bytes": COPY_BYTES, "median_ms": t.median_ms, "gbs": gbs, "protocol": timing.describe(t),
            "copied_ok": True}


def time_shape(M: int, N: int, K: int, dram_gbs: float) -> dict:
    """Every split of the shape's streaming path checked (rel. error against cuBLAS on the first operand copy, C
    poisoned with NaN: beta = 0 must not read it), then timed beside cuBLAS."""
    limits, model_gbs = level7.device_model()
    name = path_of(M, N)
    cand = model.stream_candidate(name, M, N, limits)
    valid = level7.valid_splits(K, cand, limit=max(model.SPLITS))
    splits = [s for s in model.SPLITS if s in valid]
    sets = timing.operand_copies(M, N, K, seed=3)
    subjects = {f"split {s}": [level7.prepare(A, B, C, tile=name, split=s) for A, B, C in sets] for s in splits}
    A0, B0, C0 = sets[0]
    ref = check.reference(A0, B0, None, 1.0, 0.0)
    errors = {}
    for s in splits:
        err, bad = check.poisoned_run(subjects[f"split {s}"][0], C0, ref)
        errors[s] = {"rel_error": err, "non_finite": bad}
    subjects["cublas"] = bench.cublas_calls(sets)
    times = timing.alternate(subjects)
    chosen = level7.plan_for(M, N, K)
    need = least_bytes(M, N, K)
    cublas_ms = times["cublas"].median_ms
    rows = []
    for s in splits:
        t = times[f"split {s}"]
        pred = model.predict(M, N, K, cand, s, limits, model_gbs)
        gbs = need / (t.median_ms * 1e6)
        rows.append({"split": s, "median_ms": t.median_ms, "min_ms": t.min_ms, "max_ms": t.max_ms,
                     "gbs": gbs, "dram_share": gbs / dram_gbs, "cublas_ms": cublas_ms,
                     "cublas_over_stream": cublas_ms / t.median_ms, "predicted_us": pred.total_us,
                     "moved_bytes": pred.moved_bytes, "blocks": pred.blocks, **errors[s]})
    best = min(rows, key=lambda r: r["median_ms"])
    return {"M": M, "N": N, "K": K, "path": name, "rows": rows,
            "least_bytes": need, "cublas_ms": cublas_ms, "cublas_gbs": need / (cublas_ms * 1e6),
            "chosen": {"tile": chosen.candidate.tile.name, "split": chosen.split, "predicted_us": chosen.total_us},
            "best_split": best["split"], "model_bandwidth_gbs": model_gbs,
            "protocol": timing.describe(times["cublas"])}


def fit(calibration: list[dict], model_gbs: float) -> dict:
    """Per kernel: efficiency from the large shapes' best split, fixed cost from the small one (two passes)."""
    out = {}
    for name in model.STREAM_NAMES:
        rows = [r for r in calibration if r["path"] == name]
        big = [r for r in rows if r["least_bytes"] > 64 * 2**20]
        small = [r for r in rows if r["least_bytes"] <= 64 * 2**20]
        launch = model.STREAM_LAUNCH_US
        eff = model.STREAM_EFFICIENCY[name]
        for _ in range(3):
            effs = []
            for r in big:
                b = min(r["rows"], key=lambda x: x["median_ms"])
                effs.append(b["moved_bytes"] / ((b["median_ms"] * 1e3 - launch) * 1e3 * model_gbs))
            eff = sum(effs) / len(effs)
            if small:
                b = min(small[0]["rows"], key=lambda x: x["median_ms"])
                launch = max(0.0, b["median_ms"] * 1e3 - b["moved_bytes"] / (eff * model_gbs * 1e3))
        out[name] = {"efficiency": eff, "launch_us": launch}
    return out


MODEL_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernels", "level7_model.py")


def constants_text(fitted: dict) -> tuple[str, str]:
    """The model's two streaming lines for a fit: efficiency per kernel, and one fixed cost (their mean)."""
    eff = ", ".join(f'"{name}": {fitted[name]["efficiency"]:.3f}' for name in model.STREAM_NAMES)
    launch = sum(fitted[name]["launch_us"] for name in model.STREAM_NAMES) / len(model.STREAM_NAMES)
    return f"STREAM_EFFICIENCY = {{{eff}}}", f"STREAM_LAUNCH_US = {launch:.2f}"


def apply_fit(path: str) -> int:
    """Put a recorded fit into kernels/level7_model.py, so the model and its record agree."""
    import re

    with open(path, encoding="utf-8") as fh:
        fitted = json.load(fh)["fit"]
    eff_line, launch_line = constants_text(fitted)
    with open(MODEL_FILE, encoding="utf-8") as fh:
        text = fh.read()
    text, n1 = re.subn(r"^STREAM_EFFICIENCY = \{[^}]*\}", eff_line, text, count=1, flags=re.M)
    text, n2 = re.subn(r"^STREAM_LAUNCH_US = [0-9.]+", launch_line, text, count=1, flags=re.M)
    if (n1, n2) != (1, 1):
        print("kernels/level7_model.py: the streaming constants were not found")
        return 1
    with open(MODEL_FILE, "w", encoding="utf-8") as fh:
        fh.write(text)
    print(eff_line + "\n" + launch_line)
    return 0


def table(results: list[dict], dram: float) -> str:
    lines = [f"DRAM copy: {dram:,.0f} GB/s (read + written)",
             f"{'shape':>18} {'path':>8} {'split':>5} {'us':>8} {'GB/s':>7} {'share':>6} {'cuBLAS us':>9} "
             f"{'cuBLAS/L7':>9} {'chosen':>14} {'pred us':>8} {'err':>8}"]
    for r in results:
        for row in r["rows"]:
            mark = "*" if row["split"] == r["best_split"] else " "
            ch = f"{r['chosen']['tile']} x{r['chosen']['split']}"
            lines.append(f"{r['M']:>5}x{r['N']:>5}x{r['K']:>5} {r['path']:>8} {row['split']:>4}{mark} "
                         f"{row['median_ms'] * 1e3:8.1f} {row['gbs']:7.0f} {row['dram_share']:6.2f} "
                         f"{r['cublas_ms'] * 1e3:9.1f} {row['cublas_over_stream']:9.2f} {ch:>14} "
                         f"{row['predicted_us']:8.1f} {row['rel_error']:8.1e}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="JSON file to write")
    ap.add_argument("--quick", action="store_true", help="two shapes only")
    ap.add_argument("--apply", metavar="JSON", help="write a record's fit into kernels/level7_model.py (no GPU)")
    args = ap.parse_args(argv)
    if args.apply:
        return apply_fit(args.apply)
    assert not set(CALIBRATION) & set(model.HELDOUT), "calibration shapes must stay outside HELDOUT"
    dram = dram_copy_gbs()
    print(f"DRAM copy {dram['gbs']:,.0f} GB/s", flush=True)
    shapes = SHAPES[:2] if args.quick else SHAPES
    results, calib = [], []
    for shape in shapes:
        results.append(time_shape(*shape, dram["gbs"]))
        print(table(results[-1:], dram["gbs"]).splitlines()[-1], flush=True)
    for shape in ([] if args.quick else CALIBRATION):
        calib.append(time_shape(*shape, dram["gbs"]))
    limits, model_gbs = level7.device_model()
    fitted = fit(calib, model_gbs) if calib else {}
    print(table(results, dram["gbs"]))
    print("calibration:\n" + table(calib, dram["gbs"]) if calib else "")
    print("fit:", json.dumps(fitted))
    bad = [(r["M"], r["N"], r["K"], row["split"]) for r in results + calib for row in r["rows"]
           if not (row["rel_error"] < 1e-5 and row["non_finite"] == 0)]
    from kernels import record as records

    command = " ".join(["python", "tools/stream_bench.py", *(argv if argv is not None else sys.argv[1:])])
    record = {"tool": "tools/stream_bench.py", **records.provenance(command), "dram_copy": dram,
              "model_bandwidth_gbs": model_gbs, "shapes": results,
              "calibration": calib, "fit": fitted, "wrong": bad}
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(record, fh, indent=1)
    if bad:
        print("WRONG:", bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
