"""Facts of module 10 (m10_profiling.md): the recorded benchmark, Nsight Compute and tuning numbers its
text quotes, the measured roofline ceilings, and the SASS counts of Levels 0-6.

Levels 0-6 are the registry's representative kernels; "CB" is cuBLAS's own kernel, profiled in the same
record (profiles.json "reference"). Level-against-level speed comes from benchmarks.json "pairs" (the two
kernels timed in direct alternation) or from % of cuBLAS (each kernel timed in alternation with cuBLAS):
a kernel's median time alone drifts with the GPU's clock from one kernel's run to the next.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

from course.facts import Facts
from course.page import recorded
from kernels import registry, sass
from kernels.record import DATA_DIR
from sims import profiles as sim_profiles
from sims import roofline as sim_roofline

f = Facts("m10")

N4 = 4096
FLOPS = 2 * N4 ** 3                      # 137,438,953,472
REP = registry.LEVEL_REPRESENTATIVE      # representative kernel of each level
LEVELS = sorted(REP)
MAIN_PATH = [lv for lv in LEVELS if registry.KERNELS[REP[lv]].chapter <= 10]   # Levels 0-5

bench = recorded()                       # book/data/benchmarks.json
bprov = bench.provenance
prof = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
P = {k["kernel"]: k for k in prof["kernels"]}
cbp = next(e for e in prof["reference"] if e["kernel"] == "cublas")    # cuBLAS's kernel, same record
tuning = json.loads((DATA_DIR / "async_tuning.json").read_text(encoding="utf-8"))

rep_p = {lv: P[REP[lv]] for lv in LEVELS}
rep_b = {lv: bench.at(REP[lv], N4) for lv in LEVELS}
cub = bench.at("cublas", N4)
async4 = P["sgemm_async_copy"]
prof_of = dict(rep_p, CB=cbp)            # every profiled kernel the tables compare
KEYS = LEVELS + ["CB"]

SHORT = {0: "L0 나이브", 1: "L1 float4", 2: "L2 타일링", 3: "L3 레지스터 블로킹", 4: "L4 더블 버퍼",
         5: "L5 cp.async 16 B", 6: "L6 워프 타일링", "CB": "cuBLAS 커널"}
# The source material's claims (A100, never measured): SOL position (SM %, memory %) and % of cuBLAS
SEED_SOL = {0: (5, 20), 1: (10, 50), 2: (30, 60), 3: (60, 70), 4: (75, 80), 5: (85, 85)}
SEED_RANGE = {0: (1, 5), 1: (5, 10), 2: (20, 40), 3: (50, 70), 4: (70, 85), 5: (85, 95)}

PEAK = bprov["peak_gflops"]
BW = bprov["bandwidth_gbs"]
RIDGE = PEAK / BW

MAIN_STALLS = ["Long Scoreboard", "LG Throttle", "Barrier", "MIO Throttle", "Short Scoreboard", "Wait",
               "Math Pipe Throttle", "No Instruction", "Dispatch Stall", "Not Selected", "Selected"]
STALL_KEYS = {"Long Scoreboard": "ls", "LG Throttle": "lg", "Barrier": "bar", "MIO Throttle": "mio",
              "Short Scoreboard": "ssb", "Wait": "wait", "Math Pipe Throttle": "math",
              "No Instruction": "noi", "Dispatch Stall": "disp", "Not Selected": "ns", "Selected": "sel"}
SMSP_PER_SM = 4                          # warp schedulers per SM (sm_80, sm_90)
MAX_WARPS = 64                           # resident warps per SM (sm_90)


def g(name, value, fmt=""):
    """One value for the text, formatted as it is printed."""
    f[name] = format(value, fmt)


def tag(key):
    return f"L{key}" if key != "CB" else "CB"


def shares(stalls):
    """Stall values (mean warps per issue cycle) as shares (%) of their total. Returns (shares, total)."""
    total = sum(v for v in stalls.values() if v)
    return {k: 100 * v / total for k, v in stalls.items() if v}, total


def ai_fmt(x):
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}" if x >= 1 else f"{x:.2f}"


def ffma_share(e):
    """Share (%) of FFMA among the warp instructions a kernel executed."""
    return 100 * e["ffma_instructions"] / 32 / e["instructions"]


def smem_bytes(e):
    return int((e.get("smem_static") or 0) + (e.get("smem_dynamic") or 0))


def speed_phrase(old_ms, new_ms):
    """Old time → new time as one Korean phrase (the data decides the direction)."""
    r = old_ms / new_ms
    if r >= 1.03:
        return f"{r:.2f}배 빨라졌습니다"
    if r <= 1 / 1.03:
        return f"{1 / r:.2f}배 느려졌습니다"
    return f"거의 같은 속도였습니다(차이 {abs(r - 1) * 100:.1f}%)"


def pair(new, old, n):
    """Speed-up of new over old, the two timed in direct alternation (benchmarks.json "pairs")."""
    return next(p["speedup"] for p in bprov["pairs"] if p["new"] == new and p["old"] == old and p["M"] == n)


# Provenance and device
g("p_device", prof["device"], "s")
g("p_date", str(prof["date"])[:10], "s")
g("p_tool", prof["tool"].split()[1], "s")
g("p_opts", prof["ncu_options"], "s")
g("p_cmd", prof["command"], "s")
g("b_device", bprov["device"], "s")
g("b_date", str(bprov["date"])[:10], "s")
g("b_tf32", bprov.get("tf32", "?"), "s")
g("sm_count", bprov["sm_count"], "d")
g("lanes", bprov["fp32_lanes_per_sm"], "d")
g("clock_mhz", bprov["clock_mhz"], ",.0f")
g("peak_gflops", PEAK, ",.0f")
g("peak_tflops", PEAK / 1000, ".1f")
g("bw_gbs", BW, ",.0f")
g("bw_tbs", BW / 1000, ".2f")
g("ridge", RIDGE, ".1f")
g("bw_method", bprov.get("bandwidth_method", "?"), "s")
g("n_levels", len(LEVELS), "d")
g("last_level", LEVELS[-1], "d")
g("main_last", MAIN_PATH[-1], "d")

# The seed benchmark runner's formula (SMs × 64 lanes × 1.5 GHz × 2) applied to the recorded device
seed_peak = bprov["sm_count"] * 64 * 1.5 * 2                       # GFLOP/s
g("seed_peak_tflops", seed_peak / 1000, ".1f")
g("cublas_vs_seed_peak", 100 * cub["gflops"] / seed_peak, ".0f")

# cuBLAS in the benchmark: its row is the median of the medians timed beside each kernel; min_ms and
# max_ms are the lowest and highest of those medians (the GPU's clock drifts from one kernel's run to the next)
g("cublas_ms", cub["median_ms"], ".2f")
g("cublas_ms_lo", cub["min_ms"], ".2f")
g("cublas_ms_hi", cub["max_ms"], ".2f")
g("cublas_gflops", cub["gflops"], ",.0f")
g("cublas_tflops", cub["gflops"] / 1000, ".1f")
g("cublas_pct_peak", cub["pct_peak"], ".0f")
g("cublas_pct_peak_lo", 100 * FLOPS / (cub["max_ms"] * 1e6) / PEAK, ".0f")
g("cublas_pct_peak_hi", 100 * FLOPS / (cub["min_ms"] * 1e6) / PEAK, ".0f")
g("cublas_reps", cub["reps"], "d")

# Arithmetic beside the quiz (C1): 4096³ in 3.2 ms
gf_32 = FLOPS / (3.2 * 1e6)
g("c1_pct_peak", 100 * gf_32 / PEAK, ".0f")
g("c1_pct_cublas", 100 * cub["median_ms"] / 3.2, ".0f")

# Per profiled kernel: Levels 0-6 and cuBLAS (CB)
for key in KEYS:
    e = prof_of[key]
    t = tag(key)
    sh, tot = shares(e["stalls"])
    for name, fmt in [("sm_pct", ".0f"), ("mem_pct", ".0f"), ("dram_pct", ".0f"), ("issue_active_pct", ".0f"),
                      ("achieved_occupancy_pct", ".0f"), ("theoretical_occupancy_pct", ".1f"),
                      ("registers", ".0f"), ("duration_ms", ".2f"),
                      ("l1_lsu_wavefronts_pct", ".0f"), ("lsu_issue_pct", ".0f"), ("fma_pipe_pct", ".0f")]:
        g(f"{t}_{name}", e[name], fmt)
    g(f"{t}_smem", smem_bytes(e), ",d")
    g(f"{t}_spr", e["sectors_per_request"], ".1f")
    g(f"{t}_instr", e["instructions"] / 1e9, ".2f")
    g(f"{t}_instr_eok", e["instructions"] / 1e8, ",.0f")
    g(f"{t}_ldsinst_eok", e["smem_ld_instructions"] / 1e8, ".2f")
    g(f"{t}_ffma_share", ffma_share(e), ".0f")
    g(f"{t}_stall_total", tot, ".1f")
    for name, k in STALL_KEYS.items():
        g(f"{t}_{k}", sh.get(name, 0.0), ".0f")
        g(f"{t}_{k}_raw", e["stalls"].get(name) or 0.0, ".2f")
    g(f"{t}_dram_ai", ai_fmt(FLOPS / e["dram_bytes"]), "s")
    g(f"{t}_dram_gb", e["dram_bytes"] / 1e9, ".2f")
    g(f"{t}_warps_per_smsp", e["achieved_occupancy_pct"] / 100 * MAX_WARPS / SMSP_PER_SM, ".0f")

# Per level: the benchmark (4096³, each kernel timed in alternation with cuBLAS)
for lv in LEVELS:
    b = rep_b[lv]
    g(f"L{lv}_ms", b["median_ms"], ".2f")
    g(f"L{lv}_gflops", b["gflops"], ",.0f")
    g(f"L{lv}_tflops", b["gflops"] / 1000, ".1f")
    g(f"L{lv}_pctc", b["pct_cublas"], ".0f")
    g(f"L{lv}_pctp", b["pct_peak"], ".0f")

# The bar sizes beyond 4096³ (benchmarks.json) and where cuBLAS still wins
for lv in (3, 4, 5, 6):
    g(f"L{lv}_pctc_8192", bench.at(REP[lv], 8192)["pct_cublas"], ".0f")
g("L6_pctc_2048", bench.at(REP[6], 2048)["pct_cublas"], ".0f")
g("L6_pctc_1024", bench.at(REP[6], 1024)["pct_cublas"], ".0f")
g("L4_pctc_1024", bench.at(REP[4], 1024)["pct_cublas"], ".0f")
gx, gy, _ = registry.KERNELS[REP[6]].grid(1024, 1024)
blocks_1024 = gx * gy
g("L6_blocks_1024", blocks_1024, "d")
awk = next(r for r in bprov["awkward_rows"] if r["kernel"] == REP[6] and (r["M"], r["N"], r["K"]) == (1000, 1023, 1025))
g("L6_pctc_awk", awk["pct_cublas"], ".0f")

# Level against level, timed in direct alternation (benchmarks.json "pairs")
for n in (N4, 8192):
    g(f"x45_{n}", pair(REP[5], REP[4], n), ".3f")
    g(f"x45_4b_{n}", pair("sgemm_async_copy", REP[4], n), ".3f")
    g(f"x56_{n}", pair(REP[6], REP[5], n), ".3f")
    g(f"x45_{n}_pct", 100 * abs(pair(REP[5], REP[4], n) - 1), ".1f")
    g(f"x45_4b_{n}_pct", 100 * (1 - pair("sgemm_async_copy", REP[4], n)), ".1f")
    g(f"x56_{n}_pct", 100 * (pair(REP[6], REP[5], n) - 1), ".1f")

# DRAM roofs of the naive and tiled kernels (arithmetic intensity from measured DRAM bytes × measured bandwidth)
for lv in (0, 2):
    g(f"L{lv}_dram_roof_tflops", min(PEAK, FLOPS / rep_p[lv]["dram_bytes"] * BW) / 1000, ".1f")
g("L3_roof_ii_raw_tflops", sim_roofline.level_ai(3, "ii") * BW / 1000, ".1f")
g("L6_ai_i", sim_roofline.level_ai(6, "i"), ".2f")
g("L6_ai_ii", sim_roofline.level_ai(6, "ii"), ".1f")
cb_tile = sim_roofline.reference_block_tile(cbp["function"])
g("cb_tile", f"{cb_tile[0]}×{cb_tile[1]}", "s")
g("L6_tile", "×".join(str(v) for v in registry.KERNELS[REP[6]].tile), "s")
g("L6_thread_tile", f"{registry.LEVEL6['TM']}×{registry.LEVEL6['TN']}", "s")

# Model (iii) arithmetic intensity of the fast kernels: the lowest and the highest, and whose
ai_iii = {k: FLOPS / prof_of[k]["dram_bytes"] for k in (3, 4, 5, 6, "CB")}
lo_k, hi_k = min(ai_iii, key=ai_iii.get), max(ai_iii, key=ai_iii.get)
WHO = {k: f"Level {k}" for k in LEVELS} | {"CB": "cuBLAS"}
g("dram_ai_min", ai_fmt(ai_iii[lo_k]), "s")
g("dram_ai_min_who", WHO[lo_k], "s")
g("dram_ai_max", ai_fmt(ai_iii[hi_k]), "s")
g("dram_ai_max_who", WHO[hi_k], "s")

# Change in instruction counts
g("instr_ratio_01", rep_p[0]["instructions"] / rep_p[1]["instructions"], ".1f")
g("instr_ratio_23", rep_p[2]["instructions"] / rep_p[3]["instructions"], ".1f")
g("instr_drop_45", 100 * (1 - rep_p[5]["instructions"] / rep_p[4]["instructions"]), ".0f")
g("instr_drop_46", 100 * (1 - rep_p[6]["instructions"] / rep_p[4]["instructions"]), ".0f")

# Step-by-step change in time under the profiler (same run: profiles.json)
for a, b_ in [(0, 1), (1, 2), (0, 2), (2, 3), (3, 4)]:
    g(f"t{a}{b_}", speed_phrase(rep_p[a]["duration_ms"], rep_p[b_]["duration_ms"]), "s")
g("t23_x", rep_p[2]["duration_ms"] / rep_p[3]["duration_ms"], ".1f")

# Level 5's 4-byte variant
sh4, tot4 = shares(async4["stalls"])
g("a4_spr", async4["sectors_per_request"], ".0f")
g("a4_req_ratio", async4["global_ld_requests"] / rep_p[5]["global_ld_requests"], ".1f")
g("a4_sec_ratio", async4["global_ld_sectors"] / rep_p[5]["global_ld_sectors"], ".2f")
g("a4_issue", async4["issue_active_pct"], ".0f")
g("a4_regs", async4["registers"], ".0f")


# Copies of one K tile and the sectors they touch, from the tile shapes (not measured): A always in 4-byte
# copies (a warp: 4 rows × 8 consecutive k = 4 sectors), B in copies of b_width floats along a row.
def copy_plan(bm, bn, bk, b_width):
    a_req = bm * bk // 32
    b_req = bk * bn // (32 * b_width)
    sectors = a_req * 4 + b_req * (32 * b_width * 4 // 32)
    return a_req + b_req, sectors


def planned_requests(name_or_tile, m=N4, n=N4, k=N4):
    """Global load requests a cp.async kernel issues at m×n×k, from its copy plan."""
    bm, bn, bk, b_width = name_or_tile
    blocks = (m // bm) * (n // bn)
    req, _ = copy_plan(bm, bn, bk, b_width)
    return req * (k // bk) * blocks


L5_PLAN = (128, 128, registry.LEVEL5["BK"], 4)
L5_4B_PLAN = (128, 128, registry.LEVEL5["BK"], 1)
L6_PLAN = (registry.LEVEL6["BM"], registry.LEVEL6["BN"], registry.LEVEL6["BK"], 4)
cb_bk = int(re.search(r"tilesize\d+x\d+x(\d+)", cbp["function"]).group(1))
CB_PLAN = (cb_tile[0], cb_tile[1], cb_bk, 1)          # 4-byte copies: the name says aligna4
plans = {"L5": L5_PLAN, "L5_4b": L5_4B_PLAN, "L6": L6_PLAN, "CB": CB_PLAN}
for name, plan in plans.items():
    req, sec = copy_plan(*plan)
    g(f"{name}_spr_plan", sec / req, ".1f")
g("cb_bk", cb_bk, "d")
g("cb_req_ratio_6", cbp["global_ld_requests"] / rep_p[6]["global_ld_requests"], ".0f")
g("cb_sts_man", cbp["smem_st_instructions"] / 1e4, ",.0f")
g("cb_req_man", cbp["global_ld_requests"] / 1e4, ",.0f")
g("cb_req_share", 100 * cbp["global_ld_requests"] / cbp["instructions"], ".0f")

# Sectors per request the access pattern needs (from the layout; compared with the measurement below)
PATTERN = {
    0: ("32비트: A 두 주소(브로드캐스트), B 연속 64 B", 2.0),
    1: ("128비트: A 두 행, B 연속 256 B × 4", (2 + 4 * 8) / 5),
    2: ("32비트: 타일 두 행 × 64 B", 4.0),
    3: ("128비트: A 16행 × 32 B, B 연속 512 B", 16.0),
    4: ("Level 3과 같음", 16.0),
    5: ("cp.async: A 4 B(4행 × 8 k, 4섹터), B 16 B(연속 512 B, 16섹터)", copy_plan(*L5_PLAN)[1] / copy_plan(*L5_PLAN)[0]),
    6: ("cp.async: Level 5와 같은 복사, B 타일이 두 배 넓음", copy_plan(*L6_PLAN)[1] / copy_plan(*L6_PLAN)[0]),
    "L5_4b": ("cp.async 4 B: A는 Level 5와 같고 B도 4 B(연속 128 B, 4섹터)",
              copy_plan(*L5_4B_PLAN)[1] / copy_plan(*L5_4B_PLAN)[0]),
    "CB": (f"4 B 복사(이름의 aligna4), {cb_tile[0]}×{cb_tile[1]}×{cb_bk} 타일",
           copy_plan(*CB_PLAN)[1] / copy_plan(*CB_PLAN)[0]),
}
measured_spr = dict({lv: rep_p[lv]["sectors_per_request"] for lv in LEVELS}, L5_4b=async4["sectors_per_request"],
                    CB=cbp["sectors_per_request"])
assert all(abs(measured_spr[k] - PATTERN[k][1]) < 0.05 for k in PATTERN), "본문: 모든 줄에서 측정 = 계산"

# Shared-memory check
def wpi(e, op):
    inst = e[f"smem_{op}_instructions"]
    return None if not inst else e[f"smem_{op}_wavefronts"] / inst


def wpi_clean(e, op):
    inst = e[f"smem_{op}_instructions"]
    return None if not inst else (e[f"smem_{op}_wavefronts"] - e[f"smem_{op}_bank_conflicts"]) / inst


g("L3_ld_wpi", wpi(rep_p[3], "ld"), ".2f")
g("L3_ld_conf_pct", 100 * rep_p[3]["smem_ld_bank_conflicts"] / rep_p[3]["smem_ld_wavefronts"], ".2f")
g("L3_st_wpi", wpi(rep_p[3], "st"), ".2f")
g("L3_st_wpi_clean", wpi_clean(rep_p[3], "st"), ".2f")
g("L2_ld_wpi", wpi(rep_p[2], "ld"), ".2f")
g("L2_st_wpi", wpi(rep_p[2], "st"), ".2f")
g("L6_ld_wpi", wpi(rep_p[6], "ld"), ".2f")
g("CB_ld_wpi", wpi(cbp, "ld"), ".2f")
g("L5_ld_conf_pct", 100 * rep_p[5]["smem_ld_bank_conflicts"] / rep_p[5]["smem_ld_wavefronts"], ".3f")

# Registers and occupancy (the simulator's model, sm_90)
occ = {key: sim_roofline.occupancy(int(prof_of[key]["block_size"]), int(prof_of[key]["registers"]),
                                   smem_bytes(prof_of[key]), "sm_90") for key in KEYS}
g("L4_regs_raw", int(rep_p[4]["registers"]) * 32, ",d")
g("L4_regs_per_warp", occ[4].registers_per_warp, ",d")
g("L4_warps_fit", 65536 // occ[4].registers_per_warp, "d")
g("L4_blocks", occ[4].blocks_per_sm, "d")
g("L1_regs_per_warp", occ[1].registers_per_warp, ",d")
g("L1_blocks", occ[1].blocks_per_sm, "d")
g("L6_regs_per_warp", occ[6].registers_per_warp, ",d")
g("CB_regs_per_warp", occ["CB"].registers_per_warp, ",d")
g("L6_smem_blocks", occ[6].limits["smem"], "d")
g("occ_L6", occ[6].occupancy_pct, ".1f")
g("occ_L4", occ[4].occupancy_pct, ".0f")
g("speed_23", rep_b[2]["median_ms"] / rep_b[3]["median_ms"], ".1f")
g("dram_ratio_21", rep_p[2]["dram_bytes"] / rep_p[1]["dram_bytes"], ".0f")

tot = {key: shares(prof_of[key]["stalls"])[1] for key in KEYS}
g("stall_ratio_34", tot[3] / tot[4], ".2f")
g("t34_x", rep_p[3]["duration_ms"] / rep_p[4]["duration_ms"], ".2f")
pct_rb = [rep_b[lv]["pct_cublas"] for lv in (3, 4, 5)]
g("pctc_min", min(pct_rb), ".0f")
g("pctc_max", max(pct_rb), ".0f")
iss = [rep_p[lv]["issue_active_pct"] for lv in (3, 4, 5)]
g("issue_min_35", min(iss), ".0f")
g("issue_max_35", max(iss), ".0f")

# FMA pipe ≈ issue-active × FFMA share: an FFMA takes one issue slot, and one warp FFMA per cycle fills a
# scheduler's 32 FP32 lanes
for key in (3, 4, 5, 6, "CB"):
    e = prof_of[key]
    g(f"{tag(key)}_fma_est", e["issue_active_pct"] * ffma_share(e) / 100, ".0f")

# Level 5 ring tuning (async_tuning.json): each configuration's speed-up over Level 4, timed in alternation
# One point of the figure is one row of the record: a row is named by its kernel, size and the three ring
# defines, and no other define (a micro-kernel setting) varies between rows, so nothing is merged or averaged.
RING_DEFINES = {"L5_BK": "BK", "L5_STAGES": "STAGES", "L5_EARLY_BARRIER": "EARLY_BARRIER"}
tun = defaultdict(dict)
for r in tuning["rows"]:
    if r["kernel"].startswith("sgemm_async_copy"):
        key = (r["kernel"], r["BK"], r["STAGES"], r["EARLY_BARRIER"])
        assert set(r["defines"]) == set(RING_DEFINES) and all(r["defines"][d] == r[k] for d, k in RING_DEFINES.items()), \
            f"async_tuning.json: 고리의 세 매크로 말고 다른 설정이 바뀐 행 {r['defines']}"
        assert r["M"] not in tun[key], f"async_tuning.json: {key}, {r['M']}³의 행이 둘 이상이다"
        tun[key][r["M"]] = r["vs_level4"]
TUNE_SIZES = sorted({r["M"] for r in tuning["rows"]})
vec = {k: v for k, v in tun.items() if k[0] == REP[5]}
chosen = (REP[5], tuning["chosen"]["BK"], tuning["chosen"]["STAGES"], tuning["chosen"]["EARLY_BARRIER"])
best_gain = max(min(v.values()) for v in vec.values())      # the rule: the worse of the two sizes
worst = min(min(v.values()) for v in vec.values())
g("tun_date", str(tuning["date"])[:10], "s")
g("tun_n", len(vec), "d")
g("tun_best_pct", 100 * (best_gain - 1), ".1f")
g("tun_worst_pct", 100 * (1 - worst), ".0f")
g("tun_margin", 100 * tuning["keep_margin"], ".0f")
g("tun_chosen", f"BK = {chosen[1]}, {chosen[2]}단", "s")

# cuBLAS's kernel (profiles.json "reference")
g("cb_function", cbp["function"], "s")
g("cb_ffma_eok", cbp["ffma_instructions"] / 1e8, ",.0f")
g("cb_stages", re.search(r"stage(\d+)", cbp["function"]).group(1), "s")
warps = re.search(r"warpsize(\d+)x(\d+)", cbp["function"])
g("cb_warps", f"{warps.group(1)}×{warps.group(2)}", "s")
g("cb_warp_tile", f"{cb_tile[0] // int(warps.group(1))}×{cb_tile[1] // int(warps.group(2))}", "s")
g("cb_block", cbp["block_size"], ".0f")
g("cb_grid", cbp["grid_size"], ".0f")

# ---------------------------------------------------------------------------------------------------------
# Comparisons whose direction the text states (the build stops if a new recording contradicts them)
sh_ = {key: shares(prof_of[key]["stalls"])[0] for key in KEYS}
assert rep_p[2]["duration_ms"] > 1.03 * rep_p[1]["duration_ms"], "본문: Level 2가 Level 1보다 느리다"
assert rep_b[2]["median_ms"] > 1.03 * rep_b[1]["median_ms"], "본문: Level 2가 Level 1보다 느리다"
assert rep_p[3]["duration_ms"] * 3 < rep_p[2]["duration_ms"], "본문: Level 3은 Level 2보다 몇 배 빠르다"
assert abs(rep_p[0]["l1_lsu_wavefronts_pct"] - rep_p[0]["mem_pct"]) < 1, "본문: 나이브의 메모리 %는 L1 LSU 데이터 파이프"
assert abs(rep_p[0]["lsu_issue_pct"] - rep_p[0]["sm_pct"]) < 2, "본문: 나이브의 SM %는 LSU 명령 파이프"
assert all(prof_of[k]["sm_pct"] > prof_of[k]["mem_pct"] for k in (3, 4, 5, 6, "CB")), \
    "본문: Level 3–6과 cuBLAS는 SM %가 메모리 %를 앞선다"
assert [sim_profiles.classify_sol(prof_of[k]["sm_pct"], prof_of[k]["mem_pct"]) for k in (6, "CB")] == ["compute"] * 2, \
    "본문: Level 6과 cuBLAS는 연산 한계 사분면"
assert all(sh_[k].get("Math Pipe Throttle", 0) < 5 for k in KEYS), "본문: Math Pipe Throttle은 몇 %를 넘지 않는다"
assert all(sh_[k]["Long Scoreboard"] < 5 for k in (4, 5, 6, "CB")), "본문: Level 4–6과 cuBLAS에는 Long Scoreboard가 거의 없다"
assert rep_p[3]["duration_ms"] > 1.1 * rep_p[4]["duration_ms"], "본문: Level 4는 Level 3보다 크게 빠르다"
assert rep_b[3]["median_ms"] > 1.1 * rep_b[4]["median_ms"], "본문: Level 4는 Level 3보다 크게 빠르다"
assert abs((tot[3] / tot[4]) / (rep_p[3]["duration_ms"] / rep_p[4]["duration_ms"]) - 1) < 0.1, "본문: 스톨 합계 비율 ≈ 시간 비율"
assert rep_p[4]["stalls"]["Short Scoreboard"] < rep_p[3]["stalls"]["Short Scoreboard"], "본문: Short Scoreboard도 줄었다"
PASSIVE = ("Selected", "Not Selected")


def top_active(key, n=1):
    """The n largest stall reasons a kernel can act on (not Selected / Not Selected)."""
    return [k for k, _ in sorted(((k, v) for k, v in sh_[key].items() if k not in PASSIVE), key=lambda kv: -kv[1])][:n]


assert all(max(sh_[k], key=sh_[k].get) == "Not Selected" for k in (3, 4, 5)), "본문: Level 3–5에서 가장 큰 몫은 Not Selected"
assert all(sh_[k]["Not Selected"] + sh_[k]["Selected"] > 50 for k in (4, 5)), "본문: Level 4–5는 Not Selected + Selected > 절반"
assert top_active(5, 2) == ["Barrier", "Dispatch Stall"], "본문: Level 5에서 그다음으로 큰 것은 Barrier와 Dispatch Stall"
assert all(max(sh_[k], key=sh_[k].get) == "Selected" for k in (6, "CB")), "본문: Level 6과 cuBLAS에서 가장 큰 몫은 Selected"
assert max(tot[6], tot["CB"]) < min(tot[k] for k in KEYS if k not in (6, "CB")), "본문: Level 6과 cuBLAS의 합계가 가장 작다"
assert top_active(6) == ["No Instruction"] and top_active("CB") == ["Short Scoreboard"], \
    "본문: 가장 큰 능동 스톨은 Level 6에서 No Instruction, cuBLAS에서 Short Scoreboard"
assert top_active(4) == ["Short Scoreboard"] and top_active(4, 2)[1] == "Barrier", \
    "본문: Level 4에서 Not Selected·Selected 다음은 Short Scoreboard와 Barrier"
# Stall total ≈ warps per scheduler ÷ issue-active fraction (every kernel, within 10%)
for key in KEYS:
    e = prof_of[key]
    est = e["achieved_occupancy_pct"] / 100 * MAX_WARPS / SMSP_PER_SM / (e["issue_active_pct"] / 100)
    assert abs(est / tot[key] - 1) < 0.1, f"본문: 스톨 합계 ≈ 스케줄러당 워프 ÷ 발행 활성 ({key})"
assert rep_p[6]["achieved_occupancy_pct"] / 100 * MAX_WARPS / SMSP_PER_SM < 2.5 \
    and cbp["achieved_occupancy_pct"] / 100 * MAX_WARPS / SMSP_PER_SM < 2.5, "본문: Level 6과 cuBLAS는 스케줄러당 워프 2개"

# Level 4 → 5: parity (16 B), the 4-byte variant a little slower
for n in (N4, 8192):
    assert abs(pair(REP[5], REP[4], n) - 1) < 0.01, "본문: Level 5(16 B)는 Level 4와 같은 속도(1% 안)"
    assert 0.95 < pair("sgemm_async_copy", REP[4], n) < 0.99, "본문: 4 B 변형은 Level 4보다 조금(1–5%) 느리다"
    assert pair(REP[6], REP[5], n) > 1.03, "본문: Level 6은 Level 5보다 빠르다"
assert abs(rep_b[5]["pct_cublas"] - rep_b[4]["pct_cublas"]) < 1, "본문: cuBLAS 대비로도 Level 4와 5는 같다"
assert abs(rep_p[5]["duration_ms"] / rep_p[4]["duration_ms"] - 1) < 0.01, "본문: 프로파일러 아래에서도 같은 시간"
assert rep_p[5]["instructions"] < rep_p[4]["instructions"], "본문: Level 5가 워프 명령을 덜 냈다"
assert ffma_share(rep_p[5]) > ffma_share(rep_p[4]) + 2, "본문: FFMA 비중은 Level 5가 높다"
assert rep_p[5]["issue_active_pct"] < rep_p[4]["issue_active_pct"] - 2, "본문: 발행 활성은 Level 5가 낮다"
assert abs(rep_p[5]["fma_pipe_pct"] - rep_p[4]["fma_pipe_pct"]) < 2, "본문: FMA 파이프는 거의 같다"
assert sh_[5]["Short Scoreboard"] < sh_[4]["Short Scoreboard"], "본문: Short Scoreboard 비중은 줄었다"
assert rep_p[5]["smem_st_instructions"] == 0 == rep_p[6]["smem_st_instructions"], "본문: Level 5–6에는 STS가 없다"
assert 1 < best_gain < 1 + tuning["keep_margin"], "본문: 어느 고리 설정도 Level 4를 조정 여유(2%)보다 크게 앞서지 못했다"
assert chosen in vec and min(vec[chosen].values()) == best_gain, "본문: 배포한 설정이 두 크기 중 나쁜 쪽 기준으로 최선"
assert worst < 0.96, "본문: 가장 나쁜 설정은 Level 4보다 몇 % 느렸다"

# Level 6 and cuBLAS
for n in (2048, N4, 8192):
    assert bench.at(REP[6], n)["pct_cublas"] > 99, "본문: Level 6은 2048–8192에서 cuBLAS와 같은 속도"
assert max(r["pct_cublas"] for lv in MAIN_PATH for n in (N4, 8192) if (r := bench.at(REP[lv], n))) < 96, \
    "본문: Level 0–5 중 어느 것도 4096³·8192³에서 cuBLAS에 이르지 못한다"
assert bench.at(REP[6], 1024)["pct_cublas"] < 50 < bench.at(REP[4], 1024)["pct_cublas"], \
    "본문: 1024³에서 Level 6은 cuBLAS의 절반도 안 되고 Level 4보다 느리다"
assert blocks_1024 < bprov["sm_count"] / 2, "본문: 1024³에서 Level 6의 블록은 SM 수의 절반에도 못 미친다"
assert awk["pct_cublas"] < 50, "본문: 어색한 크기에서도 cuBLAS가 이긴다"
assert ffma_share(rep_p[6]) > ffma_share(cbp) > ffma_share(rep_p[4]), "본문: FFMA 비중 Level 6 > cuBLAS > Level 4"
assert rep_b[6]["pct_cublas"] == max(rep_b[lv]["pct_cublas"] for lv in LEVELS), "본문: 가장 빠른 둘은 Level 6과 cuBLAS"
assert cbp["issue_active_pct"] > rep_p[6]["issue_active_pct"] > rep_p[4]["issue_active_pct"], \
    "본문: 발행 활성 cuBLAS > Level 6 > Level 4"
assert abs(rep_p[6]["fma_pipe_pct"] - cbp["fma_pipe_pct"]) < 2, "본문: Level 6과 cuBLAS의 FMA 파이프는 같다"
assert cbp["fma_pipe_pct"] > rep_p[4]["fma_pipe_pct"] + 4, "본문: cuBLAS의 FMA 파이프가 Level 4보다 높다"
assert rep_p[6]["instructions"] < min(rep_p[4]["instructions"], cbp["instructions"]), "본문: Level 6의 명령이 가장 적다"
for key in (3, 4, 5, 6, "CB"):
    e = prof_of[key]
    assert abs(e["issue_active_pct"] * ffma_share(e) / 100 - e["fma_pipe_pct"]) < 3, \
        f"본문: FMA 파이프 ≈ 발행 활성 × FFMA 비중 ({key})"
assert abs(rep_p[6]["duration_ms"] / cbp["duration_ms"] - 1) < 0.02, "본문: 프로파일러 아래에서 Level 6 ≈ cuBLAS"
assert cbp["ffma_instructions"] == N4 ** 3 + N4 ** 2, "본문: cuBLAS의 FFMA는 곱셈-덧셈 전부와 에필로그(4096³ + 4096²)"
assert cbp["global_ld_requests"] == planned_requests(CB_PLAN), "본문: cuBLAS의 요청 수 = 256×128×8 타일의 4 B 복사 수"
assert cbp["smem_st_instructions"] < 0.01 * cbp["global_ld_requests"], \
    "본문: cuBLAS의 STS는 글로벌 로드 요청의 1%도 안 된다(타일은 STS로 들어가지 않는다)"
assert rep_p[6]["global_ld_requests"] == planned_requests(L6_PLAN), "본문: Level 6의 요청 수 = 복사 계획"
assert rep_p[5]["global_ld_requests"] == planned_requests(L5_PLAN), "본문: cp.async 요청은 global_op_ld에 잡힌다"
assert async4["global_ld_requests"] == planned_requests(L5_4B_PLAN), "본문: 4 B 변형의 요청 수 = 복사 계획"
assert async4["global_ld_sectors"] == rep_p[5]["global_ld_sectors"], "본문: 4 B 변형과 16 B 변형의 섹터 수는 같다"
for key, plan in (("L5", L5_PLAN), ("L6", L6_PLAN), ("CB", CB_PLAN)):
    req, sec = copy_plan(*plan)
    measured = {"L5": rep_p[5], "L6": rep_p[6], "CB": cbp}[key]["sectors_per_request"]
    assert abs(measured - sec / req) < 0.05, f"본문: 요청당 섹터가 복사 계획과 같다 ({key})"
assert abs(async4["sectors_per_request"] - 4) < 0.05, "본문: 4 B 변형은 요청당 4섹터"
_ldgsts_run = next(sup for sup in prof.get("supplements", []) if "ldgsts_access_requests" in sup["keys"])
g("ldgsts_cmd", _ldgsts_run["command"], "s")
g("ldgsts_date", _ldgsts_run["date"][:10], "s")
g("l5_ld_req", rep_p[5]["global_ld_requests"], ",.0f")
g("l5_ca_req", rep_p[5]["ldgsts_access_requests"], ",.0f")
g("l5_cg_req", rep_p[5]["ldgsts_bypass_requests"], ",.0f")
for row in (rep_p[5], rep_p[6], async4, cbp):
    assert row["ldgsts_requests"] == row["global_ld_requests"] and row["ldgsts_sectors"] == row["global_ld_sectors"], \
        "본문: cp.async만 쓰는 커널에서 LDGSTS 요청·섹터 = global_op_ld의 요청·섹터(같은 요청이 두 번 잡힌다)"
assert rep_p[5]["ldgsts_access_requests"] == rep_p[5]["global_ld_requests"] - rep_p[5]["ldgsts_bypass_requests"] > 0 \
    and rep_p[5]["ldgsts_bypass_requests"] > 0, "본문: Level 5의 요청은 .ca(A)와 .cg(B)로 나뉜다"
assert async4["ldgsts_bypass_requests"] == 0 and cbp["ldgsts_bypass_requests"] == 0, \
    "본문: 4 B 복사만 쓰는 4 B 변형과 cuBLAS는 .cg 요청이 없다"
assert rep_p[6]["smem_ld_bank_conflicts"] == 0 == cbp["smem_ld_bank_conflicts"], "본문: Level 6과 cuBLAS는 로드 충돌 0"
assert occ[6].occupancy_pct == occ["CB"].occupancy_pct == 12.5, "본문: Level 6과 cuBLAS는 이론 점유율 12.5%"
assert occ[6].limiting == ("registers", "smem") and occ["CB"].limiting == ("registers",), \
    "본문: Level 6은 레지스터와 공유 메모리, cuBLAS는 레지스터가 제한"
assert all(occ[k].occupancy_pct == prof_of[k]["theoretical_occupancy_pct"] for k in KEYS), \
    "본문: 점유율 모델이 ncu의 이론값과 같다"
assert cub["min_ms"] < rep_b[6]["median_ms"] < cub["max_ms"], "본문: Level 6의 시간은 cuBLAS 중앙값들의 범위 안"
assert rep_b[6]["gflops"] > cub["gflops"], "본문: Level 6의 점은 cuBLAS 중앙값 선보다 위"

assert rep_p[4]["issue_active_pct"] < 88 < cbp["issue_active_pct"], "본문: cuBLAS의 발행 활성(약 90%)이 Level 4보다 높다"
# Measured % of cuBLAS against the source's claimed ranges: above, inside, below
seed_side = {lv: ("위" if rep_b[lv]["pct_cublas"] > hi else "아래" if rep_b[lv]["pct_cublas"] < lo else "안")
             for lv, (lo, hi) in SEED_RANGE.items()}
assert [seed_side[lv] for lv in (0, 1, 2, 4, 5)] == ["위", "위", "아래", "위", "안"], \
    "본문: 나이브·L1은 주장보다 높고, L2는 낮고, L4는 높고, L5는 범위 안"
assert rep_b[2]["pct_cublas"] < rep_b[1]["pct_cublas"], "본문: Level 2는 Level 1보다도 낮다"
g("seed_l5_lo", SEED_RANGE[5][0], "d")
g("seed_l5_hi", SEED_RANGE[5][1], "d")
g("seed_l4_hi", SEED_RANGE[4][1], "d")
assert all(FLOPS / prof_of[k]["dram_bytes"] > 3 * RIDGE for k in (3, 4, 5, 6, "CB")), \
    "본문: Level 3–6과 cuBLAS는 꺾임점 한참 오른쪽"
assert [sim_profiles.classify_sol(rep_p[lv]["sm_pct"], rep_p[lv]["mem_pct"]) for lv in (0, 2, 4)] == ["balanced"] * 3, \
    "본문: Level 0, 2, 4는 60% 기준으로 균형 사분면"
assert prof["ncu_options"] == "--clock-control none --launch-skip 1 --launch-count 1", "본문이 옵션을 그대로 적는다"
assert abs(rep_p[3]["duration_ms"] / rep_b[3]["median_ms"] - 1) < 0.1, "본문: 프로파일 시간 ≈ 벤치마크 시간"
assert rep_p[6]["dram_bytes"] < rep_p[4]["dram_bytes"], "본문: Level 6의 DRAM 바이트가 더 적다"

# SASS (sm_90, compiled on the CPU)
s3 = sass.summarize(REP[3], "sm_90")
s4 = sass.summarize(REP[4], "sm_90")
s5 = sass.summarize(REP[5], "sm_90")
s6 = sass.summarize(REP[6], "sm_90")
g("L3_sass_ffma", s3.ffma, "d")
g("L3_sass_ldg_c", s3.counts.get("LDG.E.128", 0), "d")
g("L4_sass_ffma", s4.ffma, "d")
g("L5_sass_ffma", s5.ffma, "d")
g("L6_sass_ffma", s6.ffma, "d")
g("L5_bk", registry.LEVEL5["BK"], "d")
g("L6_bk", registry.LEVEL6["BK"], "d")
g("L6_tile_ffma", registry.LEVEL6["TM"] * registry.LEVEL6["TN"], "d")
g("L6_stages", registry.LEVEL6["STAGES"], "d")
g("L6_warp_tile", f"{registry.LEVEL6['WM']}×{registry.LEVEL6['WN']}", "s")
g("L6_lds_per_k", registry.LEVEL6["TM"] // 4 + registry.LEVEL6["TN"] // 4, "d")
l4_bk = registry.KERNELS[REP[4]].static_smem // (2 * (128 + 128) * 4)     # two buffers of BK × (BM + BN) floats
g("bk_ratio_54", registry.LEVEL5["BK"] // l4_bk, "d")
assert l4_bk == 8 and registry.LEVEL5["BK"] % l4_bk == 0, "본문: Level 4의 BK는 8, Level 5는 그 배수"
g("cb_nwarps", int(cbp["block_size"]) // 32, "d")
assert int(cbp["block_size"]) // 32 == int(warps.group(1)) * int(warps.group(2)), "본문: cuBLAS의 워프 배치 = 블록의 워프 수"
assert cb_tile[0] // int(warps.group(1)) == registry.LEVEL6["WM"] and cb_tile[1] // int(warps.group(2)) == registry.LEVEL6["WN"], \
    "본문: cuBLAS와 Level 6의 워프 타일은 같다"
# Level 4 → cuBLAS raises issue-active much more than FFMA share; Level 4 → Level 6 the reverse
d_cb = (cbp["issue_active_pct"] - rep_p[4]["issue_active_pct"], ffma_share(cbp) - ffma_share(rep_p[4]))
d_l6 = (rep_p[6]["issue_active_pct"] - rep_p[4]["issue_active_pct"], ffma_share(rep_p[6]) - ffma_share(rep_p[4]))
assert d_cb[0] > 2 * d_cb[1] > 0 and d_l6[1] > 2 * d_l6[0] > 0, "본문: cuBLAS는 주로 발행 활성, Level 6은 주로 FFMA 비중"
assert ffma_share(rep_p[6]) == max(ffma_share(prof_of[k]) for k in (4, 5, 6, "CB")), "본문: Level 6의 FFMA 비중이 표에서 가장 높다"
assert registry.LEVEL6["TM"] * registry.LEVEL6["TN"] == 2 * 64, "본문: Level 6의 누산기는 Level 3–5(64개)의 두 배"
_l5_src = (Path(registry.__file__).parent / registry.KERNELS[REP[5]].file).read_text(encoding="utf-8")
_l5_min_blocks = re.search(r"#define L5_MIN_BLOCKS (\d+)", _l5_src)
assert registry.LEVEL6["MIN_BLOCKS"] == 1 and _l5_min_blocks and _l5_min_blocks.group(1) == "2", \
    "본문: __launch_bounds__(256, 1)과 (256, 2)"
assert all(3 < wpi(e, "ld") < 3.5 for e in (rep_p[6], cbp)), "본문: Level 6과 cuBLAS는 명령당 세 개 남짓"
assert s3.ffma == 512 + 64 and s4.ffma == 2 * 512 + 64, "본문의 FFMA 내역 (Level 3–4)"
assert s5.ffma == registry.LEVEL5["BK"] * 64 + 64, "본문의 FFMA 내역 (Level 5: BK × 64 + 에필로그 64)"
assert s6.ffma == registry.LEVEL6["BK"] * registry.LEVEL6["TM"] * registry.LEVEL6["TN"] \
    + registry.LEVEL6["TM"] * registry.LEVEL6["TN"], "본문의 FFMA 내역 (Level 6)"
assert s5.counts.get("LDGSTS.E", 0) > 0 and s5.counts.get("LDGSTS.E.BYPASS.128", 0) > 0 \
    and not any(op.startswith("STS") for op in s5.counts), "본문: Level 5는 4 B와 16 B LDGSTS, STS 없음"
assert all(s.spills == 0 for s in (s3, s4, s5, s6)), "본문: 스필 없음"

# ---------------------------------------------------------------------------------------------------------
# Level 4 → 5 in instructions: the FMA pipe is issue-active × FFMA share; the stall total (Selected 1 +
# Not Selected + active stalls) grew through Not Selected while the active stalls fell
def active_raw(e):
    """Cycles per instruction a warp spent in an active stall (every state but Selected and Not Selected)."""
    return sum(v or 0 for k, v in e["stalls"].items() if k not in PASSIVE)


def ready_warps(e):
    """Mean eligible warps per cycle: in an issue cycle the selected warp plus the Not Selected ones, else none."""
    return e["issue_active_pct"] / 100 * (1 + e["stalls"]["Not Selected"])


for lv in (4, 5):
    e = rep_p[lv]
    g(f"L{lv}_active_raw", active_raw(e), ".2f")
    g(f"L{lv}_ready", ready_warps(e), ".2f")
    g(f"L{lv}_idle_pct", 100 - e["issue_active_pct"], ".1f")
p4_, p5_ = rep_p[4], rep_p[5]
est4, est5 = (e["issue_active_pct"] * ffma_share(e) / 100 for e in (p4_, p5_))
assert abs(est5 - est4) < 2, "본문: 발행 활성 × FFMA 비중은 Level 4와 5에서 거의 같다"
assert active_raw(p5_) < active_raw(p4_), "본문: 능동 스톨의 합은 Level 5가 오히려 적다"
_rises = sum(max(0.0, (p5_["stalls"].get(k) or 0) - (p4_["stalls"].get(k) or 0))
             for k in p5_["stalls"] if k not in PASSIVE)
assert p4_["stalls"]["Short Scoreboard"] - p5_["stalls"]["Short Scoreboard"] > _rises > 0, \
    "본문: Short Scoreboard가 줄어든 몫이 MIO Throttle 같은 몇 항목이 늘어난 몫보다 크다"
assert p5_["stalls"]["MIO Throttle"] > p4_["stalls"]["MIO Throttle"], "본문: MIO Throttle은 늘었다"
assert tot[5] > tot[4] and p5_["stalls"]["Not Selected"] - p4_["stalls"]["Not Selected"] > tot[5] - tot[4], \
    "본문: 합계를 늘린 것은 Not Selected"
assert ready_warps(p5_) > ready_warps(p4_) and p5_["issue_active_pct"] < p4_["issue_active_pct"], \
    "본문: 사이클당 준비된 워프의 평균은 늘었는데 준비된 워프가 없는 사이클도 늘었다"
assert abs(p5_["achieved_occupancy_pct"] / p4_["achieved_occupancy_pct"] - 1) < 0.01, \
    "본문(전제): 두 커널의 스케줄러당 워프 수가 같아야 합계의 변화가 발행 활성의 변화다"

# ---------------------------------------------------------------------------------------------------------
# Long Scoreboard of a cp.async kernel: wait_group compiles to DEPBAR.LE SB0, N, a wait on the scoreboard the
# LDGSTS raise (an L1TEX dependency), so its wait is counted as Long Scoreboard (the text says so, no number)
_dep5 = sass.excerpt(REP[5], "sm_90", pattern=r"LDGDEPBAR|DEPBAR", limit=8).splitlines()
assert any(x.startswith("LDGDEPBAR") for x in _dep5) and any(x.startswith("DEPBAR.LE SB0, 0x0") for x in _dep5), \
    "본문: 커밋은 LDGDEPBAR, 대기는 스코어보드 SB0을 기다리는 DEPBAR.LE"

# SASS table sentences (Levels 0-2 and 6)
_s = {lv: sass.summarize(REP[lv], "sm_90") for lv in LEVELS}
assert _s[0].counts.get("LDG.E.CONSTANT", 0) > _s[0].counts.get("LDG.E", 0) > 0 and _s[0].ldg_128 == 0, \
    "본문: Level 0은 32비트 LDG.E, 대부분 .CONSTANT"
assert _s[1].ldg_128 > 0 and _s[1].ldg_32 == 0, "본문: Level 1은 float4의 LDG.E.128"
assert _s[2].sts_widths and _s[2].lds_widths.get("128", 0) > 0 and \
    any(op.startswith("BAR") for op in _s[2].counts), "본문: Level 2는 LDG → STS → BAR → LDS, As[ty][k]는 LDS.128로"
assert _s[6].counts.get("LDGSTS.E", 0) > 0 and _s[6].counts.get("LDGSTS.E.BYPASS.128", 0) > 0 \
    and not _s[6].sts_widths, "본문: Level 6도 같은 두 가지 LDGSTS, 타일용 STS 없음"
assert all(s.spills == 0 for s in _s.values()), "본문: 어느 레벨에도 LDL/STL이 없다"
assert s3.counts.get("LDG.E.128", 0) == 2 * 8, "본문: .CONSTANT 없는 LDG.E.128은 C를 읽는 에필로그(8행 × 2)"


# ---------------------------------------------------------------------------------------------------------
# Shared-load instructions: Nsight Compute (smsp__inst_executed_op_shared_ld) against the SASS. The compiler
# puts never-true `@!PT LDS RZ, [RZ]` before each tile's copies; kernels/sass.py drops them, Nsight counts them.
def dummy_lds(kernel):
    text = sass.disassemble(registry.get(kernel).file, "sm_90")[kernel]
    return sum(1 for ln in text.splitlines() if re.search(r"@!PT\s+LDS\b", ln))


def copy_sites(summary, plan):
    per_tile = copy_plan(*plan)[0] // (256 // 32)          # copies of one tile per thread (256 threads)
    assert summary.ldgsts % per_tile == 0
    return summary.ldgsts // per_tile


_dps = {lv: dummy_lds(REP[lv]) / copy_sites(_s[lv], plan) for lv, plan in ((5, L5_PLAN), (6, L6_PLAN))}
assert _dps[5] == _dps[6] and float(_dps[5]).is_integer(), "본문: 복사 묶음마다 같은 수의 @!PT LDS"
DUMMY_PER_SITE = int(_dps[5])
assert dummy_lds(REP[4]) == dummy_lds(REP[3]) == 0, "본문: Level 3·4에는 그런 명령이 없다"
l6 = registry.LEVEL6
_lds_step = {5: 4, 6: l6["TM"] // 4 + l6["TN"] // 4}
assert _s[5].lds_widths == {"128": registry.LEVEL5["BK"] * _lds_step[5]} and \
    _s[6].lds_widths == {"128": (l6["BK"] + 1) * _lds_step[6]}, "LDS.128: Level 5는 한 타일, Level 6은 한 타일 + 루프 앞 한 단계"
_real = {5: N4 * _lds_step[5], 6: N4 * _lds_step[6] + _lds_step[6]}      # per warp, 4096³
_tiles = {5: N4 // registry.LEVEL5["BK"], 6: N4 // l6["BK"]}
for lv in (5, 6):
    e = rep_p[lv]
    warps = int(e["grid_size"] * e["block_size"]) // 32
    assert e["smem_ld_instructions"] == warps * (_real[lv] + DUMMY_PER_SITE * _tiles[lv]), \
        f"본문: Nsight의 공유 로드 명령 = 워프 × (LDS.128 + 타일마다 @!PT LDS) (Level {lv})"
    g(f"L{lv}_ld_wpi_real", e["smem_ld_wavefronts"] / (warps * _real[lv]), ".2f")
g("dummy_per_site", DUMMY_PER_SITE, "d")
g("L5_lds_real", f"{_real[5]:,}", "s")
g("L5_lds_dummy", DUMMY_PER_SITE * _tiles[5], "d")
g("n_tiles_l5", _tiles[5], "d")
_warps5 = int(rep_p[5]["grid_size"] * rep_p[5]["block_size"]) // 32
assert abs(rep_p[5]["smem_ld_wavefronts"] / (_warps5 * _real[5]) - wpi(rep_p[4], "ld")) < 0.01, \
    "본문: 실제 LDS.128로 나누면 Level 5의 명령당 웨이브프론트는 Level 3·4와 같다"
assert abs(wpi(rep_p[3], "ld") - wpi(rep_p[4], "ld")) < 0.01
assert wpi(rep_p[5], "ld") < wpi(rep_p[4], "ld") - 0.03, "본문: Nsight의 수로 나누면 Level 5의 값이 조금 작다"

# ---------------------------------------------------------------------------------------------------------
# The ridge point: one figure everywhere, peak FP32 (device properties) ÷ measured copy bandwidth, both from
# the record's provenance; the chapter prints f.ridge, the figure uses the same roof, and the banks of modules
# 4, 6 and 10 quote it (checked below against this record).
roof = sim_roofline.recorded_device_roof(bprov)
assert abs(roof.ridge_ai - RIDGE) < 1e-9 and roof.peak_gflops == PEAK and roof.bandwidth_gbs == BW, \
    "본문: 그림의 꺾임점이 본문의 꺾임점(기록된 최대 ÷ 측정 대역폭)과 같다"
assert f"{sim_roofline.A100_REFERENCE.ridge_ai:.1f}" == "9.6" == f"{19500 / 2039:.1f}" and \
    (sim_roofline.A100_REFERENCE.peak_gflops, sim_roofline.A100_REFERENCE.bandwidth_gbs) == (19500.0, 2039.0), \
    "본문: 원 자료의 A100 수치 19.5 TFLOP/s, 2,039 GB/s, 꺾임점 ≈ 9.6"

# ============================================================================ the quiz's words (banks 4, 6, 10)
from course.facts import quiz_text as bank_text   # noqa: E402  (banks are data; their quoted numbers are checked here)


def num(text):
    return float(text.replace(",", ""))


RIDGE_QUESTIONS = (("m04-q08", 4), ("m06-q08", 6), ("m10-q03", 10))
H100_RIDGE = re.compile(r"([\d,]+) GFLOP/s ÷ (?:측정한 복사 대역폭 )?([\d,]+) GB/s(?:\(측정한 복사 대역폭\))? ≈ ([\d.]+)")
QUOTIENT = re.compile(r"([\d,]+(?:\.\d+)?)(?: GFLOP/s)? ÷ ([\d,]+(?:\.\d+)?)(?: GB/s)? ≈ ([\d.]+)")
for qid, module in RIDGE_QUESTIONS:
    text = bank_text(module, qid)
    h100 = [m for m in H100_RIDGE.findall(text) if num(m[0]) != 19500]
    assert h100, f"퀴즈 {qid}: 기록된 H100의 꺾임점을 적는다"
    for peak, bw, ridge in h100:
        assert (peak, bw, ridge) == (f"{PEAK:,.0f}", f"{BW:,.0f}", f"{RIDGE:.1f}"), \
            f"퀴즈 {qid}: H100 꺾임점 {peak} ÷ {bw} ≈ {ridge}는 기록의 {PEAK:,.0f} ÷ {BW:,.0f} ≈ {RIDGE:.1f}와 같아야 한다"
    for a, b, q in QUOTIENT.findall(text):          # every "x ÷ y ≈ z" in the question is right as arithmetic
        digits = len(q.split(".")[1]) if "." in q else 0
        assert f"{num(a) / num(b):.{digits}f}" == q, f"퀴즈 {qid}: {a} ÷ {b} ≈ {q}"
    assert "22.5" not in text and "3.35 TB/s" not in text and "≈ 20 FLOP/B" not in text, \
        f"퀴즈 {qid}: 예전의 꺾임점(22.5, 데이터시트 20)이 남아 있다"
for qid, module in (("m06-q08", 6), ("m10-q03", 10)):
    text = bank_text(module, qid)
    assert "A100 40 GB(1,555 GB/s)" in text, f"퀴즈 {qid}: 약 100은 A100 40 GB의 TF32 꺾임점이라고 밝힌다"
assert f"{156000 / 1555:.0f}" == "100" and f"{156000 / 2039:.0f}" == "77", "퀴즈: TF32 꺾임점 100(40 GB)과 77(80 GB)"
assert "≈ 77" in bank_text(10, "m10-q03") and "약 77" in bank_text(6, "m06-q08"), "퀴즈: 80 GB의 TF32 꺾임점 약 77"

# Other recorded numbers the bank of module 10 quotes
_t10 = {qid: bank_text(10, qid) for qid in ("m10-q04", "m10-q07", "m10-q08")}
assert f"약 {PEAK / 1000:.1f} TFLOP/s인 H100" in _t10["m10-q04"], "퀴즈 m10-q04: H100의 FP32 최대 약 66.9 TFLOP/s"
_tiled = P["sgemm_tiled"]
assert f"레지스터 {_tiled['registers']:.0f}개로 이론 점유율이 {_tiled['theoretical_occupancy_pct']:.0f}%인 타일링" \
    in _t10["m10-q07"] and rep_p[3]["theoretical_occupancy_pct"] == 25.0, \
    "퀴즈 m10-q07: 타일링 커널은 레지스터 31개, 점유율 100%, 레지스터 블로킹은 25%"
assert rep_p[3]["duration_ms"] * 3 < _tiled["duration_ms"], "퀴즈 m10-q07: 레지스터 블로킹이 타일링보다 훨씬 빠르다"
assert 90 < rep_b[4]["pct_cublas"] < 95 and 99 < rep_b[6]["pct_cublas"] < 101, \
    "퀴즈 m10-q08: Level 4는 cuBLAS의 90%를 조금 넘고, Level 6은 같은 속도"
assert 88 < cbp["issue_active_pct"] < 92 and rep_p[4]["dram_pct"] < 10, \
    "퀴즈 m10-q08: cuBLAS의 발행 활성 약 90%, Level 4의 DRAM 처리량 한 자리 %"
assert min(rep_p[6]["registers"], cbp["registers"]) > 200 and \
    rep_p[6]["theoretical_occupancy_pct"] == cbp["theoretical_occupancy_pct"] == 12.5, \
    "퀴즈 m10-q08: Level 6과 cuBLAS는 레지스터 200개 초과, 이론 점유율 12.5%"
assert FLOPS / (3.2e-3) / 1e9 > 2 * 19500 and f"{FLOPS / 8.0e-3 / 1e9:,.0f}" == "17,180", \
    "퀴즈 m10-q04: 8.0 ms → 17,180 GFLOP/s, 3.2 ms는 A100 최대의 두 배 넘음"


# Barrier wait per barrier: the stall per instruction × instructions per warp ÷ barriers per warp (one per K
# tile, plus Level 4's prologue barrier; both read from the SASS counts: BAR sites)
def barriers_per_warp(lv, bk):
    bar_sites = sum(n for op, n in _s[lv].counts.items() if op.startswith("BAR"))
    return N4 // bk + (bar_sites - 1)          # the loop's barrier once per tile, any other site once


def barrier_wait(lv, bk):
    e = rep_p[lv]
    warps = int(e["grid_size"] * e["block_size"]) // 32
    return e["stalls"]["Barrier"] * (e["instructions"] / warps) / barriers_per_warp(lv, bk)


assert sum(n for op, n in _s[4].counts.items() if op.startswith("BAR")) == 2 and \
    sum(n for op, n in _s[5].counts.items() if op.startswith("BAR")) == 1, "Level 4: 프롤로그와 루프, Level 5: 루프의 배리어"
_bar_ratio = barrier_wait(5, registry.LEVEL5["BK"]) / barrier_wait(4, l4_bk)
g("bar_wait_ratio", _bar_ratio, ".1f")
assert abs(barriers_per_warp(5, registry.LEVEL5["BK"]) / barriers_per_warp(4, l4_bk) - 0.25) < 0.01, \
    "본문: Level 5의 배리어는 Level 4의 4분의 1"
assert abs(rep_p[5]["stalls"]["Barrier"] - rep_p[4]["stalls"]["Barrier"]) < 0.05 and _bar_ratio > 3, \
    "본문: Barrier 스톨은 같고, 배리어 한 번의 기다림은 몇 배 길다"

# ---------------------------------------------------------------------------------------------------------
# Further sentences of the text, checked on the records
assert abs(rep_p[2]["l1_lsu_wavefronts_pct"] - rep_p[2]["mem_pct"]) < 1 and abs(rep_p[2]["lsu_issue_pct"] - rep_p[2]["sm_pct"]) < 2, \
    "본문: Level 2도 같은 모양(메모리 % = L1 데이터 파이프, SM % = LSU 명령 파이프)"
assert rep_p[3]["lsu_issue_pct"] < rep_p[2]["lsu_issue_pct"] and rep_p[3]["fma_pipe_pct"] > 2 * rep_p[2]["fma_pipe_pct"], \
    "본문: Level 3에서 LSU 명령 파이프는 내려가고 FMA 파이프가 올라온다"
assert sim_profiles.classify_sol(rep_p[5]["sm_pct"], rep_p[5]["mem_pct"]) == "balanced", "본문: Level 5도 균형 사분면"
assert all(prof_of[k]["fma_pipe_pct"] > max(prof_of[k]["l1_lsu_wavefronts_pct"], prof_of[k]["lsu_issue_pct"]) for k in (6, "CB")) \
    and min(prof_of[6]["fma_pipe_pct"], cbp["fma_pipe_pct"]) > max(prof_of[k]["fma_pipe_pct"] for k in LEVELS if k != 6), \
    "본문: Level 6과 cuBLAS에서는 FMA 파이프가 가장 높다"
assert sh_[1]["Long Scoreboard"] > 90 and not rep_p[1]["stalls"]["LG Throttle"], "본문: Level 1은 Long Scoreboard가 거의 전부, LG Throttle 사라짐"
assert all(not rep_p[1]["stalls"][k] and rep_p[2]["stalls"][k] > 0.5 for k in ("MIO Throttle", "Barrier", "Short Scoreboard")), \
    "본문: Level 2에서 MIO Throttle, Barrier, Short Scoreboard가 새로 나타난다"
assert sim_profiles.classify_sol(rep_p[1]["sm_pct"], rep_p[1]["mem_pct"]) == "memory", "본문: Level 1은 메모리 한계 사분면"
assert top_active(3, 3) == ["Short Scoreboard", "Long Scoreboard", "Barrier"], \
    "본문: Level 3에서 눈에 띄는 능동 스톨은 Short Scoreboard, Long Scoreboard, Barrier"


def _to_latency(e):
    """How far a kernel's SOL point is from the latency quadrant (both below the 60% line)."""
    return max(0.0, e["sm_pct"] - 60) + max(0.0, e["mem_pct"] - 60)


assert all(sim_profiles.classify_sol(prof_of[k]["sm_pct"], prof_of[k]["mem_pct"]) != "latency" for k in KEYS), \
    "본문: 4096³의 대표 커널 가운데 지연 시간 한계 구석에 든 것은 없다"
assert sorted(KEYS, key=lambda k: _to_latency(prof_of[k]))[:2] == [3, 1] and rep_p[3]["issue_active_pct"] > 50, \
    "본문: 경계에 가장 가까운 것은 Level 3, 그다음이 Level 1; Level 3은 발행 활성이 높다"
# Roofline checks on the H100 numbers
assert sim_roofline.level_ai(3, "ii") * BW > PEAK, "본문: 모델 (ii)에서 Level 3–5의 DRAM 경사면도 FP32 지붕보다 높다"
assert rep_b[0]["gflops"] > sim_roofline.level_ai(0, "ii") * BW, "본문: 모델 (i)·(ii)로 바꾸면 경사면 위에 놓이는 점이 있다"
assert all((rep_b[k] if k != "CB" else cub)["gflops"] <= sim_roofline.attainable_gflops(
    sim_roofline.ai_measured_dram(N4, N4, N4, prof_of[k]["dram_bytes"]), roof) for k in KEYS), \
    "본문: 모델 (iii)에서 지붕 위에 놓이는 점은 하나도 없다"
# The quiz arithmetic beside the formulas (A100 figures are the source's; the H100's are the record's)
assert f"{FLOPS / 3.2e-3 / 1e9:,.0f}" == "42,950" and f"{FLOPS / 3.2e-3 / 19.5e12:.1f}" == "2.2" and \
    f"{FLOPS / 19.5e12 * 1e3:.2f}" == "7.05" and f"{108 * 64 * 1.5 * 2 / 1000:.1f}" == "20.7", \
    "본문: 42,950 GFLOP/s, A100 최대의 2.2배, 최소 7.05 ms, 108 × 64 × 1.5 × 2 ≈ 20.7"
