"""Facts of module 10, continued: the SASS record (sm_90, course.facts.recorded_sass: nothing is compiled at
import) and the steps between levels that the chapter reads in it and in the other records: the FFMA, LDGSTS and
barrier counts of the SASS table, Level 4 → 5 in instructions and stalls, the shared loads Nsight Compute counts
(the never-true `@!PT LDS`), the barrier wait per barrier, Level 5's per-instruction stall samples
(source_stalls.json) and Level 6's less unrolled loop in its tuner (level6_tuning.json).

Every fact and claim is declared on course.facts.m10's `f`; course.facts.m10 imports this module at its end.
"""
from __future__ import annotations

import json

from course.facts.m10_core import (L5_PLAN, L6_PLAN, LEVEL5, LEVEL6, LEVELS, PASSIVE_STALLS, REPRESENTATIVE, SIZE,
                              benchmark_record, copy_plan, f, ffma_share, profile_of, profile_record, stall_total_of,
                              tuning_record, warps_launched, wavefronts_per_instruction)
from course.facts.recorded_sass import sass
from kernels import registry
from kernels.record import DATA_DIR

# ---------------------------------------------------------------------------------------------------------
# SASS (sm_90), from the SASS record. Every SASS question is asked here at import, even those only the claims
# read: `python -m course.facts.recorded_sass --write` records what the import asks.
sass_of = {lv: sass.summarize(REPRESENTATIVE[lv], "sm_90") for lv in LEVELS}
# Never-true `@!PT LDS RZ, [RZ]` the compiler puts before each tile's copies (kernels/sass.py drops them
# from its counts; Nsight Compute counts them)
DUMMY_LDS = r"@!PT\s+LDS\b"
dummy_lds_of = {lv: sass.count_lines(REPRESENTATIVE[lv], DUMMY_LDS, "sm_90") for lv in (3, 4, 5, 6)}
level5_barrier_lines = sass.excerpt(REPRESENTATIVE[5], "sm_90", pattern=r"LDGDEPBAR|DEPBAR", limit=8).splitlines()

f.set("L3_sass_ffma", sass_of[3].ffma, "d")
f.set("L3_sass_ldg_c", sass_of[3].counts.get("LDG.E.128", 0), "d")
f.set("L4_sass_ffma", sass_of[4].ffma, "d")
f.set("L5_sass_ffma", sass_of[5].ffma, "d")
f.set("L6_sass_ffma", sass_of[6].ffma, "d")
# Level 6's main loop alone (the loop holding the most FFMAs): its FFMA and all its instructions, 16 B each on sm_90
L6_LOOP_FFMA, L6_LOOP_INSTRUCTIONS = sass.loop_counts(REPRESENTATIVE[6], "sm_90")
f.set("L6_loop_ffma", L6_LOOP_FFMA, ",d")
f.set("L6_loop_instr", L6_LOOP_INSTRUCTIONS, ",d")
f.set("L6_loop_kib", L6_LOOP_INSTRUCTIONS * 16 / 1024, ".0f")
f.set("L5_bk", LEVEL5["BK"], "d")
f.set("L6_bk", LEVEL6["BK"], "d")
f.set("L6_tile_ffma", LEVEL6["TM"] * LEVEL6["TN"], "d")
f.set("L6_stages", LEVEL6["STAGES"], "d")
f.set("L6_warp_tile", f"{LEVEL6['WM']}×{LEVEL6['WN']}")
f.set("L6_lds_per_k", LEVEL6["TM"] // 4 + LEVEL6["TN"] // 4, "d")
# Level 4's K tile from its shared memory: two buffers of BK × (BM + BN) floats
LEVEL4_BK = registry.KERNELS[REPRESENTATIVE[4]].static_smem // (2 * (128 + 128) * 4)
f.set("bk_ratio_54", LEVEL5["BK"] // LEVEL4_BK, "d")


@f.claims
def sass_counts(check):
    s = sass_of
    check(LEVEL4_BK == 8 and LEVEL5["BK"] % LEVEL4_BK == 0, "본문: Level 4의 BK는 8, Level 5는 그 배수")
    check(s[3].ffma == 512 + 64 and s[4].ffma == 2 * 512 + 64, "본문의 FFMA 내역 (Level 3–4)")
    check(s[5].ffma == LEVEL5["BK"] * 64 + 64, "본문의 FFMA 내역 (Level 5: BK × 64 + 에필로그 64)")
    check(s[6].ffma == LEVEL6["BK"] * LEVEL6["TM"] * LEVEL6["TN"] + LEVEL6["TM"] * LEVEL6["TN"],
          "본문의 FFMA 내역 (Level 6)")
    check(L6_LOOP_FFMA == LEVEL6["BK"] * LEVEL6["TM"] * LEVEL6["TN"] < s[6].ffma and L6_LOOP_INSTRUCTIONS > L6_LOOP_FFMA,
          "본문: Level 6의 주 루프는 FFMA BK × 128개(커널 전체의 것보다 에필로그만큼 적다)를 포함한 명령들")
    check(s[5].counts.get("LDGSTS.E", 0) > 0 and s[5].counts.get("LDGSTS.E.BYPASS.128", 0) > 0
          and not any(op.startswith("STS") for op in s[5].counts), "본문: Level 5는 4 B와 16 B LDGSTS, STS 없음")
    check(all(s[lv].spills == 0 for lv in (3, 4, 5, 6)), "본문: 스필 없음")
    # Long Scoreboard of a cp.async kernel: wait_group compiles to DEPBAR.LE SB0, N, a wait on the scoreboard
    # the LDGSTS raise (an L1TEX dependency), so its wait is counted as Long Scoreboard (the text says so)
    check(any(x.startswith("LDGDEPBAR") for x in level5_barrier_lines)
          and any(x.startswith("DEPBAR.LE SB0, 0x0") for x in level5_barrier_lines),
          "본문: 커밋은 LDGDEPBAR, 대기는 스코어보드 SB0을 기다리는 DEPBAR.LE")
    # The SASS table's sentences (Levels 0-2 and 6)
    check(s[0].counts.get("LDG.E.CONSTANT", 0) > s[0].counts.get("LDG.E", 0) > 0 and s[0].ldg_128 == 0,
          "본문: Level 0은 32비트 LDG.E, 대부분 .CONSTANT")
    check(s[1].ldg_128 > 0 and s[1].ldg_32 == 0, "본문: Level 1은 float4의 LDG.E.128")
    check(s[2].sts_widths and s[2].lds_widths.get("128", 0) > 0 and any(op.startswith("BAR") for op in s[2].counts),
          "본문: Level 2는 LDG → STS → BAR → LDS, As[ty][k]는 LDS.128로")
    check(s[6].counts.get("LDGSTS.E", 0) > 0 and s[6].counts.get("LDGSTS.E.BYPASS.128", 0) > 0 and not s[6].sts_widths,
          "본문: Level 6도 같은 두 가지 LDGSTS, 타일용 STS 없음")
    check(all(summary.spills == 0 for summary in s.values()), "본문: 어느 레벨에도 LDL/STL이 없다")
    check(s[3].counts.get("LDG.E.128", 0) == 2 * 8, "본문: .CONSTANT 없는 LDG.E.128은 C를 읽는 에필로그(8행 × 2)")


# ---------------------------------------------------------------------------------------------------------
# Level 4 → 5 in instructions: the FMA pipe is issue-active × FFMA share; the stall total (Selected 1 +
# Not Selected + active stalls) grew through Not Selected while the active stalls fell
def active_stall_cycles(e):
    """Cycles per instruction a warp spent in an active stall (every state but Selected and Not Selected)."""
    return sum(v or 0 for k, v in e["stalls"].items() if k not in PASSIVE_STALLS)


def ready_warps(e):
    """Mean eligible warps per cycle: in an issue cycle the selected warp plus the Not Selected ones, else none."""
    return e["issue_active_pct"] / 100 * (1 + e["stalls"]["Not Selected"])


for lv in (4, 5):
    f.set(f"L{lv}_active_raw", active_stall_cycles(profile_of[lv]), ".2f")
    f.set(f"L{lv}_ready", ready_warps(profile_of[lv]), ".2f")
    f.set(f"L{lv}_idle_pct", 100 - profile_of[lv]["issue_active_pct"], ".1f")


@f.claims
def level4_to_5_in_instructions(check):
    p4, p5 = profile_of[4], profile_of[5]
    fma_estimate = {lv: profile_of[lv]["issue_active_pct"] * ffma_share(profile_of[lv]) / 100 for lv in (4, 5)}
    check(abs(fma_estimate[5] - fma_estimate[4]) < 2, "본문: 발행 활성 × FFMA 비중은 Level 4와 5에서 거의 같다")
    check(active_stall_cycles(p5) < active_stall_cycles(p4), "본문: 능동 스톨의 합은 Level 5가 오히려 적다")
    rises = sum(max(0.0, (p5["stalls"].get(k) or 0) - (p4["stalls"].get(k) or 0))
                for k in p5["stalls"] if k not in PASSIVE_STALLS)
    check(p4["stalls"]["Short Scoreboard"] - p5["stalls"]["Short Scoreboard"] > rises > 0,
          "본문: Short Scoreboard가 줄어든 몫이 MIO Throttle 같은 몇 항목이 늘어난 몫보다 크다")
    check(p5["stalls"]["MIO Throttle"] > p4["stalls"]["MIO Throttle"], "본문: MIO Throttle은 늘었다")
    check(stall_total_of[5] > stall_total_of[4]
          and p5["stalls"]["Not Selected"] - p4["stalls"]["Not Selected"] > stall_total_of[5] - stall_total_of[4],
          "본문: 합계를 늘린 것은 Not Selected")
    check(ready_warps(p5) > ready_warps(p4) and p5["issue_active_pct"] < p4["issue_active_pct"],
          "본문: 사이클당 준비된 워프의 평균은 늘었는데 준비된 워프가 없는 사이클도 늘었다")
    check(abs(p5["achieved_occupancy_pct"] / p4["achieved_occupancy_pct"] - 1) < 0.01,
          "본문(전제): 두 커널의 스케줄러당 워프 수가 같아야 합계의 변화가 발행 활성의 변화다")


# ---------------------------------------------------------------------------------------------------------
# Shared-load instructions: Nsight Compute (smsp__inst_executed_op_shared_ld) against the SASS, whose
# counts leave out the dummy `@!PT LDS` (one group of them per tile's copies)
def copies_per_tile(plan) -> int:
    """cp.async instructions one thread issues for one tile (256 threads)."""
    return copy_plan(*plan)[0] // (256 // 32)


def copy_sites(lv, plan):
    """Places in the kernel's code where a whole tile is copied: the LDGSTS count over one tile's copies."""
    return sass_of[lv].ldgsts // copies_per_tile(plan)


_dummy_per_site = {lv: dummy_lds_of[lv] / copy_sites(lv, plan) for lv, plan in ((5, L5_PLAN), (6, L6_PLAN))}
DUMMY_PER_SITE = int(_dummy_per_site[5])
LDS128_PER_K = {5: 4, 6: LEVEL6["TM"] // 4 + LEVEL6["TN"] // 4}           # LDS.128 per k step of one thread
REAL_LDS_PER_WARP = {5: SIZE * LDS128_PER_K[5], 6: SIZE * LDS128_PER_K[6] + LDS128_PER_K[6]}   # 4096³
TILES = {5: SIZE // LEVEL5["BK"], 6: SIZE // LEVEL6["BK"]}
for lv in (5, 6):
    f.set(f"L{lv}_ld_wpi_real",
          profile_of[lv]["smem_ld_wavefronts"] / (warps_launched(profile_of[lv]) * REAL_LDS_PER_WARP[lv]), ".2f")
f.set("dummy_per_site", DUMMY_PER_SITE, "d")
f.set("L5_lds_real", f"{REAL_LDS_PER_WARP[5]:,}")
f.set("L5_lds_dummy", DUMMY_PER_SITE * TILES[5], "d")
f.set("n_tiles_l5", TILES[5], "d")


@f.claims
def shared_load_instructions(check):
    for lv, plan in ((5, L5_PLAN), (6, L6_PLAN)):
        check(sass_of[lv].ldgsts % copies_per_tile(plan) == 0,
              f"본문(계산의 전제): Level {lv}의 LDGSTS 수는 한 타일 복사 묶음의 배수")
    check(_dummy_per_site[5] == _dummy_per_site[6] and float(_dummy_per_site[5]).is_integer(),
          "본문: 복사 묶음마다 같은 수의 @!PT LDS")
    check(dummy_lds_of[4] == dummy_lds_of[3] == 0, "본문: Level 3·4에는 그런 명령이 없다")
    check(sass_of[5].lds_widths == {"128": LEVEL5["BK"] * LDS128_PER_K[5]}
          and sass_of[6].lds_widths == {"128": (LEVEL6["BK"] + 1) * LDS128_PER_K[6]},
          "LDS.128: Level 5는 한 타일, Level 6은 한 타일 + 루프 앞 한 k 스텝")
    for lv in (5, 6):
        e = profile_of[lv]
        check(e["smem_ld_instructions"] == warps_launched(e) * (REAL_LDS_PER_WARP[lv] + DUMMY_PER_SITE * TILES[lv]),
              f"본문: Nsight의 공유 로드 명령 = 워프 × (LDS.128 + 타일마다 @!PT LDS) (Level {lv})")
    p3, p4, p5 = profile_of[3], profile_of[4], profile_of[5]
    check(abs(p5["smem_ld_wavefronts"] / (warps_launched(p5) * REAL_LDS_PER_WARP[5])
              - wavefronts_per_instruction(p4, "ld")) < 0.01,
          "본문: 실제 LDS.128로 나누면 Level 5의 명령당 웨이브프론트는 Level 3·4와 같다")
    check(abs(wavefronts_per_instruction(p3, "ld") - wavefronts_per_instruction(p4, "ld")) < 0.01,
          "본문: Level 3과 Level 4의 명령당 로드 웨이브프론트는 같다(Level 5를 견주는 기준)")
    check(wavefronts_per_instruction(p5, "ld") < wavefronts_per_instruction(p4, "ld") - 0.03,
          "본문: Nsight의 수로 나누면 Level 5의 값이 조금 작다")


# ---------------------------------------------------------------------------------------------------------
# Barrier wait per barrier: the stall per instruction × instructions per warp ÷ barriers per warp (one per K
# tile, plus Level 4's prologue barrier; both read from the SASS counts: BAR sites)
def barrier_sites(lv) -> int:
    return sum(n for op, n in sass_of[lv].counts.items() if op.startswith("BAR"))


def barriers_per_warp(lv, bk):
    return SIZE // bk + (barrier_sites(lv) - 1)          # the loop's barrier once per tile, any other site once


def barrier_wait(lv, bk):
    e = profile_of[lv]
    return e["stalls"]["Barrier"] * (e["instructions"] / warps_launched(e)) / barriers_per_warp(lv, bk)


barrier_wait_ratio_54 = barrier_wait(5, LEVEL5["BK"]) / barrier_wait(4, LEVEL4_BK)
f.set("bar_wait_ratio", barrier_wait_ratio_54, ".1f")


@f.claims
def barrier_waits(check):
    check(barrier_sites(4) == 2 and barrier_sites(5) == 1, "Level 4: 프롤로그와 루프, Level 5: 루프의 배리어")
    check(barrier_sites(2) == barrier_sites(3) == 2,
          "본문: Level 2와 3은 타일마다 배리어 두 번(Level 4는 루프에 한 번, 사전 복습 1과 Level 2의 스톨)")
    smem = {lv: registry.KERNELS[REPRESENTATIVE[lv]].static_smem for lv in (3, 4)}
    check(smem[4] == 2 * (8 * 128 + 8 * 128) * 4 == 2 * smem[3] == 16_384,
          "본문(사전 복습 1): Level 4의 공유 메모리는 Level 3의 두 배인 2 × (8 × 128 + 8 × 128) × 4 B = 16,384 B")
    check(abs(barriers_per_warp(5, LEVEL5["BK"]) / barriers_per_warp(4, LEVEL4_BK) - 0.25) < 0.01,
          "본문: Level 5의 배리어는 Level 4의 4분의 1")
    check(abs(profile_of[5]["stalls"]["Barrier"] - profile_of[4]["stalls"]["Barrier"]) < 0.05
          and barrier_wait_ratio_54 > 3,
          "본문: Barrier 스톨은 같고, 배리어 한 번의 기다림은 몇 배 길다")


# ---------------------------------------------------------------------------------------------------------
# Per-instruction stall samples: only module 9's Level 5 (16-byte variant) was recorded (source_stalls.json)
source_stalls_record = json.loads((DATA_DIR / "source_stalls.json").read_text(encoding="utf-8"))
_source_kernels = {k["kernel"]: k for k in source_stalls_record["kernels"]}
_source_level5 = _source_kernels[REPRESENTATIVE[5]]
f.set("src_bar_pct", 100 * _source_level5["stall_totals"]["stall_barrier"] / _source_level5["samples"], ".1f")
f.set("src_lsb_pct", _source_level5["long_scoreboard_share_pct"], ".1f")


_ls_samples = _source_level5["stall_totals"]["stall_long_sb"]
_ls_after_depbar = sum(d["next_long_scoreboard"] for d in _source_level5["depbar"])
f.set("src_ls_after_depbar_pct", 100 * _ls_after_depbar / _ls_samples, ".0f")
f.set("src_ls_after_ldgsts_pct", 100 * _source_level5["long_scoreboard_within_2_after_ldgsts"] / _ls_samples, ".0f")


@f.claims
def source_samples_of_level5(check):
    check(_ls_after_depbar < 0.1 * _ls_samples < _source_level5["long_scoreboard_within_2_after_ldgsts"],
          "본문: Level 5의 Long Scoreboard 샘플은 wait_group 다음 명령에 조금, LDGSTS 바로 뒤(WAR)에 대부분")
    check(_source_level5["long_scoreboard_within_2_after_ldgsts"] > 0.8 * _ls_samples,
          "본문: LDGSTS 바로 뒤 두 명령이 Long Scoreboard 샘플의 대부분")
    check(_source_level5["stall_totals"]["stall_barrier"] > 3 * _source_level5["stall_totals"]["stall_long_sb"],
          "본문: Level 5의 명령별 샘플에서 Barrier가 Long Scoreboard보다 훨씬 많다")


@f.absence("Level 4의 명령별 샘플은 기록에 없으니")
def no_source_samples_for_level4(check):
    check(set(_source_kernels) == {REPRESENTATIVE[5]},
          "본문: source_stalls.json에는 Level 5(16 B 변형)의 샘플만 있다")


@f.absence("Level 3과 4의 명령별 샘플이 기록에 없어")
def no_source_samples_for_levels_3_and_4(check):
    check(not {REPRESENTATIVE[3], REPRESENTATIVE[4]} & set(_source_kernels),
          "본문: source_stalls.json에 Level 3과 4의 명령별 샘플이 없다")


@f.claims
def source_sol_claims_never_measured_here(check):
    devices = {profile_record["device"], benchmark_record.provenance["device"], tuning_record["device"],
               source_stalls_record["device"]}
    check(not any("A100" in d for d in devices), "본문(표의 주석): 원 자료의 주장은 A100의 예상치이고, 이 장의 기록에 A100은 없다")
    check(source_stalls_record["device"] == profile_record["device"],
          "본문(표의 주석): 명령별 샘플(source_stalls.json)은 프로파일과 같은 장치에서 잰 것")
    same = ("sm_count", "clock_mhz", "fp32_lanes_per_sm", "peak_gflops")
    check(all(profile_record[k] == benchmark_record.provenance[k] for k in same),
          "본문: 프로파일의 GPU와 벤치마크의 GPU는 SM 수와 최대 클럭이 같아 FP32 지붕이 같다")


# Level 6's tuner (level6_tuning.json): the configuration with a less unrolled loop (ROLL 2) against the shipped one
level6_tuning_record = json.loads((DATA_DIR / "level6_tuning.json").read_text(encoding="utf-8"))
_l6_shipped = next(c for c in level6_tuning_record["configs"] if c["config"] == level6_tuning_record["chosen"])
_l6_roll = next(c for c in level6_tuning_record["configs"]
                if {k: v for k, v in c["config"].items() if LEVEL6.get(k) != v} == {"ROLL": 2})
_pct_at = {name: {r["M"]: r["pct_cublas"] for r in entry["rows"]} for name, entry in (("base", _l6_shipped),
                                                                                     ("roll", _l6_roll))}
f.set("l6_roll_4096", _pct_at["roll"][SIZE], ".1f")
f.set("l6_base_4096", _pct_at["base"][SIZE], ".1f")


# The profile's time against a timing of the same kernel on the same device, outside Nsight: Level 6's tuner
# timed the shipped configuration on the profile's GPU, so the profile's clock (--clock-control none) can be
# checked against it.
_l6_tuned = next(r for r in _l6_shipped["rows"] if r["M"] == r["N"] == r["K"] == SIZE)
_l6_tuned_ms = _l6_tuned["median_ms"]
f.set("L6_ms_same_device", _l6_tuned_ms, ".2f")
f.set("l6_tuning_device", level6_tuning_record["device"])
# The profile's own reading of the SM clock while Level 6 ran (sm__cycles_elapsed.avg.per_second), beside the
# GPU's maximum SM clock the record states.
f.set("L6_sm_clock_mhz", profile_of[6]["sm_clock_hz"] / 1e6, ",.0f")
f.set("profile_clock_mhz", profile_record["clock_mhz"], ",.0f")


@f.claims
def profile_time_against_a_timing_on_its_device(check):
    check(level6_tuning_record["device"] == profile_record["device"]
          and level6_tuning_record["git_commit"] == profile_record["git_commit"]
          and profile_of[6]["kernel"] == _l6_tuned["kernel"]
          and profile_of[6]["registers"] == _l6_tuned["registers"]
          and profile_of[6]["smem_dynamic"] == _l6_tuned["smem_dynamic"],
          "본문: level6_tuning.json은 프로파일과 같은 장치, 같은 커밋에서 같은 구성(배포된 Level 6: 레지스터와 동적 "
          "공유 메모리가 같다)을 잰 기록")
    check(abs(profile_of[6]["duration_ms"] / _l6_tuned_ms - 1) < 0.03,
          "본문: 프로파일 속 Level 6의 시간 ≈ 같은 장치에서 튜너가 잰 Level 6의 시간 (3% 안)")
    check(level6_tuning_record["timing"] == "median of CUDA-event timings after warm-up",
          "본문: 튜너는 워밍업 뒤 호출마다 이벤트를 두른 이전 방식으로 쟀다")
    check(abs(profile_of[6]["sm_clock_hz"] / 1e6 / profile_record["clock_mhz"] - 1) < 0.02
          and all(abs(e["sm_clock_hz"] / 1e6 / profile_record["clock_mhz"] - 1) < 0.02 for e in profile_record["kernels"]),
          "본문: 프로파일이 잰 SM 클럭은 Level 6(과 프로파일한 커널 모두)에서 최대 클럭의 2% 안")


@f.claims
def a_less_unrolled_loop_was_slower(check):
    check(level6_tuning_record["chosen"] == LEVEL6, "본문: 튜너가 고른 구성이 배포된 Level 6")
    check(all(_pct_at["roll"][n] < _pct_at["base"][n] - 1.5 for n in (SIZE, 8192)),
          "본문: 루프를 덜 펼친 구성(ROLL 2)은 배포 구성보다 느렸다 (No Instruction을 코드 크기 하나로 단정할 수 없다)")
