"""Facts of module 7 (m07_register_blocking.md): the recorded benchmark and Nsight Compute numbers,
the register and shared-memory budget, the SASS counts of Level 3, and the grid-fill (wave) numbers of
the small sizes. Every SASS, Nsight and directional claim of the text, and every recorded number the quiz
bank quotes, has an assert below ("본문: ...", "퀴즈 m07-qNN: ..."): a re-recording or compiler change
that contradicts one stops the build."""
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
SAME_RUN_RB = next(e for e in P4_RUN["same_run"] if e["kernel"] == RB)   # the shipped kernel, profiled in that run
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
# ============================================================================ small matrices: grid fill and waves
# The 128×128 block tile meets small sizes here first: (1024/128)² = 64 blocks for the recorded device's SMs.
from sims import warp_tiling as wt      # noqa: E402  (the same wave model module 11 uses)

SMS = bprov["sm_count"]
W = {n: wt.waves(n, n, 128, 128, SMS, occ_rb.blocks_per_sm) for n in (1024, 2048, 4096)}
rb_at = {n: bench.at(RB, n) for n in (1024, 2048, 4096)}
cb_at = {n: bench.at("cublas", n) for n in (1024, 2048, 4096)}
PER_SM_PEAK = bprov["peak_gflops"] / SMS
per_sm = {n: rb_at[n]["gflops"] / W[n].busy_sms / PER_SM_PEAK * 100 for n in (1024, 4096)}
g("sm_count", SMS, "d")
g("rb_pct_cublas_1024", rb_at[1024]["pct_cublas"], ".1f")
g("rb_pct_cublas_2048", rb_at[2048]["pct_cublas"], ".1f")
g("cublas_pct_peak_1024", cb_at[1024]["pct_peak"], ".1f")
g("cublas_keep_1024", 100 * cb_at[1024]["gflops"] / cb_at[4096]["gflops"], ".0f")
g("rb_keep_1024", 100 * rb_at[1024]["gflops"] / rb_at[4096]["gflops"], ".0f")
g("blocks_1024", W[1024].blocks, "d")
g("idle_1024", SMS - W[1024].busy_sms, "d")
g("slots", W[1024].slots, "d")
g("blocks_2048", W[2048].blocks, "d")
g("fill_2048", 100 * W[2048].efficiency, ".0f")
g("blocks_4096", W[4096].blocks, ",d")
g("waves_4096", W[4096].waves, "d")
g("fill_4096", 100 * W[4096].efficiency, ".0f")
g("per_sm_1024", per_sm[1024], ".0f")
g("per_sm_4096", per_sm[4096], ".0f")
fill_gain = SMS / W[1024].busy_sms
per_sm_gain = per_sm[4096] / per_sm[1024]
g("fill_gain_1024", fill_gain, ".1f")
g("per_sm_gain_1024", per_sm_gain, ".1f")
assert W[1024].blocks == (1024 // 128) ** 2 and 2 * W[1024].blocks < SMS, "본문: 1024³은 64블록, SM의 절반 넘게 논다"
assert occ_rb.blocks_per_sm == 2 and W[2048].waves == 1 and W[2048].blocks >= 1.9 * SMS, \
    "본문: 2048³은 웨이브 하나, 거의 모든 SM이 블록 둘"
assert min(W[2048].efficiency, W[4096].efficiency) > 0.95 and W[4096].waves == 4, "본문: 두 크기는 자리의 95% 넘게 쓴다"
assert rb_at[1024]["pct_cublas"] < min(rb_at[2048]["pct_cublas"], rb_at[4096]["pct_cublas"]) - 10, \
    "본문: Level 3의 cuBLAS 대비 비율은 1024³에서 크게 낮다"
assert cb_at[1024]["pct_peak"] < cb_at[4096]["pct_peak"] - 10, "본문: 작은 문제에서는 cuBLAS도 제 속도를 못 낸다"
assert rb_at[1024]["gflops"] / rb_at[4096]["gflops"] < cb_at[1024]["gflops"] / cb_at[4096]["gflops"] - 0.1, \
    "본문: 1024³에서 잃는 몫은 Level 3 쪽이 더 크다"
assert per_sm[1024] < per_sm[4096] - 10, "본문: 1024³에서는 일하는 SM 하나도 느리다"
assert fill_gain > per_sm_gain > 1, "본문: 두 손실 가운데 노는 SM 쪽이 더 크다"

# ============================================================================ shared-memory reads of the micro-kernel
# Half-warp model of a 128-bit LDS (module 6): each half-warp is served on its own, broadcast only inside it.
def _busiest(words):
    """Wavefronts of one pass: distinct words in the busiest of the 32 banks."""
    per_bank = {}
    for w in set(words):
        per_bank.setdefault(w % 32, set()).add(w)
    return max(len(v) for v in per_bank.values())


_WARP = [(t % 16, t // 16) for t in range(32)]             # (tx, ty) of warp 0


def _wf(lanes, first_word, passes):
    """Wavefronts of one 128-bit LDS (4 words per lane) served whole or in half-warps."""
    groups = [lanes] if passes == 1 else [lanes[:16], lanes[16:]]
    return sum(_busiest([first_word(tx, ty) + j for tx, ty in grp for j in range(4)]) for grp in groups)


def _mean_wf(passes):
    a = _wf(_WARP, lambda tx, ty: ty * 4, passes)          # As[k][ty*4 ..] (the +64 half costs the same)
    b = _wf(_WARP, lambda tx, ty: tx * 4, passes)          # Bs[k][tx*4 ..]
    return (2 * a + 2 * b) / 4


WF_WHOLE, WF_HALF = _mean_wf(1), _mean_wf(2)
g("wf_whole_warp", WF_WHOLE, ".1f")
g("wf_half_warp", WF_HALF, ".1f")
_rb = p[RB]
assert (WF_WHOLE, WF_HALF) == (1.5, 3.0), "본문: 워프 전체로는 1.5, 반 워프씩이면 (2 + 2 + 4 + 4) / 4 = 3.0"
assert abs(_rb["smem_ld_wavefronts_per_instruction"] - WF_HALF) < 0.05, "본문: 반 워프 모델 3.0이 측정과 맞는다"
assert _rb["smem_ld_wavefronts_per_instruction"] > 1.9 * WF_WHOLE, "본문: 측정은 워프 전체 모델의 두 배"
assert _rb["smem_ld_bank_conflicts"] < 1e-3 * _rb["smem_ld_instructions"], "본문: 기본 커널의 로드 충돌 카운터는 거의 0"
_split = [tx * 4 + j for tx in range(16) for j in range(4)]
_contig = [tx * 8 + j for tx in range(16) for j in range(4)]
assert (_busiest(_split), _busiest(_contig)) == (2, 4), "본문: 두 묶음 배치는 뱅크마다 2워드, 붙은 8열은 4워드(두 배)"

# ============================================================================ SASS claims (sm_90, compiled here)
import re                                # noqa: E402



def _main_loop(kernel, source=None):
    """Instructions of the main loop (kernels.sass.main_loop without the addresses)."""
    return [i for _, i in sass.main_loop(kernel, "sm_90", source)]


_loop = _main_loop(RB)
_loop_ffma = sum(i.startswith("FFMA") for i in _loop)
_loop_lds128 = sum(i.startswith("LDS.128") for i in _loop)
assert _loop_ffma == MICRO_FFMA and _loop_lds128 == 8 * 4, "본문: K 타일 하나(8단계)에 LDS.128 32개, FFMA 512개"
assert s_rb.ffma - MICRO_FFMA == 64, "본문: 나머지 64개는 에필로그의 beta 경로 (누산기마다 하나)"
assert s_rb.lds_widths == {"128": 32}, "본문: LDS.128 32개, 다른 폭의 LDS는 없음"
assert s_rb.spills == 0 and s_rb.local_bytes == 0 and s_rb.stack == 0, "본문: LDL/STL 없음, 로컬 메모리 0 B"
assert s_rb.sts_widths == {"32": 4, "128": 1}, "본문: A는 스칼라 STS 네 번, B는 STS.128 하나"
assert s_rb.registers == b[RB]["registers"] == p[RB]["registers"], "본문: SASS·벤치마크·Nsight의 레지스터 수가 같다"
_x = [" ".join(line.split(";")[0].split())
      for line in sass.excerpt(RB, "sm_90", pattern=r"LDS|FFMA", limit=14).splitlines()]
assert "LDS.128 R32, [R97]" in _x and "LDS.128 R40, [R97+0x100]" in _x and 0x100 == 64 * 4, \
    "본문: 발췌의 [R97]과 [R97+0x100]은 HALF(float 64개)만큼 떨어진 두 반쪽"
_reuse = [ln for ln in _x if ln.startswith("FFMA") and ln.split(", ")[2] == "R36.reuse"]
_a_regs = {ln.split(", ")[1] for ln in _reuse}
_loaded = {m.group(1): m.group(2) for ln in _x if (m := re.match(r"LDS\.128 (R\d+), \[(R\d+)", ln))}
assert len(_reuse) >= 4 and _loaded.get("R36") != "R97" and \
    all(int(r[1:]) // 4 * 4 in (32, 40) for r in _a_regs), \
    "본문: 발췌의 FFMA가 잇달아 R36.reuse(B 값 하나)를 [R97]·[R97+0x100]에서 읽은 A 값들과 곱한다"
g("x_reuse_run", len(_reuse), "d")
assert s_rb.ffma == s_pad.ffma, "본문: 인라인 PTX를 쓴 패딩 변형도 FFMA 수가 같다"

# Unrolling experiment
assert s_u1.registers < s_rb.registers and s_u1.spills > 0 and s_u1.stack == 4 * (64 + 8 + 8), \
    "본문: unroll 1이면 레지스터는 줄고, 스택 320 B(acc·a·b)와 LDL/STL이 생긴다"
assert s_np.spills == 0 and s_np.local_bytes == 0 and s_np.ffma < s_rb.ffma, "본문: pragma 삭제는 로컬 메모리 없이 FFMA가 준다"
assert (s_np.ffma - 64) % 64 == 0 and 1 < (s_np.ffma - 64) // 64 < 8, "본문: k 루프는 일부만 펼쳤다"

# ============================================================================ Nsight Compute claims (profiles.json)
_l2 = p[L2]
assert _rb["sectors_per_request"] == 16, "본문: 글로벌 로드는 요청당 16섹터 (완전히 코얼레싱된 128비트)"
assert 2 * N4 ** 3 / _rb["dram_bytes"] > 5 * roofline.ai_block_global(128, 128) == 5 * 32, \
    "본문: 실제 DRAM 바이트는 모델 (ii)보다 훨씬 적다 (측정 DRAM 기준 산술 강도가 32의 몇 배)"
assert _rb["ffma_instructions"] == _l2["ffma_instructions"] and _l2["instructions"] > 3 * _rb["instructions"], \
    "본문: FFMA 수는 같고 전체 명령 수는 Level 2가 몇 배"
assert _rb["ffma_instructions"] / 32 / _rb["instructions"] > 0.8 > 0.3 > _l2["ffma_instructions"] / 32 / _l2["instructions"], \
    "본문: Level 3은 명령의 대부분이 FFMA, Level 2는 일부뿐"
assert _l2["smem_ld_instructions"] / _l2["ffma_instructions"] > 10 * _rb["smem_ld_instructions"] / _rb["ffma_instructions"], \
    "본문: FFMA 하나당 LDS는 Level 2가 훨씬 많다"
per_tile = BLOCKS * WARPS_PER_BLOCK * K_TILES
assert _rb["smem_ld_instructions"] / per_tile == s_rb.lds_widths["128"] and \
    _rb["smem_st_instructions"] / per_tile == sum(s_rb.sts_widths.values()), \
    "본문: 워프·K 타일당 로드 32개, 스토어 5개 (SASS와 같다)"
assert _rb["theoretical_occupancy_pct"] == occ_rb.occupancy_pct == 25 and _rb["achieved_occupancy_pct"] < 25, \
    "본문: Nsight의 이론 점유율 25%는 계산과 같고, 달성 점유율은 그보다 조금 낮다"
assert _l2["theoretical_occupancy_pct"] == 100 and not 50 <= _l2["achieved_occupancy_pct"] <= 75, \
    "본문: Level 2의 점유율은 원 자료의 50–75%와 맞지 않는다"
assert b[L2]["median_ms"] > b[RB]["median_ms"], "본문: 점유율 25%인 Level 3이 100%인 Level 2보다 빠르다"
_st = {k: v for k, v in _rb["stalls"].items() if k != "Selected"}
_top5 = sorted(_st, key=lambda k: -_st[k])[:5]
assert _top5[0] == "Not Selected" and {"Long Scoreboard", "Barrier"} <= set(_top5), \
    "본문: Not Selected가 가장 크고, Long Scoreboard와 Barrier가 상위 5개 안"
_r86 = roofline.occupancy(256, b[RB]["registers"], b[RB]["smem_static"], "sm_86")
assert roofline.ARCHS["sm_86"].max_warps_per_sm == 48 and round(_r86.occupancy_pct, 1) == 33.3, \
    "본문: GA10x(sm_86)는 SM당 워프 48개라 같은 2블록이 33.3%"
assert [roofline.ARCHS[a].smem_per_sm // 1024 for a in ("sm_80", "sm_86", "sm_90")] == [164, 100, 228], \
    "본문: SM당 공유 메모리 A100 164 KiB, GA10x 100 KiB, H100 228 KiB"

# ============================================================================ the padding lesson's SASS and Nsight claims
# Kept apart: the padding lesson is being re-measured (issue 17); when its text changes, change this block with it.
def _store_wavefronts(pitch):
    """The chapter's store model: wavefronts of each shared-memory store of warp 0 for one K tile."""
    lanes = range(32)
    waves = [_busiest([((t % 2) * 4 + i) * pitch + t // 2 for t in lanes]) for i in range(4)]   # A, transposed
    starts = [(t % 32) * 4 for t in lanes]                                                      # B row 0
    if pitch % 4 == 0:
        waves.append(_busiest([w + j for w in starts for j in range(4)]))                      # one STS.128
    else:
        waves += [_busiest([w + j for w in starts]) for j in range(4)]                         # 4 scalar STS
    return sum(waves) / len(waves)


_pad = p[PAD]
_st_rb, _st_pad = _store_wavefronts(128), _store_wavefronts(129)
assert (_st_rb, _st_pad) == (2.4, 3.0), "본문: 스토어 모델은 명령당 2.4(기본)와 3.0(패딩)"
assert 0 < _rb["smem_st_wavefronts_per_instruction"] - _st_rb < 0.3 and \
    0 < _pad["smem_st_wavefronts_per_instruction"] - _st_pad < 0.3, "본문: 측정값이 모델보다 조금 높다"
assert s_pad.sts_widths == {"32": 8} and "128" not in s_pad.sts_widths, "본문: 패딩 변형의 B 스토어는 스칼라 4개로 쪼개진다"
assert "128" in s_pad.lds_widths and len(s_pad.lds_widths) > 1 and sum(s_pad.lds_widths.values()) > s_rb.lds_widths["128"], \
    "본문: 패딩 변형의 LDS는 여러 폭으로 섞이고 개수가 는다"
assert s_rb.registers < s_pad.registers <= 128 and 80 < s_rb.registers, "본문: 레지스터가 늘었지만 둘 다 81–128 구간"
assert _pad["theoretical_occupancy_pct"] == _rb["theoretical_occupancy_pct"] == 25, "본문: 점유율은 똑같이 25%"
assert _pad["smem_ld_instructions"] / per_tile == sum(s_pad.lds_widths.values()), "본문: 워프·K 타일당 로드 수는 SASS와 같다"
assert _pad["smem_ld_wavefronts_per_instruction"] < _rb["smem_ld_wavefronts_per_instruction"] and \
    _pad["smem_ld_wavefronts"] > _rb["smem_ld_wavefronts"], "본문: 명령당 웨이브프런트는 줄고 합계는 늘었다"
assert _pad["smem_ld_bank_conflicts"] > 0.1 * _pad["smem_ld_instructions"], "본문: 패딩 변형에는 로드 뱅크 충돌이 생겼다"
assert _pad["smem_st_wavefronts"] > 1.5 * _rb["smem_st_wavefronts"], "본문: 스토어 웨이브프런트 합계가 크게 늘었다"
assert _pad["duration_ms"] > _rb["duration_ms"] and b[PAD]["median_ms"] > b[RB]["median_ms"], \
    "본문: 4096³에서 패딩 변형이 느리다 (벤치마크와 Nsight 모두)"
assert _store_wavefronts(132) == 1.6 and 0 < P4["smem_st_wavefronts_per_instruction"] - 1.6 < 0.3, \
    "본문: 행 간격 132의 스토어 모델은 명령당 1.6(A 스토어 각 1), 측정은 그보다 조금 높다"

# ============================================================================ the quiz's numbers (course/banks/m07.yaml)
# The bank is data, not prose with {eval}: every recorded number a question quotes is checked here.
from course.facts import quiz_text   # noqa: E402


def _quiz(qid):
    return quiz_text(7, qid)


assert f"{_rb['smem_ld_wavefronts_per_instruction']:.2f}" == "3.00" and "3.00" in _quiz("m07-q05") and \
    "3.0이다" in _quiz("m07-q05"), "퀴즈 m07-q05: 반 워프 모델 3.0, 측정 3.00"
_q7 = _quiz("m07-q07")
s_lb3 = sass.summarize(RB, "sm_90", source=_text.replace("__launch_bounds__(rb::THREADS)", "__launch_bounds__(rb::THREADS, 3)"))
assert f"{b[RB]['registers']}개" in _q7 and f"{s_lb3.registers}개로" in _q7 and s_lb3.registers == 80, \
    "퀴즈 m07-q07: 기본 커널 104개, (256, 3)이면 80개"
assert f"{s_lb3.stack} B의 스택" in _q7 and f"{s_lb3.spills}개" in _q7 and s_lb3.spills > 0, \
    "퀴즈 m07-q07: (256, 3)이면 스택 144 B, LDL/STL 222개"
for _qid in ("m07-q08",):
    assert f"{b[RB]['registers']}개" in _quiz(_qid) and f"{b[PAD]['registers']}개" in _quiz(_qid), \
        "퀴즈 m07-q08: 기본 커널 104개, 패딩 변형 127개"
assert b[PAD]["smem_static"] == 8256 and "8,256" in _quiz("m07-q03"), "퀴즈 m07-q03: 패딩 변형 8,256 B"
assert roofline.occupancy(256, 128, 8192, "sm_90").occupancy_pct == 25 and \
    roofline.occupancy(256, 129, 8192, "sm_90").occupancy_pct == 12.5, "퀴즈 m07-q04: 128개면 25%, 129개면 12.5%"
_q5 = _quiz("m07-q05")
assert f"`LDS.128` {s_rb.lds_widths['128']}개 중 {s_pad.lds_widths['128']}개만 남고" in _q5 and \
    set(s_pad.lds_widths) == {"128", "64", "32"} and p[PAD]["smem_ld_bank_conflicts"] > 100 * p[RB]["smem_ld_bank_conflicts"], \
    "퀴즈 m07-q05: +1 패딩은 LDS.128 32개 중 24개만 남기고, 나머지는 64·32비트, 로드 충돌이 새로 생긴다"
