"""Facts of module 7 (m07_register_blocking.md): the recorded benchmark and Nsight Compute numbers,
the register and shared-memory budget, and the SASS counts of Level 3."""
from __future__ import annotations

import json

from course.facts import Facts
from course.page import recorded
from kernels import compiler, sass
from kernels.record import DATA_DIR
from sims import outer_product, roofline

f = Facts("m07")

N4 = 4096
RB, PAD, L2 = "sgemm_register_blocking", "sgemm_register_blocking_padded", "sgemm_tiled"
K_TILES = N4 // 8                       # BK = 8
BLOCKS = (N4 // 128) ** 2               # 128×128 block tiles
WARPS_PER_BLOCK = 8                     # 256 threads

bench = recorded()                      # book/data/benchmarks.json (recorded results)
bprov = bench.provenance
b = {k: bench.at(k, N4) for k in (RB, PAD, L2, "cublas")}
prof = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
p = {k["kernel"]: k for k in prof["kernels"]}


def g(name, value, fmt="s"):
    """Glue one value for the text (myst-nb glue, output hidden)."""
    f[name] = format(value, fmt)


# Recorded benchmarks (benchmarks.json, 4096³)
g("b_device", bprov["device"])
g("b_date", str(bprov["date"])[:10])
g("speedup_l2_l3", b[L2]["median_ms"] / b[RB]["median_ms"], ".1f")
for key, name in (("rb", RB), ("pad", PAD), ("l2", L2)):
    g(f"{key}_ms", b[name]["median_ms"], ".2f")
    g(f"{key}_pct_cublas", b[name]["pct_cublas"], ".1f")
    g(f"{key}_regs", b[name]["registers"], "d")
    g(f"{key}_smem", b[name]["smem_static"], ",d")
    g(f"{key}_tflops", b[name]["gflops"] / 1000, ".1f")
g("rb_pct_peak", b[RB]["pct_peak"], ".1f")
g("cublas_ms", b["cublas"]["median_ms"], ".2f")
g("cublas_pct_peak", b["cublas"]["pct_peak"], ".1f")
g("peak_tflops", bprov["peak_gflops"] / 1000, ".1f")

# Padded variant vs. base kernel time as one phrase per size (the data also decides the direction)
def _compare(n):
    base, padded = bench.at(RB, n)["median_ms"], bench.at(PAD, n)["median_ms"]
    diff = 100 * (padded / base - 1)
    return f"{n}³에서 {abs(diff):.1f}% {'느림' if diff > 0 else '빠름'}"
g("pad_compare", ", ".join(_compare(n) for n in (1024, 2048, 4096)))
diff4 = 100 * (b[PAD]["median_ms"] / b[RB]["median_ms"] - 1)
g("pad_diff_4096", f"{abs(diff4):.1f}% {'느립니다' if diff4 > 0 else '빠릅니다'}")

# Recorded Nsight Compute profiles (profiles.json, 4096³)
g("p_date", str(prof["date"])[:10])
for key, name in (("rb", RB), ("pad", PAD), ("l2", L2)):
    r = p[name]
    g(f"p_{key}_regs", r["registers"], ".0f")
    g(f"p_{key}_theo", r["theoretical_occupancy_pct"], ".1f")
    g(f"p_{key}_ach", r["achieved_occupancy_pct"], ".1f")
    g(f"p_{key}_ms", r["duration_ms"], ".2f")
    g(f"p_{key}_ld_wpi", r["smem_ld_wavefronts_per_instruction"], ".2f")
    g(f"p_{key}_st_wpi", r["smem_st_wavefronts_per_instruction"], ".2f")
    g(f"p_{key}_ffma_share", 100 * r["ffma_instructions"] / 32 / r["instructions"], ".0f")
    g(f"p_{key}_lds_per_ffma", r["smem_ld_instructions"] / (r["ffma_instructions"] / 32),
      ".2f" if key == "l2" else ".3f")
    per_tile = BLOCKS * WARPS_PER_BLOCK * K_TILES
    g(f"p_{key}_lds_per_tile", r["smem_ld_instructions"] / per_tile, ".0f")
    g(f"p_{key}_sts_per_tile", r["smem_st_instructions"] / per_tile, ".0f")
    g(f"p_{key}_ld_conf_pct", 100 * r["smem_ld_bank_conflicts"] / r["smem_ld_instructions"],
      ".2f" if key == "rb" else ".0f")
g("p_instr_ratio", p[L2]["instructions"] / p[RB]["instructions"], ".1f")
g("p_ld_wave_ratio", 100 * (p[PAD]["smem_ld_wavefronts"] / p[RB]["smem_ld_wavefronts"] - 1), ".0f")
g("p_st_wave_ratio", p[PAD]["smem_st_wavefronts"] / p[RB]["smem_st_wavefronts"], ".1f")
g("p_dram_ai", 2 * N4 ** 3 / p[RB]["dram_bytes"], ".0f")
g("p_rb_spr", p[RB]["sectors_per_request"], ".0f")

# SASS (compiled for sm_90 and disassembled; no GPU needed)
s_rb = sass.summarize(RB, "sm_90")
s_pad = sass.summarize(PAD, "sm_90")
MICRO_FFMA = 8 * 64                      # one K tile: 8 k-steps × 64 FMAs
g("s_rb_regs", s_rb.registers, "d")
g("s_pad_regs", s_pad.registers, "d")
g("s_ffma", s_rb.ffma, "d")
g("s_pad_ffma", s_pad.ffma, "d")
g("s_ffma_epi", s_rb.ffma - MICRO_FFMA, "d")
g("s_lds128", s_rb.lds_widths.get("128", 0), "d")
g("s_pad_lds_total", sum(s_pad.lds_widths.values()), "d")
g("s_pad_lds_mix", ", ".join(f"{w}비트 {n}개" for w, n in
                             sorted(s_pad.lds_widths.items(), key=lambda kv: -int(kv[0]))))

# Unrolling experiment: #pragma unroll 1, and the pragma removed
_text = compiler.expanded_source("sgemm_register_blocking.cu")
s_u1 = sass.summarize(RB, "sm_90", source=_text.replace("#pragma unroll\n", "#pragma unroll 1\n"))
s_np = sass.summarize(RB, "sm_90", source=_text.replace("#pragma unroll\n", ""))
g("u1_regs", s_u1.registers, "d")
g("u1_stack", s_u1.stack, "d")
g("u1_stack_floats", s_u1.stack // 4, "d")
g("u1_spills", s_u1.spills, "d")
g("u1_ffma", s_u1.ffma, "d")
g("np_regs", s_np.registers, "d")
g("np_ffma", s_np.ffma, "d")
g("np_ksteps", (s_np.ffma - (s_rb.ffma - MICRO_FFMA)) // 64, "d")

# Occupancy (sims.roofline.occupancy, sm_90)
occ_rb = roofline.occupancy(256, b[RB]["registers"], b[RB]["smem_static"], "sm_90")
g("occ_rb_blocks", occ_rb.blocks_per_sm, "d")
g("occ_rb_warps", occ_rb.active_warps, "d")
g("occ_rb_pct", occ_rb.occupancy_pct, ".0f")
g("occ_rb_regs_per_warp", occ_rb.registers_per_warp, ",d")

# The model from simulation 7
est88 = outer_product.register_estimate(8, 8)
g("est88", est88.total, "d")
_gap = est88.total - b[RB]["registers"]
g("est_vs_measured", "이번에는 측정값과 우연히 같은 수입니다" if _gap == 0 else
  f"측정값보다 {abs(_gap)}개 {'많습니다' if _gap > 0 else '적습니다'}")
g("p_rb_not_selected", p[RB]["stalls"]["Not Selected"], ".2f")

# Padding that keeps the 16-byte alignment: pitch 132 (RB_PAD=4), profiled and timed on 2026-11-25
# (profiles.json "reference" entry with defines, variants.json rows timed in alternation with Level 3).
P4 = next(r for r in prof["reference"] if r["kernel"] == RB and (r.get("defines") or {}).get("RB_PAD") == "4")
P4_RUN = next(s for s in prof["supplements"] if "sgemm_register_blocking RB_PAD=4" in s["profiled"])
SAME_RUN_RB = P4_RUN["shipped_level3_same_run"]        # the shipped kernel profiled in that same run
variants = json.loads((DATA_DIR / "variants.json").read_text(encoding="utf-8"))
v4 = {r["M"]: r for r in variants["rows"] if r["variant"] == "level3_pad4"}
s_p4 = sass.summarize(RB, "sm_90", source=compiler.variant_source("sgemm_register_blocking.cu", {"RB_PAD": 4}))
g("p4_date", str(P4_RUN["date"])[:10])
g("v_date", str(variants["date"])[:10])
g("p4_regs", s_p4.registers, "d")
g("p4_lds128", s_p4.lds_widths.get("128", 0), "d")
g("p4_st_conf_m", P4["smem_st_bank_conflicts"] / 1e6, ".1f")
g("p4_rb_st_conf_m", SAME_RUN_RB["smem_st_bank_conflicts"] / 1e6, ".1f")
g("p4_st_wpi", P4["smem_st_wavefronts_per_instruction"], ".2f")
g("p4_ms", P4["duration_ms"], ".2f")
g("p4_rb_ms", SAME_RUN_RB["duration_ms"], ".2f")
g("p4_gain_4096", 100 * (1 - v4[4096]["time_ratio"]), ".1f")
g("p4_ratios", ", ".join(f"{n}³ {v4[n]['time_ratio']:.3f}" for n in sorted(v4)))
g("pad1_lds128_kept", s_pad.lds_widths.get("128", 0), "d")
assert s_p4.registers == s_rb.registers and s_p4.lds_widths == s_rb.lds_widths and s_p4.spills == 0, \
    "본문: 행 간격 132는 레지스터 수와 LDS.128 32개를 그대로 둔다"
assert P4["smem_st_bank_conflicts"] < 0.25 * SAME_RUN_RB["smem_st_bank_conflicts"], \
    "본문: 행 간격 132에서 스토어 뱅크 충돌이 4분의 1 아래로 준다"
assert P4["smem_st_wavefronts_per_instruction"] < p[RB]["smem_st_wavefronts_per_instruction"], \
    "본문: 명령당 스토어 웨이브프런트가 준다"
assert abs(P4["smem_ld_bank_conflicts"] / SAME_RUN_RB["smem_ld_bank_conflicts"] - 1) < 0.1, \
    "본문: 로드 쪽은 그대로(충돌 거의 0)"
assert all(r["correct"] for r in v4.values()) and v4[4096]["time_ratio"] < 1.0 and P4["duration_ms"] < SAME_RUN_RB["duration_ms"], \
    "본문: 행 간격 132가 4096³에서 조금 빠르다(번갈아 잰 시간, ncu 시간 모두)"
assert all(0.97 < r["time_ratio"] < 1.0 for r in v4.values()), "본문: 이득은 몇 % 안쪽으로 작다"
assert 0 < s_pad.lds_widths.get("128", 0) < s_rb.lds_widths["128"], "본문: +1 패딩은 LDS.128 일부를 잃는다(전부가 아님)"
