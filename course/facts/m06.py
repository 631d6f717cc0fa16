"""Facts of module 6 (m06_tiling.md): the checkpoint rule from the course settings, the recorded
benchmark and Nsight Compute numbers, and the SASS counts of the Level 2 variants."""
from __future__ import annotations

import json

from course.facts import Facts
from course.page import recorded
from course.settings import load_settings
from kernels import sass as _sass
from kernels.record import DATA_DIR
from sims import roofline

f = Facts("m06")

BENCH = json.loads((DATA_DIR / "benchmarks.json").read_text(encoding="utf-8"))
PROF = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
REC = recorded()
N_MAIN = 4096 if any(r["M"] == 4096 for r in REC.rows) else max(r["M"] for r in REC.rows)


def bench(kernel, n=N_MAIN):
    row = REC.at(kernel, n)
    if row is None:
        raise KeyError(f"benchmarks.json에 {kernel} ({n}³) 행이 없습니다")
    return row


def prof(kernel):
    for row in PROF["kernels"]:
        if row["kernel"] == kernel:
            return row
    raise KeyError(f"profiles.json에 {kernel} 항목이 없습니다")


def g(key, value):
    f[key] = value


# The checkpoint rule is a course setting (an instructor may change it): read, never typed.
CHECKPOINT = load_settings().checkpoint(6)
g("cp_rule", CHECKPOINT.rule_text)
g("cp_pass", str(CHECKPOINT.pass_count))
g("cp_total", str(CHECKPOINT.question_count))

# Timings (benchmarks.json)
T = {k: bench(k)["median_ms"] for k in (
    "sgemm_naive", "sgemm_coalesced", "sgemm_tiled", "sgemm_tiled_padded", "sgemm_tiled_ptx",
    "sgemm_tiled_colwalk", "sgemm_tiled_colwalk_padded")}
g("n_main", str(N_MAIN))
g("device", BENCH["device"])
for key, kernel in (("t_naive", "sgemm_naive"), ("t_coal", "sgemm_coalesced"), ("t_tiled", "sgemm_tiled"),
                    ("t_pad", "sgemm_tiled_padded"), ("t_ptx", "sgemm_tiled_ptx"),
                    ("t_col", "sgemm_tiled_colwalk"), ("t_colpad", "sgemm_tiled_colwalk_padded")):
    g(key, f"{T[kernel]:.2f}")
g("speedup_l0_l2", f"{T['sgemm_naive'] / T['sgemm_tiled']:.2f}")
g("ptx_diff", f"{abs(T['sgemm_tiled_ptx'] / T['sgemm_tiled'] - 1) * 100:.1f}")
pad = (T["sgemm_tiled_padded"] / T["sgemm_tiled"] - 1) * 100
g("pad_phrase", f"{pad:.0f}% 더 오래 걸립니다" if pad > 0 else f"{-pad:.0f}% 빠릅니다")
g("col_vs_tiled", f"{T['sgemm_tiled_colwalk'] / T['sgemm_tiled']:.1f}")
g("col_rescue", f"{T['sgemm_tiled_colwalk'] / T['sgemm_tiled_colwalk_padded']:.1f}")
l1 = (T["sgemm_tiled"] / T["sgemm_coalesced"] - 1) * 100
g("l2_vs_l1", f"Level 1({T['sgemm_coalesced']:.2f} ms)보다 {l1:.0f}% 느립니다" if l1 > 0
  else f"Level 1({T['sgemm_coalesced']:.2f} ms)보다 {-l1:.0f}% 빠를 뿐입니다")
tiled_rows = [r for r in REC.rows if r["kernel"] == "sgemm_tiled"]
g("pct_cublas_tiled", f"{bench('sgemm_tiled')['pct_cublas']:.1f}")
g("pct_cublas_range", f"{min(r['pct_cublas'] for r in tiled_rows):.0f}–{max(r['pct_cublas'] for r in tiled_rows):.0f}")
g("sizes_list", ", ".join(f"{r['M']}³" for r in sorted(tiled_rows, key=lambda r: r["M"])))
g("gflops_tiled", f"{bench('sgemm_tiled')['gflops']:,.0f}")

# Roofline (D2): the recorded device's peak and its measured copy bandwidth
ROOF = roofline.recorded_device_roof(BENCH)
g("peak_tflops", f"{ROOF.peak_gflops / 1000:.1f}")
g("bw_gbs", f"{ROOF.bandwidth_gbs:,.0f}")
g("ridge_h100", f"{ROOF.ridge_ai:.1f}")
g("attain_ai4", f"{4.0 * ROOF.bandwidth_gbs / 1000:.1f}")

# Nsight Compute (profiles.json)
PN, PT, PC = prof("sgemm_naive"), prof("sgemm_tiled"), prof("sgemm_coalesced")
n3 = PT["M"] * PT["N"] * PT["K"]
g("prof_n", str(PT["M"]))
g("dram_naive_gb", f"{PN['dram_bytes'] / 1e9:.1f}")
g("dram_tiled_gb", f"{PT['dram_bytes'] / 1e9:.1f}")
g("dram_coal_gb", f"{PC['dram_bytes'] / 1e9:.1f}")
g("dram_ratio", f"{PN['dram_bytes'] / PT['dram_bytes']:.2f}")
g("req_ratio", f"{PN['global_ld_requests'] / PT['global_ld_requests']:.0f}")
g("sect_ratio", f"{PN['global_ld_sectors'] / PT['global_ld_sectors']:.0f}")
g("spr_tiled", f"{PT['sectors_per_request']:.1f}")
g("spr_naive", f"{PN['sectors_per_request']:.1f}")
compulsory = 3 * PT["M"] * PT["K"] * 4
g("dram_over_min", f"{PT['dram_bytes'] / compulsory:.0f}")
dram_ai = 2 * n3 / PT["dram_bytes"]
g("dram_ai_tiled", f"{dram_ai:.1f}")
g("dram_ai_roof", f"{min(dram_ai * ROOF.bandwidth_gbs, ROOF.peak_gflops) / 1000:.1f}")
g("frac_roof_ii", f"{bench('sgemm_tiled')['gflops'] / min(4.0 * ROOF.bandwidth_gbs, ROOF.peak_gflops) * 100:.0f}")
g("frac_roof_iii", f"{bench('sgemm_tiled')['gflops'] / min(dram_ai * ROOF.bandwidth_gbs, ROOF.peak_gflops) * 100:.0f}")
g("dram_pct_tiled", f"{PT['dram_pct']:.0f}")
g("mem_pct_tiled", f"{PT['mem_pct']:.0f}")
g("sm_pct_tiled", f"{PT['sm_pct']:.0f}")
g("issue_active_tiled", f"{PT['issue_active_pct']:.0f}")
for key, reason in (("st_ls", "Long Scoreboard"), ("st_mio", "MIO Throttle"), ("st_bar", "Barrier"),
                    ("st_short", "Short Scoreboard"), ("st_wait", "Wait")):
    g(key, f"{PT['stalls'][reason]:.1f}")
g("st_mio_col", f"{prof('sgemm_tiled_colwalk')['stalls']['MIO Throttle']:.1f}")
g("occ_theo", f"{PT['theoretical_occupancy_pct']:.0f}")
g("occ_ach", f"{PT['achieved_occupancy_pct']:.0f}")
g("regs_tiled", f"{PT['registers']:.0f}")
g("smem_tiled", f"{PT['smem_static']:,.0f}")
occ = roofline.occupancy(256, int(PT["registers"]), int(PT["smem_static"]), "sm_90")
g("occ_blocks", str(occ.blocks_per_sm))
g("occ_smem_alloc", f"{occ.smem_allocated_per_block:,}")
occ33 = roofline.occupancy(256, 33, int(PT["smem_static"]), "sm_90")
g("occ33", f"{occ33.active_warps / occ33.arch.max_warps_per_sm * 100:.0f}")

# SASS facts (compiled here, no GPU) and shared-memory counters per warp per K tile
SASS = {k: _sass.summarize(k, "sm_90") for k in (
    "sgemm_tiled", "sgemm_tiled_padded", "sgemm_tiled_colwalk", "sgemm_tiled_colwalk_padded")}
st = SASS["sgemm_tiled"]
g("n128_tiled", str(st.lds_widths.get("128", 0)))
g("n32_tiled", str(st.lds_widths.get("32", 0)))
g("nlds_tiled", str(sum(st.lds_widths.values())))
g("nsts_tiled", str(sum(st.sts_widths.values())))
g("nlds_pad", str(sum(SASS["sgemm_tiled_padded"].lds_widths.values())))
WT = (PT["M"] // 16) * (PT["N"] // 16) * 8 * (PT["K"] // 16)   # blocks x 8 warps x K tiles
for key, kernel in (("tiled", "sgemm_tiled"), ("pad", "sgemm_tiled_padded"), ("col", "sgemm_tiled_colwalk"),
                    ("colpad", "sgemm_tiled_colwalk_padded")):
    g(f"wf_tile_{key}", f"{prof(kernel)['smem_ld_wavefronts'] / WT:.0f}")
    g(f"wpi_{key}", f"{prof(kernel)['smem_ld_wavefronts_per_instruction']:.1f}")
