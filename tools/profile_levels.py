"""Record Nsight Compute profiles of every course kernel (and the figures module 10 reads).

    python tools/profile_levels.py [--size 4096] [--out book/data/profiles.json] [--cublas]
        [--kernel NAME ...] [--variant NAME:DEFINE=V,DEFINE=V ...] [--keys KEY,KEY] [--merge]

For each registry kernel it runs `ncu --clock-control none` on tools/ncu_one.py (two launches,
the second is profiled) and keeps the metrics below, with the provenance of the run. --cublas adds
cuBLAS's own SGEMM kernel and --variant a kernel recompiled with defines; both go under the key
"reference" (the key "kernels" keeps exactly the registry's kernels). If ncu is not permitted on a
machine (ERR_NVGPUCTRPERM), the script says so and writes nothing.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kernels import record, registry  # noqa: E402

STALLS = {  # Nsight Compute's names -> metric suffix
    "Long Scoreboard": "long_scoreboard", "Barrier": "barrier", "Wait": "wait",
    "Math Pipe Throttle": "math_pipe_throttle", "MIO Throttle": "mio_throttle",
    "Short Scoreboard": "short_scoreboard", "LG Throttle": "lg_throttle", "Not Selected": "not_selected",
    "Selected": "selected", "Dispatch Stall": "dispatch_stall", "No Instruction": "no_instruction",
    "Branch Resolving": "branch_resolving", "Membar": "membar", "Drain": "drain", "Misc": "misc",
    "Sleeping": "sleeping", "Tex Throttle": "tex_throttle", "IMC Miss": "imc_miss",
}
STALL_METRIC = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"

METRICS = {
    "sm_pct": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "mem_pct": "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram_pct": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "achieved_occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "theoretical_occupancy_pct": "sm__maximum_warps_per_active_cycle_pct",
    "registers": "launch__registers_per_thread",
    "smem_static": "launch__shared_mem_per_block_static",
    "duration_ns": "gpu__time_duration.sum",
    "dram_read_bytes": "dram__bytes_read.sum",
    "dram_write_bytes": "dram__bytes_write.sum",
    "global_ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global_ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    # cp.async (LDGSTS) traffic: Nsight counts it apart from global loads, split by cache policy
    # (.ca = cache_access, .cg = cache_bypass); ldgsts_sectors / ldgsts_requests are the sums.
    "ldgsts_access_sectors": "sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access.sum",
    "ldgsts_bypass_sectors": "sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum",
    "ldgsts_access_requests": "sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access.sum",
    "ldgsts_bypass_requests": "sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum",
    "global_st_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "global_st_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "smem_ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smem_st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smem_ld_instructions": "smsp__inst_executed_op_shared_ld.sum",
    "smem_st_instructions": "smsp__inst_executed_op_shared_st.sum",
    "smem_ld_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "smem_st_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "instructions": "smsp__inst_executed.sum",
    "ffma_instructions": "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "issue_active_pct": "sm__inst_issued.avg.pct_of_peak_sustained_active",
    # Which unit is busy: the L1 load/store data path, LSU issue, the FMA pipe, L2; and cache hit rates.
    "l1_lsu_wavefronts_pct": "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
    "lsu_issue_pct": "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
    "fma_pipe_pct": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "l2_pct": "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
    "l1_hit_rate_pct": "l1tex__t_sector_hit_rate.pct",
    "l2_hit_rate_pct": "lts__t_sector_hit_rate.pct",
    # Launch shape (cuBLAS's is not known in advance) and the SM clock during the kernel.
    "grid_size": "launch__grid_size",
    "block_size": "launch__block_size",
    "smem_dynamic": "launch__shared_mem_per_block_dynamic",
    "sm_clock_hz": "sm__cycles_elapsed.avg.per_second",
}


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


LDGSTS_KEYS = ("ldgsts_access_sectors", "ldgsts_bypass_sectors", "ldgsts_access_requests", "ldgsts_bypass_requests")


def _missing(metrics: list[str], header: list[str]) -> list[str]:
    """Requested metrics that ncu left out of its table (an unknown name is dropped without an error)."""
    return [m for m in metrics if m not in header]


def profile(name: str, size: int, defines: tuple = (), keys: tuple | None = None) -> dict:
    """One kernel's metrics; name "cublas" profiles the library's SGEMM (any kernel named *gemm*).

    keys limits the run to those entries of METRICS (no stalls); every requested metric must come back.
    """
    chosen = {k: METRICS[k] for k in keys} if keys else METRICS
    metrics = list(chosen.values()) + ([] if keys else [STALL_METRIC.format(s) for s in STALLS.values()])
    target = "regex:gemm" if name == "cublas" else name
    cmd = ["ncu", "--clock-control", "none", "--kernel-name", target, "--launch-skip", "1", "--launch-count", "1",
           "--csv", "--page", "raw", "--metrics", ",".join(metrics),
           sys.executable, os.path.join(os.path.dirname(__file__), "ncu_one.py"), name, str(size), *defines]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    text = done.stdout
    if "ERR_NVGPUCTRPERM" in text + done.stderr:
        raise PermissionError("ncu: 성능 카운터 접근 권한이 없습니다 (ERR_NVGPUCTRPERM)")
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if len(rows) < 3:
        raise RuntimeError(f"ncu gave no data for {name}:\n{text[-2000:]}\n{done.stderr[-2000:]}")
    header, values = rows[0], rows[2]   # rows[1] holds the units
    missing = _missing(metrics, header)
    if missing:
        raise RuntimeError(f"ncu did not report {missing} for {name}: unknown on this GPU or this ncu version")
    raw = dict(zip(header, values))
    if name == "cublas":
        out = {"kernel": "cublas", "variant": "cuBLAS SGEMM (FP32)", "function": raw.get("Kernel Name")}
    else:
        spec = registry.get(name)
        out = {"kernel": name, "level": spec.level, "variant": spec.variant}
        if defines:
            out["defines"] = dict(d.split("=", 1) for d in defines)
    out.update({"M": size, "N": size, "K": size})
    for key, metric in chosen.items():
        out[key] = _number(raw.get(metric, ""))
        if out[key] is None:
            raise RuntimeError(f"ncu reported {metric} = {raw.get(metric)!r} for {name}: not a number")
    if all(k in out for k in LDGSTS_KEYS):
        out["ldgsts_sectors"] = out["ldgsts_access_sectors"] + out["ldgsts_bypass_sectors"]
        out["ldgsts_requests"] = out["ldgsts_access_requests"] + out["ldgsts_bypass_requests"]
    if keys:
        return out
    out["stalls"] = {label: _number(raw.get(STALL_METRIC.format(suffix), "")) for label, suffix in STALLS.items()}
    out["duration_ms"] = out["duration_ns"] / 1e6
    out["dram_bytes"] = out["dram_read_bytes"] + out["dram_write_bytes"]
    # Ratios exist only where their denominator does (a kernel without shared stores has no
    # wavefronts per store): the key is left out rather than recorded as null.
    # On the H100 the global-load counters (global_op_ld) already include the cp.async requests and
    # sectors (the ldgsts_* counts are the part of them that came from LDGSTS): no sum here.
    if out["global_ld_requests"]:
        out["sectors_per_request"] = out["global_ld_sectors"] / out["global_ld_requests"]
    for op in ("ld", "st"):
        inst = out[f"smem_{op}_instructions"]
        if inst:
            out[f"smem_{op}_wavefronts_per_instruction"] = out[f"smem_{op}_wavefronts"] / inst
    return out


def _print(row: dict) -> None:
    top = sorted(((v or 0, k) for k, v in row["stalls"].items()), reverse=True)[:4]
    label = row["kernel"] + (" " + ",".join(f"{k}={v}" for k, v in row.get("defines", {}).items()))
    print(f"{label:<40} {row['duration_ms']:8.3f} ms regs {row['registers'] or 0:4.0f} issue {row['issue_active_pct'] or 0:5.1f}% "
          f"fma {row['fma_pipe_pct'] or 0:5.1f}% occ {row['achieved_occupancy_pct'] or 0:5.1f}% "
          f"top stalls {', '.join(f'{k} {v:.2f}' for v, k in top)}", flush=True)


def _same_entry(a: dict, b: dict) -> bool:
    return a["kernel"] == b["kernel"] and a.get("defines") == b.get("defines")


def _label(entry: dict) -> str:
    defines = entry.get("defines")
    return entry["kernel"] + (" " + ",".join(f"{k}={v}" for k, v in defines.items()) if defines else "")


def merge(old: dict, run: dict, keys: tuple | None) -> dict:
    """The existing record with this run added; the run's provenance goes under "supplements".

    With keys, only those values of entries already recorded change. Without, a new entry (a variant) is
    added; a kernel the record already holds keeps its entry, and this run's profile of it goes into the
    supplement as "same_run": the baseline a variant is compared with, measured beside it.
    """
    supplement = {k: v for k, v in run.items() if k not in ("kernels", "reference")}
    supplement["keys"] = list(keys) if keys else "all"
    supplement["profiled"], same_run = [], []
    for section in ("kernels", "reference"):
        for entry in run[section]:
            match = next((e for e in old[section] if _same_entry(e, entry)), None)
            if match is None:
                old[section].append(entry)
                supplement["profiled"].append(_label(entry))
            elif keys:
                match.update({k: v for k, v in entry.items() if k not in ("kernel", "level", "variant", "function",
                                                                           "defines", "M", "N", "K")})
                supplement["profiled"].append(_label(entry))
            else:
                same_run.append(entry)
    if same_run:
        supplement["same_run"] = same_run
    old.setdefault("supplements", []).append(supplement)
    return old


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--out", default=str(record.DATA_DIR / "profiles.json"))
    ap.add_argument("--kernel", action="append", help="registry kernels (default: all)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME:DEF=V,DEF=V")
    ap.add_argument("--cublas", action="store_true", help="also profile cuBLAS's SGEMM kernel")
    ap.add_argument("--keys", help="comma-separated METRICS keys: profile only these (e.g. the ldgsts counts)")
    ap.add_argument("--merge", action="store_true",
                    help="add this run to the existing --out record (its provenance under 'supplements')")
    args = ap.parse_args()
    keys = tuple(k for k in (args.keys or "").split(",") if k) or None
    unknown = [k for k in keys or () if k not in METRICS]
    if unknown:
        print(f"알 수 없는 지표 키(unknown keys): {unknown}", file=sys.stderr)
        return 2
    if not shutil.which("ncu"):
        print("ncu(Nsight Compute)가 PATH에 없습니다.", file=sys.stderr)
        return 2
    kernels, reference = [], []
    for name in args.kernel if args.kernel is not None else list(registry.profiled_kernels()):
        kernels.append(profile(name, args.size, keys=keys))
        if not keys:
            _print(kernels[-1])
    if args.cublas:
        reference.append(profile("cublas", args.size, keys=keys))
        if not keys:
            _print(reference[-1])
        print("   cuBLAS kernel:", reference[-1].get("function"), flush=True)
    for v in args.variant:
        name, _, defs = v.partition(":")
        reference.append(profile(name, args.size, tuple(d for d in defs.split(",") if d), keys=keys))
        if not keys:
            _print(reference[-1])
    if keys:
        for e in kernels + reference:
            print(f"{e['kernel']:<32} " + " ".join(f"{k}={e[k]:,.0f}" for k in keys if k in e), flush=True)
    result = record.provenance("python tools/profile_levels.py " + " ".join(sys.argv[1:]))
    result["tool"] = subprocess.run(["ncu", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    result["ncu_options"] = "--clock-control none --launch-skip 1 --launch-count 1"
    result["stall_unit"] = "average warps stalled per issue-active cycle (smsp__average_warps_issue_stalled_*_per_issue_active.ratio)"
    result["kernels"] = kernels
    result["reference"] = reference
    if args.merge and os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as fh:
            result = merge(json.load(fh), result, keys)
    record.guard_book_record(args.out)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1, ensure_ascii=False)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
