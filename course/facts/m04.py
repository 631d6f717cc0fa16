"""Facts of module 4 (m04_naive.md): the recorded benchmark and Nsight Compute numbers its text
quotes, and simulation 4's prediction of sectors per request."""
from __future__ import annotations

import json
import re

from course.facts import Facts
from course.page import recorded
from kernels.record import DATA_DIR
from sims import coalescing

f = Facts("m04")

N4 = 4096
MIN_BYTES = 3 * N4 * N4 * 4            # minimum bytes: read A and B once, write C once
THREAD_BYTES = 2 * N4 * N4 * N4 * 4    # total bytes all threads request in the K loop
FLOPS = 2 * N4 ** 3

bench = recorded()                      # book/data/benchmarks.json (recorded results)
bprov = bench.provenance
naive_b = {n: bench.at("sgemm_naive", n) for n in (1024, 2048, 4096)}
strided_b = bench.at("sgemm_naive_strided", N4)
cublas_b = bench.at("cublas", N4)

prof = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
profile = {k["kernel"]: k for k in prof["kernels"]}
naive_p = profile["sgemm_naive"]
strided_p = profile["sgemm_naive_strided"]


def g(name, value, fmt):
    """One fact of the text: the value formatted as it is printed."""
    f[name] = format(value, fmt)


# Benchmark record (benchmarks.json)
g("b_device", bprov["device"], "s")
g("b_date", str(bprov["date"])[:10], "s")
g("naive_pct_cublas_4096", naive_b[4096]["pct_cublas"], ".1f")
g("naive_pct_cublas_1024", naive_b[1024]["pct_cublas"], ".1f")
g("naive_gflops_4096", naive_b[4096]["gflops"], ",.0f")
g("naive_ms_4096", naive_b[4096]["median_ms"], ".1f")
g("naive_pct_peak_4096", naive_b[4096]["pct_peak"], ".1f")
g("cublas_ms_4096", cublas_b["median_ms"], ".2f")
g("strided_ms_4096", strided_b["median_ms"], ".1f")
g("strided_pct_cublas_4096", strided_b["pct_cublas"], ".1f")
g("strided_slowdown", strided_b["median_ms"] / naive_b[4096]["median_ms"], ".1f")
g("peak_tflops", bprov["peak_gflops"] / 1000, ".1f")
g("sm_count", bprov["sm_count"], "d")
g("fp32_lanes", bprov["fp32_lanes_per_sm"], "d")
g("clock_mhz", bprov["clock_mhz"], ",.0f")
g("bandwidth_tbs", bprov["bandwidth_gbs"] / 1000, ".2f")
g("ridge_h100", bprov["peak_gflops"] / bprov["bandwidth_gbs"], ".1f")

# Nsight Compute record (profiles.json)
g("p_device", prof["device"], "s")
g("p_date", str(prof["date"])[:10], "s")
m = re.search(r"\d{4}\.\d+\.\d+", prof.get("tool", ""))
g("p_tool", m.group(0) if m else prof.get("tool", "?"), "s")
g("naive_spr", naive_p["sectors_per_request"], ".2f")
g("strided_spr", strided_p["sectors_per_request"], ".2f")
g("sm_pct", naive_p["sm_pct"], ".0f")
g("mem_pct", naive_p["mem_pct"], ".0f")
g("dram_pct", naive_p["dram_pct"], ".0f")
g("occupancy_pct", naive_p["achieved_occupancy_pct"], ".0f")
stalls = naive_p["stalls"]
stall_total = sum(stalls.values())
g("stall_total", stall_total, ".1f")
g("ls_cycles", stalls["Long Scoreboard"], ".1f")
g("lg_cycles", stalls["LG Throttle"], ".1f")
g("ls_share", 100 * stalls["Long Scoreboard"] / stall_total, ".0f")
g("lg_share", 100 * stalls["LG Throttle"] / stall_total, ".0f")
l1_bytes = naive_p["global_ld_sectors"] * 32
g("l1_sector_gb", l1_bytes / 1e9, ",.0f")
g("dram_gb", naive_p["dram_bytes"] / 1e9, ".1f")
g("dram_read_gb", naive_p["dram_read_bytes"] / 1e9, ".1f")
g("dram_over_min", naive_p["dram_bytes"] / MIN_BYTES, ".0f")
g("dram_share_of_l1", 100 * naive_p["dram_read_bytes"] / l1_bytes, ".0f")
dram_ai = FLOPS / naive_p["dram_bytes"]
g("dram_ai", dram_ai, ".1f")
g("dram_roof_tflops", dram_ai * bprov["bandwidth_gbs"] / 1000, ".1f")
g("naive_tflops_4096", naive_b[4096]["gflops"] / 1000, ".1f")

# Model from simulation 4 (sims.coalescing)
avg = coalescing.naive_average_sectors(N4, N4, N4, bdx=16, bdy=16)
g("model_spr", avg.overall, ".2f")
g("model_spr_a", avg.a_sectors_per_request, ".2f")
g("model_spr_b", avg.b_sectors_per_request, ".2f")
