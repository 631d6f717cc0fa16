"""Facts of module 10 (m10_profiling.md): the recorded benchmark, Nsight Compute and tuning numbers its
text quotes, the measured roofline ceilings, and the SASS counts of Levels 0-5."""
from __future__ import annotations

import json
from collections import defaultdict

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

bench = recorded()                       # book/data/benchmarks.json
bprov = bench.provenance
prof = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
P = {k["kernel"]: k for k in prof["kernels"]}
tuning = json.loads((DATA_DIR / "async_tuning.json").read_text(encoding="utf-8"))

rep_p = {lv: P[REP[lv]] for lv in LEVELS}
rep_b = {lv: bench.at(REP[lv], N4) for lv in LEVELS}
cub = bench.at("cublas", N4)
async4 = P["sgemm_async_copy"]

PEAK = bprov["peak_gflops"]
BW = bprov["bandwidth_gbs"]
RIDGE = PEAK / BW

MAIN_STALLS = ["Long Scoreboard", "LG Throttle", "Barrier", "MIO Throttle", "Short Scoreboard", "Wait",
               "Math Pipe Throttle", "Dispatch Stall", "Not Selected", "Selected"]
STALL_KEYS = {"Long Scoreboard": "ls", "LG Throttle": "lg", "Barrier": "bar", "MIO Throttle": "mio",
              "Short Scoreboard": "ssb", "Wait": "wait", "Math Pipe Throttle": "math",
              "Dispatch Stall": "disp", "Not Selected": "ns", "Selected": "sel"}


def g(name, value, fmt=""):
    """One value for the text (myst-nb glue, output hidden)."""
    f[name] = format(value, fmt)


def shares(stalls):
    """Stall values (mean warps per issue cycle) as shares (%) of their total. Returns (shares, total)."""
    total = sum(v for v in stalls.values() if v)
    return {k: 100 * v / total for k, v in stalls.items() if v}, total


def ai_fmt(x):
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}" if x >= 1 else f"{x:.2f}"


def speed_phrase(old_ms, new_ms):
    """Old time → new time as one Korean phrase (the data decides the direction)."""
    r = old_ms / new_ms
    if r >= 1.03:
        return f"{r:.2f}배 빨라졌습니다"
    if r <= 1 / 1.03:
        return f"{1 / r:.2f}배 느려졌습니다"
    return f"거의 같은 속도였습니다(차이 {abs(r - 1) * 100:.1f}%)"

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

# The seed benchmark runner's formula (SMs × 64 lanes × 1.5 GHz × 2) applied to the recorded device
seed_peak = bprov["sm_count"] * 64 * 1.5 * 2                       # GFLOP/s
g("seed_peak_tflops", seed_peak / 1000, ".1f")
g("cublas_vs_seed_peak", 100 * cub["gflops"] / seed_peak, ".0f")

# cuBLAS (measured in the same run, TF32 off)
g("cublas_ms", cub["median_ms"], ".2f")
g("cublas_gflops", cub["gflops"], ",.0f")
g("cublas_tflops", cub["gflops"] / 1000, ".1f")
g("cublas_pct_peak", cub["pct_peak"], ".0f")

# Arithmetic beside the quiz (C1): 4096³ in 3.2 ms
gf_32 = FLOPS / (3.2 * 1e6)
g("c1_pct_peak", 100 * gf_32 / PEAK, ".0f")
g("c1_pct_cublas", 100 * cub["median_ms"] / 3.2, ".0f")

# Per level
for lv in LEVELS:
    e, b = rep_p[lv], rep_b[lv]
    sh, tot = shares(e["stalls"])
    for key, fmt in [("sm_pct", ".0f"), ("mem_pct", ".0f"), ("dram_pct", ".0f"), ("issue_active_pct", ".0f"),
                     ("achieved_occupancy_pct", ".0f"), ("theoretical_occupancy_pct", ".0f"),
                     ("registers", ".0f"), ("smem_static", ",.0f"), ("duration_ms", ".2f"),
                     ("l1_lsu_wavefronts_pct", ".0f"), ("lsu_issue_pct", ".0f"), ("fma_pipe_pct", ".0f")]:
        g(f"L{lv}_{key}", e[key], fmt)
    g(f"L{lv}_spr", e["sectors_per_request"], ".1f")
    g(f"L{lv}_ms", b["median_ms"], ".2f")
    g(f"L{lv}_gflops", b["gflops"], ",.0f")
    g(f"L{lv}_tflops", b["gflops"] / 1000, ".1f")
    g(f"L{lv}_pctc", b["pct_cublas"], ".0f")
    g(f"L{lv}_pctp", b["pct_peak"], ".0f")
    g(f"L{lv}_instr", e["instructions"] / 1e9, ".2f")
    g(f"L{lv}_ffma_share", 100 * e["ffma_instructions"] / 32 / e["instructions"], ".0f")
    g(f"L{lv}_stall_total", tot, ".1f")
    for name, key in STALL_KEYS.items():
        g(f"L{lv}_{key}", sh.get(name, 0.0), ".0f")
        g(f"L{lv}_{key}_raw", e["stalls"].get(name) or 0.0, ".2f")
    g(f"L{lv}_dram_ai", ai_fmt(FLOPS / e["dram_bytes"]), "s")
    g(f"L{lv}_dram_gb", e["dram_bytes"] / 1e9, ".2f")

# DRAM roofs of the naive and tiled kernels (arithmetic intensity from measured DRAM bytes × measured bandwidth)
for lv in (0, 2):
    g(f"L{lv}_dram_roof_tflops", min(PEAK, FLOPS / rep_p[lv]["dram_bytes"] * BW) / 1000, ".1f")
g("L5_roof_ii_tflops", min(PEAK, 32 * BW) / 1000, ".1f")
g("L3_roof_ii_raw_tflops", 32 * BW / 1000, ".1f")

# Change in instruction counts
g("instr_ratio_01", rep_p[0]["instructions"] / rep_p[1]["instructions"], ".1f")
g("instr_ratio_23", rep_p[2]["instructions"] / rep_p[3]["instructions"], ".1f")

# Step-by-step change in time under the profiler (same run: profiles.json)
for a, b_ in [(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (4, 5)]:
    g(f"t{a}{b_}", speed_phrase(rep_p[a]["duration_ms"], rep_p[b_]["duration_ms"]), "s")
g("t23_x", rep_p[2]["duration_ms"] / rep_p[3]["duration_ms"], ".1f")

# Level 5's 4-byte variant
sh4, tot4 = shares(async4["stalls"])
g("a4_ms", async4["duration_ms"], ".2f")
g("a4_spr", async4["sectors_per_request"], ".0f")
g("a4_req_ratio", async4["global_ld_requests"] / rep_p[5]["global_ld_requests"], ".0f")
g("a4_sec_ratio", async4["global_ld_sectors"] / rep_p[5]["global_ld_sectors"], ".0f")
g("a4_ssb", sh4.get("Short Scoreboard", 0), ".0f")
g("a4_mem", async4["mem_pct"], ".0f")
g("a4_regs", async4["registers"], ".0f")
g("t5_4b", speed_phrase(async4["duration_ms"], rep_p[5]["duration_ms"]), "s")

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

# Registers and occupancy
occ = {lv: sim_roofline.occupancy(registry.KERNELS[REP[lv]].threads, int(rep_p[lv]["registers"]),
                                  int(rep_p[lv]["smem_static"]), "sm_90") for lv in LEVELS}
g("L4_regs_raw", int(rep_p[4]["registers"]) * 32, ",d")
g("L4_regs_per_warp", occ[4].registers_per_warp, ",d")
g("L4_warps_fit", 65536 // occ[4].registers_per_warp, "d")
g("L4_blocks", occ[4].blocks_per_sm, "d")
g("L1_regs_per_warp", occ[1].registers_per_warp, ",d")
g("L1_blocks", occ[1].blocks_per_sm, "d")
g("speed_23", rep_b[2]["median_ms"] / rep_b[3]["median_ms"], ".1f")
g("dram_ratio_21", rep_p[2]["dram_bytes"] / rep_p[1]["dram_bytes"], ".0f")

# Level 5 tuning (async_tuning.json, 4096³ only, mean over repeated measurements)
tun = defaultdict(list)
for r in tuning["rows"]:
    if r["M"] == r["N"] == r["K"] == N4:
        tun[(r["kernel"], r["BK"], r["STAGES"])].append(r)
tun_ms = {k: sum(r["median_ms"] for r in v) / len(v) for k, v in tun.items()}
tun_pct = {k: sum(r["pct_cublas"] for r in v) / len(v) for k, v in tun.items()}
vec = {k: v for k, v in tun_ms.items() if k[0] == "sgemm_async_copy_vec"}
best = min(vec, key=vec.get)
default = ("sgemm_async_copy_vec", 8, 3)
g("tun_date", str(tuning["date"])[:10], "s")
g("tun_best", f"BK = {best[1]}, {best[2]}단", "s")
g("tun_best_ms", vec[best], ".2f")
g("tun_best_pct", tun_pct[best], ".0f")
g("tun_default_ms", vec[default], ".2f")
g("tun_default_pct", tun_pct[default], ".0f")
g("tun_gain", 100 * (vec[default] / vec[best] - 1), ".0f")
assert best != default, "본문은 기본값(3단)이 최선이 아니라고 말한다: 데이터가 바뀌었으면 본문을 고칠 것"

for lv in LEVELS:
    g(f"L{lv}_instr_eok", rep_p[lv]["instructions"] / 1e8, ",.0f")
    g(f"L{lv}_ldsinst_eok", rep_p[lv]["smem_ld_instructions"] / 1e8, ".2f")
tot = {lv: shares(rep_p[lv]["stalls"])[1] for lv in LEVELS}
g("stall_ratio_34", tot[3] / tot[4], ".2f")
g("t34_x", rep_p[3]["duration_ms"] / rep_p[4]["duration_ms"], ".2f")
pct_rb = [rep_b[lv]["pct_cublas"] for lv in (3, 4, 5)]
g("pctc_min", min(pct_rb), ".0f")
g("pctc_max", max(pct_rb), ".0f")

# Comparisons whose direction the text states (so the build stops if the data changes)
assert rep_p[2]["duration_ms"] > 1.03 * rep_p[1]["duration_ms"], "본문: Level 2가 Level 1보다 느리다"
assert rep_b[2]["median_ms"] > 1.03 * rep_b[1]["median_ms"], "본문: Level 2가 Level 1보다 느리다"
assert rep_p[3]["duration_ms"] * 3 < rep_p[2]["duration_ms"], "본문: Level 3은 Level 2보다 몇 배 빠르다"
sh_ = {lv: shares(rep_p[lv]["stalls"])[0] for lv in LEVELS}
assert abs(rep_p[0]["l1_lsu_wavefronts_pct"] - rep_p[0]["mem_pct"]) < 1, "본문: 나이브의 메모리 %는 L1 LSU 데이터 파이프"
assert abs(rep_p[0]["lsu_issue_pct"] - rep_p[0]["sm_pct"]) < 2, "본문: 나이브의 SM %는 LSU 명령 파이프"
assert all(rep_p[lv]["sm_pct"] > rep_p[lv]["mem_pct"] for lv in (3, 4, 5)), "본문: Level 3–5는 SM %가 메모리 %를 앞선다"
assert all(sh_[lv].get("Math Pipe Throttle", 0) < 5 for lv in LEVELS), "본문: Math Pipe Throttle은 몇 %를 넘지 않는다"
assert sh_[4]["Long Scoreboard"] < 3 and sh_[5]["Long Scoreboard"] < 3, "본문: Level 4–5에는 Long Scoreboard가 거의 없다"
assert rep_p[3]["duration_ms"] > 1.1 * rep_p[4]["duration_ms"], "본문: Level 4는 Level 3보다 크게 빠르다"
assert rep_b[3]["median_ms"] > 1.1 * rep_b[4]["median_ms"], "본문: Level 4는 Level 3보다 크게 빠르다"
assert abs((tot[3] / tot[4]) / (rep_p[3]["duration_ms"] / rep_p[4]["duration_ms"]) - 1) < 0.1, "본문: 스톨 합계 비율 ≈ 시간 비율"
assert rep_p[4]["stalls"]["Short Scoreboard"] < rep_p[3]["stalls"]["Short Scoreboard"], "본문: Short Scoreboard도 줄었다"
assert rep_p[5]["duration_ms"] > 1.03 * rep_p[4]["duration_ms"], "본문: Level 5는 Level 4보다 느리다"
assert rep_b[5]["median_ms"] > 1.03 * rep_b[4]["median_ms"], "본문: Level 5는 Level 4보다 느리다"
assert rep_p[5]["issue_active_pct"] < rep_p[4]["issue_active_pct"], "본문: 발행 활성이 떨어졌다"
assert sh_[5]["Dispatch Stall"] > sh_[4]["Dispatch Stall"], "본문: Dispatch Stall이 늘었다"
assert max(pct_rb) == rep_b[4]["pct_cublas"], "본문: 가장 빠른 레벨은 Level 4"
assert max(tun_pct[k] for k in tun_pct if k[0] == "sgemm_async_copy_vec") < rep_b[4]["pct_cublas"], \
    "본문: 어느 cp.async 설정도 Level 4에 못 미친다"
assert rep_p[4]["issue_active_pct"] < 88, "본문: 별도 실행의 cuBLAS(발행 활성 약 90%)가 더 높았다"
assert rep_b[0]["pct_cublas"] > 5 and rep_b[2]["pct_cublas"] < 20 and rep_b[4]["pct_cublas"] > 85 \
    and rep_b[5]["pct_cublas"] < 85, "본문: 원 자료 주장 범위와의 비교"
assert all(FLOPS / rep_p[lv]["dram_bytes"] > 3 * RIDGE for lv in (3, 4, 5)), "본문: Level 3–5는 변곡점 한참 오른쪽"
assert [sim_profiles.classify_sol(rep_p[lv]["sm_pct"], rep_p[lv]["mem_pct"]) for lv in (0, 2, 4)] == ["balanced"] * 3, \
    "본문: Level 0, 2, 4는 60% 기준으로 균형 사분면"
iss = [rep_p[lv]["issue_active_pct"] for lv in (3, 4, 5)]
g("issue_min_35", min(iss), ".0f")
g("issue_max_35", max(iss), ".0f")
assert prof["ncu_options"] == "--clock-control none --launch-skip 1 --launch-count 1", "본문이 옵션을 그대로 적는다"
assert all(tun_ms[("sgemm_async_copy", bk, st)] > tun_ms[("sgemm_async_copy_vec", bk, st)]
           for _, bk, st in tun_ms), "본문: 4 B 변형은 어느 설정에서도 16 B 변형보다 느리다"
assert rep_p[5]["global_ld_requests"] == rep_p[3]["global_ld_requests"], "본문: cp.async 요청은 global_op_ld에 잡힌다"
assert rep_p[5]["ldgsts_requests"] is None, "본문: ldgsts 지표는 비어 있었다"
assert abs(rep_p[3]["duration_ms"] / rep_b[3]["median_ms"] - 1) < 0.1, "본문: 프로파일 시간 ≈ 벤치마크 시간"

s3 = sass.summarize(REP[3], "sm_90")
g("L3_sass_ffma", s3.ffma, "d")
g("L3_sass_ldg_c", s3.counts.get("LDG.E.128", 0), "d")
g("L4_sass_ffma", sass.summarize(REP[4], "sm_90").ffma, "d")
assert s3.ffma == 512 + 64 and sass.summarize(REP[4], "sm_90").ffma == 2 * 512 + 64, "본문의 FFMA 내역"
