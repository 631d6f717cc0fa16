"""Nsight Compute on the shape zoo (module 12): which kernel cuBLAS picks per shape, and why Level 7 loses where it does.

    python tools/profile_shapes.py names [--out book/data/cublas_kernels.json]
        every zoo shape: the kernels one cuBLAS call launches (name, grid, block, registers, shared memory,
        time under the profiler), and what the name says (tile, stages, split-K)
    python tools/profile_shapes.py reread [book/data/cublas_kernels.json]
        (no GPU) recompute what the recorded names say with this version of the name reader
    python tools/profile_shapes.py gap [--shape 2048x2048x2048 ...] [--out book/data/level7_profiles.json]
        Level 7 and cuBLAS's GEMM kernel on the shapes where Level 7 is slowest: a few counters that explain a
        gap (SM busy time, waves, issue and FMA pipe activity, instructions, stalls, DRAM and L2)

Both run `ncu --clock-control none` on tools/ncu_shape.py and write their record with provenance
(kernels/record.py). cuBLAS sees our row-major C = A B as the column-major C^T = B^T A^T: in its kernel names
and launch shapes the output has N rows and M columns. If ncu may not read the counters (ERR_NVGPUCTRPERM) the
tool says so and writes nothing.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kernels import record  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "ncu_shape.py")
NAMES_OUT = record.DATA_DIR / "cublas_kernels.json"
GAP_OUT = record.DATA_DIR / "level7_profiles.json"
GAP_SHAPES = ((2048, 2048, 2048), (4095, 4097, 4099))
NAMES_NOTE = ("One cuBLAS call per shape after a warm-up call, profiled with --profile-from-start off between "
              "cudaProfilerStart/Stop. Which way a tile in a name lies over our M x N is not the same in every kernel "
              "family (cuBLAS works on the column-major C^T = B^T A^T): read it from the grid (e.g. 4095x4097x4099: "
              "528 blocks = ceil(4095/256) x ceil(4097/128)).")
LEVEL7_KERNEL = "sgemm_shape_aware"

LAUNCH_METRICS = {
    "duration_ns": "gpu__time_duration.sum",
    "grid_size": "launch__grid_size",
    "block_size": "launch__block_size",
    "registers": "launch__registers_per_thread",
    "smem_dynamic": "launch__shared_mem_per_block_dynamic",
    "smem_static": "launch__shared_mem_per_block_static",
}
GAP_METRICS = {
    **LAUNCH_METRICS,
    "waves_per_sm": "launch__waves_per_multiprocessor",
    "sm_active_cycles": "sm__cycles_active.avg",
    "sm_elapsed_cycles": "sm__cycles_elapsed.avg",
    "sm_pct": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "issue_active_pct": "sm__inst_issued.avg.pct_of_peak_sustained_active",
    "fma_pipe_pct": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "achieved_occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "theoretical_occupancy_pct": "sm__maximum_warps_per_active_cycle_pct",
    "instructions": "smsp__inst_executed.sum",
    "ffma_instructions": "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "dram_read_bytes": "dram__bytes_read.sum",
    "dram_write_bytes": "dram__bytes_write.sum",
    "l2_hit_rate_pct": "lts__t_sector_hit_rate.pct",
}
STALLS = {"Long Scoreboard": "long_scoreboard", "Barrier": "barrier", "Wait": "wait",
          "Short Scoreboard": "short_scoreboard", "Not Selected": "not_selected", "No Instruction": "no_instruction",
          "Math Pipe Throttle": "math_pipe_throttle", "MIO Throttle": "mio_throttle", "Dispatch Stall": "dispatch_stall"}
STALL_METRIC = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"


def number(text) -> float | None:
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def run_ncu(metrics: list[str], args: list[str], extra: list[str]) -> list[dict]:
    """ncu's rows (one per profiled kernel, in launch order) as {column: text}."""
    cmd = ["ncu", "--clock-control", "none", *extra, "--csv", "--page", "raw", "--metrics", ",".join(metrics),
           sys.executable, DRIVER, *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=400)
    if "ERR_NVGPUCTRPERM" in done.stdout + done.stderr:
        raise PermissionError("ncu: 성능 카운터 접근 권한이 없습니다 (ERR_NVGPUCTRPERM)")
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if len(rows) < 3:
        raise RuntimeError(f"ncu gave no data for {args}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    header = rows[0]
    return [dict(zip(header, values)) for values in rows[2:]]     # rows[1] holds the units


def values_of(raw: dict, metrics: dict) -> dict:
    """The metrics that came back as numbers (a metric this GPU or ncu does not know is left out, not invented)."""
    out = {}
    for key, metric in metrics.items():
        value = number(raw.get(metric, ""))
        if value is not None:
            out[key] = value
    return out


# ----------------------------------------------------------------------------- names

_TILE = re.compile(r"(\d+)x(\d+)(?:x(\d+))?")


def read_name(name: str) -> dict:
    """What a cuBLAS kernel's name says: its tile (output rows x columns [x k depth]), stages, split-K, and
    which family (sm90 xmma, cutlass simt, the split-K reduction). Fields it does not state are left out."""
    out = {}
    low = name.lower()
    # cublasLt's splitKreduce_kernel, and the xmma kernels' second pass "execute_split_k_kernel" (the first pass,
    # "execute_kernel", computes the slices; its grid is the output tiles times the split).
    if "splitkreduce" in low or "split_k_reduce" in low or "split_k_kernel" in low or ("reduce" in low and "gemm" not in low):
        out["role"] = "split-K reduction"
        return out
    out["role"] = "GEMM"
    tile = re.search(r"tilesize(\d+x\d+(?:x\d+)?)", low) or re.search(r"_(\d+x\d+)_(\d+)x(\d+)", low) \
        or _TILE.search(low)
    if tile:
        found = _TILE.search(tile.group(0).replace("tilesize", ""))
        out["tile"] = f"{found.group(1)}x{found.group(2)}"
        if found.group(3):
            out["tile_k"] = int(found.group(3))
    stage = re.search(r"stage(\d+)", low) or re.search(r"_\d+x\d+_\d+x(\d+)_", low)
    if stage:
        out["stages"] = int(stage.group(1))
    out["split_k"] = "splitk" in low.replace("_", "") or "split_k" in low
    for family in ("xmma", "cutlass", "simt", "ffma", "gemv", "gemmk1", "sm90", "sm80"):
        if family in low:
            out.setdefault("family", []).append(family)
    return out


def names() -> dict:
    from kernels import level7_model as model

    rows = run_ncu(list(LAUNCH_METRICS.values()), ["zoo"], ["--profile-from-start", "off"])
    shapes, current = [], None
    for raw in rows:
        name = raw.get("Kernel Name", "")
        launch = values_of(raw, LAUNCH_METRICS)
        if name.startswith("course_zoo_marker"):
            index = int(launch["grid_size"]) - 1
            M, N, K = model.ZOO[index]
            current = {"M": M, "N": N, "K": K, "kernels": []}
            shapes.append(current)
            continue
        if current is None:
            continue
        current["kernels"].append({"function": name, **launch, "reads_as": read_name(name)})
    for shape in shapes:
        shape["duration_us"] = sum(k.get("duration_ns", 0.0) for k in shape["kernels"]) / 1e3
        shape["split_k_reduction"] = any(k["reads_as"].get("role") == "split-K reduction" for k in shape["kernels"])
    return {"shapes": shapes, "metrics": LAUNCH_METRICS,
            "note": NAMES_NOTE}


# ----------------------------------------------------------------------------- gap

def gap_one(what: str, M: int, N: int, K: int) -> list[dict]:
    metrics = list(GAP_METRICS.values()) + [STALL_METRIC.format(s) for s in STALLS.values()]
    target = f"regex:{LEVEL7_KERNEL}|shape_aware_reduce" if what == "level7" else "regex:gemm|[Rr]educe"
    # Templated kernels (cutlass::Kernel2<cutlass_80_simt_sgemm_...>) are matched on their demangled name: the
    # default base name is "Kernel2", which the filter would miss (the first run of this tool did).
    per_call = 2 if what == "level7" else 2     # a call may launch a GEMM and a reduction: skip the first call
    rows = run_ncu(metrics, [what, str(M), str(N), str(K)], ["--kernel-name-base", "demangled", "--kernel-name", target,
                                                            "--launch-skip", "0", "--launch-count", str(2 * per_call)])
    half = len(rows) // 2                         # the second call's kernels
    out = []
    for raw in rows[half:]:
        entry = {"who": what, "function": raw.get("Kernel Name", ""), "M": M, "N": N, "K": K,
                 **values_of(raw, GAP_METRICS)}
        entry["stalls"] = {label: number(raw.get(STALL_METRIC.format(s), "")) for label, s in STALLS.items()}
        if entry.get("sm_elapsed_cycles"):
            entry["sm_busy_pct"] = 100.0 * entry.get("sm_active_cycles", 0.0) / entry["sm_elapsed_cycles"]
        if "duration_ns" in entry:
            entry["duration_us"] = entry["duration_ns"] / 1e3
        if "dram_read_bytes" in entry and "dram_write_bytes" in entry:
            entry["dram_bytes"] = entry["dram_read_bytes"] + entry["dram_write_bytes"]
        out.append(entry)
    return out


def gap(shapes) -> dict:
    from kernels import level7

    found = []
    for M, N, K in shapes:
        plan = level7.plan_for(M, N, K)
        for what in ("level7", "cublas"):
            for entry in gap_one(what, M, N, K):
                if what == "level7":
                    entry["choice"] = {"tile": plan.candidate.tile.name, "BK": plan.candidate.BK,
                                       "STAGES": plan.candidate.STAGES, "split": plan.split, "blocks": plan.blocks,
                                       "waves": plan.waves}
                found.append(entry)
                print(f"{M}x{N}x{K} {what:<7} {entry['function'][:60]:<60} "
                      f"{entry.get('duration_us', float('nan')):9.1f} us  SM busy {entry.get('sm_busy_pct', float('nan')):5.1f}%  "
                      f"issue {entry.get('issue_active_pct', float('nan')):5.1f}%  fma {entry.get('fma_pipe_pct', float('nan')):5.1f}%",
                      flush=True)
    return {"profiles": found, "metrics": GAP_METRICS, "stall_metric": STALL_METRIC,
            "stall_unit": "warps stalled per issue-active cycle (Nsight Compute's per_issue_active ratio)",
            "note": "The second of two calls is profiled; Level 7 through its dispatcher, cuBLAS through cupy.matmul."}


def reread(path) -> dict:
    """A names record with its derived fields (what each name says, whether a shape had a reduction kernel)
    recomputed from the recorded names by this version of read_name; the measurements are left as recorded."""
    from datetime import datetime, timezone

    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    for shape in data["shapes"]:
        for kernel in shape["kernels"]:
            kernel["reads_as"] = read_name(kernel["function"])
        shape["split_k_reduction"] = any(k["reads_as"].get("role") == "split-K reduction" for k in shape["kernels"])
    data["note"] = NAMES_NOTE
    data["reread"] = {"command": f"python tools/profile_shapes.py reread {path}",
                      "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "git_commit": record.git_commit(),
                      "what": "reads_as, split_k_reduction and note recomputed from the recorded kernel names (no GPU)"}
    return data


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("names", "gap", "reread"))
    ap.add_argument("path", nargs="?", help="reread: the names record to update in place")
    ap.add_argument("--out")
    ap.add_argument("--shape", action="append", help="MxNxK (gap; default 2048x2048x2048 and 4095x4097x4099)")
    args = ap.parse_args(argv)
    command = "python tools/profile_shapes.py " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.what == "reread":
        data = reread(args.path or NAMES_OUT)
        with open(args.path or NAMES_OUT, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        print(f"reread {args.path or NAMES_OUT}")
        return 0
    try:
        if args.what == "names":
            body, out = names(), args.out or NAMES_OUT
            for s in body["shapes"]:
                first = s["kernels"][0] if s["kernels"] else {}
                print(f"{s['M']}x{s['N']}x{s['K']:<6} {len(s['kernels'])} kernel(s) {s['duration_us']:9.1f} us  "
                      f"grid {first.get('grid_size', 0):7.0f}  {first.get('function', '?')[:90]}", flush=True)
        else:
            shapes = [tuple(int(v) for v in s.split("x")) for s in args.shape] if args.shape else GAP_SHAPES
            body, out = gap(shapes), args.out or GAP_OUT
    except PermissionError as exc:
        print(exc)
        return 2
    data = {**record.provenance(command), "tool": ncu_version(), "ncu_options": "--clock-control none", **body}
    record.guard_book_record(out)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, indent=1)
        fh.write("\n")
    print(f"wrote {out}")
    return 0


def ncu_version() -> str:
    try:
        text = subprocess.run(["ncu", "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "ncu (version unknown)"
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else "ncu"


if __name__ == "__main__":
    sys.exit(main())
