"""Facts of module 7 (m07_register_blocking.md): the recorded benchmark and Nsight Compute numbers,
the register and shared-memory budget, the SASS counts of Level 3 and of its source variants (from the
SASS record), and the grid-fill (wave) numbers of the small sizes. Every SASS, Nsight and directional
claim of the text, and every recorded number the quiz bank quotes, is a claim below ("본문: ...",
"퀴즈 m07-qNN: ..."): a re-recording or compiler change that contradicts one stops the build."""
from __future__ import annotations

import json
import re

from course.facts import Facts, quiz_text
from course.facts.recorded_sass import sass
from course.page import recorded
from kernels import devices, timing
from kernels.record import DATA_DIR
from sims import outer_product, roofline
from sims import warp_tiling                # the same wave model module 11 uses

f = Facts("m07")

N4 = 4096
LEVEL3_KERNEL = "sgemm_register_blocking"
PADDED_KERNEL = "sgemm_register_blocking_padded"       # the +1 padded variant (pitch 129)
LEVEL2_KERNEL = "sgemm_tiled"
SOURCE = "sgemm_register_blocking.cu"
# (warp, K tile) pairs at 4096³: 128×128 block tiles × 8 warps (256 threads) × K tiles of BK = 8.
# Nsight's per-kernel instruction counts divided by this are per warp per K tile, as the SASS counts them.
WARP_K_TILES = (N4 // 128) ** 2 * 8 * (N4 // 8)
MICRO_FFMA = 8 * 64                      # one K tile: 8 k-steps × 64 FMAs

bench = recorded()                       # book/data/benchmarks.json (recorded results)
bench_provenance = bench.provenance
bench_4096 = {k: bench.at(k, N4) for k in (LEVEL3_KERNEL, PADDED_KERNEL, LEVEL2_KERNEL, "cublas")}
profile_record = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
kernel_profiles = {k["kernel"]: k for k in profile_record["kernels"]}
level3_profile, padded_profile = kernel_profiles[LEVEL3_KERNEL], kernel_profiles[PADDED_KERNEL]
level2_profile = kernel_profiles[LEVEL2_KERNEL]

# ============================================================ recorded benchmarks (4096³)
f.set("b_device", bench_provenance["device"])
f.set("b_gpu", bench_provenance["device"].replace("NVIDIA ", "").split()[0])   # short name: "H200"
f.set("b_date", str(bench_provenance["date"])[:10])
f.set("p_gpu", profile_record["device"].replace("NVIDIA ", "").split()[0])      # the Nsight Compute record's device
f.set("speedup_l2_l3", bench_4096[LEVEL2_KERNEL]["median_ms"] / bench_4096[LEVEL3_KERNEL]["median_ms"], ".1f")
for key, kernel in (("rb", LEVEL3_KERNEL), ("pad", PADDED_KERNEL), ("l2", LEVEL2_KERNEL)):
    f.set(f"{key}_ms", bench_4096[kernel]["median_ms"], ".2f")
    f.set(f"{key}_pct_cublas", bench_4096[kernel]["pct_cublas"], ".1f")
    f.set(f"{key}_regs", bench_4096[kernel]["registers"], "d")
    f.set(f"{key}_smem", bench_4096[kernel]["smem_static"], ",d")
    f.set(f"{key}_tflops", bench_4096[kernel]["gflops"] / 1000, ".1f")
f.set("rb_pct_peak", bench_4096[LEVEL3_KERNEL]["pct_peak"], ".1f")
f.set("cublas_ms", bench_4096["cublas"]["median_ms"], ".2f")
f.set("cublas_pct_peak", bench_4096["cublas"]["pct_peak"], ".1f")
f.set("peak_tflops", bench_provenance["peak_gflops"] / 1000, ".1f")


def _padded_vs_base(n):
    """The padded variant against the base kernel at n³, as one phrase (the data decides the direction)."""
    diff = 100 * (bench.at(PADDED_KERNEL, n)["median_ms"] / bench.at(LEVEL3_KERNEL, n)["median_ms"] - 1)
    return f"{n}³에서 {abs(diff):.1f}% {'느림' if diff > 0 else '빠름'}"


f.set("pad_compare", ", ".join(_padded_vs_base(n) for n in (1024, 2048, 4096)))
padded_diff_4096 = 100 * (bench_4096[PADDED_KERNEL]["median_ms"] / bench_4096[LEVEL3_KERNEL]["median_ms"] - 1)
f.set("pad_diff_4096", f"{abs(padded_diff_4096):.1f}% {'느립니다' if padded_diff_4096 > 0 else '빠릅니다'}")

# ============================================================ recorded Nsight Compute profiles (4096³)
f.set("p_date", str(profile_record["date"])[:10])
for key, kernel in (("rb", LEVEL3_KERNEL), ("pad", PADDED_KERNEL), ("l2", LEVEL2_KERNEL)):
    profile = kernel_profiles[kernel]
    f.set(f"p_{key}_regs", profile["registers"], ".0f")
    f.set(f"p_{key}_theo", profile["theoretical_occupancy_pct"], ".1f")
    f.set(f"p_{key}_ach", profile["achieved_occupancy_pct"], ".1f")
    f.set(f"p_{key}_ms", profile["duration_ms"], ".2f")
    f.set(f"p_{key}_ld_wpi", profile["smem_ld_wavefronts_per_instruction"], ".2f")
    f.set(f"p_{key}_st_wpi", profile["smem_st_wavefronts_per_instruction"], ".2f")
    f.set(f"p_{key}_ffma_share", 100 * profile["ffma_instructions"] / 32 / profile["instructions"], ".0f")
    f.set(f"p_{key}_lds_per_ffma", profile["smem_ld_instructions"] / (profile["ffma_instructions"] / 32),
          ".2f" if key == "l2" else ".3f")
    f.set(f"p_{key}_lds_per_tile", profile["smem_ld_instructions"] / WARP_K_TILES, ".0f")
    f.set(f"p_{key}_sts_per_tile", profile["smem_st_instructions"] / WARP_K_TILES, ".0f")
    f.set(f"p_{key}_ld_conf_pct", 100 * profile["smem_ld_bank_conflicts"] / profile["smem_ld_instructions"],
          ".2f" if key == "rb" else ".0f")
# Module 6's padded Level 2 against its base (the prerequisite answer): what the padding cost, read against store side
m06_base, m06_pad = kernel_profiles["sgemm_tiled"], kernel_profiles["sgemm_tiled_padded"]
f.set("m06_pad_lds_pct", 100 * (m06_pad["smem_ld_instructions"] / m06_base["smem_ld_instructions"] - 1), ".0f")


@f.claims
def module6_padding_recap(check):
    """The prerequisite answer on module 6's +1 padding: the reads lost LDS.128 (more instructions and far more
    added wavefronts than the stores), and the padded kernel was slower."""
    added_ld = m06_pad["smem_ld_wavefronts"] - m06_base["smem_ld_wavefronts"]
    added_st = m06_pad["smem_st_wavefronts"] - m06_base["smem_st_wavefronts"]
    check(m06_pad["smem_ld_instructions"] > 1.5 * m06_base["smem_ld_instructions"] and added_ld > 3 * added_st > 0,
          "본문(사전 복습): 패딩으로 읽기 명령이 늘고, 늘어난 웨이브프론트는 읽기 쪽이 훨씬 많다")
    check(m06_pad["smem_st_bank_conflicts"] > 10 * m06_base["smem_st_bank_conflicts"]
          and bench.at("sgemm_tiled_padded", N4)["median_ms"] > bench.at("sgemm_tiled", N4)["median_ms"],
          "본문(사전 복습): 스토어 충돌이 새로 생기고, 패딩한 커널이 더 느리다")


f.set("p_instr_ratio", level2_profile["instructions"] / level3_profile["instructions"], ".1f")
f.set("p_ld_wave_ratio", 100 * (padded_profile["smem_ld_wavefronts"] / level3_profile["smem_ld_wavefronts"] - 1), ".0f")
f.set("p_st_wave_ratio", padded_profile["smem_st_wavefronts"] / level3_profile["smem_st_wavefronts"], ".1f")
f.set("p_dram_ai", 2 * N4 ** 3 / level3_profile["dram_bytes"], ".0f")
f.set("p_rb_spr", level3_profile["sectors_per_request"], ".0f")

# ============================================================ SASS (sm_90, recorded; no GPU needed)
level3_sass = sass.summarize(LEVEL3_KERNEL, "sm_90")
padded_sass = sass.summarize(PADDED_KERNEL, "sm_90")
f.set("s_rb_regs", level3_sass.registers, "d")
f.set("s_pad_regs", padded_sass.registers, "d")
f.set("s_ffma", level3_sass.ffma, "d")
f.set("s_pad_ffma", padded_sass.ffma, "d")
f.set("s_ffma_epi", level3_sass.ffma - MICRO_FFMA, "d")
f.set("s_lds128", level3_sass.lds_widths.get("128", 0), "d")
f.set("s_pad_lds_total", sum(padded_sass.lds_widths.values()), "d")
f.set("s_pad_lds_mix", ", ".join(f"{w}비트 {n}개" for w, n in
                                 sorted(padded_sass.lds_widths.items(), key=lambda kv: -int(kv[0]))))

# The unrolling experiment: `#pragma unroll 1`, and the pragma removed (the chapter's cell compiles the same texts)
UNROLL_1 = sass.variant("rb_unroll1", SOURCE, lambda text: text.replace("#pragma unroll\n", "#pragma unroll 1\n"))
NO_PRAGMA = sass.variant("rb_no_pragma", SOURCE, lambda text: text.replace("#pragma unroll\n", ""))
unroll1_sass = sass.summarize(LEVEL3_KERNEL, "sm_90", variant=UNROLL_1)
no_pragma_sass = sass.summarize(LEVEL3_KERNEL, "sm_90", variant=NO_PRAGMA)
f.set("u1_regs", unroll1_sass.registers, "d")
f.set("u1_stack", unroll1_sass.stack, "d")
f.set("u1_stack_floats", unroll1_sass.stack // 4, "d")
f.set("u1_spills", unroll1_sass.spills, "d")
f.set("u1_ffma", unroll1_sass.ffma, "d")
f.set("np_regs", no_pragma_sass.registers, "d")
f.set("np_ffma", no_pragma_sass.ffma, "d")
f.set("np_ksteps", (no_pragma_sass.ffma - (level3_sass.ffma - MICRO_FFMA)) // 64, "d")

# ============================================================ occupancy (sims.roofline, sm_90) and simulation 7
level3_occupancy = roofline.occupancy(256, bench_4096[LEVEL3_KERNEL]["registers"],
                                      bench_4096[LEVEL3_KERNEL]["smem_static"], "sm_90")
f.set("occ_rb_blocks", level3_occupancy.blocks_per_sm, "d")
f.set("occ_rb_warps", level3_occupancy.active_warps, "d")
f.set("occ_rb_pct", level3_occupancy.occupancy_pct, ".0f")
f.set("occ_rb_regs_per_warp", level3_occupancy.registers_per_warp, ",d")

# The same block on the other GPU classes the course lists (kernels.devices): always 2 blocks, limited by registers,
# while the warps an SM holds differ (64 on sm_80/sm_90, 48 on sm_86/sm_89, 32 on the T4's sm_75).
OTHER_GPUS = {"sm75": "T4", "sm86": "RTX3090", "sm89": "L4"}


def device_occupancy(name: str) -> tuple[dict, float]:
    limits = devices.profile(name)
    row = bench_4096[LEVEL3_KERNEL]
    occ = devices.occupancy(limits, 256, row["registers"], row["smem_static"])
    return occ, 100 * occ["blocks_per_sm"] * 8 / (limits.max_threads_per_sm // 32)


for key, name in OTHER_GPUS.items():
    f.set(f"occ_{key}", device_occupancy(name)[1], ".1f")


@f.claims
def occupancy_on_other_gpus(check):
    """The sentence on the other GPU classes (kernels.devices): the same two blocks give 33.3% on sm_86 and sm_89 and
    50% on the T4; registers set the block count on every listed GPU."""
    for name in devices.PROFILES:
        occ, _ = device_occupancy(name)
        check(occ["blocks_per_sm"] == 2 and occ["limiter"] == "registers",
              f"본문: {name}에서도 Level 3은 SM당 2블록이고 레지스터가 블록 수를 정한다")
    expected = {"sm75": (32, 50.0), "sm86": (48, 100 / 3), "sm89": (48, 100 / 3)}
    for key, name in OTHER_GPUS.items():
        limits = devices.profile(name)
        warps, pct = expected[key]
        check(limits.arch == "sm_" + key[2:] and limits.max_threads_per_sm // 32 == warps
              and abs(device_occupancy(name)[1] - pct) < 0.05,
              f"본문: {name}({limits.arch})는 SM당 워프 {warps}개라 2블록이 {pct:.1f}%")
    check(all(devices.PROFILES[n].max_threads_per_sm == 2048 for n in ("H100", "A100-40GB")),
          "본문: SM당 최대 64워프는 H100과 A100의 값")


# The source material's "90 registers → 34.4%, 104 → 29.7%": warps counted one by one (register file ÷
# (registers × 32), rounded down, over 64 warps), ignoring that a block of 8 warps is placed whole.
SM90 = roofline.ARCHS["sm_90"]


def warp_granular_pct(registers: int) -> float:
    """Occupancy if single warps could be placed: floor(register file / (registers × 32)) / max warps."""
    return (SM90.registers_per_sm // (registers * 32)) / SM90.max_warps_per_sm * 100


SOURCE_OCCUPANCY = {90: 34.4, 104: 29.7}            # the source material's figures, as it prints them
f.set("src_occ_90", warp_granular_pct(90), ".1f")
f.set("src_occ_104", warp_granular_pct(104), ".1f")
f.set("src_warps_90", SM90.registers_per_sm // (90 * 32), "d")
f.set("src_warps_104", SM90.registers_per_sm // (104 * 32), "d")


@f.claims
def source_occupancy(check):
    """The sentence on the source material's 34.4% / 29.7%: warp-granular, not per thread, not per block."""
    for registers, quoted in SOURCE_OCCUPANCY.items():
        check(f"{warp_granular_pct(registers):.1f}" == f"{quoted:.1f}",
              f"본문: 원 자료의 {quoted}%는 워프를 하나씩 올린 셈 ({registers}개)")
        per_thread = SM90.registers_per_sm / registers / (SM90.max_warps_per_sm * 32) * 100
        check(f"{per_thread:.1f}" != f"{quoted:.1f}", f"본문: 스레드 단위 셈으로는 {quoted}%가 나오지 않는다")
        check(roofline.occupancy(256, registers, 8192, "sm_90").occupancy_pct < quoted,
              f"본문: 블록은 통째로만 올라가므로 실제 이론 점유율은 {quoted}%보다 낮다")


register_estimate_8x8 = outer_product.register_estimate(8, 8)
f.set("est88", register_estimate_8x8.total, "d")
estimate_gap = register_estimate_8x8.total - bench_4096[LEVEL3_KERNEL]["registers"]
f.set("est_vs_measured", "이번에는 측정값과 우연히 같은 수입니다" if estimate_gap == 0 else
      f"측정값보다 {abs(estimate_gap)}개 {'많습니다' if estimate_gap > 0 else '적습니다'}")
f.set("p_rb_not_selected", level3_profile["stalls"]["Not Selected"], ".2f")
f.set("p_rb_short_sb", level3_profile["stalls"]["Short Scoreboard"], ".2f")
f.set("p_rb_fma_pipe", level3_profile["fma_pipe_pct"], ".1f")
f.set("p_rb_issue", level3_profile["issue_active_pct"], ".1f")
f.set("p_rb_idle", 100 - level3_profile["issue_active_pct"], ".1f")


def ready_warps(profile):
    """Mean eligible warps per cycle (module 10's reading of Nsight's unit): in an issue-active cycle the selected
    warp plus the Not Selected ones, in any other cycle none."""
    return profile["issue_active_pct"] / 100 * (1 + profile["stalls"]["Not Selected"])


f.set("p_rb_ready", ready_warps(level3_profile), ".2f")


@f.claims
def warps_are_not_plenty(check):
    """The ILP dropdown, 다음 단계 and the summary: Not Selected is counted in issue cycles only, so it does not show
    that 25% occupancy has warps to spare; readiness is bunched, and a second block per SM or a new loop fills gaps."""
    rb, db = level3_profile, kernel_profiles["sgemm_double_buffer"]
    stalls = {k: v for k, v in rb["stalls"].items() if k != "Selected"}
    check(max(stalls, key=stalls.get) == "Not Selected" and rb["issue_active_pct"] < 70,
          "본문: Not Selected가 가장 큰 스톨인데 명령을 낸 사이클은 70%도 안 된다")
    check(ready_warps(rb) > 1 and 100 - rb["issue_active_pct"] > 30,
          "본문: 준비된 워프는 사이클마다 평균 한 개가 넘는데 빈 사이클이 30% 넘는다 (준비된 워프가 몰려 있다)")
    check(per_sm_pct_peak[1024] < per_sm_pct_peak[4096] and level3_occupancy.blocks_per_sm == 2
          and grid_waves[1024].blocks < SMS,
          "본문: SM마다 블록이 하나뿐인 1024³에서 일하는 SM 하나의 속도가 블록이 둘인 4096³보다 낮다")
    check(db["theoretical_occupancy_pct"] == rb["theoretical_occupancy_pct"]
          and db["issue_active_pct"] > rb["issue_active_pct"] + 10,
          "본문: 모듈 8은 워프 수(점유율)를 그대로 두고 루프 구조를 바꿔 틈을 메운다 (발행 사이클이 크게 는다)")

# ============================================================ padding that keeps the 16-byte alignment
# Pitch 132 (RB_PAD=4): profiled on the H100 on 2026-11-25 (profiles.json "reference" entry with defines, and the
# supplement that profiled Level 3 in the same run); timed on the benchmark's GPU with the course's protocol, in
# another run than the benchmark (variants.json rows timed in alternation with Level 3).
pitch132_profile = next(r for r in profile_record["reference"]
                        if r["kernel"] == LEVEL3_KERNEL and (r.get("defines") or {}).get("RB_PAD") == "4")
pitch132_run = next(s for s in profile_record["supplements"] if "sgemm_register_blocking RB_PAD=4" in s["profiled"])
pitch132_run_level3 = next(e for e in pitch132_run["same_run"] if e["kernel"] == LEVEL3_KERNEL)   # profiled in that run
variant_record = json.loads((DATA_DIR / "variants.json").read_text(encoding="utf-8"))
pitch132_times = {r["M"]: r for r in variant_record["rows"] if r["variant"] == "level3_pad4"}
# The text compiled for RB_PAD=4: kernels.compiler.variant_source's `#define` line in front of the file
PITCH_132 = sass.variant("rb_pad4", SOURCE, lambda text: "#define RB_PAD 4\n" + text)
pitch132_sass = sass.summarize(LEVEL3_KERNEL, "sm_90", variant=PITCH_132)
f.set("p4_date", str(pitch132_run["date"])[:10])
f.set("v_date", str(variant_record["date"])[:10])
f.set("v_gpu", variant_record["device"].replace("NVIDIA ", "").split()[0])      # the variants record's device
f.set("p4_regs", pitch132_sass.registers, "d")
f.set("p4_lds128", pitch132_sass.lds_widths.get("128", 0), "d")
f.set("p4_st_conf_m", pitch132_profile["smem_st_bank_conflicts"] / 1e6, ".1f")
f.set("p4_rb_st_conf_m", pitch132_run_level3["smem_st_bank_conflicts"] / 1e6, ".1f")
f.set("p4_st_wpi", pitch132_profile["smem_st_wavefronts_per_instruction"], ".2f")
f.set("p4_ms", pitch132_profile["duration_ms"], ".2f")
f.set("p4_rb_ms", pitch132_run_level3["duration_ms"], ".2f")
f.set("p4_gain_4096", 100 * (1 - pitch132_times[4096]["time_ratio"]), ".1f")
f.set("p4_ratios", ", ".join(f"{n}³ {pitch132_times[n]['time_ratio']:.3f}" for n in sorted(pitch132_times)))
_p4_gain = {n: 100 * (1 - r["time_ratio"]) for n, r in pitch132_times.items()}
f.set("p4_gain_1024", _p4_gain[1024], ".1f")
f.set("p4_gain_big", "–".join(f"{g:.1f}" for g in sorted({round(_p4_gain[n], 1) for n in (2048, 4096)})))
f.set("pad1_lds128_kept", padded_sass.lds_widths.get("128", 0), "d")


@f.claims
def pitch_132(check):
    """The section on the pitch-132 padding (SASS record, profiles.json reference and supplement, variants.json)."""
    p4, same_run = pitch132_profile, pitch132_run_level3
    check(pitch132_sass.registers == level3_sass.registers and pitch132_sass.lds_widths == level3_sass.lds_widths
          and pitch132_sass.spills == 0, "본문: 행 간격 132는 레지스터 수와 LDS.128 32개를 그대로 둔다")
    check(0.05 * same_run["smem_st_bank_conflicts"] < p4["smem_st_bank_conflicts"]
          < 0.25 * same_run["smem_st_bank_conflicts"],
          "본문: 행 간격 132에서 스토어 뱅크 충돌이 4분의 1 아래로 크게 줄지만 0이 되지는 않는다")
    check(p4["smem_st_wavefronts_per_instruction"] < level3_profile["smem_st_wavefronts_per_instruction"],
          "본문: 명령당 스토어 웨이브프론트가 준다")
    check(abs(p4["smem_ld_bank_conflicts"] / same_run["smem_ld_bank_conflicts"] - 1) < 0.1, "본문: 로드 쪽은 그대로(충돌 거의 0)")
    check(all(r["correct"] for r in pitch132_times.values()) and pitch132_times[4096]["time_ratio"] < 1.0
          and p4["duration_ms"] < same_run["duration_ms"],
          "본문: 행 간격 132가 4096³에서 조금 빠르다(번갈아 잰 시간, ncu 시간 모두)")
    check(all(0.97 < r["time_ratio"] < 1.0 for r in pitch132_times.values()), "본문: 이득은 몇 % 안쪽으로 작다")
    check(all(_p4_gain[n] > 1.0 for n in (2048, 4096)) and 0 < _p4_gain[1024] < 0.5,
          "본문: 2048³과 4096³에서는 1% 넘게 빠르고, 1024³에서는 0.5% 안으로 거의 같다")
    check(_loop_stores == sum(level3_sass.sts_widths.values()) == sum(pitch132_sass.sts_widths.values())
          and 100 * _loop_stores < _loop_math,
          "본문: 스토어는 K 타일마다 스레드당 몇 개(두 커널 같은 수)뿐이고, 같은 루프의 FFMA와 LDS.128은 그 100배가 넘는다")
    check(variant_record["timing"] == timing.PROTOCOL == bench_provenance["timing"]
          and variant_record["device"] == bench_provenance["device"]
          and variant_record["date"] != bench_provenance["date"]
          and all(r["base"] == LEVEL3_KERNEL and abs(r["variant_ms"] / r["base_ms"] / r["time_ratio"] - 1) < 0.002
                  for r in pitch132_times.values()),
          "본문: 행 간격 132의 시간은 벤치마크와 같은 장치에서 같은 방식으로, 다른 실행에서 기본 커널과 번갈아 잰 비이고, "
          "비는 같은 기록 안의 두 시간으로 낸 것 (variants.json)")
    check(p4["M"] == same_run["M"] == 4096 and pitch132_run["device"] == profile_record["device"],
          "본문: 행 간격 132의 프로파일은 프로파일 장치에서 같은 실행에 기본 커널과 함께 잰 4096³")
    check(0 < padded_sass.lds_widths.get("128", 0) < level3_sass.lds_widths["128"],
          "본문: +1 패딩은 LDS.128 일부를 잃는다(전부가 아님)")


# ============================================================ small matrices: grid fill and waves
# The 128×128 block tile meets small sizes here first: (1024/128)² = 64 blocks for the recorded device's SMs.
SMS = bench_provenance["sm_count"]
SMALL_SIZES = (1024, 2048, 4096)
grid_waves = {n: warp_tiling.waves(n, n, 128, 128, SMS, level3_occupancy.blocks_per_sm) for n in SMALL_SIZES}
level3_bench = {n: bench.at(LEVEL3_KERNEL, n) for n in SMALL_SIZES}
cublas_bench = {n: bench.at("cublas", n) for n in SMALL_SIZES}
PER_SM_PEAK = bench_provenance["peak_gflops"] / SMS
per_sm_pct_peak = {n: level3_bench[n]["gflops"] / grid_waves[n].busy_sms / PER_SM_PEAK * 100 for n in (1024, 4096)}
fill_gain = SMS / grid_waves[1024].busy_sms
per_sm_gain = per_sm_pct_peak[4096] / per_sm_pct_peak[1024]
f.set("sm_count", SMS, "d")
f.set("rb_pct_cublas_1024", level3_bench[1024]["pct_cublas"], ".1f")
f.set("rb_pct_cublas_2048", level3_bench[2048]["pct_cublas"], ".1f")
f.set("cublas_pct_peak_1024", cublas_bench[1024]["pct_peak"], ".1f")
f.set("cublas_keep_1024", 100 * cublas_bench[1024]["gflops"] / cublas_bench[4096]["gflops"], ".0f")
f.set("rb_keep_1024", 100 * level3_bench[1024]["gflops"] / level3_bench[4096]["gflops"], ".0f")
f.set("blocks_1024", grid_waves[1024].blocks, "d")
f.set("idle_1024", SMS - grid_waves[1024].busy_sms, "d")
f.set("slots", grid_waves[1024].slots, "d")
f.set("blocks_2048", grid_waves[2048].blocks, "d")
f.set("fill_2048", 100 * grid_waves[2048].efficiency, ".0f")
f.set("blocks_4096", grid_waves[4096].blocks, ",d")
f.set("waves_4096", grid_waves[4096].waves, "d")
f.set("fill_4096", 100 * grid_waves[4096].efficiency, ".0f")
f.set("per_sm_1024", per_sm_pct_peak[1024], ".0f")
f.set("per_sm_4096", per_sm_pct_peak[4096], ".0f")
f.set("fill_gain_1024", fill_gain, ".1f")
f.set("per_sm_gain_1024", per_sm_gain, ".1f")


# Blocks per SM, not the length of K: the shape record (shapes.json, a separate run on the benchmark's device) holds Level 3 on shapes
# that separate the two (64 blocks with 16× the K of 1024³; 4,096 blocks with K = 1024).
shape_record = json.loads((DATA_DIR / "shapes.json").read_text(encoding="utf-8"))
SHAPE_SMS = shape_record["sm_count"]
shape_rows = {(r["M"], r["N"], r["K"]): r for r in shape_record["rows"] if r["kernel"] == LEVEL3_KERNEL}


def shape_per_sm_pct(shape) -> float:
    """Level 3's rate on `shape` (shapes.json) per working SM, in % of one SM's FP32 peak."""
    m, n, _ = shape
    busy = warp_tiling.waves(m, n, 128, 128, SHAPE_SMS, level3_occupancy.blocks_per_sm).busy_sms
    return shape_rows[shape]["gflops"] / busy / (shape_record["peak_gflops"] / SHAPE_SMS) * 100


def _shape_text(shape) -> str:
    return "×".join(str(d) for d in shape)


LONG_K = max((s for s in shape_rows if s[0] == s[1] == 1024 and s[2] > 1024), key=lambda s: s[2])
SHORT_K = max((s for s in shape_rows if s[2] == 1024 and s[0] == s[1] > 1024), key=lambda s: s[0])
f.set("long_k_shape", _shape_text(LONG_K))
f.set("long_k_factor", LONG_K[2] // 1024, "d")
f.set("long_k_blocks", warp_tiling.waves(LONG_K[0], LONG_K[1], 128, 128, SHAPE_SMS, 2).blocks, "d")
f.set("long_k_per_sm", shape_per_sm_pct(LONG_K), ".0f")
f.set("short_k_shape", _shape_text(SHORT_K))
f.set("short_k", SHORT_K[2], "d")
f.set("short_k_blocks", warp_tiling.waves(SHORT_K[0], SHORT_K[1], 128, 128, SHAPE_SMS, 2).blocks, ",d")
f.set("short_k_per_sm", shape_per_sm_pct(SHORT_K), ".0f")
f.set("shapes_per_sm_1024", shape_per_sm_pct((1024, 1024, 1024)), ".0f")
f.set("shapes_per_sm_4096", shape_per_sm_pct((4096, 4096, 4096)), ".0f")


@f.claims
def blocks_not_k(check):
    """The sentence that the per-SM gap of 1024³ comes from one block per SM, not from the short K loop."""
    per = {s: shape_per_sm_pct(s) for s in (LONG_K, SHORT_K, (1024, 1024, 1024), (4096, 4096, 4096))}
    long_blocks = warp_tiling.waves(LONG_K[0], LONG_K[1], 128, 128, SHAPE_SMS, 2).blocks
    short_blocks = warp_tiling.waves(SHORT_K[0], SHORT_K[1], 128, 128, SHAPE_SMS, 2).blocks
    check(shape_record["device"] == bench_provenance["device"] and LONG_K[2] >= 8 * 1024 and long_blocks < SHAPE_SMS
          and short_blocks >= 2 * SHAPE_SMS, "본문: K가 몇 배 긴 모양은 블록이 SM보다 적고, K가 짧은 모양은 블록이 넉넉하다")
    check(per[LONG_K] < per[(4096, 4096, 4096)] - 10 and per[LONG_K] < per[(1024, 1024, 1024)] + 5,
          "본문: K가 16배 길어도 SM마다 블록 하나면 SM 하나의 속도는 1024³처럼 낮다")
    check(per[SHORT_K] > per[(4096, 4096, 4096)] - 3 and per[SHORT_K] > per[(1024, 1024, 1024)] + 10,
          "본문: K가 1024로 짧아도 SM마다 블록 둘이면 SM 하나의 속도는 4096³만큼 높다")


@f.claims
def small_matrices(check):
    """The section on 1024³ and 2048³: grid fill, waves and what each loss costs."""
    w, rb, cb = grid_waves, level3_bench, cublas_bench
    check(w[1024].blocks == (1024 // 128) ** 2 and 2 * w[1024].blocks < SMS, "본문: 1024³은 64블록, SM의 절반 넘게 논다")
    check(level3_occupancy.blocks_per_sm == 2 and w[2048].waves == 1 and w[2048].blocks >= 1.9 * SMS,
          "본문: 2048³은 웨이브 하나, 거의 모든 SM이 블록 둘")
    check(min(w[2048].efficiency, w[4096].efficiency) > 0.95 and w[4096].waves == 4, "본문: 두 크기는 자리의 95% 넘게 쓴다")
    check(rb[1024]["pct_cublas"] < min(rb[2048]["pct_cublas"], rb[4096]["pct_cublas"]) - 10,
          "본문: Level 3의 cuBLAS 대비 비율은 1024³에서 크게 낮다")
    check(cb[1024]["pct_peak"] < cb[4096]["pct_peak"] - 10, "본문: 작은 문제에서는 cuBLAS도 제 속도를 못 낸다")
    check(rb[1024]["gflops"] / rb[4096]["gflops"] < cb[1024]["gflops"] / cb[4096]["gflops"] - 0.1,
          "본문: 1024³에서 잃는 몫은 Level 3 쪽이 더 크다")
    check(per_sm_pct_peak[1024] < per_sm_pct_peak[4096] - 10, "본문: 1024³에서는 일하는 SM 하나도 느리다")
    check(fill_gain > per_sm_gain > 1, "본문: 두 손실 가운데 노는 SM 쪽이 더 크다")


# ============================================================ shared-memory reads of the micro-kernel
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
f.set("wf_whole_warp", WF_WHOLE, ".1f")
f.set("wf_half_warp", WF_HALF, ".1f")


@f.claims
def shared_memory_reads(check):
    """The half-warp model of the micro-kernel's LDS.128 against Nsight, and the two-group layout."""
    rb = level3_profile
    check((WF_WHOLE, WF_HALF) == (1.5, 3.0), "본문: 워프 전체로는 1.5, 반 워프씩이면 (2 + 2 + 4 + 4) / 4 = 3.0")
    check(abs(rb["smem_ld_wavefronts_per_instruction"] - WF_HALF) < 0.05, "본문: 반 워프 모델 3.0이 측정과 맞는다")
    check(rb["smem_ld_wavefronts_per_instruction"] > 1.9 * WF_WHOLE, "본문: 측정은 워프 전체 모델의 두 배")
    check(rb["smem_ld_bank_conflicts"] < 1e-3 * rb["smem_ld_instructions"], "본문: 기본 커널의 로드 충돌 카운터는 거의 0")
    split = [tx * 4 + j for tx in range(16) for j in range(4)]
    contiguous = [tx * 8 + j for tx in range(16) for j in range(4)]
    check((_busiest(split), _busiest(contiguous)) == (2, 4), "본문: 두 묶음 배치는 뱅크마다 2워드, 붙은 8열은 4워드(두 배)")


# ============================================================ SASS claims (sm_90, recorded)
level3_loop = sass.main_loop(LEVEL3_KERNEL, "sm_90")
# per K tile and thread: the stores that fill the tiles, and the FFMA and LDS.128 of the micro-kernel (pitch-132 section)
_loop_stores = sum(inst.startswith("STS") for inst in level3_loop)
_loop_math = sum(inst.startswith(("FFMA", "LDS.128")) for inst in level3_loop)
f.set("loop_sts", _loop_stores, "d")
f.set("loop_ffma_lds", _loop_math, "d")
level3_excerpt = [" ".join(line.split(";")[0].split())
                  for line in sass.excerpt(LEVEL3_KERNEL, "sm_90", pattern=r"LDS|FFMA", limit=14).splitlines()]
# The excerpt's run of FFMAs that all read R36.reuse (one B value) against A values
reuse_run = [line for line in level3_excerpt if line.startswith("FFMA") and line.split(", ")[2] == "R36.reuse"]
f.set("x_reuse_run", len(reuse_run), "d")

# Values read against load instructions: one k-step reads 16 floats with LDS.128 (4 floats each)
BK = 8
f.set("lds_per_kstep", level3_sass.lds_widths["128"] // BK, "d")
f.set("ffma_per_lds", MICRO_FFMA / level3_sass.lds_widths["128"], ".0f")
lds_per_ffma = {key: p["smem_ld_instructions"] / (p["ffma_instructions"] / 32)
                for key, p in (("rb", level3_profile), ("l2", level2_profile))}
f.set("lds_ratio_l2_l3", lds_per_ffma["l2"] / lds_per_ffma["rb"], ".0f")
level2_sass = sass.summarize(LEVEL2_KERNEL, "sm_90")


@f.claims
def values_and_instructions(check):
    """The paragraphs after the inner/outer product table: floats read per FMA (4) and value reuse (8) against
    load instructions per FFMA (LDS.128: 16 FFMA each), from the SASS record and Nsight's counts."""
    floats, fmas = 8 + 8, 8 * 8
    check(fmas / floats == 4 and 2 * fmas / floats == 8 and (fmas / floats) / (1 / 2) == 8,
          "본문: float 하나당 FMA 4번, 값 하나는 FMA 8번, Level 2(0.5번, 1번)의 8배")
    check(level3_sass.lds_widths == {"128": 4 * BK} and 4 * 4 == floats,
          "본문: k 한 스텝의 float 16개를 LDS.128 4개로 읽는다")
    check(MICRO_FFMA / level3_sass.lds_widths["128"] == 16 and lds_per_ffma["rb"] == 1 / 16,
          "본문: 로드 명령 하나가 FFMA 16개를 먹여 살린다 (Nsight: FFMA 하나당 LDS 1/16)")
    n128, n32 = level2_sass.lds_widths.get("128", 0), level2_sass.lds_widths.get("32", 0)
    check(n128 * 4 == 16 and n32 == 16 and lds_per_ffma["l2"] == (n128 + n32) / 16,
          "본문: Level 2는 As 읽기 넷을 LDS.128 하나로 묶고 Bs는 4 B씩 읽는다 (FFMA 16개마다 LDS 20개)")
    check(lds_per_ffma["l2"] / lds_per_ffma["rb"] > 8, "본문: 명령으로 센 차이는 값으로 센 8배보다 크다")


@f.claims
def sass_level3(check):
    """The section on Level 3's SASS: the main loop, the excerpt, the budget; and the unrolling experiment."""
    s = level3_sass
    loop_ffma = sum(inst.startswith("FFMA") for inst in level3_loop)
    loop_lds128 = sum(inst.startswith("LDS.128") for inst in level3_loop)
    check(loop_ffma == MICRO_FFMA and loop_lds128 == 8 * 4, "본문: K 타일 하나(k 스텝 8개)에 LDS.128 32개, FFMA 512개")
    check(s.ffma - MICRO_FFMA == 64, "본문: 나머지 64개는 에필로그의 beta 경로 (누산기마다 하나)")
    check(s.lds_widths == {"128": 32}, "본문: LDS.128 32개, 다른 폭의 LDS는 없음")
    check(s.spills == 0 and s.local_bytes == 0 and s.stack == 0, "본문: LDL/STL 없음, 로컬 메모리 0 B")
    check(s.sts_widths == {"32": 4, "128": 1}, "본문: A는 스칼라 STS 네 번, B는 STS.128 하나")
    check(s.registers == bench_4096[LEVEL3_KERNEL]["registers"] == level3_profile["registers"],
          "본문: SASS·벤치마크·Nsight의 레지스터 수가 같다")
    check("LDS.128 R32, [R97]" in level3_excerpt and "LDS.128 R40, [R97+0x100]" in level3_excerpt and 0x100 == 64 * 4,
          "본문: 발췌의 [R97]과 [R97+0x100]은 HALF(float 64개)만큼 떨어진 두 반쪽")
    a_regs = {line.split(", ")[1] for line in reuse_run}
    loaded = {m.group(1): m.group(2) for line in level3_excerpt if (m := re.match(r"LDS\.128 (R\d+), \[(R\d+)", line))}
    check(len(reuse_run) >= 4 and loaded.get("R36") != "R97" and all(int(r[1:]) // 4 * 4 in (32, 40) for r in a_regs),
          "본문: 발췌의 FFMA가 잇달아 R36.reuse(B 값 하나)를 [R97]·[R97+0x100]에서 읽은 A 값들과 곱한다")
    check(s.ffma == padded_sass.ffma, "본문: 인라인 PTX를 쓴 패딩 변형도 FFMA 수가 같다")
    u1, np_ = unroll1_sass, no_pragma_sass
    check(u1.registers < s.registers and u1.spills > 0 and u1.stack == 4 * (64 + 8 + 8),
          "본문: unroll 1이면 레지스터는 줄고, 스택 320 B(acc·a·b)와 LDL/STL이 생긴다")
    check(np_.spills == 0 and np_.local_bytes == 0 and np_.ffma < s.ffma, "본문: pragma 삭제는 로컬 메모리 없이 FFMA가 준다")
    check((np_.ffma - 64) % 64 == 0 and 1 < (np_.ffma - 64) // 64 < 8, "본문: k 루프는 일부만 펼쳤다")


# ============================================================ Nsight Compute claims (profiles.json)
@f.claims
def nsight_level3(check):
    """The section on Level 3's Nsight Compute profile against Level 2, and the occupancy sentences."""
    rb, l2 = level3_profile, level2_profile
    check(rb["sectors_per_request"] == 16, "본문: 글로벌 로드는 요청당 16섹터 (완전히 코얼레싱된 128비트)")
    check(2 * N4 ** 3 / rb["dram_bytes"] > 5 * roofline.ai_block_global(128, 128) == 5 * 32,
          "본문: 실제 DRAM 바이트는 모델 (ii)보다 훨씬 적다 (측정 DRAM 기준 산술 강도가 32의 몇 배)")
    check(rb["global_ld_sectors"] * 32 == 2 * N4 ** 3 / 32 and rb["l1_hit_rate_pct"] < 5 and rb["l2_hit_rate_pct"] > 80,
          "본문: 요청한 바이트는 모델 (ii) 그대로이고 L1은 거의 놓치며, 줄여 준 것은 L2 (L2 적중률이 높다)")
    check(rb["ffma_instructions"] == l2["ffma_instructions"] and l2["instructions"] > 3 * rb["instructions"],
          "본문: FFMA 수는 같고 전체 명령 수는 Level 2가 몇 배")
    ffma_share = {key: p["ffma_instructions"] / 32 / p["instructions"] for key, p in (("rb", rb), ("l2", l2))}
    check(ffma_share["rb"] > 0.8 > 0.3 > ffma_share["l2"],
          "본문: Level 3은 명령의 대부분이 FFMA, Level 2는 일부뿐")
    lds_per_ffma = {key: p["smem_ld_instructions"] / p["ffma_instructions"] for key, p in (("rb", rb), ("l2", l2))}
    check(lds_per_ffma["l2"] > 10 * lds_per_ffma["rb"],
          "본문: FFMA 하나당 LDS는 Level 2가 훨씬 많다")
    check(rb["smem_ld_instructions"] / WARP_K_TILES == level3_sass.lds_widths["128"]
          and rb["smem_st_instructions"] / WARP_K_TILES == sum(level3_sass.sts_widths.values()),
          "본문: 워프·K 타일당 로드 32개, 스토어 5개 (SASS와 같다)")
    check(rb["theoretical_occupancy_pct"] == level3_occupancy.occupancy_pct == 25 and rb["achieved_occupancy_pct"] < 25,
          "본문: Nsight의 이론 점유율 25%는 계산과 같고, 달성 점유율은 그보다 조금 낮다")
    check(l2["theoretical_occupancy_pct"] == 100 and not 50 <= l2["achieved_occupancy_pct"] <= 75,
          "본문: Level 2의 점유율은 원 자료의 50–75%와 맞지 않는다")
    check(bench_4096[LEVEL2_KERNEL]["median_ms"] > bench_4096[LEVEL3_KERNEL]["median_ms"],
          "본문: 점유율 25%인 Level 3이 100%인 Level 2보다 빠르다")
    stalls = {k: v for k, v in rb["stalls"].items() if k != "Selected"}
    top5 = sorted(stalls, key=lambda k: -stalls[k])[:5]
    check(top5[0] == "Not Selected" and top5[1] == "Short Scoreboard" and {"Long Scoreboard", "Barrier"} <= set(top5),
          "본문: Not Selected가 가장 크고 그다음이 Short Scoreboard, Long Scoreboard와 Barrier가 상위 5개 안")
    check(rb["fma_pipe_pct"] < 70 and rb["issue_active_pct"] < 70,
          "본문: FMA 파이프와 명령 발행에 아직 빈자리가 있다 (둘 다 70% 미만)")
    level3_row = bench_4096[LEVEL3_KERNEL]
    ga10x = roofline.occupancy(256, level3_row["registers"], level3_row["smem_static"], "sm_86")
    check(roofline.ARCHS["sm_86"].max_warps_per_sm == 48 and round(ga10x.occupancy_pct, 1) == 33.3,
          "본문: GA10x(sm_86)는 SM당 워프 48개라 같은 2블록이 33.3%")
    check([roofline.ARCHS[a].smem_per_sm // 1024 for a in ("sm_80", "sm_86", "sm_90")] == [164, 100, 228],
          "본문: SM당 공유 메모리 A100 164 KiB, GA10x 100 KiB, H100 228 KiB")


# ============================================================ the padding lesson's SASS and Nsight claims
# Kept apart: the padding lesson rests on its own records (RB_PAD=4 under Nsight Compute and as a timed variant,
# tools/gpu/profiles_variants_stalls.sh); when its text changes, change this block with it.
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


def _store_conflicts_model(pitch):
    """Conflicts the store model predicts per warp and K tile: wavefronts above one per 32-bit store and above
    four per STS.128 (a 512-byte store takes four even without a conflict)."""
    lanes = range(32)
    extra = sum(_busiest([((t % 2) * 4 + i) * pitch + t // 2 for t in lanes]) - 1 for i in range(4))
    starts = [(t % 32) * 4 for t in lanes]
    if pitch % 4 == 0:
        return extra + _busiest([w + j for w in starts for j in range(4)]) - 4
    return extra + sum(_busiest([w + j for w in starts]) - 1 for j in range(4))


def store_excess(profile, pitch):
    """(measured − modelled) store wavefronts and (counted − modelled) store conflicts, per warp and K tile."""
    model_wf = _store_wavefronts(pitch) * profile["smem_st_instructions"] / WARP_K_TILES
    return (profile["smem_st_wavefronts"] / WARP_K_TILES - model_wf,
            profile["smem_st_bank_conflicts"] / WARP_K_TILES - _store_conflicts_model(pitch))


f.set("st_excess_rb", store_excess(level3_profile, 128)[0], ".1f")
f.set("st_excess_pad", store_excess(padded_profile, 129)[0], ".1f")


@f.claims
def store_excess_is_counted_as_conflicts(check):
    """The sentence on what the store model does not explain: in both kernels (and at pitch 132) the wavefronts
    above the model equal the conflicts Nsight counts above the model's, and the kernel's stores are the tile
    stash only (so no other store is mixed in)."""
    for profile, pitch in ((level3_profile, 128), (padded_profile, 129), (pitch132_profile, 132)):
        wf, conf = store_excess(profile, pitch)
        check(0 < wf < 2 and abs(wf - conf) < 0.05 * wf,
              f"본문: 모델보다 많은 스토어 웨이브프론트를 Nsight가 스토어 충돌로도 센다 (행 간격 {pitch})")
    check(level3_profile["smem_st_instructions"] / WARP_K_TILES == sum(level3_sass.sts_widths.values())
          and padded_profile["smem_st_instructions"] / WARP_K_TILES == sum(padded_sass.sts_widths.values()),
          "본문: 두 커널의 공유 메모리 스토어는 타일을 옮겨 담는 명령뿐이다 (Nsight의 스토어 수 = SASS의 STS 수)")


@f.claims
def padding_lesson(check):
    """The section on the +1 padded variant (pitch 129) against the base kernel, and the pitch-132 store model."""
    rb, pad = level3_profile, padded_profile
    store_rb, store_pad = _store_wavefronts(128), _store_wavefronts(129)
    check((store_rb, store_pad) == (2.4, 3.0), "본문: 스토어 모델은 명령당 2.4(기본)와 3.0(패딩)")
    check(0 < rb["smem_st_wavefronts_per_instruction"] - store_rb < 0.3
          and 0 < pad["smem_st_wavefronts_per_instruction"] - store_pad < 0.3, "본문: 측정값이 모델보다 조금 높다")
    check(padded_sass.sts_widths == {"32": 8} and "128" not in padded_sass.sts_widths,
          "본문: 패딩 변형의 B 스토어는 스칼라 4개로 쪼개진다")
    check("128" in padded_sass.lds_widths and len(padded_sass.lds_widths) > 1
          and sum(padded_sass.lds_widths.values()) > level3_sass.lds_widths["128"],
          "본문: 패딩 변형의 LDS는 여러 폭으로 섞이고 개수가 는다")
    check(level3_sass.registers < padded_sass.registers <= 128 and 80 < level3_sass.registers,
          "본문: 레지스터가 늘었지만 둘 다 81–128 구간")
    check(pad["theoretical_occupancy_pct"] == rb["theoretical_occupancy_pct"] == 25, "본문: 점유율은 똑같이 25%")
    check(pad["smem_ld_instructions"] / WARP_K_TILES == sum(padded_sass.lds_widths.values()),
          "본문: 워프·K 타일당 로드 수는 SASS와 같다")
    check(pad["smem_ld_wavefronts_per_instruction"] < rb["smem_ld_wavefronts_per_instruction"]
          and pad["smem_ld_wavefronts"] > rb["smem_ld_wavefronts"], "본문: 명령당 웨이브프론트는 줄고 합계는 늘었다")
    check(pad["smem_ld_bank_conflicts"] > 0.1 * pad["smem_ld_instructions"], "본문: 패딩 변형에는 로드 뱅크 충돌이 생겼다")
    check(pad["smem_st_wavefronts"] > 1.5 * rb["smem_st_wavefronts"], "본문: 스토어 웨이브프론트 합계가 크게 늘었다")
    check(pad["duration_ms"] > rb["duration_ms"]
          and bench_4096[PADDED_KERNEL]["median_ms"] > bench_4096[LEVEL3_KERNEL]["median_ms"],
          "본문: 4096³에서 패딩 변형이 느리다 (벤치마크와 Nsight 모두)")
    check(_store_wavefronts(132) == 1.6 and 0 < pitch132_profile["smem_st_wavefronts_per_instruction"] - 1.6 < 0.3,
          "본문: 행 간격 132의 스토어 모델은 명령당 1.6(A 스토어 각 1), 측정은 그보다 조금 높다")


# ============================================================ the quiz's numbers (course/quiz/banks/m07.yaml)
# The bank is data, not prose with {eval}: every recorded number a question quotes is checked here.
BOUNDS_3 = sass.variant("rb_launch_bounds_3", SOURCE, lambda text: text.replace(
    "__launch_bounds__(rb::THREADS)", "__launch_bounds__(rb::THREADS, 3)"))
bounds3_sass = sass.summarize(LEVEL3_KERNEL, "sm_90", variant=BOUNDS_3)
bounds3_loop = sass.main_loop(LEVEL3_KERNEL, "sm_90", variant=BOUNDS_3)    # where its spills land


@f.claims
def quiz_numbers(check):
    """Every recorded number a question of the bank quotes."""
    q5, q7, q8 = quiz_text(7, "m07-q05"), quiz_text(7, "m07-q07"), quiz_text(7, "m07-q08")
    regs = {k: bench_4096[k]["registers"] for k in (LEVEL3_KERNEL, PADDED_KERNEL)}
    check(f"{level3_profile['smem_ld_wavefronts_per_instruction']:.2f}" == "3.00" and "3.00" in q5 and "3.0이다" in q5,
          "퀴즈 m07-q05: 반 워프 모델 3.0, 측정 3.00")
    check(f"{regs[LEVEL3_KERNEL]}개" in q7 and f"{bounds3_sass.registers}개로" in q7 and bounds3_sass.registers == 80,
          "퀴즈 m07-q07: 기본 커널 104개, (256, 3)이면 80개")
    check(f"{bounds3_sass.stack} B의 스택" in q7 and f"{bounds3_sass.spills}개" in q7 and bounds3_sass.spills > 0,
          "퀴즈 m07-q07: (256, 3)이면 스택 144 B, LDL/STL 222개")
    check("가장 안쪽 루프에 메모리 접근을 끼워 넣는다" in q7
          and sum(inst.startswith(("LDL", "STL")) for inst in bounds3_loop) > 0
          and sum(inst.startswith("FFMA") for inst in bounds3_loop) == MICRO_FFMA,
          "퀴즈 m07-q07: (256, 3)의 스필 LDL/STL은 외적이 도는 주 루프 안에 있다")
    check(f"{regs[LEVEL3_KERNEL]}개" in q8 and f"{regs[PADDED_KERNEL]}개" in q8, "퀴즈 m07-q08: 기본 커널 104개, 패딩 변형 127개")
    q3 = quiz_text(7, "m07-q03")
    check(bench_4096[PADDED_KERNEL]["smem_static"] == 8256 and "8,256" in q3, "퀴즈 m07-q03: 패딩 변형 8,256 B")
    check("2048³과 4096³에서 기본 커널보다 느렸다(1024³에서는 조금 빨랐다)" in " ".join(q3.split())
          and all(bench.at(PADDED_KERNEL, n)["median_ms"] > bench.at(LEVEL3_KERNEL, n)["median_ms"] for n in (2048, 4096))
          and bench.at(PADDED_KERNEL, 1024)["median_ms"] < bench.at(LEVEL3_KERNEL, 1024)["median_ms"],
          "퀴즈 m07-q03: 패딩 변형은 2048³·4096³에서 느리고 1024³에서는 조금 빠르다")
    check("모두 사라지지는 않지만" in q3 and 0 < padded_sass.lds_widths.get("128", 0) < level3_sass.lds_widths["128"]
          and sum(padded_sass.lds_widths.values()) > level3_sass.lds_widths["128"]
          and padded_profile["smem_ld_wavefronts"] > level3_profile["smem_ld_wavefronts"]
          and bench_4096[PADDED_KERNEL]["median_ms"] > bench_4096[LEVEL3_KERNEL]["median_ms"],
          "퀴즈 m07-q03: +1 패딩은 LDS.128 일부만 잃고, 로드 명령·웨이브프론트가 늘어 더 느리다")
    db_profile = kernel_profiles["sgemm_double_buffer"]
    stalls = {k: v for k, v in level3_profile["stalls"].items() if k != "Selected"}
    profile_gpu = profile_record["device"].replace("NVIDIA ", "").split()[0]
    bench_gpu = bench_provenance["device"].replace("NVIDIA ", "").split()[0]
    profiled_cut = 100 * (1 - db_profile["duration_ms"] / level3_profile["duration_ms"])   # the profile's own times
    for quoted in (f"{profile_gpu}에서 잰 프로파일에서 명령을 낸 사이클은 {level3_profile['issue_active_pct']:.1f}%뿐",
                   f"{bench_gpu}의 벤치마크에서",
                   f"1024³에서는 일하는 SM 하나가 자기 FP32 최대의 {per_sm_pct_peak[1024]:.0f}%를",
                   f"4096³에서는 {per_sm_pct_peak[4096]:.0f}%를",
                   f"같은 {profile_gpu} 프로파일에서 명령을 낸 사이클을 {db_profile['issue_active_pct']:.1f}%로",
                   f"프로파일이 잰 커널 시간을 {profiled_cut:.0f}% 줄였다"):
        check(quoted in " ".join(q7.split()), f"퀴즈 m07-q07: 기록과 맞는 값 '{quoted}'")
    check(db_profile["M"] == level3_profile["M"] == N4,
          "퀴즈 m07-q07: 명령을 낸 사이클과 시간의 비는 같은 프로파일, 같은 크기(4096³)의 두 항목에서 나온다")
    check(max(stalls, key=stalls.get) == "Not Selected" and ready_warps(level3_profile) > 1
          and level3_profile["issue_active_pct"] < 70,
          "퀴즈 m07-q07: Not Selected가 가장 큰 스톨이어도 명령을 낸 사이클은 70%도 안 된다 (준비된 워프가 몰려 있다)")
    check(db_profile["theoretical_occupancy_pct"] == level3_profile["theoretical_occupancy_pct"] == 25
          and db_profile["issue_active_pct"] > level3_profile["issue_active_pct"]
          and db_profile["duration_ms"] < level3_profile["duration_ms"],
          "퀴즈 m07-q07: 더블 버퍼링은 같은 25% 점유율에서 명령을 낸 사이클을 올리고 (같은 프로파일의 시간으로) 더 빠르다")
    check(per_sm_pct_peak[1024] < per_sm_pct_peak[4096] and bounds3_sass.spills > 0,
          "퀴즈 m07-q07: 블록이 더 있으면 틈이 주지만(1024³ 대 4096³), 셋째 블록의 값은 스필")
    check(roofline.occupancy(256, 128, 8192, "sm_90").occupancy_pct == 25
          and roofline.occupancy(256, 129, 8192, "sm_90").occupancy_pct == 12.5, "퀴즈 m07-q04: 128개면 25%, 129개면 12.5%")
    check(f"`LDS.128` {level3_sass.lds_widths['128']}개 중 {padded_sass.lds_widths['128']}개만 남고" in q5
          and set(padded_sass.lds_widths) == {"128", "64", "32"}
          and padded_profile["smem_ld_bank_conflicts"] > 100 * level3_profile["smem_ld_bank_conflicts"],
          "퀴즈 m07-q05: +1 패딩은 LDS.128 32개 중 24개만 남기고, 나머지는 64·32비트, 로드 충돌이 새로 생긴다")


@f.absence("이 책에서도 재지 않았습니다")
def unroll_not_timed(check):
    """The source's "20–40% slower without unroll": no timing of an un-unrolled Level 3 exists in the records
    (the chapter only compiles those variants; the SASS record holds them, no benchmark or variant row)."""
    timed = ({r["kernel"] for r in bench.rows} | set(variant_record["variants"])
             | {r["variant"] for r in variant_record["rows"]})
    check(not any("unroll" in name or "pragma" in name for name in timed),
          "기록(benchmarks.json, variants.json)에 언롤을 뺀 Level 3의 시간이 없다")


@f.absence("측정되지 않은 주장입니다")
def source_claim_unmeasured(check):
    """The source material's "50–70% (A100)" is not a measurement of this course: no record was made on an A100."""
    devices = {bench_provenance["device"], profile_record["device"], variant_record["device"]}
    check(not any("A100" in d for d in devices), "기록(benchmarks, profiles, variants)에 A100에서 잰 값이 없다")


@f.claims
def padded_1024_reversal(check):
    """The sentence that the padded variant's direction flips only at 1024³ (benchmarks.json)."""
    slower = {n: bench.at(PADDED_KERNEL, n)["median_ms"] > bench.at(LEVEL3_KERNEL, n)["median_ms"]
              for n in (1024, 2048, 4096)}
    check(slower == {1024: False, 2048: True, 4096: True}, "본문: 1024³에서만 패딩 변형이 기본 커널보다 빠르다")
    check(level3_profile["M"] == padded_profile["M"] == 4096
          and level3_profile["duration_ms"] < padded_profile["duration_ms"]
          and profile_record["device"] != bench_provenance["device"],
          "본문: 프로파일 장치에서 Nsight Compute가 잰 4096³의 커널 시간도 패딩 변형이 길다 (벤치마크와 방향이 같다; "
          "두 기록의 장치는 이름으로 적는다)")


@f.absence("1024³의 프로파일은 기록에 없어")
def no_profile_at_1024(check):
    """No Nsight Compute profile of Level 3 or its padded variant at 1024³ (kernels, reference, supplements)."""
    entries = list(profile_record["kernels"]) + list(profile_record.get("reference", []))
    for supplement in profile_record.get("supplements", []):
        entries += supplement.get("same_run", [])
    check(not any(e["kernel"] in (LEVEL3_KERNEL, PADDED_KERNEL) and e.get("M") == 1024 for e in entries),
          "profiles.json에 1024³에서 잰 Level 3 또는 패딩 변형의 프로파일이 없다")


@f.absence("측정한 값이 아니고")
def source_level3_share_unmeasured(check):
    """The section's "50–70% (A100)": the same absence as the summary's, said where the figure is quoted."""
    devices = {bench_provenance["device"], profile_record["device"], variant_record["device"]}
    check(not any("A100" in d for d in devices), "기록(benchmarks, profiles, variants)에 A100에서 잰 값이 없다")
